/**
 * Writes the scenarios a run executed and verified as an Arazzo 1.0.1 document (`vapc export
 * arazzo`): one workflow per check that passed, one step per exchange it sent (by operationId), the
 * ids of records wired from the step that created them, the run's fixtures as workflow inputs (with
 * the values of the run as defaults), the credentials as inputs without a value (`x-security`, as
 * Redocly respect reads it), and a key a step regenerated as that step's output, never as a value.
 *
 * Success criteria: the status the contract documents, and what the stateful checks judge (see
 * records.ts): echoes of what was sent, fields a partial update keeps, the record read back under
 * its member, the fields an update-shaped record omits, a regenerated key that differs from the one
 * in use, an open JSON object where one is documented. Each candidate is evaluated on the recorded
 * exchange with the evaluator `vapc run --arazzo` uses, and written only when it held: every
 * criterion in the file has been seen to hold.
 */
import type { Exchange } from '../transport/types.js';
import { asRecord, secretResponsePointers, type JsonSchema, type Operation, type SpecModel } from '../spec/model.js';
import { pathPattern } from '../spec/path-template.js';
import { propertiesOf } from '../spec/schema.js';
import type { Fixtures } from '../results/fixtures.js';
import {
  ARAZZO_VERSION,
  type ArazzoDocument,
  type Criterion,
  type Parameter,
  type Step,
  type Workflow,
  type XSecurity,
} from './document.js';
import { judgeCriterion } from './criteria.js';
import { allOf, typeCriterion } from './types.js';
import { evaluate, toStepExchange, type ExpressionScope, type StepExchange } from './expressions.js';
import {
  afterWrite,
  fromCreation,
  instantPattern,
  recordAt,
  recordFieldOf,
  recordProperties,
  successSchemaOf,
  writableFields,
  type Expectation,
  type RecordState,
} from './records.js';

/** The exchanges one check sent, in order, with the operation each went to. */
export interface Scenario {
  check: string;
  rule: string;
  contractRef: string;
  exchanges: Array<{ exchange: Exchange; operation: Operation }>;
}

export interface ExportOptions {
  spec: SpecModel;
  /** The source description's url: where the bundled spec is, relative to the written file. */
  sourceUrl: string;
  fixtures: Fixtures;
  /** The API keys the run used (the one given and any it regenerated): sent as `$inputs.api_key`, never written. */
  apiKeys: readonly string[];
  userId?: string;
  /** Operations whose answer replaces the credential in use (key regeneration): their workflows go last. */
  replacesCredential: (op: Operation) => boolean;
  seed: number;
}

export interface ExportSummary {
  document: ArazzoDocument;
  workflows: number;
  steps: number;
  criteria: number;
  /** Candidate criteria that did not hold on the recorded exchange, so were not written. */
  notHeld: number;
}

const SOURCE = 'contract';
const kebab = (text: string): string => text.replace(/[^A-Za-z0-9_-]+/g, '-');
const stepName = (pointer: string): string =>
  pointer
    .slice(1)
    .replace(/~1/g, '_')
    .replace(/~0/g, '_')
    .replace(/[^A-Za-z0-9_]/g, '_');

/** The recorded exchange as expressions read it: path parameters matched on the template, query and JSON body parsed. */
function stepExchange(exchange: Exchange, op: Operation): StepExchange {
  const url = new URL(exchange.request.url);
  const match = pathPattern(op.path, { anchored: false, emptyParams: false }).exec(url.pathname);
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const path = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match?.[i + 1] ?? '')]));
  let body: unknown;
  try {
    body = exchange.request.body === undefined ? undefined : JSON.parse(exchange.request.body);
  } catch {
    body = undefined;
  }
  return toStepExchange(exchange, { query: Object.fromEntries(url.searchParams), path, body });
}

/** The record fields a creation sent as an empty object or array. */
function emptySentFields(sent: unknown, props: Record<string, JsonSchema>): string[] {
  return Object.entries(asRecord(sent))
    .filter(([, v]) => v !== null && typeof v === 'object' && Object.keys(v).length === 0)
    .map(([k]) => recordFieldOf(k, props))
    .filter((f): f is string => f !== undefined && /^[A-Za-z_]\w*$/.test(f));
}

