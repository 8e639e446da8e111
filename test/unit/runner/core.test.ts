import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pacer, readRateLimit, resetToAbsolute } from '../../../src/runner/pacer.js';
import { createCheckContext, RunAbortedError } from '../../../src/runner/context.js';
import { dedupeFailures, planChecks, runChecks } from '../../../src/runner/run.js';
import { defineCheck, type CheckDefinition } from '../../../src/checks/check.js';
import { fitRuns, requestBudget, dryRunPlan, renderDryRun } from '../../../src/runner/budget.js';
import { sendingWindowMs } from '../../../src/runner/conformance.js';
import { validateWireRequest } from '../../../src/checks/wire.js';
import { buildRegistry } from '../../../src/checks/registry.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import type { Exchange, HttpRequest, Transport } from '../../../src/transport/types.js';
import { createUndiciTransport } from '../../../src/transport/undici.js';
import { profile } from '../../../suites/profile.js';
import { burstSuites as burstSuitesOf } from '../../../src/checks/profile.js';

/** The contract's burst suite (ratelimit), as the CLI's runs pass it. */
const burstSuites = burstSuitesOf(profile);

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

/** A transport that answers from a function and records what was sent. */
function fakeTransport(
  answer: (r: HttpRequest, n: number) => Partial<Exchange['response']> & { status: number },
): Transport & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    baseUrl: 'http://fake',
    sent,
    async send(request) {
      sent.push(request);
      const r = answer(request, sent.length);
      return {
        request: { method: request.method, url: `http://fake${request.path}`, headers: { ...request.headers } },
        response: { headers: {}, text: '', truncated: false, ...r },
        durationMs: 1,
      };
    },
    async close() {},
  };
}

describe('pacer', () => {
  it('reads the reset as seconds-until or as an epoch (seconds or milliseconds)', () => {
    const now = 1_700_000_000_000;
    expect(resetToAbsolute(30, now)).toBe(now + 30_000);
    expect(resetToAbsolute(1_700_000_060, now)).toBe(1_700_000_060_000);
    expect(resetToAbsolute(1_700_000_060_000, now)).toBe(1_700_000_060_000);
    expect(
      readRateLimit({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '12' }, now),
    ).toEqual({
      limit: 100,
      remaining: 7,
      resetAt: now + 12_000,
    });
    expect(readRateLimit({ 'x-ratelimit-limit': 'lots' }, now)).toEqual({});
  });

  it('waits for the advertised reset only when the last answer says the budget is spent', async () => {
    let now = 0;
    const waits: number[] = [];
    const pacer = new Pacer({ now: () => now, sleep: async (ms) => void (waits.push(ms), (now += ms)) });
    pacer.observe({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '10' });
    await pacer.acquire(); // 1 left: it goes
    pacer.release();
    expect(waits).toEqual([]);
    pacer.observe({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '10' });
    await pacer.acquire(); // the answer said 0: wait for the reset
    expect(waits).toEqual([10_050]);
  });

  it('never exceeds --rpm in any 60 s window', async () => {
    let now = 0;
    const times: number[] = [];
    const pacer = new Pacer({ rpm: 5, now: () => now, sleep: async (ms) => void (now += ms) });
    for (let i = 0; i < 12; i++) {
      await pacer.acquire();
      times.push(now);
    }
    for (let i = 5; i < times.length; i++) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(60_000);
  });

  it('bounds any single wait (a bogus far-future reset cannot stall a run)', async () => {
    const pacer = new Pacer({ now: () => 0, maxWaitMs: 1000 });
    pacer.observe({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '999999' });
    expect(pacer.waitNeeded()).toBe(1000);
  });
});

