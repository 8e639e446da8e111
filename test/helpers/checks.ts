/**
 * Test harness of the suites: starts the reference server (optionally with one fault switched on
 * through its `configure` seam), runs chosen checks against it through the real runner
 * (`runConformance`: discovery, pacing, wire re-validation) and returns the results.
 */
import { expect } from 'vitest';
import { checkById } from '../../suites/index.js';
import { profile } from '../../suites/profile.js';
import type { CheckResult, Observation, RunReport } from '../../src/results/model.js';
import { runConformance } from '../../src/runner/conformance.js';
import { validateWireRequest } from '../../src/checks/wire.js';
import {
  referenceSpec,
  startReferenceServer,
  type ReferenceServer,
  type ReferenceServerOptions,
} from '../../src/server/index.js';
import { faultByName, type ServerFault } from '../catalog/faults/index.js';

export interface Target {
  server: ReferenceServer;
  close(): Promise<void>;
}

/** The reference server, with a high rate limit unless told otherwise, and an optional fault. */
export async function startTarget(
  options: ReferenceServerOptions & { fault?: ServerFault | string } = {},
): Promise<Target> {
  const { fault: given, ...rest } = options;
  const fault = typeof given === 'string' ? faultByName(given) : given;
  const spec = await referenceSpec();
  const serverOptions: ReferenceServerOptions = { port: 0, rateLimit: 100_000, spec, ...fault?.options, ...rest };
  if (fault) serverOptions.configure = fault.configure;
  const server = await startReferenceServer(serverOptions);
  return { server, close: () => server.close() };
}

export interface RunOptions {
  seed?: number;
  runs?: number;
  strictTypes?: boolean;
  includeDestructive?: boolean;
}

export interface CheckRun {
  results: CheckResult[];
  /** The whole report (report.json's object). */
  report: RunReport;
  observations: Observation[];
  /** Results of one operation (`METHOD /path`), when given. */
  on(operation: string): CheckResult[];
  statuses(): string[];
}

/** Runs checks (by id) against a target through the runner, with fixtures as `vapc serve` prints them. */
export async function runIds(target: Target, ids: string[], options: RunOptions = {}): Promise<CheckRun> {
  const checks = ids.map(checkById);
  const suites = [...new Set(checks.map((c) => c.suite))];
  const f = target.server.fixtures;
  const result = await runConformance({
    baseUrl: target.server.url,
    checks,
    profile,
    suites,
    spec: await referenceSpec(),
    seed: options.seed ?? 7,
    runs: options.runs ?? 3,
    credentials: { apiKey: f.api_key, userId: f.user_id },
    fixtures: {
      org_id: f.org_id,
      recipient_list_id: f.recipient_list_id,
      api_key_id: f.api_key_id,
      channels: [...f.channels],
    },
    strictTypes: options.strictTypes ?? false,
    includeDestructive: options.includeDestructive ?? false,
    validateRequest: validateWireRequest,
  });
  const results = result.report.results;
  return {
    results,
    report: result.report,
    observations: result.report.observations,
    on: (operation) => results.filter((r) => r.operation === operation),
    statuses: () => results.map((r) => `${r.id} ${r.operation}: ${r.status} ${r.message}`),
  };
}

/** Runs one check by id. */
export const runCheck = (target: Target, id: string, options: RunOptions = {}): Promise<CheckRun> =>
  runIds(target, [id], options);

export const describeResults = (results: CheckResult[]): string =>
  results.map((r) => `${r.id} ${r.operation}: ${r.status} ${r.message}`).join('\n');

/** The check ran, passed somewhere and failed nowhere. */
export function expectPassed(run: CheckRun, id: string): void {
  const mine = run.results.filter((r) => r.id === id);
  expect(mine.length, `${id} ran on no operation`).toBeGreaterThan(0);
  // Pairs on operations with outside effects are skipped without --include-destructive: fine.
  const bad = mine.filter((r) => r.status !== 'passed' && !(r.status === 'skipped' && /^destructive/.test(r.message)));
  expect(bad, describeResults(bad)).toEqual([]);
  expect(
    mine.some((r) => r.status === 'passed'),
    describeResults(mine),
  ).toBe(true);
}

/** No check failed or errored. */
export function expectNoFailure(run: CheckRun): void {
  const bad = run.results.filter((r) => r.status === 'failed' || r.status === 'error');
  expect(bad, describeResults(bad)).toEqual([]);
}
