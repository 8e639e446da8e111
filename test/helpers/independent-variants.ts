/**
 * The independent fault server's correct variations (test/catalog/independent/with-faults/faults.mjs
 * VARIANTS): each must pass every suite but ratelimit with zero failures and zero errors (destructive
 * operations included), and the ratelimit suite too for the variants that touch the rate-limit
 * headers. `npm test` runs the even positions (test/catalog/independent/with-faults.test.ts), the slow
 * tier the odd ones (test/slow/independent-variants-rest.test.ts); CI runs both.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../src/runner/conformance.js';
import { VARIANTS } from '../catalog/independent/with-faults/server.mjs';
import { independentRunOptions, startIndependent as startServer } from './independent-faults.js';
import { failedOf, loopbackServers, SMALL_LIMIT, withLoopbackServer } from './loopback-runs.js';

/** Registers the variants of a tier: `everyday` the even positions, `slow` the odd ones. */
export function describeVariants(tier: 'everyday' | 'slow'): void {
  const server = loopbackServers(startServer);
  const options = independentRunOptions();
  const mine = VARIANTS.filter((_, i) => (i % 2 === 0) === (tier === 'everyday'));
  describe(`independent faulty server: correct variations pass (no false alarms; ${tier} half)`, () => {
    describe.concurrent('all suites but ratelimit, destructive included', () => {
      for (const v of mine) {
        it(`variant ${v.name}`, async () => {
          const failed = await withLoopbackServer(startServer, { variant: v.name }, async (s) =>
            failedOf((await runConformance(options(s, { runs: 2, includeDestructive: true }))).report.results),
          );
          expect(failed, `${v.name} (${v.description})`).toEqual([]);
        });
      }
    });
    describe('the ratelimit suite, for the variants that touch the rate-limit headers', () => {
      for (const v of mine.filter((x) => x.ratelimit)) {
        it(`variant ${v.name}`, async () => {
          const r = await server({ ...SMALL_LIMIT, variant: v.name });
          const { report: rl } = await runConformance(options(r, { runs: 2, suites: ['ratelimit'] }));
          expect(failedOf(rl.results), `${v.name} (${v.description}), ratelimit suite`).toEqual([]);
          expect(rl.results.filter((x) => x.suite === 'ratelimit' && x.status === 'passed').length).toBeGreaterThan(0);
        });
      }
    });
  });
}
