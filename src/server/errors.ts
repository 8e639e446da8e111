/**
 * Error bodies of the reference server: the FastAPI-shaped validation error body (contract 2.8)
 * built from the project's validator issues, `{detail: string}` for everything else, and the
 * position of the first syntax error of a malformed JSON body.
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
export const UNAUTHORIZED_DETAIL = 'Invalid authentication credentials: send both the Authorization header (Bearer <API key>) and the X-User-ID header (the id of the user the key belongs to)';
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

/**
 * The offset of the first character at which `text` stops being JSON (RFC 8259), or `text.length`
 * when it ends too early. Node's JSON.parse messages do not always carry a position (it varies
 * by V8 version), so the scanner finds it itself; it is iterative, so any nesting depth is safe.
 */
export function jsonErrorPosition(text: string): number {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  // Stack of open containers: '[' or '{'. `expect` is what the grammar wants next.
  const stack: string[] = [];
  type Want = 'value' | 'key' | 'colon' | 'after';
  let want: Want = 'value';
  const scanString = (): boolean => {
    // text[i] === '"'
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        // A bad escape is reported where it starts (the backslash), as Python's json does.
        const e = text[i + 1];
        if (e === undefined) {
          i = n;
          return false;
        }
        if (e === 'u') {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]*$/.test(hex)) return false;
          if (hex.length < 4) {
            i = n;
            return false;
          }
          i += 6;
        } else if ('"\\/bfnrt'.includes(e)) i += 2;
        else return false;
      } else i++;
    }
    return false;
  };
  const digits = (): number => {
    const from = i;
    while (i < n && text[i]! >= '0' && text[i]! <= '9') i++;
    return i - from;
  };
  /** Scans a number; on failure `i` is where it stops being a number prefix. */
  const scanNumber = (): boolean => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (digits() === 0) return false;
    if (text[i] === '.') {
      i++;
      if (digits() === 0) return false;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (digits() === 0) return false;
    }
    return true;
  };
  for (;;) {
    ws();
    if (i >= n) return n;
    const c = text[i]!;
    if (want === 'value') {
      if (c === '{') {
        stack.push('{');
        i++;
        ws();
        if (text[i] === '}') {
          stack.pop();
          i++;
          want = 'after';
        } else want = 'key';
      } else if (c === '[') {
        stack.push('[');
        i++;
        ws();
        if (text[i] === ']') {
          stack.pop();
          i++;
          want = 'after';
        } else want = 'value';
      } else if (c === '"') {
        if (!scanString()) return i;
        want = 'after';
      } else if (c === 't' || c === 'f' || c === 'n') {
        const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null';
        for (let k = 0; k < word.length; k++, i++) if (text[i] !== word[k]) return i >= n ? n : i;
        want = 'after';
      } else if (c === '-' || (c >= '0' && c <= '9')) {
        if (!scanNumber()) return Math.min(i, n);
        want = 'after';
      } else return i;
    } else if (want === 'key') {
      if (c !== '"') return i;
      if (!scanString()) return i;
      want = 'colon';
    } else if (want === 'colon') {
      if (c !== ':') return i;
      i++;
      want = 'value';
    } else {
      const top = stack[stack.length - 1];
      if (top === undefined) return i; // trailing content after the document
      if (c === ',') {
        i++;
        want = top === '{' ? 'key' : 'value';
      } else if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
        stack.pop();
        i++;
        want = 'after';
      } else return i;
    }
    if (want === 'after' && stack.length === 0) {
      ws();
      if (i >= n) return n; // a complete document: JSON.parse would not have failed
      return i;
    }
  }
}
