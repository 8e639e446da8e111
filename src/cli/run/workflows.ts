/**
 * `vapc run --arazzo FILE` (repeatable): each file read as the hostile input it is, through the one
 * reader of checkout files (a regular file inside the working directory after realpath, at most
 * MAX_WORKFLOW_BYTES), parsed by the spec's YAML rules and resolved against the contract
 * (src/arazzo/read.ts), then linted with Redocly's Arazzo rules (the pinned CLI, once per file, on a
 * copy of the text read: Redocly never opens the checkout's file itself). Any refusal is one line,
 * E_WORKFLOW (exit 2), before any request. The files become the `workflows` suite's checks
 * (src/arazzo/suite.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readWorkflows } from '../../arazzo/read.js';
import { workflowSuite, type WorkflowFile } from '../../arazzo/suite.js';
import type { CheckDefinition } from '../../checks/check.js';
import type { RunSettings } from '../../config/settings.js';
import { VapcError } from '../../errors.js';
import { readCheckoutFile, shownName } from '../../files/checkout.js';
import { clip, printable } from '../../results/printable.js';
import { shellQuote } from '../../reporters/text.js';
import type { WorkflowCoverage } from '../../results/workflows.js';
import { secretResponsePointers, type SpecModel } from '../../spec/model.js';
import { profile } from '../../../suites/profile.js';

/** A workflow file is at most this large (a file of a hundred workflows is far smaller). */
export const MAX_WORKFLOW_BYTES = 1024 * 1024;

/** Reads and resolves one workflow file (see the module comment); `file` as given, relative to `cwd`. */
export function readWorkflowFile(
  file: string,
  cwd: string,
  spec: SpecModel,
): { file: string; text: string; wf: WorkflowFile } {
  const label = `workflow file ${shownName(file)}`;
  const text = readCheckoutFile(resolve(cwd, file), {
    label,
    maxBytes: MAX_WORKFLOW_BYTES,
    capOf: 'a workflow file',
    code: 'E_WORKFLOW',
    within: resolve(cwd),
    cwd,
  });
  return { file, text, wf: { file, read: readWorkflows(text, spec, label) } };
}

interface RedoclyProblem {
  ruleId: string;
  severity: string;
  message: string;
  location?: Array<{ pointer?: string; start?: { line: number } }>;
}

/** Redocly's Arazzo rules (its `recommended` set) on the text read; E_WORKFLOW naming the first error. */
export async function lintWorkflowText(file: string, text: string): Promise<void> {
  const { runRedocly } = await import('../../build/redocly.js');
  const dir = await mkdtemp(join(tmpdir(), 'vapc-arazzo-lint-'));
  try {
    await writeFile(join(dir, 'workflow.arazzo.yaml'), text);
    await writeFile(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    const run = await runRedocly(
      ['lint', 'workflow.arazzo.yaml', '--config', 'redocly.yaml', '--format', 'json', '--max-problems', '50'],
      dir,
    );
    let problems: RedoclyProblem[];
    try {
      problems = (JSON.parse(run.stdout) as { problems: RedoclyProblem[] }).problems;
    } catch {
      throw new VapcError(
        'E_TOOL_FAILED',
        `redocly lint of workflow file ${shownName(file)} printed no report (status ${run.status})`,
      );
    }
    const errors = problems.filter((p) => p.severity === 'error');
    const first = errors[0];
    if (!first) return;
    const at = first.location?.[0];
    const where = `${at?.pointer ?? '#'}${at?.start ? ` (line ${at.start.line})` : ''}`;
    throw new VapcError(
      'E_WORKFLOW',
      `workflow file ${shownName(file)}: breaks Redocly's Arazzo rules (${errors.length} error(s)); first: ${first.ruleId} at ${where}: ${clip(printable(first.message), 160)}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** How a workflow's failure is replayed: the run's target, the file, the check and the seed. */
export interface ReplayParts {
  target: string;
  seed: number;
}

/**
 * The `workflows` suite of the files given (`--arazzo`), read, resolved and linted, or undefined
 * when none was given; the passive judges of `registry` judge every step's answer.
 */
export async function workflowChecks(
  files: readonly string[] | undefined,
  at: { cwd: string; spec: SpecModel; registry: readonly CheckDefinition[]; replay: ReplayParts; suite: string },
): Promise<{ checks: CheckDefinition[]; coverage: () => WorkflowCoverage } | undefined> {
  if (!files?.length) return undefined;
  const read = files.map((f) => readWorkflowFile(f, at.cwd, at.spec));
  for (const r of read) await lintWorkflowText(r.file, r.text);
  return workflowSuite(
    read.map((r) => r.wf),
    {
      suite: at.suite,
      judges: at.registry.filter((c) => typeof c.judgeExchange === 'function'),
      replay: (file, check) =>
        `npx --no-install vapc run ${at.replay.target} --suite ${at.suite} --arazzo ${shellQuote(file)} --check ${check} --seed ${at.replay.seed}`,
      destructive: (op) => profile.destructive(op) !== undefined,
      replacesCredential: (op) => profile.replacesCredential(op),
      secretPointers: (op) => secretResponsePointers(op),
    },
  );
}

/** The replay target of a run's workflow failures: `--embedded`, or the base URL with the credentials as placeholders. */
function replayTarget(settings: RunSettings): string {
  if (settings.embedded) return '--embedded';
  const parts = [`--base-url ${shellQuote(settings.baseUrl ?? '')}`];
  if (settings.configFile) parts.push(`--config ${shellQuote(settings.configFile)}`);
  if (settings.apiKey !== undefined) parts.push('--api-key "$VAPC_API_KEY"');
  if (settings.userId !== undefined) parts.push('--user-id "$VAPC_USER_ID"');
  return parts.join(' ');
}

/**
 * The run's checks: the registry's, the `workflows` suite of `--arazzo` files after them (none when
 * `--suite` leaves the suite out), narrowed to `--check` ids; and the workflows' coverage.
 */
export async function runChecksOf(
  settings: RunSettings,
  at: { cwd: string; spec: SpecModel; registry: readonly CheckDefinition[]; seed: number },
): Promise<{ checks: readonly CheckDefinition[]; coverage?: () => WorkflowCoverage }> {
  const name = profile.suites.find((s) => s.workflows)?.name;
  if (name === undefined) {
    if (settings.arazzo?.length) throw new VapcError('E_USAGE', '--arazzo: this contract has no suite of workflows');
    return { checks: at.registry };
  }
  const wanted = !settings.suites || settings.suites.includes(name);
  if (settings.suites?.includes(name) && !settings.arazzo?.length)
    throw new VapcError('E_USAGE', `--suite ${name} runs the workflows of --arazzo FILE: give at least one file`);
  const replay = { target: replayTarget(settings), seed: at.seed };
  const suite = wanted ? await workflowChecks(settings.arazzo, { ...at, replay, suite: name }) : undefined;
  const all = suite ? [...at.registry, ...suite.checks] : at.registry;
  if (!settings.checks) return suite ? { checks: all, coverage: suite.coverage } : { checks: all };
  const unknown = settings.checks.filter((id) => !all.some((c) => c.id === id));
  if (unknown.length)
    throw new VapcError(
      'E_USAGE',
      `--check: no check ${unknown
        .slice(0, 3)
        .map((id) => shownName(id))
        .join(', ')} in this run`,
    );
  const checks = all.filter((c) => settings.checks!.includes(c.id));
  return suite ? { checks, coverage: suite.coverage } : { checks };
}
