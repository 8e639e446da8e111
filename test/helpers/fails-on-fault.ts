/**
 * The failing-server half of every check's tests: for each (check, fault) pair the catalogue
 * declares (each fault's `catches`, test/catalog/faults), the check run alone against the reference
 * server with that one fault must fail, with reproducible evidence and no secret. One file per
 * suite calls `describeFailsOnFault(suite)` (test/checks/<suite>.test.ts) so the test workers
 * share the pairs; within a file the pairs run concurrently, each on its own loopback server.
 */
import { describe, expect, it } from 'vitest';
import { caughtBy, catchOf, describeCatch, faults, type Catch } from '../catalog/faults/index.js';
import { describeResults, runCheck, startTarget } from './checks.js';

export { describeResults } from './checks.js';

/** Checks with outside effects: they run only with includeDestructive. */
export const DESTRUCTIVE = new Set(['stateful.create-invite', 'stateful.regenerate-key']);
/** A small window so the wait for the burst's reset stays short. */
export const RATE = { rateLimit: 20, rateWindowMs: 1500 };

/**
 * The seeds every (check, fault) pair runs under (issue 23: every seed catches the same faults; a
 * CI gate usually runs one seed, so a fault caught on one and missed on another is a gap): the first
 * in `npm test` (test/checks/<suite>.test.ts), the second in the slow tier
 * (test/slow/fails-on-fault-second-seed.test.ts); CI runs both. The whole catalogue under five
 * seeds is `npx tsx scripts/kill-matrix.ts`.
 */
export const CATALOGUE_SEEDS = [7, 20261125] as const;

/** Every (check id, fault name, the finding it must make) triple of the catalogue. */
export const FAILS_ON: ReadonlyArray<readonly [string, string, Catch]> = faults.flatMap((f) =>
  f.catches.map((c) => [catchOf(c).check, f.name, catchOf(c)] as const),
);

/** Every result of `id` skipped because the machine was too slow for its evidence (`timing`): nothing judged, nothing passed. */
export const tooSlow = (
  results: ReadonlyArray<{ id: string; status: string; not_judged?: { cause: string } }>,
  id: string,
) => {
  const own = results.filter((r) => r.id === id);
  return own.length > 0 && own.every((r) => r.status === 'skipped' && r.not_judged?.cause === 'timing');
};

/** Registers every (check, fault) pair of a suite under the given seeds (the everyday suite's: the first). */
export function describeFailsOnFault(suite: string, seeds: readonly number[] = CATALOGUE_SEEDS.slice(0, 1)): void {
  const pairs = FAILS_ON.filter(([id]) => id.startsWith(`${suite}.`));
  // Every pair runs on its own server, concurrently (vitest's maxConcurrency, 5 at a time), the
  // rate-limit ones too: each waits on its own server's small window, and a burst stretched past
  // its window by a busy event loop only sends more unanswered requests, which on these faulty
  // servers is a failure either way (a burst needs its 21 requests in 1.5 s; on loopback they take tens of ms).
  describe.concurrent(`${suite}: each check fails on its fault`, () => {
    it('the catalogue has a fault for this suite', () => {
      expect(pairs.length).toBeGreaterThan(0);
    });
    for (const [id, faultName, wanted] of pairs) {
      for (const seed of seeds) {
        it(`${describeCatch(wanted)} fails on ${faultName} (seed ${seed})`, async () => {
          const target = await startTarget({ fault: faultName, ...(id.startsWith('ratelimit.') ? RATE : {}) });
          try {
            const run = await runCheck(target, id, { includeDestructive: DESTRUCTIVE.has(id), seed });
            // The finding the fault names (its kind, field, operation), not any failure of the check.
            const failed = caughtBy(run.results, wanted);
            // A check whose evidence depends on the machine's speed (a window that reset during the
            // burst, a wait cut short) skips with that cause on a busy machine: never a pass, and no
            // failure a slow machine cannot produce is demanded (issue 31).
            if (failed.length === 0 && tooSlow(run.results, id)) return;
            expect(failed.length, describeResults(run.results)).toBeGreaterThan(0);
            const failure = failed[0]!.failures![0]!;
            // Every failure is reproducible: expected vs actual, a curl line (a loop of them for what
            // only a series of requests shows: the rate-limit counting and burst), the seed.
            expect(failure.repro).toMatch(/^(curl |for i in \$\(seq 1 \d+\); do curl )/);
            expect(failure.seed).toBe(seed);
            expect(failure.expected.length).toBeGreaterThan(0);
            expect(failure.actual.length).toBeGreaterThan(0);
            // No secret in what a report shows.
            expect(JSON.stringify(run.results)).not.toContain(target.server.fixtures.api_key);
          } finally {
            await target.close();
          }
        });
      }
    }
  });
}
