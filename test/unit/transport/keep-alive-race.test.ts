// A pooled connection the server closes just as the next request goes out (the keep-alive race: the
// server's idle timeout or its last request per connection, without a Keep-Alive hint): no answer
// came. RFC 9112 9.3.1 lets a client resend an idempotent request on a new connection; the transport
// does so once and says so in the exchange; a POST is never resent (it may have been applied).
// Before this, the GET below was "connection_reset" and the run judged it as the server's fault
// (robustness.no-5xx-valid: no answer). The race is simulated: the server drops the second request
// of every connection unanswered, as a server that closed the connection the moment it arrived.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUndiciTransport, IDLE_KEEP_ALIVE_MS } from '../../../src/transport/undici.js';

/** `second`: the second request of a connection is dropped; `idle`: one after SERVER_IDLE_MS of silence is. */
let mode: 'second' | 'idle' = 'second';
/** A silent keep-alive a little longer than the pool's: the server closes, the FIN still on its way. */
const SERVER_IDLE_MS = IDLE_KEEP_ALIVE_MS + 200;
let server: Server;
let base = '';
const seen: string[] = [];

/** Answers the first request of a connection with keep-alive; destroys the connection when a second one arrives. */
function racingConnection(socket: Socket): void {
  let buffered = '';
  let served = 0;
  let lastAnswer = Infinity;
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.slice(0, end);
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      seen.push(`${head.split(' ').slice(0, 2).join(' ')} #${++served}`);
      const idle = Date.now() - lastAnswer;
      if (mode === 'second' ? served > 1 : idle >= SERVER_IDLE_MS) return void socket.destroy();
      lastAnswer = Date.now();
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}',
      );
    }
  });
  socket.on('error', () => undefined);
}

beforeAll(async () => {
  server = createServer(racingConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a request on a connection the server closed before answering', () => {
  it('an idempotent request is resent once on a new connection, and the exchange says so', async () => {
    seen.length = 0;
    mode = 'second';
    const transport = createUndiciTransport({ baseUrl: base, connections: 1 });
    try {
      expect((await transport.send({ method: 'GET', path: '/first' })).response?.status).toBe(200);
      const second = await transport.send({ method: 'GET', path: '/calls' });
      expect(second.error).toBeUndefined();
      expect(second.response?.status).toBe(200);
      expect(second.retried?.code).toBe('connection_reset');
      expect(seen).toEqual(['GET /first #1', 'GET /calls #2', 'GET /calls #1']);
    } finally {
      await transport.close();
    }
  });

  it('a POST is not resent: the reset stays the answer', async () => {
    seen.length = 0;
    mode = 'second';
    const transport = createUndiciTransport({ baseUrl: base, connections: 1 });
    try {
      await transport.send({ method: 'GET', path: '/first' });
      const post = await transport.send({ method: 'POST', path: '/campaign', json: { name: 'x' } });
      expect([post.response, post.error?.code, post.retried]).toEqual([undefined, 'connection_reset', undefined]);
      expect(seen).toEqual(['GET /first #1', 'POST /campaign #2']);
    } finally {
      await transport.close();
    }
  });

  it('a connection idle past the pool keep-alive is not reused: a POST after a pause goes on a new one', async () => {
    seen.length = 0;
    mode = 'idle';
    const transport = createUndiciTransport({ baseUrl: base, connections: 1 });
    try {
      await transport.send({ method: 'GET', path: '/first' });
      await new Promise((r) => setTimeout(r, SERVER_IDLE_MS + 100));
      const post = await transport.send({ method: 'POST', path: '/campaign', json: { name: 'x' } });
      expect([post.response?.status, post.error]).toEqual([200, undefined]);
      expect(seen).toEqual(['GET /first #1', 'POST /campaign #1']);
    } finally {
      await transport.close();
    }
  });
});
