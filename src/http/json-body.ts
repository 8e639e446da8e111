/**
 * Decoding a JSON request body with bounded cost: the bytes must be UTF-8 (RFC 8259 section 8.1)
 * and the nesting no deeper than MAX_JSON_DEPTH, both checked in one linear pass before
 * JSON.parse runs, so a 1 MiB `[[[[…` body is refused after a few hundred characters instead of
 * being parsed (and its error position searched) a million levels deep. No Node module is used
 * (bytes are any `Uint8Array`, a `Buffer` included): the middleware runs it on Hono's runtimes too.
 */
import { DEFAULT_LIMITS } from '../validators/inspect.js';
import { jsonErrorPosition } from './json-position.js';
import type { BodyProblem } from './validation-error.js';

/**
 * Deeper bodies are refused. The same bound as the validators' own guard, so every body the
 * validators would look at is still parsed and judged by them, as before the pre-scan.
 */
export const MAX_JSON_DEPTH = DEFAULT_LIMITS.maxDepth;

export const JSON_DECODE_ERROR = 'JSON decode error';
export const JSON_NOT_UTF8 = 'JSON body is not valid UTF-8';
export const JSON_TOO_DEEP = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;

/** A decoded body (`undefined` when it is empty), or where and why it is not acceptable JSON. */
export type DecodedJson = { ok: true; value: unknown } | { ok: false; position: number; msg: string };

/**
 * The byte offset of the first byte a UTF-8 decoder would replace with U+FFFD (overlong forms,
 * surrogates and code points past U+10FFFF included), or -1 when every byte is well-formed.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * The offset of the first `[` or `{` (outside strings) that opens a level deeper than `max`, or
 * -1. One pass over the characters, no allocation; what is not JSON is left to JSON.parse.
 */
export function depthOverflow(text: string, max: number = MAX_JSON_DEPTH): number {
  const n = text.length;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: up to the next quote that no backslash escapes.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** Where a prefix that is cut at `at` first breaks the grammar, else `at` with the given reason. */
function refusedAt(text: string, at: number, msg: string): DecodedJson {
  const position = jsonErrorPosition(text.slice(0, at));
  return position < at ? { ok: false, position, msg: JSON_DECODE_ERROR } : { ok: false, position: at, msg };
}

// A byte order mark is kept (ignoreBOM), as Buffer's toString keeps it: JSON.parse refuses it.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of the bytes, and the offset of the first byte that is not UTF-8 (-1 when none). */
function utf8Text(bytes: Uint8Array): { text: string; bad: number } {
  try {
    return { text: strictUtf8.decode(bytes), bad: -1 };
  } catch {
    // Only the well-formed prefix is decoded: nothing past the first bad byte is read.
    const bad = firstInvalidUtf8(bytes);
    return { text: strictUtf8.decode(bytes.subarray(0, bad)), bad };
  }
}

/**
 * Decodes a JSON body: empty (or blank) → undefined; bytes that are not UTF-8, nesting past
 * MAX_JSON_DEPTH and syntax errors → the character offset of the first problem. When a syntax
 * error comes earlier than the bad byte or the deep bracket, that earlier error is the one named.
 */
export function decodeJsonBody(bytes: Uint8Array): DecodedJson {
  const { text, bad } = utf8Text(bytes);
  const deep = depthOverflow(text);
  if (deep >= 0) return refusedAt(text, deep, JSON_TOO_DEEP);
  if (bad >= 0) return refusedAt(text, text.length, JSON_NOT_UTF8);
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, position: jsonErrorPosition(text), msg: JSON_DECODE_ERROR };
  }
}

/** The media types read as JSON: application/json and any application/…+json (RFC 6839). */
export const JSON_MEDIA_TYPES: ReadonlyArray<string | RegExp> = ['application/json', /^application\/[\w.+-]+\+json$/];

/** Whether a Content-Type header names one of JSON_MEDIA_TYPES (its parameters and case aside). */
export function isJsonContentType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return JSON_MEDIA_TYPES.some((t) => (typeof t === 'string' ? t === type : t.test(type)));
}

/**
 * A request body read as the reference server reads it: no content type at all is read as JSON
 * (as FastAPI does), a JSON media type is decoded, any other type with bytes is a `content_type`
 * problem; an empty body is `undefined`.
 */
export function readJsonRequestBody(
  contentType: string | undefined,
  bytes: Uint8Array,
): { value: unknown; problem?: BodyProblem } {
  if (contentType === undefined || contentType.trim() === '' || isJsonContentType(contentType)) {
    const decoded = decodeJsonBody(bytes);
    return decoded.ok
      ? { value: decoded.value }
      : { value: undefined, problem: { kind: 'json_invalid', position: decoded.position, msg: decoded.msg } };
  }
  return bytes.length > 0 ? { value: undefined, problem: { kind: 'content_type', contentType } } : { value: undefined };
}
