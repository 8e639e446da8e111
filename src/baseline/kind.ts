import type { CheckResult, Failure } from '../results/model.js';

/**
 * The kind of a failure: a short category that names WHAT went wrong without the values the run
 * generated, so that the same deviation gets the same kind whatever the seed, the number of runs
 * or the data the server holds. A finding's signature is (check id, operation, kind).
 *
 * The kinds, derived from how the suites phrase `actual`:
 * - `status:4xx` (and 2xx, 5xx ...): the server answered with a status of the wrong class
 *   ("status 400", "accepted with 201"); the class, not the code, so 400 and 409 stay one kind;
 * - `<where> <pointer> must <rule>`: a schema issue as the validators phrase it, array indices
 *   replaced by `*` and the offending value ("got ...") dropped, e.g.
 *   `body /*\/duration_seconds must be integer or null`, `/ must have required property 'detail'`;
 * - `no-response`: the request got no answer (timeout, reset);
 * - `content-type`, `invalid-json`: the body was not the JSON the contract states;
 * - `mismatch`: anything else; the check id already says what was compared, and what the server
 *   sent instead (an echoed value, a count) depends on the data, so it is not part of the kind.
 */
export type FindingKind = string;

const SCHEMA_ISSUE = /^(?:(body|header|headers|query|path|cookie)\s+)?(\/\S*)\s+(must\b.*)$/;
const STATUS = /^(?:status|accepted with|answered|got)\s+([1-5])\d\d\b/i;

/** Drops the value part of a schema issue: ", got 42", ', got "0"', and quoted enum values. */
function ruleOf(text: string): string {
  return text
    .replace(/,\s*got\b.*$/s, '')
    .replace(/\s*\(.*\)\s*$/s, '')
    .trim();
}

/** The kind of one issue line (a failure's `actual` may join several with "; "). */
export function kindOfIssue(issue: string): FindingKind {
  const text = issue.trim().replace(/\s+/g, ' ');
  const schema = SCHEMA_ISSUE.exec(text);
  if (schema) {
    const [, where, pointer, rule] = schema;
    const ptr = pointer!.replace(/\/\d+(?=\/|$)/g, '/*');
    return `${where ? `${where} ` : ''}${ptr} ${ruleOf(rule!)}`;
  }
  const status = STATUS.exec(text);
  if (status) return `status:${status[1]}xx`;
  if (/^content[- ]type\b/i.test(text)) return 'content-type';
  if (/\bJSON\b/.test(text) && /\b(position|parse|unexpected|invalid)\b/i.test(text)) return 'invalid-json';
  if (/^(no response|timed? ?out|timeout|connection (reset|refused|closed))/i.test(text)) return 'no-response';
  return 'mismatch';
}

/** The kinds of one failure, sorted and without repeats. */
export function kindsOfFailure(failure: Pick<Failure, 'actual' | 'response'>): FindingKind[] {
  const actual = String(failure.actual ?? '');
  const parts = actual.split(/;\s+/).filter((p) => p.trim() !== '');
  const kinds = parts.length === 0 ? [failure.response ? 'mismatch' : 'no-response'] : parts.map(kindOfIssue);
  return [...new Set(kinds)].sort();
}

/** The kinds of a failed result across all its failures (a result without details: from its message). */
export function kindsOfResult(result: Pick<CheckResult, 'status' | 'failures' | 'message'>): FindingKind[] {
  if (result.status !== 'failed') return [];
  const failures = result.failures && result.failures.length > 0 ? result.failures : [{ actual: result.message }];
  return [...new Set(failures.flatMap((f) => kindsOfFailure(f)))].sort();
}
