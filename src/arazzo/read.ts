/**
 * Reading a team's Arazzo file (`vapc run --arazzo FILE`): the YAML rules of the spec
 * (src/spec/yaml.ts: one meaning for every parser), then the structure vapc runs, every step
 * resolved to an operation of the contract. What cannot be run is refused with one line naming the
 * place (`workflows[0].steps[2]`), never quoting the file beyond a short escaped excerpt: a
 * workflowId that is not a safe id (it names a check), a step that runs another workflow, an action
 * that goes to one, an `xpath` criterion, an operation the contract does not have, a `$ref`, a
 * reference to an input the workflow does not declare or to a step it does not have. Redocly's
 * Arazzo rules run on the file as well (the CLI lints it); this reads only what running needs.
 */
import { VapcError } from '../errors.js';
import { clip, printable } from '../results/printable.js';
import { asRecord, type Operation, type SpecModel } from '../spec/model.js';
import { parseSpecYaml } from '../spec/yaml.js';
import {
  criterionType,
  isReusable,
  READABLE_VERSIONS,
  type Action,
  type ArazzoDocument,
  type Components,
  type Criterion,
  type Parameter,
  type Reusable,
  type Step,
  type Workflow,
} from './document.js';

/** A step with its operation found and its reusable parameters and actions resolved. */
export interface ResolvedStep {
  step: Step;
  operation: Operation;
  parameters: Parameter[];
  onSuccess: Action[];
  onFailure: Action[];
}

export interface ResolvedWorkflow {
  workflow: Workflow;
  steps: ResolvedStep[];
}

export interface ReadWorkflows {
  document: ArazzoDocument;
  /** In the order they run: every workflow after those it depends on. */
  workflows: ResolvedWorkflow[];
}

const shown = (text: unknown): string => clip(printable(String(text)), 80);

/** A workflowId vapc runs: it becomes the check id `workflows.<workflowId>` and a word of the repro line. */
export const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;

