/**
 * Runs of a team's Arazzo workflows (`vapc run --arazzo`) in-process: the file read and resolved as
 * the CLI reads it (the one checkout reader, the spec's YAML rules; Redocly's lint is tested apart,
 * once, for it costs a process), the `workflows` suite built fresh for each run (its coverage counts
 * that run only), and the runner against a loopback server with that server's credentials and fixtures.
 */
import { workflowSuite } from '../../src/arazzo/suite.js';
import { readWorkflowFile } from '../../src/cli/run/workflows.js';
import { runConformance, type ConformanceOptions, type ConformanceResult } from '../../src/runner/conformance.js';
import type { SpecModel } from '../../src/spec/model.js';
import { secretResponsePointers } from '../../src/spec/model.js';
import { checks } from '../../suites/index.js';
import { profile } from '../../suites/profile.js';
import { runnerOptions, type LoopbackServer } from './loopback-runs.js';

/** The suite of one file (relative to `cwd`), as the CLI builds it, the replay line naming the embedded server. */
export function suiteOf(file: string, cwd: string, spec: SpecModel, seed: number) {
  const { wf } = readWorkflowFile(file, cwd, spec);
  return workflowSuite([wf], {
    suite: 'workflows',
    judges: checks.filter((c) => typeof c.judgeExchange === 'function'),
    replay: (f, check) =>
      `npx --no-install vapc run --embedded --suite workflows --arazzo ${f} --check ${check} --seed ${seed}`,
    destructive: (op) => profile.destructive(op) !== undefined,
    replacesCredential: (op) => profile.replacesCredential(op),
    secretPointers: (op) => secretResponsePointers(op),
  });
}

/** `vapc run --suite workflows --arazzo FILE --seed N --include-destructive` against `server`, in-process. */
export async function runWorkflows(
  server: LoopbackServer,
  spec: SpecModel,
  file: string,
  cwd: string,
  seed: number,
  over: Partial<ConformanceOptions> = {},
): Promise<ConformanceResult> {
  const suite = suiteOf(file, cwd, spec, seed);
  return runConformance(
    runnerOptions(server, spec, {
      checks: suite.checks,
      suites: ['workflows'],
      seed,
      includeDestructive: true,
      workflowCoverage: suite.coverage,
      ...over,
    }),
  );
}
