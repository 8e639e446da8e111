/**
 * Issue 23's checks: string and container edges on every seed, partial updates that keep what they
 * were not sent, and a limiter that keeps the promise of its Reset header. Each passes on the
 * reference server and fails on its faults (test/catalog/faults/promise-faults.ts), on a second seed;
 * the failure names what broke (the field, the Reset value given).
 */
import { describe, expect, it } from 'vitest';
import { describeResults, expectPassed, runCheck, startTarget } from '../helpers/checks.js';
import { RATE, tooSlow } from '../helpers/fails-on-fault.js';
import { promiseFaults } from '../catalog/faults/promise-faults.js';
import { checkOf } from '../catalog/faults/index.js';
import { checkById } from '../../suites/index.js';
import { profile } from '../../suites/profile.js';
import { runConformance } from '../../src/runner/conformance.js';
import { validateWireRequest } from '../../src/checks/wire.js';
import { referenceSpec } from '../../src/server/index.js';

/** Seed 7 runs every pair in test/checks/<suite>.test.ts (describeFailsOnFault); a second seed here. */
const SEEDS = [1234];
const rateOf = (id: string) => (id.startsWith('ratelimit.') ? RATE : {});

describe('on the reference server', () => {
  // test/checks/checks.test.ts runs it after the burst (one request to a 429); alone, it spends the window itself.
  it('ratelimit.reset-honoured passes alone, sending until its own 429', async () => {
    const target = await startTarget(RATE);
    try {
      const run = await runCheck(target, 'ratelimit.reset-honoured');
      // A busy machine (seen at load ~19): the 1.5 s window may reset before its own 429 comes, and
      // evidence that depends on the machine's speed skips (timing), never passes nor fails.
      if (tooSlow(run.results, 'ratelimit.reset-honoured')) return;
      expectPassed(run, 'ratelimit.reset-honoured');
    } finally {
      await target.close();
    }
  });
});

describe.concurrent('issue 23 faults are caught on every seed', () => {
  for (const fault of promiseFaults) {
    for (const id of fault.catches.map(checkOf)) {
      for (const seed of SEEDS) {
        it(`${id} fails on ${fault.name} (seed ${seed})`, async () => {
          const target = await startTarget({ fault: fault.name, ...rateOf(id) });
          try {
            const run = await runCheck(target, id, { seed });
            const failed = run.results.filter((r) => r.status === 'failed');
            // A busy machine: evidence that depends on its speed skips (timing), never passes.
            if (failed.length === 0 && tooSlow(run.results, id)) return;
            expect(failed.length, describeResults(run.results)).toBeGreaterThan(0);
          } finally {
            await target.close();
          }
        });
      }
    }
  }
});

describe('what a failure names', () => {
  it('a 500 on non-ASCII names names the field and the edge', async () => {
    const target = await startTarget({ fault: 'string-non-ascii-name-500' });
    try {
      const run = await runCheck(target, 'ranges.string-edges');
      const create = run.on('POST /campaign')[0]!;
      expect(create.status, describeResults(run.results)).toBe('failed');
      expect(create.message).toMatch(/answered 500 to name=/);
      expect(create.message).not.toMatch(/campaign_context/);
    } finally {
      await target.close();
    }
  });

  it('a limiter that stays closed fails naming the Reset value the 429 gave', async () => {
    const target = await startTarget({ fault: 'ratelimit-stays-closed', ...RATE });
    try {
      const run = await runCheck(target, 'ratelimit.reset-honoured');
      const failed = run.results.filter((r) => r.status === 'failed');
      expect(failed[0]?.message, describeResults(run.results)).toMatch(
        /^still 429 after the advertised reset passed: the 429 said X-RateLimit-Reset: \d+/,
      );
    } finally {
      await target.close();
    }
  });

  it('a PATCH that clears what it was not sent names the cleared fields', async () => {
    const target = await startTarget({ fault: 'update-clears-unsent' });
    try {
      const run = await runCheck(target, 'stateful.update-keeps-unsent');
      const failed = run.results.filter((r) => r.status === 'failed');
      expect(failed[0]?.message, describeResults(run.results)).toMatch(/changed .*max_concurrency/);
    } finally {
      await target.close();
    }
  });
});

describe('ratelimit.reset-honoured waits within the run deadline', () => {
  it('a reset further away than the run deadline is skipped, naming the deadline, never failed or aborted', async () => {
    const target = await startTarget({ rateLimit: 20, rateWindowMs: 60_000 });
    try {
      const f = target.server.fixtures;
      const { report, aborted } = await runConformance({
        baseUrl: target.server.url,
        checks: [checkById('ratelimit.reset-honoured')],
        profile,
        suites: ['ratelimit'],
        spec: await referenceSpec(),
        seed: 7,
        deadlineMs: 2_000,
        credentials: { apiKey: f.api_key, userId: f.user_id },
        fixtures: {},
        strictTypes: false,
        includeDestructive: false,
        validateRequest: validateWireRequest,
      });
      const result = report.results.find((r) => r.id === 'ratelimit.reset-honoured')!;
      expect(result.status, result.message).toBe('skipped');
      expect(result.message).toMatch(/deadline .* before the advertised reset \(X-RateLimit-Reset: \d+\)/);
      expect(aborted).toBeUndefined();
    } finally {
      await target.close();
    }
  });
});
