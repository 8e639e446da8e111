/**
 * The independent fault server's catalogue (test/catalog/independent/with-faults/faults.mjs), judged
 * on suite + status only (the runner's check ids are deliberately not used): each fault, switched on
 * alone, must make the suite it breaches report a failure. The faults are split by suite over three
 * test files so the vitest workers share them; within a file each fault runs on its own server,
 * concurrently.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../../src/runner/conformance.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { runnerOptions, SMALL_LIMIT, withLoopbackServer } from './loopback-runs.js';
import { FAULTS, start, type IndependentServer } from '../catalog/independent/with-faults/server.mjs';

export const startIndependent = (o: NonNullable<Parameters<typeof start>[0]>) => start(o);
type Fault = (typeof FAULTS)[number];

/** The split of the suites over three files, so the workers share them (the rate-limit faults wait on windows). */
export const REQUEST_SUITES = ['auth', 'validation', 'ranges', 'cors'] as const;
export const RATELIMIT_SUITES = ['ratelimit'] as const;
export const STATE_SUITES = ['schema', 'stateful', 'robustness'] as const;

/**
 * Which of a suite list's judged faults a tier runs, by position: `npm test` every other one (the
 * even positions), the slow tier (test/slow/independent-faults-rest.test.ts) the rest; CI runs both.
 */
export type FaultTier = 'everyday' | 'slow';
const inTier = (tier: FaultTier, index: number): boolean => (index % 2 === 0) === (tier === 'everyday');

/**
 * Registers, for the calling test file, the spec loaded before its tests, and returns the runner's
 * options for an independent server (seed 7 unless `over` says otherwise).
 */
export function independentRunOptions(): (
  s: IndependentServer,
  over?: Partial<ConformanceOptions>,
) => ConformanceOptions {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });
  return (s, over = {}) => runnerOptions(s, spec, { seed: 7, ...over });
}

/** Registers one test per judged fault of the given suites that the tier runs. */
export function describeIndependentFaults(suites: readonly string[], tier: FaultTier = 'everyday'): void {
  const options = independentRunOptions();
  const caught = async (f: Fault): Promise<void> => {
    const serverOptions = f.suite === 'ratelimit' ? { ...SMALL_LIMIT, fault: f.name } : { fault: f.name };
    const failed = await withLoopbackServer(startIndependent, serverOptions, async (s) => {
      const { report } = await runConformance(
        options(s, {
          runs: 2,
          suites: [f.suite as never],
          ...(f.includeDestructive ? { includeDestructive: true } : {}),
        }),
      );
      const ofSuite = report.results.filter((r) => r.suite === f.suite);
      return {
        failed: ofSuite.filter((r) => r.status === 'failed'),
        // A busy machine: a check whose evidence depends on its speed skips (timing), never passes.
        tooSlow: ofSuite.some((r) => r.status === 'skipped' && r.not_judged?.cause === 'timing'),
      };
    });
    if (failed.failed.length === 0 && failed.tooSlow) return;
    expect(failed.failed.length, `${f.name} (${f.description}) was not caught by the ${f.suite} suite`).toBeGreaterThan(
      0,
    );
  };
  const title = (f: Fault): string => `${f.suite}: ${f.name}${f.includeDestructive ? ' (includeDestructive)' : ''}`;
  const judged = FAULTS.filter((x) => x.unjudged === undefined && suites.includes(x.suite));
  describe(`independent faulty server: every fault of ${suites.join(', ')} is caught by its suite (${tier} half)`, () => {
    it('the catalogue has faults for these suites', () => {
      for (const suite of suites)
        expect(
          judged.some((f) => f.suite === suite),
          suite,
        ).toBe(true);
    });
    // Each fault on its own server, concurrently (5 at a time); the rate-limit ones wait on their
    // own server's small window.
    describe.concurrent('concurrently', () => {
      for (const [i, f] of judged.entries()) if (inTier(tier, i)) it(title(f), () => caught(f));
    });
  });
}