describe('createCheckContext', () => {
  it('applies the credentials each operation documents, or none when asked', async () => {
    const t = fakeTransport(() => ({ status: 200 }));
    const ctx = createCheckContext({ spec, transport: t, credentials: { apiKey: 'k_abcdef', userId: 'u_12345' } });
    await ctx.send({ method: 'GET', path: '/calls' });
    await ctx.send({ method: 'POST', path: '/api-keys/api-keys/k1/regenerate' });
    await ctx.send({ method: 'GET', path: '/calls', auth: 'none' });
    await ctx.send({ method: 'GET', path: '/calls', headers: { Authorization: 'Basic x' } });
    expect(t.sent[0]!.headers).toEqual({ Authorization: 'Bearer k_abcdef', 'X-User-ID': 'u_12345' });
    expect(t.sent[1]!.headers).toEqual({ Authorization: 'Bearer k_abcdef' });
    expect(t.sent[2]!.headers).toEqual({});
    expect(t.sent[3]!.headers).toEqual({ Authorization: 'Basic x', 'X-User-ID': 'u_12345' });
    expect(ctx.requests).toBe(4);
  });

  it('waits out a 429 and resends outside the ratelimit suite; the ratelimit suite sees it', async () => {
    const t = fakeTransport((_r, n) =>
      n === 1 ? { status: 429, headers: { 'x-ratelimit-reset': '0' } } : { status: 200 },
    );
    const slept: number[] = [];
    const ctx = createCheckContext({ spec, transport: t, sleep: async (ms) => void slept.push(ms) });
    const scoped = ctx.scope('schema.x', 'schema');
    const ex = await scoped.send({ method: 'GET', path: '/health' });
    expect(ex.response!.status).toBe(200);
    expect(scoped.requests).toBe(2);
    expect(slept.length).toBe(1);

    const t2 = fakeTransport(() => ({ status: 429 }));
    const ctx2 = createCheckContext({ spec, transport: t2, sleep: async () => undefined, burstSuites });
    const burst = ctx2.scope('ratelimit.x', 'ratelimit');
    expect((await burst.send({ method: 'GET', path: '/health' })).response!.status).toBe(429);
    expect(burst.requests).toBe(1);
  });

  it('the burst skips a limit above its budget at once, without waiting for a fresh window', async () => {
    const { burst429, MAX_BURST } = await import('../../../suites/ratelimit.js');
    const limit = String(MAX_BURST + 1);
    const t = fakeTransport(() => ({
      status: 200,
      headers: { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': limit, 'x-ratelimit-reset': '50' },
    }));
    const slept: number[] = [];
    const ctx = createCheckContext({ spec, transport: t, sleep: async (ms) => void slept.push(ms), burstSuites });
    await ctx.scope('schema.x', 'schema').send({ method: 'GET', path: '/users/me' });
    const outcome = await burst429.run(
      ctx.scope('ratelimit.burst-429', 'ratelimit', spec.operation('getCurrentUser')),
      spec.operation('getCurrentUser'),
    );
    expect(outcome.status).toBe('skipped');
    expect(outcome.message).toMatch(/exceeds the burst budget/);
    expect(slept).toEqual([]);
    expect(t.sent.length).toBe(1);
  });

  it('rotates the key in use and keeps both old and new out of curl lines', async () => {
    const t = fakeTransport(() => ({ status: 200 }));
    const ctx = createCheckContext({ spec, transport: t, credentials: { apiKey: 'old_key_1', userId: 'user_0001' } });
    ctx.rotateApiKey('new_key_2');
    const ex = await ctx.send({ method: 'GET', path: '/protected', json: { was: 'old_key_1' } });
    expect(t.sent[0]!.headers!['Authorization']).toBe('Bearer new_key_2');
    const curl = ctx.curl(ex);
    expect(curl).not.toMatch(/old_key_1|new_key_2|user_0001/);
    expect(curl).toContain('$VAPC_API_KEY');
  });

  it('learns x-secret values from responses and redacts them in failures', async () => {
    const t = fakeTransport(() => ({
      status: 200,
      json: { token: 'tok_very_secret' },
      text: '{"token":"tok_very_secret"}',
    }));
    const ctx = createCheckContext({ spec, transport: t });
    const ex = await ctx.send({ method: 'POST', path: '/orgs/o/invites', json: { email: 'a@b.c', role: 'developer' } });
    const failure = ctx.failure(ex, { expected: 'x', actual: 'got tok_very_secret', kind: 'mismatch' });
    expect(JSON.stringify(failure)).not.toContain('tok_very_secret');
    expect(failure.seed).toBe(0);
  });

  it('deduplicates observations and tags them with the check id', () => {
    const ctx = createCheckContext({ spec, transport: fakeTransport(() => ({ status: 200 })) });
    const s = ctx.scope('stateful.create', 'stateful');
    s.observe({ message: 'status scheduled accepted', operation: 'PATCH /campaign/{campaign_id}' });
    s.observe({ message: 'status scheduled accepted', operation: 'PATCH /campaign/{campaign_id}' });
    expect(ctx.observations).toEqual([
      { id: 'stateful.create', operation: 'PATCH /campaign/{campaign_id}', message: 'status scheduled accepted' },
    ]);
  });

  it('aborts the run after consecutive connection failures', async () => {
    const t: Transport = {
      baseUrl: 'http://x',
      async send(r) {
        return {
          request: { method: r.method, url: r.path, headers: {} },
          error: { code: 'connection_refused', message: 'refused' },
          durationMs: 0,
        };
      },
      async close() {},
    };
    const ctx = createCheckContext({ spec, transport: t, maxConsecutiveTransportErrors: 3 });
    await ctx.send({ method: 'GET', path: '/health' });
    await ctx.send({ method: 'GET', path: '/health' });
    await expect(ctx.send({ method: 'GET', path: '/health' })).rejects.toBeInstanceOf(RunAbortedError);
  });

  it('a target that stops answering mid-run is an aborted run: no failure is attributed to the contract (issue 21)', async () => {
    let down = false;
    const transport: Transport = {
      baseUrl: 'http://fake',
      async send(request) {
        const sent = { method: request.method, url: `http://fake${request.path}`, headers: { ...request.headers } };
        if (down)
          return {
            request: sent,
            error: { code: 'connection_refused', message: 'connect ECONNREFUSED' },
            durationMs: 1,
          };
        return {
          request: sent,
          response: { status: 200, headers: {}, text: '{}', json: {}, truncated: false },
          durationMs: 1,
        };
      },
      async close() {},
    };
    const ctx = createCheckContext({ spec, transport, maxConsecutiveTransportErrors: 3 });
    const probe = (id: string): CheckDefinition =>
      defineCheck({
        id,
        suite: 'schema',
        rule: '',
        contractRef: '',
        severity: 'minor',
        appliesTo: (op) => op.id === 'getHealth',
        async run(c) {
          const exchange = await c.send({ method: 'GET', path: '/health' });
          if (id === 'schema.up') down = true;
          if (exchange.response) return { status: 'passed', message: 'answered' };
          return {
            status: 'failed',
            message: 'no response',
            failures: [
              c.failure(exchange, {
                expected: 'an answer',
                actual: 'no response (connection refused)',
                kind: 'no-response',
              }),
            ],
          };
        },
      });
    const out = await runChecks(['schema.up', 'schema.a', 'schema.b', 'schema.c', 'schema.d'].map(probe), ctx);
    expect(out.aborted?.reason).toBe('unreachable');
    expect(out.results.map((r) => r.status)).toEqual(['passed', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(out.results.filter((r) => r.failures?.length)).toEqual([]);
    expect(out.results[1]!.message).toMatch(/^not judged: the target stopped answering/);
  });

  it('reports wire validation unavailable without a validator (so checks cannot fail on it)', async () => {
    const ctx = createCheckContext({ spec, transport: fakeTransport(() => ({ status: 200 })) });
    const ex = await ctx.send({ method: 'GET', path: '/calls' });
    expect(ctx.validateWire(spec.operation('listCalls'), ex)).toEqual({ available: false, valid: true, errors: [] });
  });
});

describe('runChecks', () => {
  const base = { rule: 'r', contractRef: '4', severity: 'minor' as const };
  const mk = (over: Partial<CheckDefinition> & Pick<CheckDefinition, 'id' | 'suite' | 'run'>): CheckDefinition =>
    defineCheck({ ...base, appliesTo: (op) => op.id === 'getHealth', ...over });

  it('turns a throw into an error verdict, never failed, and keeps going', async () => {
    const ctx = createCheckContext({ spec, transport: fakeTransport(() => ({ status: 200 })) });
    const checks = [
      mk({
        id: 'schema.boom',
        suite: 'schema',
        run: async () => {
          throw new Error('bug in check');
        },
      }),
      mk({ id: 'schema.ok', suite: 'schema', run: async () => ({ status: 'passed', message: 'fine' }) }),
    ];
    const { results } = await runChecks(checks, ctx);
    expect(results.map((r) => [r.id, r.status])).toEqual([
      ['schema.boom', 'error'],
      ['schema.ok', 'passed'],
    ]);
    expect(results[0]!.message).toContain('bug in check');
  });

  it('skips destructive pairs without the flag and checks missing a fixture, with the reason', async () => {
    const ctx = createCheckContext({ spec, transport: fakeTransport(() => ({ status: 200 })), fixtures: {} });
    let ran = 0;
    const checks = [
      mk({
        id: 'stateful.regen',
        suite: 'stateful',
        appliesTo: (op) => op.id === 'regenerateApiKey',
        run: async () => (ran++, { status: 'passed', message: '' }),
      }),
      mk({
        id: 'stateful.invite',
        suite: 'stateful',
        needs: ['org_id'],
        run: async () => (ran++, { status: 'passed', message: '' }),
      }),
    ];
    const { results } = await runChecks(checks, ctx);
    expect(ran).toBe(0);
    const byId = new Map(results.map((r) => [r.id, r]));
    expect(byId.get('stateful.regen')!.status).toBe('skipped');
    expect(byId.get('stateful.regen')!.message).toMatch(/--include-destructive/);
    expect(byId.get('stateful.invite')!.status).toBe('skipped');
    expect(byId.get('stateful.invite')!.message).toMatch(/org_id/);
  });

  it('orders suites with ratelimit last and destructive pairs at the end of their suite', () => {
    const ctx = createCheckContext({ spec, transport: fakeTransport(() => ({ status: 200 })) });
    const run = async () => ({ status: 'passed' as const, message: '' });
    const checks = [
      mk({ id: 'ratelimit.burst', suite: 'ratelimit', run }),
      mk({
        id: 'stateful.all',
        suite: 'stateful',
        appliesTo: (op) => ['regenerateApiKey', 'createInvite', 'getHealth'].includes(op.id),
        run,
      }),
      mk({ id: 'auth.h', suite: 'auth', run }),
    ];
    const plan = planChecks(checks, ctx, { includeDestructive: true, profile });
    expect(plan.map((p) => `${p.check.id} ${p.operation.id}`)).toEqual([
      'auth.h getHealth',
      'stateful.all getHealth',
      'stateful.all createInvite',
      'stateful.all regenerateApiKey',
      'ratelimit.burst getHealth',
    ]);
  });

  it('deduplicates failures by what they say', () => {
    const f = { expected: 'a', actual: 'b' };
    expect(dedupeFailures([f, { ...f }, { expected: 'a', actual: 'c' }])).toHaveLength(2);
  });

  it('emits suite and check events in order', async () => {
    const ctx = createCheckContext({ spec, transport: fakeTransport(() => ({ status: 200 })) });
    const log: string[] = [];
    const run = async () => ({ status: 'passed' as const, message: '' });
    await runChecks([mk({ id: 'auth.a', suite: 'auth', run }), mk({ id: 'cors.c', suite: 'cors', run })], ctx, {
      events: {
        onSuiteStart: (s, n) => log.push(`start ${s} ${n}`),
        onCheckDone: (r) => log.push(`done ${r.id}`),
        onSuiteEnd: (s) => log.push(`end ${s}`),
      },
    });
    expect(log).toEqual(['start auth 1', 'done auth.a', 'end auth', 'start cors 1', 'done cors.c', 'end cors']);
  });

  it('refuses duplicate ids and ids outside their suite', () => {
    const run = async () => ({ status: 'passed' as const, message: '' });
    expect(() =>
      buildRegistry([mk({ id: 'auth.a', suite: 'auth', run }), mk({ id: 'auth.a', suite: 'auth', run })]),
    ).toThrow(/duplicate check id/);
    expect(() => buildRegistry([mk({ id: 'cors.a', suite: 'auth', run })])).toThrow(/suite/);
  });
});

describe('request budget', () => {
  it('sizes the default runs so the pre-burst plan fits three windows of 100 requests/minute, and projects about 3 minutes', () => {
    const ctx = createCheckContext({ spec, transport: fakeTransport(() => ({ status: 200 })) });
    const run = async () => ({ status: 'passed' as const, message: '' });
    const checks = [
      defineCheck({
        id: 'ranges.x',
        suite: 'ranges',
        rule: '',
        contractRef: '',
        severity: 'minor',
        appliesTo: () => true,
        plannedRequests: (_op, runs) => runs,
        run,
      }),
      // A burst that spends what is left of its window, as ratelimit.burst-429 plans.
      defineCheck({
        id: 'ratelimit.burst',
        suite: 'ratelimit',
        rule: '',
        contractRef: '',
        severity: 'minor',
        appliesTo: (op) => op.id === 'getHealth',
        plannedRequests: (_op, _runs, _spec, o) => 100 - ((o?.requestsBefore ?? 0) % 100) + 1,
        run,
      }),
    ];
    const plan = planChecks(checks, ctx, { profile });
    const budget = requestBudget(100);
    expect(budget).toBe(288);
    const runs = fitRuns(plan, budget, spec);
    const perRun = plan.filter((p) => p.check.suite !== 'ratelimit' && !p.skip).length;
    expect(runs * perRun).toBeLessThanOrEqual(288);
    expect((runs + 1) * perRun).toBeGreaterThan(288);
    const dry = dryRunPlan(plan, runs, spec, 100);
    expect(dry.total).toBe(runs * perRun + 100 - ((runs * perRun) % 100) + 1);
    expect(dry.projectedMinutes).toBe(3);
  });

  it('reads the limit per window when the first answers showed the window: 20 per 2 s is 600 a minute', () => {
    expect(requestBudget(20, undefined, 2_000)).toBe(600 * 3 - 12);
    expect(requestBudget(20, 100, 2_000)).toBe(288); // --rpm caps it
    expect(requestBudget(1000, undefined, 3_600_000)).toBe(50); // an hour's window: the floor
    const plan = planChecks(
      [
        defineCheck({
          id: 'ranges.y',
          suite: 'ranges',
          rule: '',
          contractRef: '',
          severity: 'minor',
          appliesTo: (op) => op.id === 'getHealth',
          plannedRequests: () => 45,
          run: async () => ({ status: 'passed' as const, message: '' }),
        }),
      ],
      createCheckContext({ spec, transport: fakeTransport(() => ({ status: 200 })) }),
    );
    const dry = dryRunPlan(plan, 1, spec, 20, undefined, 2_000);
    // 45 requests at 20 a window: two waits of a 2 s window.
    expect(dry.projectedMinutes).toBeCloseTo(4 / 60, 5);
    expect(renderDryRun(dry)).toMatch(/projected time at 20 requests per 2 s window \(inferred from X-RateLimit-Reset/);
    expect(renderDryRun(dryRunPlan(plan, 1, spec, 20))).toMatch(
      /projected time at 20 requests\/minute \(X-RateLimit-Limit read per minute/,
    );
  });
});

describe('wire transport with a slow server', () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  it('keeps a tenth of the run deadline (at most 30 s) for the request in flight and the reports', () => {
    expect(sendingWindowMs(1_000)).toBe(900);
    expect(sendingWindowMs(20 * 60_000)).toBe(20 * 60_000 - 30_000);
  });

  it('stops at the run deadline with RunAbortedError, not a check failure', async () => {
    const transport = createUndiciTransport({ baseUrl: url });
    const ctx = createCheckContext({ spec, transport, deadlineAt: Date.now() - 1 });
    const check = defineCheck({
      id: 'schema.h',
      suite: 'schema',
      rule: '',
      contractRef: '',
      severity: 'minor',
      appliesTo: (op) => op.id === 'getHealth',
      run: async (c) => (await c.send({ method: 'GET', path: '/health' }), { status: 'passed', message: '' }),
    });
    const out = await runChecks([check, { ...check, id: 'schema.i' }], ctx);
    await transport.close();
    expect(out.aborted?.reason).toBe('deadline');
    expect(out.results.map((r) => r.status)).toEqual(['skipped', 'skipped']);
  });
});

describe('validateWireRequest', () => {
  it('judges the request as sent whole: a required body that was not sent is invalid', () => {
    const op = spec.operation('createCampaign');
    expect(op.requestBody?.required).toBe(true);
    const sent = (body?: string) => ({
      request: {
        method: 'POST',
        url: 'http://h/campaign',
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body }),
      },
      durationMs: 0,
    });
    expect(validateWireRequest(op, sent()).valid).toBe(false);
    expect(validateWireRequest(op, sent('{}')).valid).toBe(true);
  });
});
