/**
 * Error bodies of the reference server: the FastAPI-shaped validation error body (contract 2.8)
 * built from the project's validator issues, and `{detail: string}` for everything else.
 */

/** The part of a validator issue the server reads (see src/validators). */
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

/**
 * The contract's messages (section 7): 401 says the credentials are invalid (and which headers a
 * client sends: a newcomer with the key alone gets told the user id is needed too), 429 that the
 * limit was exceeded.
 */
export const UNAUTHORIZED_DETAIL =
  'Invalid authentication credentials: send both the Authorization header (Bearer <API key>) and the X-User-ID header (the id of the user the key belongs to)';
export const RATE_LIMITED_DETAIL = 'Rate limit exceeded';

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
