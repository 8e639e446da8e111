// The contract middleware on Express, Fastify, Hono and a plain Node handler, each on a loopback
// port: valid requests reach the handler unchanged, invalid ones get the contract's 422 with the
// same body the reference server gives for the same request, a breaching response is a 500 in test
// mode and untouched (logged 1 in N) in production mode, and routes outside the contract are left
// alone. The apps are test/helpers/middleware-apps.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { packageRoot } from '../../../src/paths.js';
import { startReferenceServer, type ReferenceServer } from '../../../src/server/index.js';
import type { ContractFinding } from '../../../src/middleware/index.js';
import { authed, send, type Sent } from '../../helpers/client.js';
import {
  FRAMEWORKS,
  answerFor,
  recordingLogger,
  startMiddlewareApp,
  type Framework,
  type MiddlewareApp,
} from '../../helpers/middleware-apps.js';

const samples = JSON.parse(readFileSync(join(packageRoot, 'test', 'samples', 'CampaignCreate.json'), 'utf8')) as {
  valid: { why: string; value: Record<string, unknown> }[];
};
/** Every documented field, with a provider the reference server knows (it checks channel; the middleware cannot). */
const fullCreate = { ...samples.valid[1]!.value, channel: 'provider-a' };

interface InvalidCase {
  name: string;
  path: string;
  sent: Sent;
  loc: Array<string | number>;
  type: string;
}

const INVALID: InvalidCase[] = [
  {
    name: 'a non-integer query parameter',
    path: '/calls?limit=abc',
    sent: {},
    loc: ['query', 'limit'],
    type: 'type_error',
  },
  {
    name: 'a wrong type in the body',
    path: '/campaign',
    sent: { method: 'POST', json: { name: 5 } },
    loc: ['body', 'name'],
    type: 'type_error',
  },
  {
    name: 'a value above the maximum',
    path: '/campaign',
    sent: { method: 'POST', json: { ...fullCreate, max_concurrency: 201 } },
    loc: ['body', 'max_concurrency'],
    type: 'less_than_equal',
  },
  {
    name: 'a value below the minimum',
    path: '/campaign',
    sent: { method: 'POST', json: { machine_detection_timeout_seconds: 2 } },
    loc: ['body', 'machine_detection_timeout_seconds'],
    type: 'greater_than_equal',
  },
  {
    name: 'a value outside an enum (with a path parameter)',
    path: '/campaign/cmp-404',
    sent: { method: 'PATCH', json: { status: 'archived' } },
    loc: ['body', 'status'],
    type: 'enum',
  },
  {
    name: 'a nested member inside an array',
    path: '/campaign',
    sent: { method: 'POST', json: { recipients: [{ phone_number: 5 }] } },
    loc: ['body', 'recipients', 0, 'phone_number'],
    type: 'type_error',
  },
  {
    name: 'malformed JSON',
    path: '/campaign',
    sent: { method: 'POST', body: '{"name": "x",}', headers: { 'content-type': 'application/json' } },
    loc: ['body', 13],
    type: 'json_invalid',
  },
  { name: 'a missing body', path: '/campaign', sent: { method: 'POST' }, loc: ['body'], type: 'missing' },
];

const WRONG_TYPE: InvalidCase = {
  name: 'a body that is not sent as JSON',
  path: '/campaign',
  sent: { method: 'POST', body: 'name=x', headers: { 'content-type': 'text/plain' } },
  loc: ['body'],
  type: 'model_attributes_type',
};

let reference: ReferenceServer;
beforeAll(async () => {
  reference = await startReferenceServer({ port: 0, rateLimit: 1_000_000 });
});
afterAll(() => reference?.close());

