/**
 * One recorded exchange as the judges see it: the runner's own `Exchange` (src/transport/types.ts),
 * made from what a recording holds (an NDJSON line, a HAR entry, a gateway log line). Every field
 * of a recording is input to judge: checked and capped here, where it enters, so a hostile
 * recording is one clear refusal (`RecordingError`), never a stack trace or a judge fed garbage.
 */
import { VapcError } from '../errors.js';
import { decodeBody } from '../transport/content-coding.js';
import { DEFAULT_MAX_BODY_BYTES, nestingDepth, toHttpResponse } from '../transport/undici.js';
import type { Exchange } from '../transport/types.js';

/** The most headers one message of a recording may carry, and the longest value of one. */
export const MAX_HEADERS = 256;
export const MAX_HEADER_VALUE = 16 * 1024;
/** The longest URL of a recorded request. */
export const MAX_URL = 16 * 1024;
/** A body is judged up to this many bytes (the runner's own cap); past it, only what is not the body is judged. */
export const MAX_JUDGED_BODY = DEFAULT_MAX_BODY_BYTES;

/**
 * The deepest request body a recording may hold: the validators walk a body recursively, and a
 * client's garbage (the runner's own robustness probes nest 65 levels) stays far below this.
 * A response body deeper than 64 levels is read as not JSON, as the runner's transport reads it.
 */
export const MAX_BODY_DEPTH = 1000;

/** The origin a recorded relative URL (a gateway's `/calls?limit=5`) is read against. */
export const RECORDED_ORIGIN = 'http://recorded.invalid';

/** What a reader found of one exchange, before it is checked. */
export interface RawExchange {
  method: unknown;
  url: unknown;
  requestHeaders: unknown;
  /** The request body as text, or undefined when none was sent (or none recorded). */
  requestBody: unknown;
  /** The body's encoding in the recording (`base64` in HAR), if any. */
  requestEncoding?: unknown;
  status: unknown;
  responseHeaders: unknown;
  responseBody: unknown;
  responseEncoding?: unknown;
  /** False when the recording holds no response body at all (a gateway log): the body is not judged. */
  responseBodyRecorded: boolean;
  /** The time the exchange took, when the recording says. */
  durationMs?: unknown;
}

/** A recording that is not one (a line that is no exchange, a field of the wrong kind): exit 2, naming where. */
export class RecordingError extends VapcError {
  constructor(where: string, what: string) {
    super('E_TRAFFIC', `${where}: ${what}`);
  }
}

const METHOD = /^[A-Z][A-Z0-9_-]{0,15}$/i;

function text(value: unknown, what: string, where: string, max: number): string {
  if (typeof value !== 'string') throw new RecordingError(where, `${what} is not a string`);
  if (value.length > max) throw new RecordingError(where, `${what} is longer than ${max} characters`);
  return value;
}

/** Headers as the runner's transport gives them: names lower-cased, repeated ones joined with ', '. */
export function recordedHeaders(value: unknown, what: string, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined || value === null) return out;
  let pairs: Array<[unknown, unknown]>;
  if (Array.isArray(value))
    pairs = value.map(
      (h) => [(h as { name?: unknown })?.name, (h as { value?: unknown })?.value] as [unknown, unknown],
    );
  else if (typeof value === 'object') pairs = Object.entries(value as Record<string, unknown>);
  else throw new RecordingError(where, `${what} is neither an object nor a list of {name, value}`);
  if (pairs.length > MAX_HEADERS) throw new RecordingError(where, `${what}: more than ${MAX_HEADERS} headers`);
  for (const [rawName, rawValue] of pairs) {
    if (typeof rawName !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/.test(rawName))
      throw new RecordingError(where, `${what}: a header name that is not a token`);
    const values = Array.isArray(rawValue) ? rawValue : [rawValue];
    for (const v of values) {
      if (typeof v !== 'string' && typeof v !== 'number')
        throw new RecordingError(where, `${what}: the value of a header is not a string`);
      const s = text(String(v), `${what}: a header value`, where, MAX_HEADER_VALUE);
      // HTTP/2 pseudo-headers (`:authority`) are not headers of the message.
      if (rawName.startsWith(':')) continue;
      const name = rawName.toLowerCase();
      out[name] = out[name] === undefined ? s : `${out[name]}, ${s}`;
    }
  }
  return out;
}

