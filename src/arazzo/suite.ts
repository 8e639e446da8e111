/**
 * A team's Arazzo workflows as the `workflows` suite (`vapc run --arazzo FILE`): one check per
 * workflow (`workflows.<workflowId>`), built at run time from the files the CLI read and appended to
 * the registry's checks. Its inputs: the ones named like the run's credentials and fixtures
 * (`api_key`, `user_id`, `org_id`, `recipient_list_id`, `api_key_id`, `assistant_id`,
 * `phone_number_id`, `channel`, `channel_2`: the names `vapc export arazzo` writes) take the run's
 * values; every other input is generated with fast-check from the workflow's own input schema
 * (src/generators), seeded by the run's seed and the workflow's id, a new set on each of up to
 * MAX_RUNS runs. The coverage of the suite is counted per workflow (report.json's `workflows`).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext, type CheckDefinition, type CheckOutcome } from '../checks/check.js';
import { Findings } from '../checks/outcomes.js';
import { validValue } from '../generators/index.js';
import { summarizeWorkflows, type WorkflowCoverage, type WorkflowTally } from '../results/workflows.js';
import type { TaggedId } from '../results/fixtures.js';
import { asRecord, type JsonSchema, type Operation } from '../spec/model.js';
import { newTally, WorkflowRun, type WorkflowRunOptions } from './execute.js';
import type { ReadWorkflows, ResolvedWorkflow } from './read.js';

/** Runs of a workflow with free inputs, each with a new set (at most the run's --runs). */
export const MAX_RUNS = 3;

/** One workflow file as read by the CLI: its name as given, and its workflows resolved against the contract. */
export interface WorkflowFile {
  file: string;
  read: ReadWorkflows;
}

export interface WorkflowSuiteOptions {
  /** The suite's name: the profile's suite marked `workflows` (suites/profile.ts). */
  suite: string;
  /** The passive judges every step's answer goes through (the registry's checks with `judgeExchange`). */
  judges: readonly CheckDefinition[];
  /** The replay line of a workflow (the repro of its failures). */
  replay: (file: string, check: string) => string;
  destructive?: (op: Operation) => boolean;
  replacesCredential?: (op: Operation) => boolean;
  secretPointers?: (op: Operation) => readonly string[];
}

/** The inputs a run fills from its own credentials and fixtures, by name (see the module comment). */
export function runInputs(ctx: CheckContext): Record<string, string | undefined> {
  const f = ctx.fixtures;
  // The fixtures as their declared kinds give them (suites/fixtures.ts): ids, a list of ids, tagged ids.
  const id = (key: string): string | undefined => (typeof f[key] === 'string' ? f[key] : undefined);
  const ids = (key: string): string[] => (Array.isArray(f[key]) ? f[key].filter((v) => typeof v === 'string') : []);
  const tagged = (key: string): TaggedId[] =>
    Array.isArray(f[key]) ? f[key].filter((v): v is TaggedId => typeof v === 'object' && v !== null) : [];
  const channels = ids('channels');
  const phones = tagged('phone_numbers');
  const phone = phones.find((p) => p.id === id('phone_number_id')) ?? phones[0];
  const channel = phone?.['channel'] ?? channels[0];
  return {
    api_key: ctx.credentials.apiKey,
    user_id: ctx.credentials.userId,
    org_id: id('org_id'),
    recipient_list_id: id('recipient_list_id'),
    api_key_id: id('api_key_id'),
    assistant_id: id('assistant_id'),
    phone_number_id: id('phone_number_id') ?? phone?.id,
    channel,
    channel_2: channels.find((c) => c !== channel) ?? channel,
  };
}

/** A small stable hash of a text, to seed each workflow apart. */
const hashOf = (text: string): number => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 7);

/** The sets of inputs of a workflow's runs, or the reason it cannot run (a fixture input the run has no value for). */
export function inputSets(
  ctx: CheckContext,
  wf: ResolvedWorkflow,
): { sets: Array<Record<string, unknown>>; free: string[] } | { missing: string[] } {
  const properties = asRecord(asRecord(wf.workflow.inputs)['properties']) as Record<string, JsonSchema>;
  const required = new Set((asRecord(wf.workflow.inputs)['required'] as string[] | undefined) ?? []);
  const known = runInputs(ctx);
  const fixed: Record<string, unknown> = {};
  const missing: string[] = [];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (name in known) {
      const value = known[name] ?? asRecord(schema)['default'];
      if (value !== undefined) fixed[name] = value;
      else if (required.has(name)) missing.push(name);
      continue;
    }
    model[name] = validValue(asRecord(schema), { field: name, options: { fixtures: ctx.fixtures } });
  }
  if (missing.length) return { missing };
  const free = Object.keys(model);
  const runs = free.length === 0 ? 1 : Math.max(1, Math.min(MAX_RUNS, ctx.runs));
  const seed = (ctx.seed ^ hashOf(wf.workflow.workflowId)) >>> 0;
  const generated = free.length ? fc.sample(fc.record(model), { seed, numRuns: runs }) : [{}];
  return { sets: generated.map((g) => ({ ...g, ...fixed })), free };
}

