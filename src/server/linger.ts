/**
 * nginx's lingering close, for an answer sent before the request's body was read: the 413 of an
 * oversized body, which also says `Connection: close`. Node closes the socket as soon as such an
 * answer is written, while the client is still sending; its next write meets a reset and it never
 * reads the answer (Node's fetch: `EPIPE`; curl, which reads first, sees the 413). Instead the
 * answer goes out and the write side is shut (FIN); what the client still sends is read and dropped
 * until its body ends, `maxBytes` more have arrived or `maxMs` have passed; then the socket closes.
 */
import type { IncomingMessage } from 'node:http';

export interface LingerLimits {
  /** Most bytes of the body read after the answer (the server's body limit times 64 by default). */
  maxBytes: number;
  /** Longest wait for the client to finish sending. */
  maxMs: number;
}

export const LINGER_MS = 10_000;
export const LINGER_LIMITS_PER_BODY_LIMIT = 64;

/** Keeps reading (and dropping) the request's body after the answer, within `limits`, before the socket closes. */
export function lingerBeforeClose(request: IncomingMessage, limits: LingerLimits): void {
  if (request.complete) return;
  const socket = request.socket;
  let received = 0;
  let answered = false;
  const close = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, limits.maxMs);
  timer.unref();
  request.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes) close();
  });
  request.once('end', () => {
    if (answered) close();
  });
  request.resume();
  // Node calls destroySoon() once an answer saying `Connection: close` is written: shut only the
  // write side, and close when the body has been read.
  socket.destroySoon = () => {
    answered = true;
    if (!socket.writableEnded) socket.end();
    if (request.complete) close();
  };
}