/**
 * A body as the recording holds it: text (kept as it is while it fits the cap), or bytes when the
 * recording says base64. Bytes past the cap are not kept.
 */
function bodyOf(value: unknown, encoding: unknown, what: string, where: string): string | Buffer | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new RecordingError(where, `${what} is not a string`);
  if (encoding === 'base64') return Buffer.from(value, 'base64');
  if (encoding !== undefined && encoding !== null && encoding !== '')
    throw new RecordingError(where, `${what}: unknown encoding (only base64 is read)`);
  // Three bytes a character at most: only a text that may pass the cap is measured.
  return value.length * 3 <= MAX_JUDGED_BODY || Buffer.byteLength(value) <= MAX_JUDGED_BODY
    ? value
    : Buffer.from(value, 'utf8');
}

function requestBodyText(raw: RawExchange, where: string): string | undefined {
  const body = bodyOf(raw.requestBody, raw.requestEncoding, 'the request body', where);
  if (body === undefined) return undefined;
  // A request body past the cap is judged as recorded up to it (the validators see it cut).
  const text = typeof body === 'string' ? body : body.subarray(0, MAX_JUDGED_BODY).toString('utf8');
  if (text.length > MAX_BODY_DEPTH && nestingDepth(text, MAX_BODY_DEPTH) > MAX_BODY_DEPTH)
    throw new RecordingError(where, `the request body is nested deeper than ${MAX_BODY_DEPTH} levels`);
  return text;
}

/** The response as the transport would have read it: decoded (a recorded gzip body), cut at the cap. */
function responseOf(raw: RawExchange, headers: Record<string, string>, status: number, where: string) {
  if (!raw.responseBodyRecorded) return toHttpResponse(status, headers, '', true);
  const body = bodyOf(raw.responseBody, raw.responseEncoding, 'the response body', where) ?? '';
  if (typeof body === 'string') return toHttpResponse(status, headers, body, false);
  const cut = body.length > MAX_JUDGED_BODY;
  const kept = cut ? body.subarray(0, MAX_JUDGED_BODY) : body;
  // Base64 bytes may still carry their content coding: decoded here, as the runner's transport does.
  const coded = raw.responseEncoding === 'base64' ? headers['content-encoding'] : undefined;
  const decoded = decodeBody(kept, coded, MAX_JUDGED_BODY, cut);
  const response = toHttpResponse(status, headers, decoded.text, decoded.truncated);
  if (decoded.error) response.jsonError = decoded.error;
  return response;
}

/** The URL as the runner's exchanges carry it: absolute (a relative one is read against RECORDED_ORIGIN). */
function urlOf(value: unknown, where: string): string {
  const raw = text(value, 'the request URL', where, MAX_URL);
  let url: URL;
  try {
    url = new URL(raw, RECORDED_ORIGIN);
  } catch {
    throw new RecordingError(where, 'the request URL is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RecordingError(where, 'the request URL is not http or https');
  return url.href;
}

/** Checks one raw exchange and makes it an Exchange; anything malformed is a RecordingError naming `where`. */
export function toExchange(raw: RawExchange, where: string): Exchange {
  if (typeof raw.method !== 'string' || !METHOD.test(raw.method))
    throw new RecordingError(where, 'the request method is missing or not a method');
  const status = raw.status;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599)
    throw new RecordingError(where, 'the response status is missing or not a status (100-599)');
  const request: Exchange['request'] = {
    method: raw.method.toUpperCase(),
    url: urlOf(raw.url, where),
    headers: recordedHeaders(raw.requestHeaders, 'the request headers', where),
  };
  const body = requestBodyText(raw, where);
  if (body !== undefined && (body !== '' || request.method !== 'GET')) request.body = body;
  const headers = recordedHeaders(raw.responseHeaders, 'the response headers', where);
  const duration = typeof raw.durationMs === 'number' && Number.isFinite(raw.durationMs) ? raw.durationMs : 0;
  return { request, response: responseOf(raw, headers, status, where), durationMs: Math.max(0, duration) };
}
