/**
 * Bounded loopback load: the reference server stays up and answers JSON under 200 concurrent
 * connections, with 200 more sockets held open idle or half-written at the same time.
 * Nothing here depends on speed: only on every request being answered.
 */
import { connect, type Socket } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceSpec, startReferenceServer, type ReferenceServer } from '../../../src/server/index.js';
import { send } from '../../helpers/client.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startReferenceServer({ port: 0, spec: await referenceSpec(), rateLimit: 1_000_000 });
});
afterAll(async () => {
  await server.close();
});

const CONNECTIONS = 200;

describe('reference server under load', () => {
  it(`answers every request of ${CONNECTIONS} concurrent connections, valid and malformed alike`, async () => {
    const pool = new Pool(server.url, { connections: CONNECTIONS, pipelining: 1 });
    const headers = { authorization: `Bearer ${server.fixtures.api_key}`, 'x-user-id': server.fixtures.user_id };
    // Half-open and idle sockets held during the load: they must not starve the others.
    const idle: Socket[] = [];
    const { port } = new URL(server.url);
    for (let i = 0; i < CONNECTIONS; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      if (i % 2 === 0) socket.write('POST /campaign HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"na');
      idle.push(socket);
    }
    try {
      const requests = Array.from({ length: CONNECTIONS * 2 }, (_, i) => {
        const kind = i % 4;
        if (kind === 0) return pool.request({ path: '/calls', method: 'GET', headers });
        if (kind === 1)
          return pool.request({
            path: '/campaign',
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: '{"name": ',
          });
        if (kind === 2)
          return pool.request({
            path: '/campaign',
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ name: `load ${i}`, max_concurrency: 5 }),
          });
        return pool.request({ path: '/calls?limit=abc', method: 'GET', headers });
      });
      const responses = await Promise.all(
        requests.map(async (pending) => {
          const r = await pending;
          const text = await r.body.text();
          return { status: r.statusCode, json: JSON.parse(text) as unknown };
        }),
      );
      const statuses = new Map<number, number>();
      for (const r of responses) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      expect(Object.fromEntries(statuses)).toEqual({ 200: CONNECTIONS / 2, 201: CONNECTIONS / 2, 422: CONNECTIONS });
    } finally {
      await pool.close();
      for (const socket of idle) socket.destroy();
    }
    // Still up afterwards.
    expect((await send(server.url, '/health')).status).toBe(200);
  });
});
