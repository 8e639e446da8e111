// The runner against the independent "wire" implementation (test/catalog/independent/wire/,
// choices in its CHOICES.md): a correct server whose choices are at the HTTP level: gzip bodies
// (also when the request names no Accept-Encoding, as RFC 9110 12.5.3 allows), chunked bodies without
// Content-Length, `application/json; charset=utf-8`, rate-limit header names in odd case,
// `Connection: close` on every 10th answer and a 2 s keep-alive, weak ETags, pretty JSON with sorted
// keys and \u escapes, HEAD, 405 with Allow, trailing slashes. Every check must pass: a failure is
// either a real fault of this server or a false alarm of the runner. Seed 1, cheap.
import { beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import { loopbackServers, SMALL_LIMIT, type LoopbackServer } from '../../helpers/loopback-runs.js';
import { expectCorrectRateLimit, expectCorrectRun } from '../../helpers/correct-runs.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start as startWire } from './wire/server.mjs';

type Start = (o: { rateLimit?: number; rateWindowMs?: number }) => Promise<LoopbackServer>;

describe('the runner against the independent wire implementation', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });
  const server = loopbackServers(startWire as Start);

  it('keeps its own wire rules: gzip unless identity is asked for, HEAD, 405 with Allow, odd header case, problem+json with CRLF', async () => {
    const s = await server();
    const auth = { authorization: `Bearer ${s.fixtures.api_key}`, 'x-user-id': s.fixtures.user_id };
    const http = await import('node:http');
    const raw = (method: string, path: string, headers: Record<string, string>) =>
      new Promise<{
        status: number;
        headers: Record<string, string | string[] | undefined>;
        raw: string[];
        body: Buffer;
      }>((resolve, reject) => {
        const req = http.request(`${s.url}${path}`, { method, headers, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              raw: res.rawHeaders,
              body: Buffer.concat(chunks),
            }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    const zipped = await raw('GET', '/assistants', auth);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-length']).toBeUndefined();
    expect(zipped.raw).toContain('X-RATELIMIT-REMAINING');
    expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toHaveLength(2);
    const plain = await raw('GET', '/assistants/', { ...auth, 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8')).toMatch(/\\u00e9[\s\S]*\n$/);
    const head = await raw('HEAD', '/users/me', auth);
    expect([head.status, head.body.length]).toEqual([200, 0]);
    const notAllowed = await raw('DELETE', '/calls', auth);
    expect([notAllowed.status, notAllowed.headers['allow']]).toEqual([405, 'GET, HEAD']);
    const refused = await raw('GET', '/users/me', { 'x-user-id': s.fixtures.user_id });
    expect([refused.status, refused.headers['content-type']]).toEqual([401, 'application/problem+json']);
    expect(refused.body.toString('utf8')).toMatch(/^\{\r\n {2}"detail": "[^"]+",\r\n/);
    expect(refused.raw).toContain('x-ratelimit-limit');
  });

  it('all suites but ratelimit, destructive operations included: 0 failed, 0 error (seed 1)', async () => {
    const s = await server();
    await expectCorrectRun(s, spec);
  });

  it('the ratelimit suite (with schema), burst included, against a small limit and window: 0 failed', async () => {
    const s = await server(SMALL_LIMIT);
    await expectCorrectRateLimit(s, spec);
  });
});
