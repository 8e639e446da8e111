import { EventEmitter } from 'node:events';
import { Pool, type Dispatcher } from 'undici';
import { VapcError } from '../errors.js';
import { codingsOf, decodeBody } from './content-coding.js';
import type { Exchange, HttpRequest, HttpResponse, Transport, TransportErrorCode, WireRequest } from './types.js';

export interface UndiciTransportOptions {
  /** http(s) URL of the server under test; a path prefix (http://host/api) is kept. */
  baseUrl: string;
  /** Whole-request deadline (connect, headers and body), in milliseconds. Default 10 000. */
  timeoutMs?: number;
  /** Response bodies are cut at this many bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Parallel connections to the target. Default 8. */
  connections?: number;
  /**
   * Starts the deadline of one request: calls `onDeadline` after `ms` and returns a function that
   * cancels it. Default: `setTimeout`. A seam for tests, which pass the deadline by hand.
   */
  startDeadline?: (onDeadline: () => void, ms: number) => () => void;
}

const timerDeadline = (onDeadline: () => void, ms: number): (() => void) => {
  const timer = setTimeout(onDeadline, ms);
  return () => clearTimeout(timer);
};

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Parses and checks a base URL; a clear VapcError (E_USAGE) when it is not an http(s) URL. */
export function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new VapcError(
      'E_USAGE',
      `invalid base URL "${baseUrl}": expected an absolute http(s) URL such as http://127.0.0.1:4010`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new VapcError('E_USAGE', `invalid base URL "${baseUrl}": only http and https are supported`);
  }
  if (url.username || url.password) {
    throw new VapcError(
      'E_USAGE',
      `invalid base URL: credentials in the URL are not supported; use --api-key and --user-id`,
    );
  }
  if (url.search || url.hash) {
    throw new VapcError('E_USAGE', `invalid base URL "${baseUrl}": it must not carry a query or fragment`);
  }
  return url;
}

/** Serialises path and query exactly as they go over the wire (query in the given order). */
export function buildTarget(prefix: string, request: Pick<HttpRequest, 'path' | 'query'>): string {
  const path = `${prefix.replace(/\/+$/, '')}${request.path.startsWith('/') ? '' : '/'}${request.path}`;
  const query = (request.query ?? []).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return query ? `${path}?${query}` : path;
}

/** The headers and body a request carries on the wire (content-type added for bodies). */
export function wireHeadersAndBody(request: HttpRequest): { headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = {};
  const given = request.headers;
  if (given) for (const k of Object.keys(given)) headers[k.toLowerCase()] = given[k]!;
  let body: string | undefined;
  if (request.rawBody !== undefined) body = request.rawBody;
  else if (request.json !== undefined) body = JSON.stringify(request.json);
  if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
  return body === undefined ? { headers } : { headers, body };
}

function errorCodes(error: unknown): string[] {
  const out: string[] = [];
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const rec = e as { code?: unknown; name?: unknown; cause?: unknown; errors?: unknown[] };
    if (typeof rec.code === 'string') out.push(rec.code);
    if (typeof rec.name === 'string') out.push(rec.name);
    if (Array.isArray(rec.errors)) for (const sub of rec.errors) out.push(...errorCodes(sub));
    e = rec.cause;
  }
  return out;
}

