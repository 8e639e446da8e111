/**
 * The `{detail: string}` answers the server gives outside the operations: errors Fastify raises
 * (bad URL, long path parameter, body too large), and what Node's HTTP parser refuses before
 * Fastify sees a request (a bad request line, headers too large, a timeout). No answer echoes more
 * than a short piece of what the client sent.
 */
import type { Duplex } from 'node:stream';

export { ECHO_LIMIT, clip } from '../http/validation-error.js';

/** The detail of an error Fastify's router raises before any route runs; the URL is never quoted. */
export function frameworkErrorDetail(code: string | undefined, maxParamLength: number): string {
  if (code === 'FST_ERR_BAD_URL') return 'Bad request: the URL is not valid (malformed percent-encoding)';
  if (code === 'FST_ERR_MAX_PARAM_LENGTH')
    return `Bad request: a path parameter is longer than ${maxParamLength} characters`;
  return 'Bad request';
}

/** The status and detail for an error of Node's HTTP parser (the `clientError` event). */
export function clientErrorAnswer(code: string | undefined): { status: number; reason: string; detail: string } {
  if (code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, reason: 'Request Header Fields Too Large', detail: 'Request headers too large' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, reason: 'Request Timeout', detail: 'Request timeout: the request was not received in time' };
  return { status: 400, reason: 'Bad Request', detail: 'Bad request: the request could not be parsed as HTTP/1.1' };
}

/** A complete HTTP/1.1 response that closes the connection, for writing straight to a socket. */
export function rawJsonResponse(
  status: number,
  reason: string,
  body: unknown,
  headers: Record<string, string> = {},
): string {
  const text = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(text)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  return `${lines.join('\r\n')}\r\n\r\n${text}`;
}

/**
 * Fastify's `clientErrorHandler`: Node's parser refused the bytes (bad request line, headers over
 * the limit, a timeout); answer with a `{detail}` body, as every other error, and close. Nothing
 * is written when the socket is gone or a response to this request has already begun.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const { status, reason, detail } = clientErrorAnswer(error.code);
    socket.write(rawJsonResponse(status, reason, { detail }));
  }
  socket.destroy(error);
}

/**
 * The HTTP server's `connect` event (a CONNECT request, which Node never routes): this server is
 * no proxy, so the method is not allowed on any path.
 */
export function refuseConnect(_request: unknown, socket: Duplex): void {
  if (socket.writable) socket.end(rawJsonResponse(405, 'Method Not Allowed', { detail: 'Method Not Allowed' }));
  else socket.destroy();
}
