/**
 * The contract's validation error body (section 2.8, FastAPI's shape): `{"detail": [{"loc", "msg",
 * "type"}]}`, built from the validators' issues and from a body that could not be read as JSON.
 * `loc` starts with where the fault is (`body`, `query`, `path`, `header`) and goes on with the
 * member, a missing required property named last. The reference server and the middleware both
 * answer their 422s with it.
 */

/** The part of a validator issue an item is made of (see src/validators). */
export interface IssueLike {
  pointer: string;
  location: 'path' | 'query' | 'header' | 'body';
  rule: string;
  message: string;
}

export interface ValidationErrorItem {
  loc: Array<string | number>;
  msg: string;
  type: string;
}

export interface HttpValidationError {
  detail: ValidationErrorItem[];
}

/** Why a request body could not be read as the operation's JSON. */
export type BodyProblem =
  { kind: 'json_invalid'; position: number; msg: string } | { kind: 'content_type'; contentType: string };

/** The longest piece of client input an error detail quotes. */
export const ECHO_LIMIT = 100;

/** `text` as an error detail may quote it: at most ECHO_LIMIT characters, the rest counted. */
export function clip(text: string, limit: number = ECHO_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}... (${text.length} characters)`;
}

/** FastAPI's error types, by the rule the validator names; anything else keeps the rule's name. */
const TYPE_BY_RULE: Record<string, string> = {
  type: 'type_error',
  minimum: 'greater_than_equal',
  maximum: 'less_than_equal',
  exclusiveMinimum: 'greater_than',
  exclusiveMaximum: 'less_than',
  enum: 'enum',
  const: 'literal_error',
  required: 'missing',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  pattern: 'string_pattern_mismatch',
  format: 'value_error',
  additionalProperties: 'extra_forbidden',
  minItems: 'too_short',
  maxItems: 'too_long',
};

/** JSON Pointer → loc segments; numeric segments (array indexes) become integers, as FastAPI writes them. */
export function pointerSegments(pointer: string): Array<string | number> {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9]\d{0,8})$/.test(segment) ? Number(segment) : segment));
}

export function validationItem(issue: IssueLike): ValidationErrorItem {
  return {
    loc: [issue.location, ...pointerSegments(issue.pointer)],
    msg: issue.message,
    type: TYPE_BY_RULE[issue.rule] ?? issue.rule,
  };
}

export function validationBody(items: ValidationErrorItem[]): HttpValidationError {
  return { detail: items };
}

/** The item of a body that is not JSON: where its syntax breaks, or the content type it came with. */
export function problemItem(problem: BodyProblem): ValidationErrorItem {
  if (problem.kind === 'json_invalid')
    return { loc: ['body', problem.position], msg: problem.msg, type: 'json_invalid' };
  return {
    loc: ['body'],
    msg: `Expected a JSON body (Content-Type: application/json), got ${clip(problem.contentType) || 'no content type'}`,
    type: 'model_attributes_type',
  };
}

/** A validator issue as it comes from validateRequest (location optional: body when absent). */
export interface RequestIssue {
  pointer: string;
  location?: IssueLike['location'];
  rule: string;
  expected?: unknown;
  message: string;
}

/** A validator issue as a loc item; a missing required property is named at the end of loc. */
export function issueItem(issue: RequestIssue): ValidationErrorItem {
  const item = validationItem({
    pointer: issue.pointer,
    location: issue.location ?? 'body',
    rule: issue.rule,
    message: issue.message,
  });
  if (issue.rule === 'required' && typeof issue.expected === 'string' && !issue.expected.includes('/'))
    item.loc.push(issue.expected);
  return item;
}

/**
 * Every item of a refused request: the body's problem first (for an operation that takes a body),
 * then each issue of the validators, those on the body left out when the body could not be read.
 */
export function requestErrorItems(
  problem: BodyProblem | undefined,
  issues: readonly RequestIssue[],
): ValidationErrorItem[] {
  const items: ValidationErrorItem[] = [];
  if (problem) items.push(problemItem(problem));
  for (const issue of issues) {
    if (problem && issue.location === 'body') continue;
    items.push(issueItem(issue));
  }
  return items;
}
