/**
 * Running one workflow of a team's Arazzo file through a check's context (`vapc run --arazzo`):
 * each step's request built from its operation, parameters and body with the runtime expressions
 * evaluated, sent through `ctx.send` (the run's pacing, budget, credentials, redaction and
 * evidence), its answer judged through the one verdict path (src/checks/judge.ts: no answer, a
 * 429, a 5xx, then the step's success criteria) and by the run's passive judges (the schema of the
 * answer, a 5xx to a valid request, ...), and its actions followed: `end`, `goto` a step, `retry`
 * (waits and retries capped). A failure names the step and carries the repro line that replays the
 * workflow up to it. What ran is counted in a tally (report.json's `workflows`).
 */
import type { CheckContext, CheckDefinition, Judgement } from '../checks/check.js';
import { judgeAnswer } from '../checks/judge.js';
import { fail, unjudged, type Findings } from '../checks/outcomes.js';
import { FAILURE_KINDS, type FailureField } from '../results/model.js';
import type { WorkflowAction, WorkflowTally } from '../results/workflows.js';
import { fillPath } from '../spec/path-template.js';
import { setPointer } from '../generators/index.js';
import type { Operation } from '../spec/model.js';
import type { Exchange, HttpRequest } from '../transport/types.js';
import { criterionType, type Action, type Criterion, type XSecurity } from './document.js';
import { judgeCriterion } from './criteria.js';
import { evaluate, EXPRESSION, interpolate, toStepExchange, type ExpressionScope } from './expressions.js';
import type { ResolvedStep, ResolvedWorkflow } from './read.js';

/** Step sends per workflow run before a loop of gotos is stopped. */
export const MAX_STEP_SENDS = 100;
/** A retry waits at most this long, and is tried at most MAX_RETRIES times per step. */
export const MAX_RETRY_WAIT_MS = 5_000;
export const MAX_RETRIES = 5;

/** What a workflow run needs beside the context: the passive judges, the replay line, what replaces the key in use. */
export interface WorkflowRunOptions {
  judges: readonly CheckDefinition[];
  /** The command line that replays the workflow (the failure's repro). */
  repro: string;
  replacesCredential?: (op: Operation) => boolean;
  /** Pointers of the answer's secrets (a regenerated key) of an operation. */
  secretPointers?: (op: Operation) => readonly string[];
}

/** A new tally of a workflow. */
export function newTally(check: string, id: string, steps: number): WorkflowTally {
  return {
    id,
    check,
    steps,
    runs: 0,
    steps_run: 0,
    steps_judged: 0,
    criteria_evaluated: 0,
    criteria_held: 0,
    criteria_failed: 0,
    actions: [],
  };
}

const isExpression = (text: string): boolean => {
  const m = EXPRESSION.exec(text.trim());
  return m !== null && m.index === 0 && m[0].length === text.trim().length;
};

/** A value of the file with its runtime expressions evaluated: a whole `$...` string is the value, `{$...}` inside a string is replaced. */
export function resolveValue(value: unknown, scope: ExpressionScope): unknown {
  if (typeof value === 'string') {
    if (isExpression(value)) return evaluate(value, scope);
    return value.includes('{$') ? interpolate(value, scope) : value;
  }
  if (Array.isArray(value)) return value.map((v) => resolveValue(v, scope));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, scope)]));
  return value;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** The credentials of `x-security` as headers: a bearer token, an API key in its documented header. */
function securityHeaders(ctx: CheckContext, list: XSecurity[] | undefined, scope: ExpressionScope) {
  const headers: Record<string, string> = {};
  for (const entry of list ?? []) {
    const scheme = ctx.spec.securitySchemes.find((s) => s.name === entry.schemeName);
    const values = resolveValue(entry.values ?? {}, scope) as Record<string, unknown>;
    if (!scheme) continue;
    if (scheme.credential === 'bearer' && values['token'] !== undefined)
      headers[scheme.header] = `Bearer ${text(values['token'])}`;
    else if (values['apiKey'] !== undefined) headers[scheme.header] = text(values['apiKey']);
  }
  return headers;
}

/** The request a step sends, its expressions evaluated in `scope`; ExpressionError when one reaches no value. */
export function buildRequest(ctx: CheckContext, s: ResolvedStep, scope: ExpressionScope): HttpRequest {
  const path: Record<string, string> = {};
  const query: Array<[string, string]> = [];
  const headers = securityHeaders(ctx, s.step['x-security'], scope);
  for (const p of s.parameters) {
    const value = text(resolveValue(p.value, scope));
    if (p.in === 'path') path[p.name] = value;
    else if (p.in === 'query') query.push([p.name, value]);
    else if (p.in === 'header') headers[p.name] = value;
    else if (p.in === 'cookie')
      headers['Cookie'] = `${headers['Cookie'] ? `${headers['Cookie']}; ` : ''}${p.name}=${value}`;
  }
  const request: HttpRequest = { method: s.operation.method, path: fillPath(s.operation.path, path), headers };
  if (query.length) request.query = query;
  const body = s.step.requestBody;
  if (body && body.payload !== undefined) {
    let payload = resolveValue(body.payload, scope);
    for (const r of body.replacements ?? []) payload = setPointer(payload, r.target, resolveValue(r.value, scope));
    request.json = payload;
  }
  return request;
}