/** The status criterion the contract documents for a success answer: its listed 2xx statuses, or any 2xx where it writes `2XX`. */
function statusCriterion(op: Operation): Criterion {
  const listed = op.responses.map((r) => r.status).filter((s) => /^2\d\d$/.test(s));
  if (op.responses.some((r) => /^2XX$/i.test(r.status)) || listed.length === 0)
    return { condition: '$statusCode >= 200 && $statusCode < 300' };
  return { condition: listed.map((s) => `$statusCode == ${s}`).join(' || ') };
}

/** Builds one workflow from one scenario (see the module comment). */
class WorkflowWriter {
  readonly steps: Step[] = [];
  readonly inputs = new Map<string, Record<string, unknown>>();
  readonly scope: ExpressionScope = { inputs: {}, steps: {}, workflows: {} };
  private readonly exchanges = new Map<string, StepExchange>();
  private readonly records = new Map<string, RecordState>();
  /** Per record, the fields its creation sent as `{}` or `[]`: no leaf to compare, yet never to come back null. */
  private readonly emptySent = new Map<string, string[]>();
  /** Values a step's answer carried that later steps send as credentials: the output expression for each. */
  private readonly secretOutputs = new Map<string, string>();
  private readonly writable: Set<string>;
  criteria = 0;
  notHeld = 0;
  /** Steps left out, in words (a request Redocly respect could not send as it was sent). */
  readonly leftOut: string[] = [];

  constructor(
    private readonly o: ExportOptions,
    /** Step ids of the whole document: each is unique in it (linters resolve `$steps.<id>` across workflows). */
    private readonly stepIds: Set<string>,
  ) {
    this.writable = writableFields(o.spec);
  }

  private input(name: string, schema: Record<string, unknown>, value: unknown): string {
    if (!this.inputs.has(name)) this.inputs.set(name, schema);
    if (!(name in this.scope.inputs)) this.scope.inputs[name] = value;
    return `$inputs.${name}`;
  }

  /** The input a fixture value is sent as (`org_id`, `channel`, ...), with the run's value as its default; undefined when it is none. */
  private fixtureInput(value: unknown): string | undefined {
    if (typeof value !== 'string' || value === '') return undefined;
    const f = this.o.fixtures as Record<string, unknown>;
    for (const [key, v] of Object.entries(f))
      if (v === value && typeof v === 'string') return this.input(key, { type: 'string', default: value }, value);
    const listed = this.o.fixtures.channels;
    const channels = Array.isArray(listed) ? listed.filter((c): c is string => typeof c === 'string') : [];
    const i = channels.indexOf(value);
    if (i >= 0) return this.input(i === 0 ? 'channel' : `channel_${i + 1}`, { type: 'string', default: value }, value);
    return undefined;
  }

