// The runner against the independent "slow" implementation (test/catalog/independent/slow/, choices
// in its CHOICES.md): a correct server whose choices are about time and connections: seeded
// per-operation latency (scaled down here), at most 4 requests in flight (the rest queue), a silent
// keep-alive (no Keep-Alive hint) and Connection: close on the 100th answer of a connection, fixed
// rate-limit windows whose X-RateLimit-Reset is the epoch second the window ends (and whose headers
// are those of the moment the request was counted, before its slow work), answers written in pieces,
// a call log that grows while it is read. Every check must pass: a failure is either a real fault of
// this server or a false alarm of the runner. Seed 1, cheap.
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import { loopbackServers, SMALL_LIMIT, type LoopbackServer } from '../../helpers/loopback-runs.js';
import { expectCorrectRateLimit, expectCorrectRun } from '../../helpers/correct-runs.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start as startSlow } from './slow/server.mjs';

interface SlowOptions {
  rateLimit?: number;
  rateWindowMs?: number;
  latencyScale?: number;
  keepAliveMs?: number;
  finLagMs?: number;
}
type Start = (o: SlowOptions) => Promise<LoopbackServer>;

/** A twentieth of the delays of CHOICES.md: writes 8-40 ms, reads sometimes 50-150 ms. */
const SCALE = 0.05;

describe('the runner against the independent slow implementation', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });
  const server = loopbackServers(startSlow as Start);

  it('keeps its own connection rules: keep-alive without a hint, closed when idle; Reset is the epoch second the window ends', async () => {
    const s = await server({ latencyScale: 0, keepAliveMs: 150, rateWindowMs: 10_000 });
    const auth = { authorization: `Bearer ${s.fixtures.api_key}`, 'x-user-id': s.fixtures.user_id };
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 1 });
    const sentAt = Date.now();
    const answer = await new Promise<{ headers: Record<string, unknown>; closed: Promise<void> }>((resolve, reject) => {
      const req = request(`${s.url}/users/me`, { headers: auth, agent }, (res) => {
        const closed = new Promise<void>((done) => res.socket.once('close', () => done()));
        res.resume();
        res.on('end', () => resolve({ headers: res.headers, closed }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.headers['connection']).toBe('keep-alive');
    expect(answer.headers['keep-alive']).toBeUndefined();
    const reset = Number(answer.headers['x-ratelimit-reset']);
    expect(reset % 10).toBe(0); // windows of 10 s aligned on the epoch: each ends on a multiple of 10 s
    // The window the request was served in ends after it was sent (not after the test reads it: a busy
    // machine may read it once that window is over).
    expect(reset * 1000).toBeGreaterThan(sentAt);
    await answer.closed; // the server closed the idle connection (the test would time out otherwise)
    agent.destroy();
  });

  it('all suites but ratelimit, destructive operations included: 0 failed, 0 error (seed 1)', async () => {
    const s = await server({ latencyScale: SCALE });
    await expectCorrectRun(s, spec);
  });

  it('the ratelimit suite (with schema) against short windows and a keep-alive race over a slow network: 0 failed', async () => {
    // The server closes connections idle 1.3 s, and the close takes 0.6 s to reach the client: a
    // request sent in between is dropped unanswered. With the transport's former 4 s pool idle and
    // no resend, the waits for the window's reset met it in 3 of 4 trials ("no response to a valid
    // request", FINDINGS.md); test/unit/transport/keep-alive-race.test.ts pins the fix itself.
    const s = await server({ ...SMALL_LIMIT, latencyScale: SCALE, keepAliveMs: 1300, finLagMs: 600 });
    await expectCorrectRateLimit(s, spec);
  });
});