/** Maps a node/undici error to a transport error code. */
export function classifyError(error: unknown, timedOut: boolean): TransportErrorCode {
  if (timedOut) return 'timeout';
  const codes = errorCodes(error);
  const has = (...names: string[]) => codes.some((c) => names.includes(c));
  if (has('UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'TimeoutError'))
    return 'timeout';
  if (has('ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'))
    return 'connection_refused';
  if (has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED')) return 'connection_reset';
  if (has('UND_ERR_RESPONSE_EXCEEDED_MAX_SIZE')) return 'body_too_large';
  if (codes.some((c) => c.startsWith('HPE_')) || has('UND_ERR_INFO', 'UND_ERR_INVALID_ARG')) return 'protocol';
  return 'other';
}

/** OpenSSL's answers to a plain-HTTP reply where a TLS handshake was expected. */
const PLAIN_HTTP_ON_TLS = [
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_HTTP_REQUEST',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'EPROTO',
];

/**
 * TLS failures as one readable sentence instead of OpenSSL's record (`80DC…:error:0A00010B:SSL
 * routines:…\n`): https on a port that speaks plain HTTP names the http:// URL to use; a refused
 * certificate names its code. Undefined for errors that are not about TLS.
 */
export function tlsSentence(error: unknown, base: URL): string | undefined {
  const codes = errorCodes(error);
  if (
    base.protocol === 'https:' &&
    codes.some((c) => PLAIN_HTTP_ON_TLS.includes(c) || /WRONG_VERSION_NUMBER|HTTP_REQUEST/.test(c))
  ) {
    const http = new URL(base.href);
    http.protocol = 'http:';
    return `the server answered plain HTTP, not TLS; use ${http.href.replace(/\/+$/, '')}`;
  }
  const cert = codes.find((c) => /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/.test(c));
  if (cert)
    return `the server's TLS certificate was refused (${cert}); give a URL whose certificate this machine trusts (NODE_EXTRA_CA_CERTS adds a CA)`;
  const ssl = codes.find((c) => c.startsWith('ERR_SSL_'));
  if (ssl) return `the TLS handshake failed (${ssl})`;
  return undefined;
}

function describe(code: TransportErrorCode, error: unknown, timeoutMs: number): string {
  // One line: OpenSSL's messages end in a newline and carry their source location.
  const detail = (error instanceof Error ? error.message : String(error)).trim().split('\n')[0]!;
  switch (code) {
    case 'timeout':
      return `no complete response within ${timeoutMs} ms`;
    case 'connection_refused':
      return `connection failed (${detail})`;
    case 'connection_reset':
      return `connection closed by the server before a complete response (${detail})`;
    case 'protocol':
      return `malformed HTTP response (${detail})`;
    default:
      return detail;
  }
}

function normaliseHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  // Own keys without Object.entries' array of pairs per response.
  for (const k of Object.keys(raw)) {
    const v = raw[k];
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * No response of this contract nests deeper than a handful of levels; a body nested deeper than
 * this is not parsed (a `[[[[…` megabyte would cost every check that reads it seconds of CPU and
 * deep recursion in the validators) and is reported as not JSON, with the reason.
 */
export const MAX_JSON_DEPTH = 64;

/** The bracket nesting depth of a JSON text (strings skipped), counted only up to `limit` + 1: one linear pass. */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip a string, honouring backslash escapes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return max;
}

/** The parse state of a response's body: its text until first read, then the parse result. */
interface LazyBody {
  text: string;
  parsed?: { json?: unknown; jsonError?: string };
}
const lazyBodies = new WeakMap<object, LazyBody>();

function parsedBody(target: object): { json?: unknown; jsonError?: string } {
  let owner: object | null = target;
  let state: LazyBody | undefined;
  while (owner && !(state = lazyBodies.get(owner))) owner = Object.getPrototypeOf(owner) as object | null;
  if (!state) return {};
  if (!state.parsed) {
    const depth = nestingDepth(state.text, MAX_JSON_DEPTH);
    try {
      state.parsed =
        depth > MAX_JSON_DEPTH
          ? { jsonError: `pathological body: JSON nested deeper than ${MAX_JSON_DEPTH} levels, not parsed` }
          : { json: JSON.parse(state.text) };
    } catch (error) {
      state.parsed = { jsonError: error instanceof Error ? error.message : String(error) };
    }
  }
  return state.parsed;
}

function redefine(target: object, key: 'json' | 'jsonError', value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The lazy `json`/`jsonError` accessors, one pair of functions shared by every response (state in
 * a WeakMap), so all responses share one hidden class: per-response closures gave each response
 * its own, and every check reading `res.status` or `res.json` went megamorphic.
 */
const LAZY_JSON: PropertyDescriptorMap = {
  json: {
    enumerable: true,
    configurable: true,
    get(this: object) {
      return parsedBody(this).json;
    },
    set(this: object, value: unknown) {
      redefine(this, 'json', value);
    },
  },
  jsonError: {
    enumerable: true,
    configurable: true,
    get(this: object) {
      return parsedBody(this).jsonError;
    },
    set(this: object, value: unknown) {
      redefine(this, 'jsonError', value);
    },
  },
};

/**
 * Wraps a decoded, capped body; `json` and `jsonError` are parsed lazily on first read (and cached), so
 * checks that judge only the status do not pay for parsing a large body.
 */
export function toHttpResponse(
  status: number,
  headers: Record<string, string>,
  text: string,
  truncated: boolean,
): HttpResponse {
  const response = { status, headers, text, truncated } as HttpResponse;
  // A scan to the first non-space character; trim() would copy a whole 60 KB page to find out.
  if (!/\S/.test(text)) return response;
  if (truncated) {
    response.jsonError = 'the body was cut at the size cap and was not parsed';
    return response;
  }
  lazyBodies.set(response, { text });
  Object.defineProperties(response, LAZY_JSON);
  return response;
}

/** Reads a body of unknown length up to the cap; the rest is left unread (the caller drops the connection). */
async function readCapped(
  body: AsyncIterable<Buffer>,
  maxBodyBytes: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const room = maxBodyBytes - size;
    if (chunk.length > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      return { bytes: Buffer.concat(chunks, maxBodyBytes), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks, size), truncated: false };
}

/** The response of a body whose bytes arrived in a content coding (decoded, never past the cap). */
function decodedResponse(
  status: number,
  headers: Record<string, string>,
  bytes: Buffer,
  maxBodyBytes: number,
  cut: boolean,
): HttpResponse {
  const decoded = decodeBody(bytes, headers['content-encoding'], maxBodyBytes, cut);
  const response = toHttpResponse(status, headers, decoded.text, decoded.truncated);
  if (decoded.error) response.jsonError = decoded.error;
  return response;
}

/**
 * The exchange of a response whose headers arrived (`started`: when the request was sent). A body
 * no longer than its declared length is read in one go; any other is read up to the cap, and the
 * rest discarded with the connection. A body in a content coding (gzip, deflate, br) is decoded.
 */
async function readExchange(
  wire: WireRequest,
  response: Dispatcher.ResponseData,
  maxBodyBytes: number,
  started: number,
): Promise<Exchange> {
  const responseHeaders = normaliseHeaders(response.headers);
  const declared = Number(responseHeaders['content-length']);
  const coded = codingsOf(responseHeaders['content-encoding']).length > 0;
  if (
    (Number.isSafeInteger(declared) && declared <= maxBodyBytes) ||
    response.statusCode === 204 ||
    response.statusCode === 304
  ) {
    // HTTP framing bounds the body to the declared length (none for 204 and 304): read and
    // decode it in one go.
    const http = coded
      ? decodedResponse(
          response.statusCode,
          responseHeaders,
          Buffer.from(await response.body.arrayBuffer()),
          maxBodyBytes,
          false,
        )
      : toHttpResponse(response.statusCode, responseHeaders, await response.body.text(), false);
    const exchange: Exchange = { request: wire, response: http, durationMs: performance.now() - started };
    if (http.truncated) exchange.error = tooLarge(maxBodyBytes);
    return exchange;
  }
  const { bytes, truncated } = await readCapped(response.body as AsyncIterable<Buffer>, maxBodyBytes);
  if (truncated) response.body.destroy();
  const http = coded
    ? decodedResponse(response.statusCode, responseHeaders, bytes, maxBodyBytes, truncated)
    : toHttpResponse(response.statusCode, responseHeaders, bytes.toString('utf8'), truncated);
  const exchange: Exchange = { request: wire, response: http, durationMs: performance.now() - started };
  if (http.truncated) exchange.error = tooLarge(maxBodyBytes);
  return exchange;
}

/** How long an idle pooled connection is kept when the server gives no Keep-Alive hint. */
export const IDLE_KEEP_ALIVE_MS = 1_000;

/** Methods whose request may be resent after the connection closed before any answer (RFC 9110 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

const withRetry = (exchange: Exchange, retried: Exchange['retried']): Exchange => {
  if (retried) exchange.retried = retried;
  return exchange;
};

const tooLarge = (maxBodyBytes: number): NonNullable<Exchange['error']> => ({
  code: 'body_too_large',
  message: `the response body exceeded ${maxBodyBytes} bytes and was cut`,
});

/**
 * The HTTP transport: undici pool, no redirect following (a 3xx is returned as it is), a whole-request
 * deadline (so a server dripping bytes cannot hold a request open), and a body cap (the rest of an
 * oversized body is discarded and the connection dropped).
 */
export function createUndiciTransport(options: UndiciTransportOptions): Transport {
  const base = parseBaseUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const startDeadline = options.startDeadline ?? timerDeadline;
  const pool = new Pool(base.origin, {
    connections: options.connections ?? 8,
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // An idle connection is dropped after 1 s unless the server's Keep-Alive hint says longer:
    // below the shortest common silent keep-alive (gunicorn's 2 s), so a request is not written
    // on a connection the server is closing; a POST meeting that race could not be resent.
    keepAliveTimeout: IDLE_KEEP_ALIVE_MS,
    maxResponseSize: -1,
  });
  const prefix = base.pathname === '/' ? '' : base.pathname;
  const baseUrl = base.href.replace(/\/+$/, '');

  async function send(request: HttpRequest): Promise<Exchange> {
    const target = buildTarget(prefix, request);
    const { headers, body } = wireHeadersAndBody(request);
    const wire: WireRequest = { method: request.method.toUpperCase(), url: `${base.origin}${target}`, headers };
    if (body !== undefined) wire.body = body;
    const started = performance.now();
    // The whole-request deadline. Before the headers it aborts the request: undici's own connect
    // and headers timeouts run on its coarse timers (about a second late below a second); after
    // them it destroys a body still streaming (a server dripping bytes). The abort goes through an
    // EventEmitter, a signal undici accepts, cheaper than an AbortController per request.
    let timedOut = false;
    let activeBody: { destroy(error?: Error): unknown } | undefined;
    const signal = new EventEmitter();
    const deadline = () => new Error(`request deadline of ${timeoutMs} ms passed`);
    const cancelDeadline = startDeadline(() => {
      timedOut = true;
      if (activeBody) activeBody.destroy(deadline());
      else signal.emit('abort');
    }, timeoutMs);
    const dispatch = () =>
      pool.request({ method: wire.method as 'GET', path: target, headers, body: body ?? null, signal });
    let retried: Exchange['retried'];
    try {
      let response: Dispatcher.ResponseData;
      try {
        response = await dispatch();
      } catch (error) {
        // A pooled connection the server closed as the request went out (its idle timeout, its
        // last request): nothing was answered. RFC 9112 9.3.1 lets a client resend an idempotent
        // request once on a new connection; the exchange says so (never a non-idempotent one).
        const code = classifyError(error, timedOut);
        if (timedOut || code !== 'connection_reset' || !IDEMPOTENT.has(wire.method)) throw error;
        retried = { code, message: describe(code, error, timeoutMs) };
        response = await dispatch();
      }
      activeBody = response.body;
      if (timedOut) {
        response.body.destroy(deadline());
        throw deadline();
      }
      return withRetry(await readExchange(wire, response, maxBodyBytes, started), retried);
    } catch (error) {
      const code = classifyError(error, timedOut);
      const message = (!timedOut && tlsSentence(error, base)) || describe(code, error, timeoutMs);
      return withRetry({ request: wire, error: { code, message }, durationMs: performance.now() - started }, retried);
    } finally {
      cancelDeadline();
    }
  }

  return {
    baseUrl,
    send,
    async close() {
      await pool.destroy().catch(() => undefined);
    },
  };
}