describe.each(FRAMEWORKS)('the middleware on %s', (framework: Framework) => {
  const logger = recordingLogger();
  const found: ContractFinding[] = [];
  let app: MiddlewareApp;
  let production: MiddlewareApp;
  const prodLogger = recordingLogger();
  beforeAll(async () => {
    [app, production] = await Promise.all([
      startMiddlewareApp(framework, { responses: 'test', logger, onFinding: (f) => found.push(f) }),
      startMiddlewareApp(framework, { responses: 'production', sampleEvery: 3, logger: prodLogger }),
    ]);
  });
  afterAll(() => Promise.all([app?.close(), production?.close()]));

  it('passes a valid request through unchanged: the handler gets the body, the client the handler answer', async () => {
    const before = app.seen.length;
    const r = await send(app.url, '/campaign', { method: 'POST', json: fullCreate });
    const expected = answerFor('POST', '/campaign', fullCreate, undefined);
    expect(r.status).toBe(201);
    expect(r.text).toBe(expected.text);
    expect(r.headers['x-ratelimit-remaining']).toBe('99');
    expect(app.seen.slice(before)).toEqual([{ method: 'POST', path: '/campaign', body: fullCreate }]);
    const list = await send(app.url, '/calls?limit=5&provider=provider-a');
    expect(list).toMatchObject({ status: 200, text: '[]' });
    const patched = await send(app.url, '/campaign/cmp%2D1', { method: 'PATCH', json: { status: 'paused' } });
    expect(patched).toMatchObject({ status: 200, json: { status: 'paused' } });
    expect(logger.errored).toEqual([]);
  });

  it('judges no credentials: a request without Authorization or X-User-ID reaches the handler', async () => {
    const r = await send(app.url, '/calls');
    expect(r.status).toBe(200);
  });

  it.each([...INVALID, WRONG_TYPE].map((c) => [c.name, c] as const))(
    'answers %s with the contract 422, loc at the field, as the reference server does',
    async (_name, c) => {
      const before = app.seen.length;
      const r = await send(app.url, c.path, c.sent);
      expect(r.status).toBe(422);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      expect(r.json.detail).toContainEqual(expect.objectContaining({ loc: c.loc, type: c.type }));
      expect(app.seen.length).toBe(before);
      const ref = await send(reference.url, c.path, {
        ...c.sent,
        headers: authed(reference.fixtures, c.sent.headers),
      });
      expect(ref.status).toBe(422);
      expect(r.json).toEqual(ref.json);
    },
  );

  if (framework === 'fastify')
    it('leaves a media type Fastify has no parser for to Fastify (415, before any hook)', async () => {
      const r = await send(app.url, '/campaign', {
        method: 'POST',
        body: '<name/>',
        headers: { 'content-type': 'application/xml' },
      });
      expect(r.status).toBe(415);
    });

  it('reports each refused request to onFinding with the items it was answered with', async () => {
    const r = await send(app.url, '/calls?offset=1.5');
    const last = found[found.length - 1]!;
    expect(last).toMatchObject({ side: 'request', operationId: 'listCalls', method: 'GET', path: '/calls' });
    expect(last.side === 'request' && last.items).toEqual(r.json.detail);
  });

  it.each([
    ['header', 'header', '/X-RateLimit-Remaining'],
    ['body', 'body', '/0/id'],
    ['content-type', 'header', '/content-type'],
  ])('turns a response breaking the contract (%s) into a 500 in test mode, logged', async (breach, location, at) => {
    const before = logger.errored.length;
    const r = await send(app.url, '/calls', { headers: { 'x-breach': breach } });
    expect(r.status).toBe(500);
    expect(r.json.detail).toMatch(/breaks the contract \(test mode\)/);
    const logged = logger.errored.slice(before);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ side: 'response', mode: 'test', operationId: 'listCalls', status: 200 });
    expect(logged[0]!.issues).toContainEqual(expect.objectContaining({ location }));
    expect(JSON.stringify(logged[0]!.issues)).toContain(at === '/X-RateLimit-Remaining' ? 'X-RateLimit-Remaining' : at);
  });

  it('turns a breaching create response into a 500 too, after the handler ran', async () => {
    const before = app.seen.length;
    const r = await send(app.url, '/campaign', {
      method: 'POST',
      json: { name: 'x' },
      headers: { 'x-breach': 'body' },
    });
    expect(r.status).toBe(500);
    expect(app.seen.length).toBe(before + 1);
  });

  it('leaves routes outside the contract alone, in test mode too', async () => {
    const before = logger.errored.length;
    expect(await send(app.url, '/elsewhere')).toMatchObject({ status: 200, text: 'not the contract' });
    expect(await send(app.url, '/calls', { method: 'DELETE' })).toMatchObject({ status: 418 });
    expect(logger.errored.length).toBe(before);
  });

  it('never alters a response in production mode, and logs 1 in sampleEvery (the 1st and the 4th)', async () => {
    const breaches = ['body', 'header', 'header', 'content-type', 'header', 'header'];
    for (const breach of breaches) {
      const r = await send(production.url, '/calls', { headers: { 'x-breach': breach } });
      const expected = answerFor('GET', '/calls', undefined, breach);
      expect(r.status).toBe(200);
      expect(r.text).toBe(expected.text);
    }
    await vi.waitFor(() => expect(prodLogger.warned.length).toBeGreaterThanOrEqual(2));
    const kinds = prodLogger.warned.map((f) => f.issues.map((i) => i.rule).join(','));
    expect(kinds).toEqual(['type', 'content-type']);
    expect(prodLogger.warned.every((f) => f.side === 'response' && f.mode === 'production')).toBe(true);
    expect(prodLogger.errored).toEqual([]);
  });
});