/** Where a criterion looks in the answer: the first `$response.body#/pointer` it names, else the body (or a header). */
function fieldOf(c: Criterion, status: number | undefined): FailureField {
  const both = `${c.context ?? ''} ${c.condition}`;
  const pointer = /\$response\.body#(\/[^\s=!<>&|()]*)/.exec(both)?.[1];
  const header = /\$response\.header\.([A-Za-z0-9-]+)/.exec(both)?.[1];
  const at: FailureField = header
    ? { location: 'response-header', pointer: `/${header.toLowerCase()}` }
    : { location: 'response', pointer: pointer ?? '' };
  if (status !== undefined) at.status = String(status);
  return at;
}

/** The step's own criteria (a step without any holds when its answer is a success, as Arazzo runners read it). */
const criteriaOf = (s: ResolvedStep): Criterion[] =>
  s.step.successCriteria?.length ? s.step.successCriteria : [{ condition: '$statusCode >= 200 && $statusCode < 300' }];

/** The first action of `list` whose own criteria all hold. */
function chosen(list: readonly Action[], scope: ExpressionScope): Action | undefined {
  return list.find((a) => (a.criteria ?? []).every((c) => judgeCriterion(c, scope).held));
}

/** One run of a workflow with one set of inputs (see the module comment). */
export class WorkflowRun {
  readonly scope: ExpressionScope;
  /** Set when the run was stopped for sending more than MAX_STEP_SENDS steps (its gotos loop): the reason. */
  looped: string | undefined;
  private sends = 0;
  private readonly retries = new Map<string, number>();

  constructor(
    private readonly ctx: CheckContext,
    private readonly wf: ResolvedWorkflow,
    inputs: Record<string, unknown>,
    workflows: ExpressionScope['workflows'],
    private readonly findings: Findings,
    private readonly tally: WorkflowTally,
    private readonly o: WorkflowRunOptions,
  ) {
    this.scope = { inputs, steps: {}, workflows };
  }

  private what(s: ResolvedStep): string {
    return `workflow ${this.wf.workflow.workflowId}, step ${s.step.stepId}`;
  }