class Refusal {
  constructor(readonly what: string) {}
  at(place: string, why: string): never {
    throw new VapcError('E_WORKFLOW', `${this.what}: ${place}: ${why}`);
  }
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** `$components.<kind>.<name>` of the document, or the refusal. */
function reusable<T>(ref: Reusable, kind: keyof Components, doc: ArazzoDocument, place: string, r: Refusal): T {
  const m = /^\$components\.([A-Za-z]+)\.([A-Za-z0-9_.-]+)$/.exec(ref.reference);
  const found = m && m[1] === kind ? asRecord(doc.components?.[kind])[m[2]!] : undefined;
  if (found === undefined) r.at(place, `reference ${shown(ref.reference)} names no components.${kind} entry`);
  if (kind === 'parameters' && ref.value !== undefined) return { ...(found as object), value: ref.value } as T;
  return found as T;
}

/** The operation a step names: `operationId` (optionally `$sourceDescriptions.<name>.<id>`) or `operationPath`. */
function operationOf(step: Step, spec: SpecModel, place: string, r: Refusal): Operation {
  if (step.workflowId !== undefined)
    r.at(place, 'a step that runs another workflow (workflowId) is not run by vapc; inline its steps');
  if (step.operationId !== undefined) {
    const id = String(step.operationId).replace(/^\$sourceDescriptions\.[A-Za-z0-9_-]+\./, '');
    const op = spec.operations.find((o) => o.id === id);
    if (!op) r.at(place, `operationId ${shown(step.operationId)} is not an operation of the contract`);
    return op;
  }
  const path = str(step.operationPath);
  const m = path ? /#\/paths\/([^/]+)\/([a-z]+)$/.exec(path) : null;
  const template = m ? m[1]!.replace(/~1/g, '/').replace(/~0/g, '~') : undefined;
  const op = spec.operations.find((o) => o.path === template && o.method === m?.[2]?.toUpperCase());
  if (!op) r.at(place, 'a step names its operation by operationId or by an operationPath of the contract');
  return op;
}

/** A condition's length at most (the export writes JSONPath type criteria of a few thousand characters). */
const MAX_CONDITION = 64_000;

/**
 * A regex criterion's pattern, refused when it does not compile or nests a quantifier in a
 * quantified group (`(a+)+`, the classic catastrophic backtracking on an answer the server chose).
 */
function regexOf(condition: string, at: string, r: Refusal): void {
  if (/\([^()]*[+*][^()]*\)[+*{]/.test(condition))
    r.at(
      at,
      'a regex criterion with a quantified group of a quantifier (such as (a+)+) is refused: it can backtrack without end',
    );
  try {
    const m = /^\/(.*)\/([a-z]*)$/s.exec(condition);
    void (m ? new RegExp(m[1]!, m[2]!.replace(/[gy]/g, '')) : new RegExp(condition));
  } catch {
    r.at(at, 'a regex criterion whose pattern does not compile');
  }
}

function checkCriteria(criteria: unknown, place: string, r: Refusal): void {
  if (criteria === undefined) return;
  if (!Array.isArray(criteria)) r.at(place, 'successCriteria is a list');
  criteria.forEach((c: Criterion, i) => {
    const at = `${place}.successCriteria[${i}]`;
    if (!str(c?.condition)) r.at(at, 'a criterion has a condition');
    const type = criterionType(c);
    if (!['simple', 'regex', 'jsonpath'].includes(type))
      r.at(at, `criteria of type ${shown(type)} are not judged by vapc (simple, regex and jsonpath are)`);
    if (type !== 'simple' && !str(c.context)) r.at(at, `a ${type} criterion needs a context`);
    if (c.condition.length > MAX_CONDITION) r.at(at, `a condition is at most ${MAX_CONDITION} characters`);
    if (type === 'regex') regexOf(c.condition, at, r);
  });
}

/** The step's or workflow's actions, reusable ones resolved; a goto names a step of the same workflow. */
function actionsOf(
  list: unknown,
  doc: ArazzoDocument,
  workflow: Workflow,
  place: string,
  kind: 'successActions' | 'failureActions',
  r: Refusal,
): Action[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) r.at(place, `${kind} is a list`);
  return list.map((raw: unknown, i) => {
    const at = `${place}[${i}]`;
    const action = isReusable(raw) ? reusable<Action>(raw, kind, doc, at, r) : (raw as Action);
    if (!['end', 'goto', 'retry'].includes(String(action?.type))) r.at(at, 'an action is of type end, goto or retry');
    if (action.workflowId !== undefined)
      r.at(at, 'an action that goes to another workflow (workflowId) is not run by vapc');
    if (action.type === 'goto' && !workflow.steps.some((s) => s.stepId === action.stepId))
      r.at(at, `goto names no step of the workflow (${shown(action.stepId ?? '(none)')})`);
    checkCriteria(action.criteria, at, r);
    return action;
  });
}

function parametersOf(list: unknown, doc: ArazzoDocument, place: string, r: Refusal): Parameter[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) r.at(place, 'parameters is a list');
  return list.map((raw: unknown, i) => {
    const at = `${place}[${i}]`;
    const p = isReusable(raw) ? reusable<Parameter>(raw, 'parameters', doc, at, r) : (raw as Parameter);
    if (!str(p?.name)) r.at(at, 'a parameter has a name');
    if (!['path', 'query', 'header', 'cookie'].includes(String(p.in)))
      r.at(at, 'a parameter of an operation step says where it goes: in path, query, header or cookie');
    return p;
  });
}

