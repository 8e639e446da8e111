/**
 * The reader of failures in report.json files written before failures carried `kind` and `field`
 * (a report merged from old shards, a `vapc report` of an old run). Such a failure is prose only,
 * so this module, and only this one, reads the prose: the baseline kind and the SARIF field the
 * old wording implies. A failure that carries `kind` never comes here.
 */
import { normalisePointer, type Failure } from './model.js';

/** A field as the old prose names it: where (when it says) and the property path. */
export interface LegacyField {
  location?: string;
  status?: string;
  segments: string[];
}

const SCHEMA_ISSUE = /^(?:(body|header|headers|query|path|cookie)\s+)?(\/\S*)\s+(must\b.*)$/;
const STATUS = /^(?:status|accepted with|answered|got)\s+([1-5])\d\d\b/i;

/** Drops the value part of a schema issue: ", got 42", ', got "0"', and quoted enum values. */
function ruleOf(text: string): string {
  return text
    .replace(/,\s*got\b.*$/s, '')
    .replace(/\s*\(.*\)\s*$/s, '')
    .trim();
}

/**
 * The baseline kind of one old issue line (an old failure's `actual` may join several with "; "):
 * `status:4xx`, `<where> <pointer> must <rule>` (indices as `*`, values dropped), `no-response`,
 * `content-type`, `invalid-json`, else `mismatch`.
 */
export function legacyKindOfIssue(issue: string): string {
  const text = issue.trim().replace(/\s+/g, ' ');
  const schema = SCHEMA_ISSUE.exec(text);
  if (schema) {
    const [, where, pointer, rule] = schema;
    const ptr = normalisePointer(pointer!);
    return `${where ? `${where} ` : ''}${ptr} ${ruleOf(rule!)}`;
  }
  const status = STATUS.exec(text);
  if (status) return `status:${status[1]}xx`;
  if (/^content[- ]type\b/i.test(text)) return 'content-type';
  if (/\bJSON\b/.test(text) && /\b(position|parse|unexpected|invalid)\b/i.test(text)) return 'invalid-json';
  if (/^(no response|timed? ?out|timeout|connection (reset|refused|closed))/i.test(text)) return 'no-response';
  return 'mismatch';
}

/** The baseline kinds of one old failure, sorted and without repeats. */
export function legacyKindsOfFailure(failure: Pick<Failure, 'actual' | 'response'>): string[] {
  const actual = String(failure.actual ?? '');
  const parts = actual.split(/;\s+/).filter((p) => p.trim() !== '');
  const kinds = parts.length === 0 ? [failure.response ? 'mismatch' : 'no-response'] : parts.map(legacyKindOfIssue);
  return [...new Set(kinds)].sort();
}

// A response-schema issue as the validators word it: `body /0/duration_seconds must be ...`,
// `body /0 must have required property 'to_number'`.
const RESPONSE_ISSUE = /\bbody (\/\S*|\/) must (?:have required property '([^']+)')?/;

/**
 * The field an old failure names: a structured invalid case in `input` ({location, loc|field});
 * else `field=value` at the start of its expectation; else the first response-body issue of its
 * actual answer.
 */
export function legacyFieldOf(failure: Failure): LegacyField | undefined {
  const input = failure.input;
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const i = input as Record<string, unknown>;
    const loc = Array.isArray(i['loc']) ? i['loc'].filter((s): s is string => typeof s === 'string') : [];
    const segments = loc.length > 0 ? loc : typeof i['field'] === 'string' ? i['field'].split('.') : [];
    if (segments.length > 0)
      return typeof i['location'] === 'string' ? { location: i['location'], segments } : { segments };
  }
  const named = /^([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)=/.exec(failure.expected ?? '');
  if (named) return { segments: named[1]!.split('.') };
  const issue = failure.response ? RESPONSE_ISSUE.exec(failure.actual ?? '') : null;
  if (!issue) return undefined;
  const segments = issue[1]!
    .split('/')
    .slice(1)
    .filter((s) => s !== '' && !/^\d+$/.test(s))
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (issue[2]) segments.push(issue[2]);
  return segments.length > 0 ? { location: 'response', status: String(failure.response!.status), segments } : undefined;
}
