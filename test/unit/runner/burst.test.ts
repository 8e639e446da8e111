import { beforeAll, describe, expect, it } from 'vitest';
import { burstSender, BURST_CONCURRENCY } from '../../../suites/lib/burst.js';
import { burst429, burstRequests, MAX_BURST, resetHonoured, ROUNDING_MS } from '../../../suites/ratelimit.js';
import { createCheckContext } from '../../../src/runner/context.js';
import { dryRunPlan } from '../../../src/runner/budget.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import type { Exchange, Transport } from '../../../src/transport/types.js';

/** A server of `limit` requests whose answers come back in a scrambled order within each batch in flight. */
function scrambledServer(limit: number) {
  let count = 0;
  let inFlight: Array<() => void> = [];
  const maxInFlight = { value: 0 };
  const send = (): Promise<Exchange> =>
    new Promise((resolve) => {
      inFlight.push(() => {
        count++;
        const remaining = Math.max(0, limit - count);
        const status = count > limit ? 429 : 200;
        resolve({
          request: {},
          response: { status, headers: { 'x-ratelimit-remaining': String(remaining) }, text: '', timing: {} },
        } as unknown as Exchange);
      });
      maxInFlight.value = Math.max(maxInFlight.value, inFlight.length);
      // Answer the batch in reverse order of sending, on the next tick.
      queueMicrotask(() => {
        const batch = inFlight.reverse();
        inFlight = [];
        for (const answer of batch) answer();
      });
    });
  return { send, maxInFlight, sent: () => count };
}

const remainingOf = (e: Exchange) => Number(e.response?.headers['x-ratelimit-remaining']);

describe('the burst sender', () => {
  it("sends concurrently far from the edge, one at a time near it, and hands answers out in the server's order", async () => {
    const server = scrambledServer(100);
    const next = burstSender(server.send, remainingOf);
    const seen: Array<{ status: number; remaining: number }> = [];
    for (;;) {
      const e = await next();
      seen.push({ status: e.response!.status, remaining: remainingOf(e) });
      if (e.response!.status === 429) break;
    }
    // Remaining never rises in the order handed out, and the 429 comes right after Remaining 0.
    const served = seen.filter((s) => s.status !== 429).map((s) => s.remaining);
    expect(served).toEqual([...served].sort((a, b) => b - a));
    expect(served.length).toBe(100);
    expect(served.at(-1)).toBe(0);
    expect(server.maxInFlight.value).toBeLessThanOrEqual(BURST_CONCURRENCY);
    expect(server.maxInFlight.value).toBeGreaterThan(1);
    // Near the edge it went one at a time: nothing was sent past the 429.
    expect(server.sent()).toBe(101);
  });

  it('goes one at a time while Remaining is unknown', async () => {
    let inFlight = 0;
    let most = 0;
    const next = burstSender(
      async () => {
        most = Math.max(most, ++inFlight);
        await Promise.resolve();
        inFlight--;
        return { request: {}, response: { status: 200, headers: {}, text: '', timing: {} } } as unknown as Exchange;
      },
      () => undefined,
    );
    for (let i = 0; i < 20; i++) await next();
    expect(most).toBe(1);
  });
});

describe('--dry-run projects the burst from the advertised limit', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });

  it('a burst costs what is left of the window it starts in and the 429; an unknown limit the 100/min default; a skipped burst one probe', () => {
    expect(burstRequests(1000)).toBe(1002);
    expect(burstRequests(1000, 471)).toBe(530);
    expect(burstRequests(100, 277)).toBe(24);
    expect(burstRequests(100, 300)).toBe(101); // the window before is spent: the pacer waits, the burst fills a fresh one
    expect(burstRequests(undefined)).toBe(102);
    expect(burstRequests(MAX_BURST + 1)).toBe(1);
    const op = spec.operation('getCurrentUser');
    const plan = [{ check: burst429, operation: op }];
    expect(dryRunPlan(plan, 1, spec, 1000).total).toBe(1001);
    expect(dryRunPlan(plan, 1, spec, 100).total).toBe(101);
  });
});