  /** A request value as the step writes it: a fixture as its input, an earlier answer's value as that step's output, else as sent. */
  private wired(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.wired(v));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.wired(v)]));
    if (typeof value === 'string') {
      for (const record of this.records.values())
        if (record.id === value) return this.output(record.creator, 'id', '$response.body#/id');
      return this.fixtureInput(value) ?? value;
    }
    return value;
  }

  /** Declares an output of an earlier step (evaluated on its recorded exchange) and returns the expression that reads it. */
  private output(stepId: string, name: string, expression: string): string {
    const step = this.steps.find((s) => s.stepId === stepId)!;
    step.outputs ??= {};
    step.outputs[name] ??= expression;
    const scoped = (this.scope.steps[stepId] ??= { outputs: {} });
    if (!(name in scoped.outputs))
      scoped.outputs[name] = evaluate(expression, { ...this.scope, current: this.exchanges.get(stepId)! });
    return `$steps.${stepId}.outputs.${name}`;
  }

  private security(op: Operation, ex: StepExchange): XSecurity[] {
    const out: XSecurity[] = [];
    for (const scheme of op.security.find((alt) => alt.length > 0) ?? []) {
      const header = Object.entries(ex.request.headers).find(
        ([k]) => k.toLowerCase() === scheme.header.toLowerCase(),
      )?.[1];
      if (header === undefined) continue;
      if (scheme.credential === 'bearer') {
        const key = header.replace(/^Bearer\s+/i, '');
        const token =
          this.secretOutputs.get(key) ??
          (this.o.apiKeys.includes(key)
            ? this.input('api_key', { type: 'string', format: 'password' }, key)
            : undefined);
        if (token) out.push({ schemeName: scheme.name, values: { token } });
      } else if (header === this.o.userId) {
        out.push({ schemeName: scheme.name, values: { apiKey: this.input('user_id', { type: 'string' }, header) } });
      }
    }
    return out;
  }

  private parameters(op: Operation, ex: StepExchange): Parameter[] {
    const path = op.parameters
      .filter((p) => p.in === 'path')
      .map((p) => ({ name: p.name, in: 'path' as const, value: this.wired(ex.request.path[p.name]) }));
    const query = Object.entries(ex.request.query).map(([name, value]) => ({
      name,
      in: 'query' as const,
      value: this.wired(value),
    }));
    return [...path, ...query];
  }

  /** Keeps the criteria that hold on the recorded exchange; counts the rest. */
  private held(candidates: Criterion[], ex: StepExchange): Criterion[] {
    const scope = { ...this.scope, current: ex };
    return candidates.filter((c) => {
      const ok = judgeCriterion(c, scope).held;
      if (!ok) this.notHeld++;
      return ok;
    });
  }

  /** The right side of a comparison with an expectation: this step's request, or an earlier step's output. */
  private sourceOf(e: Expectation, stepId: string): string {
    const expr = `$${e.source.kind === 'sent' ? 'request' : 'response'}.body#${e.source.pointer}`;
    if (e.source.step === stepId) return expr;
    return this.output(e.source.step, `${e.source.kind === 'sent' ? 'sent_' : ''}${stepName(e.source.pointer)}`, expr);
  }

  /** Criteria on the record an answer carries: its id, and every expectation the record's fields are held to. */
  private recordCriteria(
    op: Operation,
    stepId: string,
    state: RecordState,
    ex: StepExchange,
    read: boolean,
  ): Criterion[] {
    const at = recordAt(ex.response?.body, state.id);
    if (!at) return [];
    const out: Criterion[] = [];
    if (at.pointer !== '' || state.creator !== stepId)
      out.push({
        condition: `$response.body#${at.pointer}/id == ${this.output(state.creator, 'id', '$response.body#/id')}`,
      });
    const props = recordProperties(op, at.pointer);
    for (const [leaf, e] of state.fields) {
      if (!(leaf.split('/')[1]! in props) || (e.managed && !read)) continue;
      if (e.source.step === stepId && e.source.kind === 'answered') continue;
      const target = `$response.body#${at.pointer}${leaf}`;
      if (e.timestamp) {
        const pattern = e.source.kind === 'sent' ? instantPattern(e.value) : undefined;
        if (pattern) out.push({ context: target, type: 'regex', condition: pattern });
        continue;
      }
      out.push({ condition: `${target} == ${this.sourceOf(e, stepId)}` });
    }
    return out;
  }

  /** A field created as `{}` or `[]` is still not null in the answer that carries the record. */
  private emptyCriteria(id: string, ex: StepExchange): Criterion[] {
    const at = recordAt(ex.response?.body, id);
    if (!at) return [];
    const path = at.pointer === '' ? '@' : `@.${at.pointer.slice(1)}`;
    return (this.emptySent.get(id) ?? [])
      .filter((f) => f in at.record)
      .map((f) => ({
        context: '$response.body',
        type: 'jsonpath',
        condition: `$[?${path}.${f} && !(${path}.${f} == null)]`,
      }));
  }

  /** Criteria of an answer's shape: the fields an update-shaped record omits, an open object where one is documented. */
  private shapeCriteria(op: Operation, ex: StepExchange): Criterion[] {
    const mine = Object.keys(propertiesOf(successSchemaOf(op) ?? {}));
    const schema = successSchemaOf(op);
    if (schema && mine.length === 0 && schema['type'] === 'object')
      return [{ context: '$response.body', type: 'jsonpath', condition: '$[?@.* && !@[0]]' }];
    const creator = this.o.spec.operations.find(
      (o) => o.method === 'POST' && op.method !== 'POST' && op.path.startsWith(`${o.path}/{`) && o.requestBody,
    );
    if (!creator || !recordAt(ex.response?.body, String(asRecord(ex.response?.body)['id'] ?? '\0'))) return [];
    const full = Object.keys(propertiesOf(successSchemaOf(creator) ?? {}));
    const omitted = full.filter((f) => !mine.includes(f));
    if (omitted.length === 0 || mine.length === 0 || !mine.every((f) => full.includes(f))) return [];
    const absent = allOf(omitted.map((f) => `(!@.${f} || @.${f} == null)`));
    return [{ context: '$response.body', type: 'jsonpath', condition: `$[?${absent}]` }];
  }

  /** A regenerated credential: it differs from the one in use, and later steps send it as this step's output. */
  private credentialCriteria(op: Operation, stepId: string, ex: StepExchange): Criterion[] {
    if (!this.o.replacesCredential(op)) return [];
    const out: Criterion[] = [];
    for (const pointer of secretResponsePointers(op)) {
      const value = asRecord(ex.response?.body)[pointer.slice(1)];
      if (typeof value !== 'string' || !value) continue;
      const expr = this.output(stepId, stepName(pointer), `$response.body#${pointer}`);
      this.secretOutputs.set(value, expr);
      if (this.inputs.has('api_key')) out.push({ condition: `$response.body#${pointer} != $inputs.api_key` });
    }
    return out;
  }

  add(exchange: Exchange, op: Operation): void {
    const ex = stepExchange(exchange, op);
    const body = ex.request.body;
    if (body !== null && typeof body === 'object' && Object.keys(body).length === 0) {
      // Redocly respect 2.77 sends no body at all for an empty payload: the step would test something else.
      this.leftOut.push(
        `${op.method} ${op.path} with an empty JSON body (Redocly respect sends no body for an empty payload)`,
      );
      return;
    }
    let n = 1;
    while (this.stepIds.has(n === 1 ? op.id : `${op.id}-${n}`)) n++;
    const stepId = n === 1 ? op.id : `${op.id}-${n}`;
    this.stepIds.add(stepId);
    const step: Step = { stepId, description: `${op.method} ${op.path}, as the check sent it`, operationId: op.id };
    const security = this.security(op, ex);
    if (security.length) step['x-security'] = security;
    const parameters = this.parameters(op, ex);
    if (parameters.length) step.parameters = parameters;
    if (ex.request.body !== undefined)
      step.requestBody = { contentType: 'application/json', payload: this.wired(ex.request.body) };
    this.steps.push(step);
    this.exchanges.set(stepId, ex);
    this.scope.steps[stepId] ??= { outputs: {} };
    // What the step wrote is learned first: its answer is then held to it (the echo) and to what it did not change.
    const created = this.learn(op, stepId, ex);
    step.successCriteria = this.held(this.criteriaOf(op, stepId, ex, created), ex);
    this.criteria += step.successCriteria.length;
  }

  private criteriaOf(op: Operation, stepId: string, ex: StepExchange, created: string | undefined): Criterion[] {
    const out = [statusCriterion(op)];
    const target = created ?? Object.values(ex.request.path).find((v) => this.records.has(v));
    if (target) out.push(...this.recordCriteria(op, stepId, this.records.get(target)!, ex, op.method === 'GET'));
    if (target) out.push(...this.emptyCriteria(target, ex));
    out.push(...this.shapeCriteria(op, ex), ...this.credentialCriteria(op, stepId, ex));
    const status = ex.response?.status ?? 0;
    const types = status >= 200 && status < 300 ? typeCriterion(ex.response?.body, successSchemaOf(op)) : undefined;
    if (types) out.push(types);
    return out;
  }

  /** What the step taught about records: a record it created (its id returned), or the writes it made to one. */
  private learn(op: Operation, stepId: string, ex: StepExchange): string | undefined {
    const status = ex.response?.status ?? 0;
    if (status < 200 || status > 299) return undefined;
    const body = asRecord(ex.response?.body);
    const target = Object.values(ex.request.path).find((v) => this.records.has(v));
    const secret = (p: string) => secretResponsePointers(op).includes(p);
    if (!target && op.method === 'POST' && body['id'] !== undefined && successSchemaOf(op)) {
      const state: RecordState = { id: String(body['id']), creator: stepId, fields: new Map() };
      const props = recordProperties(op, '');
      fromCreation(state, stepId, body, props, this.writable, secret);
      afterWrite(state, stepId, ex.request.body, { pointer: '', record: body }, props);
      for (const leaf of [...state.fields.keys()]) if (secret(leaf)) state.fields.delete(leaf);
      this.records.set(state.id, state);
      this.emptySent.set(state.id, emptySentFields(ex.request.body, props));
      return state.id;
    }
    if (target && op.method !== 'GET' && ex.request.body !== undefined) {
      const at = recordAt(body, target);
      afterWrite(this.records.get(target)!, stepId, ex.request.body, at, recordProperties(op, at?.pointer ?? ''));
    }
    return undefined;
  }

  workflow(scenario: Scenario): Workflow {
    const properties = Object.fromEntries(this.inputs);
    const required = [...this.inputs.entries()].filter(([, s]) => !('default' in s)).map(([k]) => k);
    return {
      workflowId: kebab(scenario.check.replace(/^[a-z]+\./, '')),
      summary: scenario.rule.length > 120 ? `${scenario.rule.slice(0, 117)}...` : scenario.rule,
      description:
        `What vapc's check ${scenario.check} sent and verified (contract ${scenario.contractRef}): ${scenario.rule}` +
        (this.leftOut.length ? `. Left out: ${this.leftOut.join('; ')}.` : ''),
      inputs: { type: 'object', properties, ...(required.length ? { required } : {}) },
      steps: this.steps,
    };
  }
}

