/**
 * A burst slower than the window (a loaded CI machine, a short test window) must not be read as a
 * server that never limits: when each new window began only after the old one's advertised reset,
 * and none served more than it advertised, burst-429 judges nothing (skipped, with why). A server
 * handing out fresh windows early (ratelimit-never-429, test/checks/ratelimit.test.ts) still fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIds, startTarget, type Target } from '../helpers/checks.js';

describe('ratelimit.burst-429 on a burst slower than the window', () => {
  let target: Target;
  beforeAll(async () => {
    target = await startTarget({
      // Reset in whole seconds until the window ends (as @fastify/rate-limit sends it): a window of
      // 2 s keeps a new window's Reset above the old one's last, so the windows can be told apart.
      rateLimit: 3,
      rateWindowMs: 2000,
      // Every answer takes 700 ms: a 2 s window serves about three before it resets, never four.
      configure(app) {
        app.addHook('onRequest', (_req, _reply, done) => void setTimeout(done, 700));
      },
    });
  });
  afterAll(() => target.close());

  it('is skipped with the windows it saw reset, not failed for a missing 429', async () => {
    const { results } = await runIds(target, ['ratelimit.burst-429'], { seed: 7 });
    const burst = results.find((r) => r.id === 'ratelimit.burst-429');
    expect(burst?.status, burst?.message).toBe('skipped');
    expect(burst?.message).toMatch(/the window reset \d+ time\(s\) during the burst/);
  }, 30_000);
});