describe('ratelimit.reset-honoured: no wait passes the run deadline', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });

  it('the second more after a Reset rounded down stops at --deadline-ms and the check says so', async () => {
    // Every answer a 429 advertising Reset 0: the check waits for the reset, meets a 429 again and
    // would wait one more second, but the deadline is 400 ms away.
    const transport: Transport = {
      baseUrl: 'http://fake',
      async send(request) {
        const headers = {
          'x-ratelimit-limit': '100',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': '0',
          'content-type': 'application/json',
        };
        return {
          request: { method: request.method, url: `http://fake${request.path}`, headers: { ...request.headers } },
          response: {
            status: 429,
            headers,
            text: '{"detail":"slow down"}',
            json: { detail: 'slow down' },
            truncated: false,
          },
          durationMs: 1,
        };
      },
      async close() {},
    };
    const slept: number[] = [];
    const deadlineAt = Date.now() + 400;
    const ctx = createCheckContext({
      spec,
      transport,
      credentials: { apiKey: 'k_abcdef', userId: 'u_12345' },
      deadlineAt,
      sleep: async (ms) => void slept.push(ms),
    });
    const outcome = await resetHonoured.run(ctx, spec.operation('getCurrentUser'));
    expect(outcome).toEqual({
      status: 'skipped',
      message:
        "the run's deadline (--deadline-ms) comes before a second past the advertised reset (X-RateLimit-Reset: 0)",
      notJudged: { cause: 'timing' },
    });
    expect(slept.length).toBe(2); // the reset (~100 ms), then what was left before the deadline
    // The fake sleep does not move the clock: each wait is what was left before the deadline, at most.
    expect(slept.every((ms) => ms <= 400)).toBe(true);
    expect(slept[1]).toBeLessThan(ROUNDING_MS);
  });
});

describe('ratelimit.burst-429 starts in the window it finds', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });

  /** A server of `limit` requests a window, the window reset by each sleep of the run (a fake clock). */
  function windowed(limit: number) {
    let used = 0;
    const transport: Transport = {
      baseUrl: 'http://fake',
      async send(request) {
        used++;
        const remaining = Math.max(0, limit - used);
        const headers = {
          'x-ratelimit-limit': String(limit),
          'x-ratelimit-remaining': String(remaining),
          'x-ratelimit-reset': '1',
          'content-type': 'application/json',
        };
        const status = used > limit ? 429 : 200;
        const text = status === 429 ? '{"detail":"rate limit exceeded"}' : '{}';
        return {
          request: { method: request.method, url: `http://fake${request.path}`, headers: { ...request.headers } },
          response: { status, headers, text, json: JSON.parse(text), truncated: false },
          durationMs: 1,
        };
      },
      async close() {},
    };
    return { transport, used: () => used, newWindow: () => void (used = 0) };
  }

  it('spends only what is left of a window partly used: no wait', async () => {
    const server = windowed(10);
    const slept: number[] = [];
    const ctx = createCheckContext({
      spec,
      transport: server.transport,
      credentials: { apiKey: 'k_abcdef', userId: 'u_12345' },
      sleep: async (ms) => void (slept.push(ms), server.newWindow()),
    });
    for (let i = 0; i < 7; i++) await ctx.send({ method: 'GET', path: '/users/me' });
    const outcome = await burst429.run(ctx, spec.operation('getCurrentUser'));
    expect(outcome).toMatchObject({ status: 'passed', message: '429 {detail} after 3 requests (limit 10)' });
    expect(slept).toEqual([]);
  });

  it('waits out a window the last answer said was spent, then bursts through a whole one', async () => {
    const server = windowed(10);
    const slept: number[] = [];
    const ctx = createCheckContext({
      spec,
      transport: server.transport,
      credentials: { apiKey: 'k_abcdef', userId: 'u_12345' },
      sleep: async (ms) => void (slept.push(ms), server.newWindow()),
    });
    for (let i = 0; i < 10; i++) await ctx.send({ method: 'GET', path: '/users/me' });
    const outcome = await burst429.run(ctx, spec.operation('getCurrentUser'));
    expect(outcome).toMatchObject({ status: 'passed', message: '429 {detail} after 10 requests (limit 10)' });
    expect(slept.length).toBe(1);
  });
});