/** The document of the verified scenarios (see the module comment); workflows that replace the credential in use go last. */
export function exportScenarios(scenarios: readonly Scenario[], o: ExportOptions): ExportSummary {
  const ordered = [...scenarios].sort(
    (a, b) =>
      Number(a.exchanges.some((e) => o.replacesCredential(e.operation))) -
      Number(b.exchanges.some((e) => o.replacesCredential(e.operation))),
  );
  let steps = 0;
  let criteria = 0;
  let notHeld = 0;
  const stepIds = new Set<string>();
  const workflows = ordered.map((scenario) => {
    const writer = new WorkflowWriter(o, stepIds);
    for (const { exchange, operation } of scenario.exchanges) writer.add(exchange, operation);
    steps += writer.steps.length;
    criteria += writer.criteria;
    notHeld += writer.notHeld;
    return writer.workflow(scenario);
  });
  const document: ArazzoDocument = {
    arazzo: ARAZZO_VERSION,
    info: {
      title: `${o.spec.document.info.title}: stateful scenarios verified by vapc`,
      summary: 'The stateful scenarios a vapc run executed, each success criterion seen to hold',
      description: `Written by \`vapc export arazzo\` from a run (seed ${o.seed}) in which every stateful check passed. Each workflow is what one check sent, step by step; each success criterion held on that run. Credentials are inputs without a value; fixtures are inputs whose defaults are the run's.`,
      version: o.spec.version,
    },
    sourceDescriptions: [{ name: SOURCE, url: o.sourceUrl, type: 'openapi' }],
    workflows,
  };
  return { document, workflows: workflows.length, steps, criteria, notHeld };
}
