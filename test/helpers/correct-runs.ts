/**
 * The two runs every independent correct implementation gets (test/catalog/independent/correct-*.test.ts):
 * a correct server shows no failed or errored result, whatever it chose where the contract is silent.
 */
import { expect } from 'vitest';
import { coverageGate } from '../../src/coverage/index.js';
import { runConformance } from '../../src/runner/conformance.js';
import type { SpecModel } from '../../src/spec/model.js';
import { failedOf, runnerOptions, type LoopbackServer } from './loopback-runs.js';

/** Every suite but ratelimit, destructive operations included (seed 1): 0 failed, 0 error, and the undocumented-status gate passes. */
export async function expectCorrectRun(server: LoopbackServer, spec: SpecModel): Promise<void> {
  const { report } = await runConformance(runnerOptions(server, spec, { seed: 1, includeDestructive: true }));
  expect(failedOf(report.results)).toEqual([]);
  // Undocumented answers to ids the run made up, and statuses the contract leaves open, do not count.
  expect(coverageGate(report.coverage, { failOnUndocumentedStatus: true }).lines).toEqual([]);
  expect(report.summary.passed).toBeGreaterThan(100);
}

/** The ratelimit suite (with schema), burst included: 0 failed, and some ratelimit check judged and passed. */
export async function expectCorrectRateLimit(server: LoopbackServer, spec: SpecModel): Promise<void> {
  const { report } = await runConformance(runnerOptions(server, spec, { suites: ['schema', 'ratelimit'] }));
  expect(failedOf(report.results)).toEqual([]);
  expect(report.results.filter((r) => r.suite === 'ratelimit' && r.status === 'passed').length).toBeGreaterThan(0);
}
