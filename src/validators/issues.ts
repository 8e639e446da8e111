/** Validation findings as data, and the sentences people read. */

/**
 * The fields of an AJV error object that issues read: structurally AJV's `ErrorObject`, declared
 * here so the validators' published types need no `ajv` (the validators package has no dependencies).
 */
export interface ErrorObject {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  data?: unknown;
  parentSchema?: unknown;
}

export interface ValidationIssue {
  /** JSON Pointer inside the validated value ('' = root), e.g. '/max_concurrency'. */
  pointer: string;
  /** Set by validateRequest/validateResponse: which part of the message the pointer is in. */
  location?: 'path' | 'query' | 'header' | 'body';
  /** The rule broken: an AJV keyword (type, minimum, maximum, enum, required, format, ...) or one
   * of json, cycle, depth, size (input that is not JSON) and status (undocumented response status). */
  rule: string;
  /** What the rule asks for: 200 for maximum, the allowed values for enum, 'integer' for type. */
  expected?: unknown;
  /** The offending value (absent for required; '[redacted]' for fields marked x-secret). */
  actual?: unknown;
  /** '/max_concurrency must be <= 200, got 201' */
  message: string;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

export { REDACTED } from '../secrets/index.js';
import { REDACTED } from '../secrets/index.js';

/** A short rendering of a value for a message: JSON, cut at 80 characters. */
export function show(value: unknown): string {
  let text: string;
  try {
    text = value === undefined ? 'undefined' : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function list(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => (typeof v === 'string' ? v : show(v))).join(', ') : show(values);
}

function isSecret(error: ErrorObject): boolean {
  const schema = error.parentSchema as Record<string, unknown> | undefined;
  return schema?.['x-secret'] === true;
}

/** One AJV error as an issue; `prefix` names the location in the message ('query ', 'body ', ''). */
export function issueFromAjv(error: ErrorObject, prefix = ''): ValidationIssue {
  const pointer = error.instancePath;
  const at = `${prefix}${pointer || '/'}`;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
      return {
        pointer,
        rule: error.keyword,
        expected: p['missingProperty'],
        message: `${at} must have required property '${String(p['missingProperty'])}'`,
      };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(p['additionalProperty'] ?? p['unevaluatedProperty']);
      return {
        pointer,
        rule: error.keyword,
        expected: false,
        actual: name,
        message: `${at} must not have additional property '${name}'`,
      };
    }
  }
  const secret = isSecret(error);
  const { expected, text } = valueRule(error, secret ? REDACTED : show(error.data));
  const issue: ValidationIssue = { pointer, rule: error.keyword, message: `${at} ${text}` };
  if (expected !== undefined) issue.expected = expected;
  issue.actual = secret ? REDACTED : error.data;
  return issue;
}

/** What a rule on the value asks for, and the sentence saying the value breaks it (`got`: the value as shown, or redacted). */
function valueRule(error: ErrorObject, got: string): { expected?: unknown; text: string } {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const types = String(p['type']).split(',');
      return { expected: types.length === 1 ? types[0] : types, text: `must be ${types.join(' or ')}, got ${got}` };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { expected: p['limit'], text: `must be ${String(p['comparison'])} ${show(p['limit'])}, got ${got}` };
    case 'enum':
      return { expected: p['allowedValues'], text: `must be one of ${list(p['allowedValues'])}, got ${got}` };
    case 'const':
      return { expected: p['allowedValue'], text: `must be ${show(p['allowedValue'])}, got ${got}` };
    case 'minLength':
    case 'maxLength':
      return {
        expected: p['limit'],
        text: `must have ${error.keyword === 'minLength' ? 'at least' : 'at most'} ${String(p['limit'])} characters, got ${got}`,
      };
    case 'minItems':
    case 'maxItems': {
      const count = Array.isArray(error.data) ? error.data.length : got;
      return {
        expected: p['limit'],
        text: `must have ${error.keyword === 'minItems' ? 'at least' : 'at most'} ${String(p['limit'])} items, got ${count}`,
      };
    }
    case 'format':
      return { expected: p['format'], text: `must match format "${String(p['format'])}", got ${got}` };
    case 'pattern':
      return { expected: p['pattern'], text: `must match pattern ${show(p['pattern'])}, got ${got}` };
    case 'multipleOf':
      return { expected: p['multipleOf'], text: `must be a multiple of ${show(p['multipleOf'])}, got ${got}` };
    default:
      return { text: `${error.message ?? `breaks ${error.keyword}`}, got ${got}` };
  }
}

/**
 * AJV reports every branch of an anyOf/oneOf and the combinator itself; with allErrors on, a failed
 * type of a nullable field also appears once per type. Keep what a person needs: drop the combinator
 * summaries when a branch error is present, and exact duplicates.
 */
export function issuesFromAjv(
  errors: readonly ErrorObject[] | null | undefined,
  prefix = '',
  max = 100,
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    if (
      (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'allOf') &&
      (errors?.length ?? 0) > 1
    )
      continue;
    if (error.keyword === 'if') continue;
    const issue = issueFromAjv(error, prefix);
    const key = `${issue.pointer}\u0000${issue.rule}\u0000${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(issue);
    if (out.length >= max) break;
  }
  return out;
}