/** The operation a workflow's check is planned on: the step that replaces the key in use, else the first destructive one, else the first. */
function anchorOf(wf: ResolvedWorkflow, o: WorkflowSuiteOptions): Operation {
  const ops = wf.steps.map((s) => s.operation);
  return ops.find((op) => o.replacesCredential?.(op)) ?? ops.find((op) => o.destructive?.(op)) ?? ops[0]!;
}

/** The `workflows` suite of the files (see the module comment), and the coverage of what it ran. */
export function workflowSuite(
  files: readonly WorkflowFile[],
  o: WorkflowSuiteOptions,
): { checks: CheckDefinition[]; coverage: () => WorkflowCoverage } {
  const tallies = files.map((f) => ({
    file: f.file,
    workflows: f.read.workflows.map((w) =>
      newTally(`${o.suite}.${w.workflow.workflowId}`, w.workflow.workflowId, w.steps.length),
    ),
  }));
  const checks: CheckDefinition[] = [];
  const ids = new Set<string>();
  files.forEach((f, i) => {
    // The outputs of the file's workflows, for those that depend on them (`$workflows.<id>.outputs.<name>`).
    const outputs: Record<string, { outputs: Record<string, unknown> }> = {};
    f.read.workflows.forEach((wf, j) => {
      const id = `${o.suite}.${wf.workflow.workflowId}`;
      if (ids.has(id)) return;
      ids.add(id);
      checks.push(workflowCheck(f, wf, tallies[i]!.workflows[j]!, outputs, o));
    });
  });
  return { checks, coverage: () => summarizeWorkflows(tallies) };
}

function workflowCheck(
  f: WorkflowFile,
  wf: ResolvedWorkflow,
  tally: WorkflowTally,
  outputs: Record<string, { outputs: Record<string, unknown> }>,
  o: WorkflowSuiteOptions,
): CheckDefinition {
  const anchor = anchorOf(wf, o);
  const id = `${o.suite}.${wf.workflow.workflowId}`;
  const summary = wf.workflow.summary ?? wf.workflow.description ?? `${wf.steps.length} step(s)`;
  return defineCheck({
    id,
    suite: o.suite,
    rule: `Arazzo workflow ${wf.workflow.workflowId} of ${f.file}: ${String(summary).slice(0, 160)}`,
    contractRef: 'workflow',
    severity: 'major',
    destructive: wf.steps.some((s) => o.destructive?.(s.operation)),
    appliesTo: (op) => op === anchor,
    plannedRequests: () => wf.steps.length * MAX_RUNS,
    run: (ctx) => runWorkflow(ctx, wf, tally, outputs, { ...o, repro: o.replay(f.file, id) }),
  });
}

async function runWorkflow(
  ctx: CheckContext,
  wf: ResolvedWorkflow,
  tally: WorkflowTally,
  outputs: Record<string, { outputs: Record<string, unknown> }>,
  o: WorkflowSuiteOptions & { repro: string },
): Promise<CheckOutcome> {
  const missingDeps = (wf.workflow.dependsOn ?? []).map((d) => String(d).replace(/^\$workflows\./, ''));
  const notRun = missingDeps.filter((d) => !outputs[d]);
  if (notRun.length)
    return {
      status: 'skipped',
      message: `not run: it depends on ${notRun.join(', ')}, which did not end without a failure`,
      notJudged: { cause: 'plan' },
    };
  const inputs = inputSets(ctx, wf);
  if ('missing' in inputs)
    return {
      status: 'skipped',
      message: `fixture ${inputs.missing.join(', ')} missing: the workflow's input has no value and no default; set fixtures in the config file`,
      notJudged: { cause: 'plan' },
    };
  const findings = new Findings();
  const options: WorkflowRunOptions = { ...o, judges: o.judges };
  let last: Record<string, unknown> | undefined;
  for (const set of inputs.sets) {
    const run = new WorkflowRun(ctx, wf, set, outputs, findings, tally, options);
    last = await run.run();
    // A workflow that never ends is the file's fault, not the server's: never green, never failed.
    if (run.looped && findings.failures.length === 0)
      return { status: 'skipped', message: `not judged: ${run.looped}`, notJudged: { cause: 'runner' } };
    if (findings.failures.length) break;
  }
  if (last && findings.failures.length === 0) outputs[wf.workflow.workflowId] = { outputs: last };
  const varied = inputs.free.length ? `; inputs ${inputs.free.join(', ')} generated, ${inputs.sets.length} set(s)` : '';
  return findings.outcome(`${tally.steps_judged} step answer(s) judged${varied}`);
}
