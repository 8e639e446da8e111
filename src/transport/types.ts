/**
 * One transport type. Checks see these normalised exchanges, never undici objects. Two
 * implementations ship: the undici one (undici.ts, HTTP to a base URL) and a recording wrapper
 * around any transport (recording.ts); tests pass fakes of their own. There is no in-process
 * transport: tests start the reference server on a loopback port.
 */

export interface HttpRequest {
  method: string;
  /** Path relative to the base URL, with path parameters already filled in (encoded). */
  path: string;
  /** Query parameters; serialised in this order. */
  query?: Array<[string, string]>;
  headers?: Record<string, string>;
  /** A JSON value to send (serialised with JSON.stringify, content-type application/json). */
  json?: unknown;
  /** Raw body text, for deliberately malformed bodies; wins over `json`. */
  rawBody?: string;
  /** Tag for logs and budgets: the check id that sent it. */
  checkId?: string;
}

/** The request exactly as it went over the wire (after query, path and header serialisation). */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with ', '. */
  headers: Record<string, string>;
  /** Body text (up to the size cap). */
  text: string;
  /** The parsed body when the text is JSON, else undefined. */
  json?: unknown;
  /** Why the text did not parse as JSON, when it did not (and was not empty). */
  jsonError?: string;
  /** True when the body was cut at the size cap. */
  truncated: boolean;
}

export type TransportErrorCode =
  'timeout' | 'connection_refused' | 'connection_reset' | 'body_too_large' | 'redirect_loop' | 'protocol' | 'other';

export interface Exchange {
  request: WireRequest;
  response?: HttpResponse;
  /** Set when no complete response arrived. */
  error?: { code: TransportErrorCode; message: string };
  /**
   * Set when the request was sent twice: the first connection closed before any answer (a pooled
   * connection the server had just closed) and the request, idempotent, was resent once on a new
   * connection (RFC 9112 9.3.1). What closed the first one.
   */
  retried?: { code: TransportErrorCode; message: string };
  durationMs: number;
}

export interface Transport {
  readonly baseUrl: string;
  send(request: HttpRequest): Promise<Exchange>;
  close(): Promise<void>;
}
