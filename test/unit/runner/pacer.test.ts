import { beforeAll, describe, expect, it } from 'vitest';
import type { PacingInfo } from '../../../src/results/events.js';
import { createCheckContext } from '../../../src/runner/context.js';
import { inferWindowMs, Pacer } from '../../../src/runner/pacer.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import type { HttpRequest, Transport } from '../../../src/transport/types.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

/**
 * A server of `limit` requests a window that counts only authenticated requests, as some
 * implementations do: a request without credentials gets 401 and no rate-limit headers.
 */
function countsOnlyUsers(limit: number): Transport & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  let counted = 0;
  return {
    baseUrl: 'http://fake',
    sent,
    async send(request) {
      sent.push(request);
      const authed = Object.keys(request.headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
      const wire = { method: request.method, url: `http://fake${request.path}`, headers: { ...request.headers } };
      if (!authed)
        return {
          request: wire,
          response: { status: 401, headers: {}, text: '{"detail":"no"}', truncated: false },
          durationMs: 1,
        };
      counted++;
      const headers = {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(Math.max(0, limit - counted)),
        'x-ratelimit-reset': '60',
      };
      return { request: wire, response: { status: 200, headers, text: '{}', truncated: false }, durationMs: 1 };
    },
    async close() {},
  };
}

describe('pacing by what the server says, per credential', () => {
  it('never waits on refused requests the server did not count: the last answer said 96 of 100 were left', async () => {
    const t = countsOnlyUsers(100);
    const slept: number[] = [];
    const ctx = createCheckContext({
      spec,
      transport: t,
      credentials: { apiKey: 'k_abcdef', userId: 'u_12345' },
      sleep: async (ms) => void slept.push(ms),
    });
    for (let i = 0; i < 4; i++) await ctx.send({ method: 'GET', path: '/calls' });
    // The auth suite: many requests without credentials, answered 401 with no headers.
    for (let i = 0; i < 150; i++) await ctx.send({ method: 'GET', path: '/calls', auth: 'none' });
    await ctx.send({ method: 'GET', path: '/calls' });
    expect(slept).toEqual([]);
    expect(t.sent.length).toBe(155);
  });

  it("counts a key's requests together whatever user id goes beside it, as servers count per key", async () => {
    const t = countsOnlyUsers(5);
    const slept: number[] = [];
    const ctx = createCheckContext({
      spec,
      transport: t,
      credentials: { apiKey: 'k_abcdef', userId: 'u_12345' },
      sleep: async (ms) => void slept.push(ms),
    });
    for (let i = 0; i < 5; i++) await ctx.send({ method: 'GET', path: '/calls' });
    expect(slept).toEqual([]);
    await ctx.send({ method: 'GET', path: '/calls', headers: { 'X-User-ID': 'someone-else' } });
    // The key's last answer said 0 left: the run waits for its reset (60 s) instead of meeting a 429.
    expect(slept.length).toBeGreaterThan(0);
    expect(slept[0]).toBeGreaterThan(55_000);
  });

  it('waits when the last answer in that bucket says the budget is spent, and says which header and operation', async () => {
    let now = 0;
    const waits: PacingInfo[] = [];
    const pacer = new Pacer({
      now: () => now,
      sleep: async (ms) => void (now += ms),
      onPacing: (info) => void waits.push(info),
    });
    pacer.observe(
      { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' },
      'key-a',
      'GET /calls',
    );
    pacer.observe(
      { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '40', 'x-ratelimit-reset': '30' },
      'key-b',
      'GET /users/me',
    );
    expect(pacer.waitNeeded('key-b')).toBe(0); // another credential's bucket has room
    expect(pacer.waitNeeded('')).toBe(0); // nothing said about requests without credentials
    await pacer.acquire('key-a');
    expect(waits).toEqual([
      { waitMs: 30_050, limit: 100, remaining: 0, cause: 'X-RateLimit-Remaining: 0 on GET /calls (credentials #1)' },
    ]);
    expect(now).toBe(30_050);
  });

  it('counts requests in flight in their bucket, and a 429 spends the bucket whatever its headers', () => {
    const pacer = new Pacer({ now: () => 0 });
    pacer.observe({ 'x-ratelimit-remaining': '2', 'x-ratelimit-reset': '10' }, 'k');
    expect(pacer.tryAcquire('k')).toBe(true);
    expect(pacer.tryAcquire('k')).toBe(true);
    expect(pacer.tryAcquire('k')).toBe(false); // 2 left, 2 in flight
    pacer.release('k');
    expect(pacer.tryAcquire('k')).toBe(true);
    const wait = pacer.backoffAfter429({}, 0, 250, 'j', 'POST /campaign');
    expect(wait).toBe(1_000);
    expect(pacer.waitNeeded('j')).toBeGreaterThan(0);
    expect(pacer.causeOf('j')).toBe('429 on POST /campaign (credentials #2)');
  });

  it('names the --rpm cap when it is what makes the run wait', async () => {
    let now = 0;
    const causes: Array<string | undefined> = [];
    const pacer = new Pacer({
      rpm: 2,
      now: () => now,
      sleep: async (ms) => void (now += ms),
      onPacing: (info) => void causes.push(info.cause),
    });
    for (let i = 0; i < 3; i++) await pacer.acquire();
    expect(causes).toEqual(['--rpm 2']);
  });

  it('never waits while the last answer of the bucket says a request remains, and waits once it says none', async () => {
    let now = 0;
    const slept: number[] = [];
    const pacer = new Pacer({ now: () => now, sleep: async (ms) => void (slept.push(ms), (now += ms)) });
    for (let remaining = 99; remaining >= 1; remaining--) {
      await pacer.acquire('k');
      pacer.release('k');
      pacer.observe(
        { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': '60' },
        'k',
      );
    }
    await pacer.acquire('k');
    pacer.release('k');
    expect(slept).toEqual([]);
    pacer.observe({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' }, 'k');
    await pacer.acquire('k');
    expect(slept).toEqual([60_050]);
  });
});

describe('the window X-RateLimit-Limit counts in', () => {
  it('is read from the Reset of the first answer of a fresh window, in whole seconds', () => {
    const now = 1_700_000_000_000;
    expect(inferWindowMs({ limit: 20, remaining: 19, resetAt: now + 2_000 }, now)).toBe(2_000);
    expect(inferWindowMs({ limit: 100, remaining: 99, resetAt: now + 59_400 }, now)).toBe(60_000);
    // A window partly spent says nothing of its length.
    expect(inferWindowMs({ limit: 100, remaining: 97, resetAt: now + 30_000 }, now)).toBeUndefined();
    expect(inferWindowMs({ limit: 100, remaining: 99 }, now)).toBeUndefined();
  });

  it('the pacer keeps the longest window a fresh answer showed, and none from a spent one', () => {
    let now = 0;
    const pacer = new Pacer({ now: () => now });
    pacer.observe({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '50', 'x-ratelimit-reset': '5' }, 'k');
    expect(pacer.state.windowMs).toBeUndefined();
    pacer.observe({ 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'x-ratelimit-reset': '2' }, 'k');
    expect(pacer.state.windowMs).toBe(2_000);
    now = 5_000;
    pacer.observe({ 'x-ratelimit-limit': '20', 'x-ratelimit-remaining': '19', 'x-ratelimit-reset': '1' }, 'k');
    expect(pacer.state.windowMs).toBe(2_000);
  });
});