  /** Runs the steps in order, following the actions; returns the workflow's outputs when it ended without a failure. */
  async run(): Promise<Record<string, unknown> | undefined> {
    this.tally.runs++;
    let at = 0;
    let failed = false;
    while (at >= 0 && at < this.wf.steps.length) {
      if (++this.sends > MAX_STEP_SENDS) {
        this.looped = `${this.what(this.wf.steps[at]!)}: stopped after ${MAX_STEP_SENDS} step sends (the workflow's gotos loop)`;
        return undefined;
      }
      const next = await this.step(at);
      if (next.failed) failed = true;
      at = next.at;
    }
    if (failed) return undefined;
    try {
      return resolveValue(this.wf.workflow.outputs ?? {}, { ...this.scope, outputs: {} }) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }

  /** Sends step `at` and judges it; returns the index of the step to run next (-1: the workflow ends). */
  private async step(at: number): Promise<{ at: number; failed: boolean }> {
    const s = this.wf.steps[at]!;
    let request: HttpRequest;
    try {
      request = buildRequest(this.ctx, s, this.scope);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.findings.add(unjudged(`${this.what(s)}: not sent: ${why}`, { cause: 'no-record' }));
      return { at: -1, failed: true };
    }
    const exchange = await this.ctx.send({ ...request, operation: s.operation });
    this.tally.steps_run++;
    const current = toStepExchange(exchange, {
      query: Object.fromEntries(request.query ?? []),
      path: this.pathValues(s),
      body: request.json,
    });
    const scope = { ...this.scope, current };
    for (const judge of this.o.judges)
      if (judge.appliesTo(s.operation, this.ctx.spec)) {
        const j = judge.judgeExchange?.(this.ctx, s.operation, exchange);
        if (j) this.findings.add(this.withRepro(j));
      }
    const verdict = this.judgeStep(s, exchange, scope);
    if (verdict.unjudged !== undefined) {
      this.findings.add(verdict.judgement);
      return { at: -1, failed: true };
    }
    if (verdict.held) return this.onSuccess(at, s, exchange, scope);
    return this.onFailure(at, s, verdict.judgement, scope);
  }

  /** The path parameters as sent (what `$request.path.<name>` reads). */
  private pathValues(s: ResolvedStep): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of s.parameters) if (p.in === 'path') out[p.name] = text(resolveValue(p.value, this.scope));
    return out;
  }

  /** The step's answer through the one verdict path, its criteria the check's own judgement. */
  private judgeStep(s: ResolvedStep, exchange: Exchange, scope: ExpressionScope) {
    let held = true;
    const judgement = judgeAnswer(
      this.ctx,
      s.operation,
      exchange,
      { what: this.what(s), expected: "the step's success criteria hold" },
      (response) => {
        const failedOnes: Array<{ c: Criterion; why: string }> = [];
        for (const c of criteriaOf(s)) {
          const v = judgeCriterion(c, scope);
          this.tally.criteria_evaluated++;
          if (v.held) this.tally.criteria_held++;
          else {
            this.tally.criteria_failed++;
            failedOnes.push({ c, why: v.why ?? 'it does not hold' });
          }
        }
        if (failedOnes.length === 0) return { ok: true };
        held = false;
        const first = failedOnes[0]!;
        const shown = `${criterionType(first.c)} criterion ${JSON.stringify(first.c.condition).slice(0, 200)}`;
        return fail(
          this.ctx,
          exchange,
          `the ${shown} holds`,
          `it does not: ${first.why}`.slice(0, 400),
          `${this.what(s)}: the ${shown} does not hold (status ${response.status})`,
          undefined,
          { kind: FAILURE_KINDS.criterion, field: fieldOf(first.c, response.status) },
        );
      },
    );
    if (judgement.ok && judgement.unjudged !== undefined)
      return { held: false, judgement, unjudged: judgement.unjudged };
    if (!judgement.ok) held = false;
    this.tally.steps_judged++;
    return { held, judgement: this.withRepro(judgement), unjudged: undefined };
  }

  private withRepro(j: Judgement): Judgement {
    if (j.ok) return j;
    return { ...j, failure: { ...j.failure, repro: this.o.repro } };
  }

  private count(s: ResolvedStep, on: 'success' | 'failure', action: Action): void {
    const found = this.tally.actions.find((a) => a.step === s.step.stepId && a.on === on && a.name === action.name);
    if (found) found.taken++;
    else {
      const entry: WorkflowAction = { step: s.step.stepId, on, name: String(action.name), type: action.type, taken: 1 };
      this.tally.actions.push(entry);
    }
  }

  private goto(action: Action): number {
    return this.wf.steps.findIndex((x) => x.step.stepId === action.stepId);
  }

  private onSuccess(at: number, s: ResolvedStep, exchange: Exchange, scope: ExpressionScope) {
    const outputs: Record<string, unknown> = {};
    for (const [name, expr] of Object.entries(s.step.outputs ?? {})) {
      try {
        outputs[name] = resolveValue(expr, scope);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.findings.add(
          this.withRepro(
            fail(
              this.ctx,
              exchange,
              `output ${name} (${expr}) can be read from the answer`,
              why.slice(0, 300),
              `${this.what(s)}: output ${name} cannot be read: ${why}`.slice(0, 300),
              undefined,
              {
                kind: FAILURE_KINDS.criterion,
                field: { location: 'response', pointer: /#(\/.*)$/.exec(String(expr))?.[1] ?? '' },
              },
            ),
          ),
        );
        return { at: -1, failed: true };
      }
    }
    this.scope.steps[s.step.stepId] = { outputs };
    this.learnCredential(s, exchange);
    this.findings.add({ ok: true });
    const action = chosen(s.onSuccess, scope);
    if (!action) return { at: at + 1, failed: false };
    this.count(s, 'success', action);
    if (action.type === 'end') return { at: -1, failed: false };
    if (action.type === 'goto') return { at: this.goto(action), failed: false };
    return { at, failed: false };
  }

  private async onFailure(at: number, s: ResolvedStep, judgement: Judgement, scope: ExpressionScope) {
    const action = chosen(s.onFailure, scope);
    // An action is counted when it is taken: a retry past its limit is not (the step fails).
    if (action && action.type !== 'retry') this.count(s, 'failure', action);
    if (action?.type === 'retry') {
      const tries = (this.retries.get(s.step.stepId) ?? 0) + 1;
      this.retries.set(s.step.stepId, tries);
      if (tries <= Math.min(action.retryLimit ?? 1, MAX_RETRIES)) {
        this.count(s, 'failure', action);
        const wait = Math.min(Math.max(0, (action.retryAfter ?? 0) * 1000), MAX_RETRY_WAIT_MS);
        if (wait > 0) await this.ctx.pause(wait, `the workflow's retryAfter (${this.what(s)})`);
        return { at, failed: false };
      }
    }
    if (action?.type === 'goto') return { at: this.goto(action), failed: false };
    this.findings.add(judgement);
    return { at: -1, failed: true };
  }

  /** A step on an operation that replaces the key in use (a key regeneration): the run goes on with the new key. */
  private learnCredential(s: ResolvedStep, exchange: Exchange): void {
    if (!this.o.replacesCredential?.(s.operation)) return;
    const body = exchange.response?.json as Record<string, unknown> | undefined;
    for (const pointer of this.o.secretPointers?.(s.operation) ?? []) {
      const value = body?.[pointer.slice(1)];
      if (typeof value === 'string' && value) this.ctx.rotateApiKey(value);
    }
  }
}