function resolveStep(
  step: Step,
  workflow: Workflow,
  doc: ArazzoDocument,
  spec: SpecModel,
  place: string,
  r: Refusal,
): ResolvedStep {
  if (!str(step?.stepId)) r.at(place, 'a step has a stepId');
  const operation = operationOf(step, spec, place, r);
  checkCriteria(step.successCriteria, place, r);
  const inherited = parametersOf(workflow.parameters, doc, `${place} (workflow parameters)`, r);
  const own = parametersOf(step.parameters, doc, `${place}.parameters`, r);
  const parameters = [...inherited.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
  const succeed = step.onSuccess ?? workflow.successActions;
  const fail = step.onFailure ?? workflow.failureActions;
  return {
    step,
    operation,
    parameters,
    onSuccess: actionsOf(succeed, doc, workflow, `${place}.onSuccess`, 'successActions', r),
    onFailure: actionsOf(fail, doc, workflow, `${place}.onFailure`, 'failureActions', r),
  };
}

/** Workflows in an order that runs each after the ones it depends on; a cycle or an unknown id is refused. */
function inDependencyOrder(resolved: ResolvedWorkflow[], r: Refusal): ResolvedWorkflow[] {
  const byId = new Map(resolved.map((w) => [w.workflow.workflowId, w]));
  const out: ResolvedWorkflow[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (w: ResolvedWorkflow, place: string): void => {
    const id = w.workflow.workflowId;
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') r.at(place, `dependsOn makes a cycle through ${shown(id)}`);
    state.set(id, 'visiting');
    for (const dep of w.workflow.dependsOn ?? []) {
      const target = byId.get(String(dep).replace(/^\$workflows\./, ''));
      if (!target) r.at(`workflow ${shown(id)}`, `dependsOn names no workflow of the file (${shown(dep)})`);
      visit(target, `workflow ${shown(id)}`);
    }
    state.set(id, 'done');
    out.push(w);
  };
  for (const w of resolved) visit(w, `workflow ${shown(w.workflow.workflowId)}`);
  return out;
}

/** Every string of a value (keys of objects too), for the reference check. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  return out;
}

/** A `$ref` anywhere in the document: Arazzo reuses through `reference`; a resolver would fetch what a `$ref` names. */
function refuseRefs(value: unknown, place: string, r: Refusal, depth = 0): void {
  if (depth > 64) r.at(place, 'the document nests deeper than 64 levels');
  if (Array.isArray(value)) value.forEach((v, i) => refuseRefs(v, `${place}[${i}]`, r, depth + 1));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref')
        r.at(place, 'a $ref is not read by vapc (Arazzo reuses objects through `reference: $components...`)');
      refuseRefs(v, `${place}.${k}`, r, depth + 1);
    }
}

/** Each `$inputs.x` names an input the workflow declares, each `$steps.s.outputs.y` a step of the workflow. */
function checkReferences(workflow: Workflow, place: string, r: Refusal): void {
  const inputs = asRecord(asRecord(workflow.inputs)['properties']);
  const steps = new Set(workflow.steps.map((s) => s.stepId));
  const text = strings({ steps: workflow.steps, outputs: workflow.outputs, parameters: workflow.parameters });
  for (const t of text) {
    for (const m of t.matchAll(/\$inputs\.([A-Za-z0-9_.-]+)/g)) {
      const name = m[1]!.split(/[.#]/)[0]!;
      if (!(name in inputs)) r.at(place, `$inputs.${shown(name)} names no input of the workflow (inputs.properties)`);
    }
    for (const m of t.matchAll(/\$steps\.([A-Za-z0-9_-]+)/g))
      if (!steps.has(m[1]!)) r.at(place, `$steps.${shown(m[1])} names no step of the workflow`);
  }
}

/** Checks a parsed document and resolves every step against the contract (see the module comment). */
export function resolveWorkflows(parsed: unknown, spec: SpecModel, what: string): ReadWorkflows {
  const r = new Refusal(what);
  const doc = asRecord(parsed) as unknown as ArazzoDocument;
  refuseRefs(doc, 'document', r);
  if (!READABLE_VERSIONS.test(String(doc.arazzo ?? '')))
    r.at('arazzo', `version ${shown(doc.arazzo ?? '(none)')}: vapc reads Arazzo 1.0.x documents`);
  if (!Array.isArray(doc.workflows) || doc.workflows.length === 0) r.at('workflows', 'the file has no workflow');
  const ids = new Set<string>();
  const resolved = doc.workflows.map((workflow, w) => {
    const place = `workflows[${w}]`;
    if (!str(workflow?.workflowId)) r.at(place, 'a workflow has a workflowId');
    if (!SAFE_ID.test(workflow.workflowId))
      r.at(
        place,
        `workflowId ${shown(workflow.workflowId)} is not an id vapc can name a check by ([A-Za-z0-9_-], at most 64)`,
      );
    if (ids.has(workflow.workflowId)) r.at(place, `workflowId ${shown(workflow.workflowId)} is used twice`);
    ids.add(workflow.workflowId);
    if (!Array.isArray(workflow.steps) || workflow.steps.length === 0) r.at(place, 'a workflow has steps');
    const stepIds = new Set<string>();
    const steps = workflow.steps.map((step, s) => {
      const at = `${place}.steps[${s}]`;
      if (stepIds.has(step?.stepId)) r.at(at, `stepId ${shown(step.stepId)} is used twice in the workflow`);
      stepIds.add(step?.stepId);
      return resolveStep(step, workflow, doc, spec, at, r);
    });
    checkReferences(workflow, place, r);
    return { workflow, steps };
  });
  return { document: doc, workflows: inDependencyOrder(resolved, r) };
}

/** Parses a workflow file's text (YAML or JSON, the spec's YAML rules) and resolves it (`what` names it in messages). */
export function readWorkflows(text: string, spec: SpecModel, what: string): ReadWorkflows {
  let parsed: unknown;
  try {
    parsed = parseSpecYaml(text, what, { maxAliases: 100 });
  } catch (error) {
    if (error instanceof VapcError) throw new VapcError('E_WORKFLOW', error.message.replace(/ \(every tool.*\)$/, ''));
    throw error;
  }
  return resolveWorkflows(parsed, spec, what);
}
