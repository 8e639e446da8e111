/**
 * report.json's `workflows` (`vapc run --arazzo FILE`, docs/arazzo.md): per workflow file and
 * workflow, how often it ran, the steps run and judged, the success criteria evaluated, held and
 * failed, and the `onSuccess`/`onFailure` actions taken, by name. Present only when the run was
 * given workflow files. Shards each count what they ran; `mergeWorkflowCoverage` adds them up.
 */

/** An action of a step taken on a run: which step, on success or failure, its name and type, how many times. */
export interface WorkflowAction {
  step: string;
  on: 'success' | 'failure';
  name: string;
  type: 'end' | 'goto' | 'retry';
  taken: number;
}

/** What a workflow's runs did, counted (and summed over the workflows in the summary). */
export interface RunCounts {
  /** Times the workflow was started (once per generated set of inputs). */
  runs: number;
  /** Steps sent (a retried step counts each time). */
  steps_run: number;
  /** Steps whose answer was judged (its criteria and the passive judges), not a 429 or an unjudged answer. */
  steps_judged: number;
  criteria_evaluated: number;
  criteria_held: number;
  criteria_failed: number;
}

export interface WorkflowTally extends RunCounts {
  /** The workflowId; the check that ran it is `<suite>.<id>`. */
  id: string;
  check: string;
  /** Steps the workflow declares. */
  steps: number;
  actions: WorkflowAction[];
}

export interface WorkflowFileCoverage {
  /** The file as given (`--arazzo FILE`). */
  file: string;
  workflows: WorkflowTally[];
}

export interface WorkflowCoverage {
  summary: RunCounts & { files: number; workflows: number; actions_taken: number };
  files: WorkflowFileCoverage[];
}

/** The members of RunCounts, in report order (the report schema lists them from here). */
export const RUN_COUNTS = [
  'runs',
  'steps_run',
  'steps_judged',
  'criteria_evaluated',
  'criteria_held',
  'criteria_failed',
] as const satisfies ReadonlyArray<keyof RunCounts>;
const COUNTS = RUN_COUNTS;

/** The summary of the files' tallies. */
export function summarizeWorkflows(files: readonly WorkflowFileCoverage[]): WorkflowCoverage {
  const all = files.flatMap((f) => f.workflows);
  const sum = (key: keyof RunCounts) => all.reduce((n, w) => n + w[key], 0);
  return {
    summary: {
      files: files.length,
      workflows: all.length,
      runs: sum('runs'),
      steps_run: sum('steps_run'),
      steps_judged: sum('steps_judged'),
      criteria_evaluated: sum('criteria_evaluated'),
      criteria_held: sum('criteria_held'),
      criteria_failed: sum('criteria_failed'),
      actions_taken: all.reduce((n, w) => n + w.actions.reduce((m, a) => m + a.taken, 0), 0),
    },
    files: files.map((f) => ({ file: f.file, workflows: f.workflows.map((w) => ({ ...w, actions: [...w.actions] })) })),
  };
}

/** The shards' workflow coverage added up, per file and workflow (each shard ran some workflows; the others count 0). */
export function mergeWorkflowCoverage(
  parts: ReadonlyArray<WorkflowCoverage | undefined>,
): WorkflowCoverage | undefined {
  const given = parts.filter((p): p is WorkflowCoverage => p !== undefined);
  if (given.length === 0) return undefined;
  const files = new Map<string, Map<string, WorkflowTally>>();
  for (const part of given)
    for (const file of part.files) {
      const byId = files.get(file.file) ?? new Map<string, WorkflowTally>();
      files.set(file.file, byId);
      for (const w of file.workflows) byId.set(w.id, addTally(byId.get(w.id), w));
    }
  return summarizeWorkflows([...files].map(([file, byId]) => ({ file, workflows: [...byId.values()] })));
}

function addTally(into: WorkflowTally | undefined, w: WorkflowTally): WorkflowTally {
  if (!into) return { ...w, actions: w.actions.map((a) => ({ ...a })) };
  const out: WorkflowTally = { ...into, actions: into.actions.map((a) => ({ ...a })) };
  for (const key of COUNTS) out[key] += w[key];
  for (const a of w.actions) {
    const same = out.actions.find((b) => b.step === a.step && b.on === a.on && b.name === a.name);
    if (same) same.taken += a.taken;
    else out.actions.push({ ...a });
  }
  return out;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The console's and the HTML report's line: `workflows: 2 of 1 file, 6 runs, 21/21 steps judged, 57 criteria (57 held, 0 failed), 0 actions taken`. */
export function workflowsLine(w: WorkflowCoverage): string {
  const s = w.summary;
  return (
    `workflows: ${s.workflows} of ${plural(s.files, 'file')}, ${plural(s.runs, 'run')}, ${s.steps_judged}/${s.steps_run} steps judged, ` +
    `${`${s.criteria_evaluated} ${s.criteria_evaluated === 1 ? 'criterion' : 'criteria'}`} evaluated (${s.criteria_held} held, ${s.criteria_failed} failed), ${plural(s.actions_taken, 'action')} taken`
  );
}
