// The middleware's engine without a framework: routing (base path, templates, unknown routes),
// options refused, sampling, what a response is judged on, and a logger that throws.
import inject from 'light-my-request';
import { describe, expect, it, vi } from 'vitest';
import { ContractEngine, contractHandler, type ContractFinding } from '../../../src/middleware/index.js';
import { send } from '../../helpers/client.js';
import { recordingLogger, startMiddlewareApp } from '../../helpers/middleware-apps.js';

const RATE = { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '60' };
const bytes = (text: string) => new TextEncoder().encode(text);

describe('routing', () => {
  it('matches the operation by method and template, decoding path parameters and reading the query', () => {
    const engine = new ContractEngine();
    expect(engine.match('PATCH', '/campaign/a%2Fb?x=1&x=2')).toMatchObject({
      operationId: 'updateCampaign',
      template: '/campaign/{campaign_id}',
      path: { campaign_id: 'a/b' },
      query: { x: ['1', '2'] },
    });
    expect(engine.match('GET', '/users/me')?.operationId).toBe('getCurrentUser');
  });

  it('leaves what the contract does not have: another path, another method, an empty parameter', () => {
    const engine = new ContractEngine();
    expect(engine.match('GET', '/elsewhere')).toBeUndefined();
    expect(engine.match('DELETE', '/calls')).toBeUndefined();
    expect(engine.match('GET', '/campaign/')).toBeUndefined();
  });

  it('serves the contract under basePath only', () => {
    const engine = new ContractEngine({ basePath: '/api/' });
    expect(engine.match('GET', '/api/calls')?.operationId).toBe('listCalls');
    expect(engine.match('GET', '/calls')).toBeUndefined();
    expect(engine.match('GET', '/apicalls')).toBeUndefined();
  });
});

describe('options', () => {
  it('refuses a sampleEvery that is not a positive integer, and an unknown mode', () => {
    expect(() => new ContractEngine({ sampleEvery: 0 })).toThrow(/sampleEvery/);
    expect(() => new ContractEngine({ sampleEvery: 2.5 })).toThrow(/sampleEvery/);
    expect(() => new ContractEngine({ responses: 'always' as 'test' })).toThrow(/responses/);
  });

  it('samples the 1st, N+1st, … response in production, every one in test, none when off', () => {
    const plans = (options: ConstructorParameters<typeof ContractEngine>[0]) => {
      const engine = new ContractEngine(options);
      return Array.from({ length: 7 }, () => engine.responsePlan());
    };
    expect(plans({ sampleEvery: 3 })).toEqual(['copy', undefined, undefined, 'copy', undefined, undefined, 'copy']);
    expect(plans({ responses: 'test' })).toEqual(Array(7).fill('hold'));
    expect(plans({ responses: 'off' })).toEqual(Array(7).fill(undefined));
  });

  it('passes every request when requests is false, parsed', () => {
    const engine = new ContractEngine({ requests: false });
    const route = engine.match('POST', '/campaign')!;
    expect(engine.readsBody(route)).toBe(false);
    expect(
      engine.checkRequest(route, {}, { bytes: bytes('{"max_concurrency": 999}'), contentType: undefined }),
    ).toEqual({
      ok: true,
      body: { max_concurrency: 999 },
    });
  });
});

describe('judging a response', () => {
  const engine = new ContractEngine({ responses: 'test', logger: recordingLogger() });
  const route = engine.match('GET', '/calls')!;

  it('passes a conforming answer, and an undocumented status (a 404 or 500 the contract leaves "not shown")', () => {
    const headers = { ...RATE, 'content-type': 'application/json; charset=utf-8' };
    expect(engine.judgeResponse(route, 200, headers, { text: '[]' })).toBeUndefined();
    expect(engine.judgeResponse(route, 404, {}, { text: 'gone' })).toBeUndefined();
    expect(engine.judgeResponse(route, 500, {}, undefined)).toBeUndefined();
  });

  it('finds a rate-limit header that is not an integer, and a body that is not JSON', () => {
    const notInteger = engine.judgeResponse(
      route,
      200,
      { ...RATE, 'x-ratelimit-reset': 'soon', 'content-type': 'application/json' },
      { text: '[]' },
    );
    expect(notInteger?.issues).toEqual([
      expect.objectContaining({ location: 'header', pointer: '/X-RateLimit-Reset' }),
    ]);
    const notJson = engine.judgeResponse(route, 200, { ...RATE, 'content-type': 'application/json' }, { text: '[' });
    expect(notJson?.issues).toEqual([expect.objectContaining({ location: 'body', rule: 'json' })]);
  });

  it('judges the headers of a compressed body, not its bytes', () => {
    const headers = { ...RATE, 'content-type': 'application/json', 'content-encoding': 'gzip' };
    expect(engine.judgeResponse(route, 200, headers, { bytes: new Uint8Array([31, 139, 8]) })).toBeUndefined();
    const { ['x-ratelimit-limit']: _, ...missing } = headers;
    expect(engine.judgeResponse(route, 200, missing, { bytes: new Uint8Array([31, 139, 8]) })).toBeDefined();
  });

  it('still answers when the logger and onFinding throw', () => {
    const throwing = new ContractEngine({
      responses: 'test',
      logger: {
        warn: () => {
          throw new Error('disk full');
        },
        error: () => {
          throw new Error('disk full');
        },
      },
      onFinding: () => {
        throw new Error('callback broken');
      },
    });
    const r = throwing.match('GET', '/calls')!;
    expect(throwing.judgeResponse(r, 200, {}, { text: '[]' })?.issues.length).toBeGreaterThan(0);
    expect(throwing.checkRequest(r, {}, undefined)).toEqual({ ok: true, body: undefined });
  });
});

describe('bounds', () => {
  it('answers a body over maxBodyBytes 413 without calling the handler (Node adapter)', async () => {
    const app = await startMiddlewareApp('node', { maxBodyBytes: 64, responses: 'off' });
    try {
      const r = await send(app.url, '/campaign', { method: 'POST', json: { name: 'x'.repeat(100) } });
      expect(r).toMatchObject({ status: 413, json: { detail: 'Request body larger than 64 bytes' } });
      expect(app.seen).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('lets a response over maxResponseBytes through unjudged in test mode', async () => {
    const found: ContractFinding[] = [];
    const app = await startMiddlewareApp('express', {
      maxResponseBytes: 10,
      responses: 'test',
      onFinding: (f) => found.push(f),
    });
    try {
      const r = await send(app.url, '/calls', { headers: { 'x-breach': 'body' } });
      expect(r.status).toBe(200);
      expect(r.json).toEqual([expect.objectContaining({ id: 7 })]);
      expect(found).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('a response whose end writes through this.write (light-my-request)', () => {
  it('is copied once in a production sample, so a valid answer is not reported', async () => {
    const logger = recordingLogger();
    const handler = contractHandler(
      (_req, res) => {
        res.writeHead(200, { ...RATE, 'content-type': 'application/json' });
        res.end('[]');
      },
      { sampleEvery: 1, logger },
    );
    for (let i = 0; i < 3; i++) expect((await inject(handler, { url: '/calls' })).statusCode).toBe(200);
    const broken = await inject(handler, { url: '/calls', query: { limit: 'x' } });
    expect(broken.statusCode).toBe(422);
    await vi.waitFor(() => expect(logger.warned).toEqual([]));
    expect(logger.warned).toEqual([]);
  });
});
