/**
 * Shared judgement helpers of the suites: running a fast-check property over HTTP with a request
 * budget for shrinking, judging a response to an invalid request (422 with the validation error
 * body, "accepted" confirmed on the wire form), judging a response against its documented schema,
 * and building requests for an operation from fixtures.
 */
import fc from 'fast-check';
import type { Failure } from '../src/results/model.js';
import type { CheckContext, CheckOutcome } from '../src/checks/check.js';
import { operationLabel, walkProperties, type JsonSchema, type NumericBound, type Operation, type SpecModel } from '../src/spec/model.js';
import type { Exchange, HttpRequest } from '../src/transport/types.js';
import { cloneJson, fillPath, pathFixture, setPointer, validBody, type GenOptions, type InvalidCase } from '../src/generators/index.js';
import { validate, validateResponse, type ValidationIssue } from '../src/validators/index.js';

/** `METHOD /path` of an operation (the spec's one label). */
export const label = operationLabel;

/**
 * Headers that make an OPTIONS request a CORS preflight, as a browser sends them: an origin, the
 * method, and the request headers the contract's security schemes name (read from the spec).
 */
export function preflightHeaders(spec: SpecModel): Record<string, string> {
  const asked = [...new Set(spec.securitySchemes.map((s) => s.header.toLowerCase()))].join(', ');
  return { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': asked };
}

/** A verdict of one probe: fine, or a failure to report. */
export type Judgement = { ok: true } | { ok: false; failure: Failure; summary: string };
export const OK: Judgement = { ok: true };

/**
 * What section 7 says the `detail` of a 401 and of a 429 says. The wording is free; a message that
 * is empty or names none of these words says nothing of the kind ("No.", "error").
 */
const DETAIL_SAYS = {
  401: { what: 'that the credentials are invalid', words: /invalid|credential|auth|unauthori[sz]|not allowed|denied|api[\s_-]?key|\bkeys?\b|token|bearer|user|missing|expired|incorrect|wrong|not valid|unknown|forbidden|permission|log\s?in|sign[\s-]?in|access/i },
  429: { what: 'that the rate limit was exceeded', words: /rate|limit|too many|exceed|throttl|quota|slow|retry|try again|requests|capacity/i },
} as const;

/**
 * Judges an error body of section 7 (401 or 429): `{detail: string}` whose message says what the
 * contract says it says. Undefined when it does; else the reason, for a failure.
 */
export function errorDetailProblem(status: 401 | 429, response: { json?: unknown; text: string }): string | undefined {
  if (!validate('ErrorDetail', response.json).ok) return `body ${response.text.slice(0, 120) || '(empty)'} is not {detail: string}`;
  const detail = (response.json as { detail: string }).detail;
  const says = DETAIL_SAYS[status];
  if (!says.words.test(detail)) return `detail ${JSON.stringify(detail.slice(0, 120))} does not say ${says.what}`;
  return undefined;
}

export function fail(ctx: CheckContext, exchange: Exchange, expected: string, actual: string, summary: string, input?: unknown): Judgement {
  const details: { expected: string; actual: string; input?: unknown } = { expected, actual };
  if (input !== undefined) details.input = input;
  return { ok: false, failure: ctx.failure(exchange, details), summary };
}

/** Collects judgements into a check outcome; one failure never stops the others being gathered. */
export class Findings {
  readonly failures: Failure[] = [];
  readonly summaries: string[] = [];
  probes = 0;
  add(j: Judgement): boolean {
    this.probes++;
    if (!j.ok) {
      this.failures.push(j.failure);
      this.summaries.push(j.summary);
    }
    return j.ok;
  }
  outcome(passedMessage: string): CheckOutcome {
    if (this.failures.length === 0) return { status: 'passed', message: passedMessage };
    const unique = [...new Set(this.summaries)];
    const more = unique.length > 1 ? ` (and ${unique.length - 1} more)` : '';
    return { status: 'failed', message: `${unique[0]}${more}`, failures: this.failures };
  }
}

export interface PropertyOptions<T> {
  /** Cases tried before the random ones (boundaries, one per field). */
  examples?: T[];
  /** Random cases after the examples. */
  numRuns: number;
  /** Requests the shrinking may spend; past it, shrinking stops at the smallest failure so far. */
  shrinkBudget?: number;
}

/**
 * Runs `probe` over `arb` with the run's seed: the examples first, then `numRuns` random cases.
 * On failure, fast-check shrinks (within the budget) and the failure of the smallest counterexample
 * is returned with its input, seed and path filled in. A probe that throws is the tool's fault
 * and is rethrown (an error verdict, never a failed check).
 */
export async function checkProperty<T>(
  ctx: CheckContext,
  arb: fc.Arbitrary<T>,
  probe: (value: T) => Promise<Judgement>,
  options: PropertyOptions<T>,
): Promise<Judgement> {
  let last: Judgement | undefined;
  let toolError: unknown;
  let shrinkSpent = 0;
  let failedOnce = false;
  let lastFailed: { value: T } | undefined;
  const budget = options.shrinkBudget ?? 6;
  const property = fc.asyncProperty(arb, async (value) => {
    if (toolError !== undefined) return true;
    if (failedOnce) {
      // Budget spent: end the shrinking at once. Answering "passes" would make fast-check walk the
      // whole shrink stream of a large value (minutes of CPU, no request sent); answering "fails"
      // without a request makes it descend greedily and stop; the reported input is the last one
      // that really failed (lastFailed), never an unverified candidate.
      if (shrinkSpent >= budget) return false;
      shrinkSpent++;
    }
    let j: Judgement;
    try {
      j = await probe(value);
    } catch (error) {
      toolError = error;
      return true;
    }
    if (!j.ok) {
      failedOnce = true;
      last = j;
      lastFailed = { value };
      return false;
    }
    return true;
  });
  const examples = options.examples ?? [];
  const details = await fc.check(property, {
    seed: ctx.seed,
    numRuns: examples.length + options.numRuns,
    examples: examples.map((e) => [e] as [T]),
  });
  if (toolError !== undefined) throw toolError;
  if (!details.failed || !last || last.ok) return OK;
  const counterexample = lastFailed ? lastFailed.value : details.counterexample?.[0];
  const failure: Failure = { ...last.failure, seed: ctx.seed };
  if (counterexample !== undefined) failure.input = ctx.redact(counterexample);
  // The path replays fast-check's final counterexample: only that one really failed when the budget held.
  if (details.counterexamplePath && shrinkSpent < budget) failure.path = details.counterexamplePath;
  return { ok: false, failure, summary: last.summary };
}

/** The success response the contract documents for an operation (200/201/2XX), if any. */
export function successResponse(op: Operation) {
  return op.responses.find((r) => /^2/.test(r.status));
}

export function successSchema(op: Operation): JsonSchema | undefined {
  return successResponse(op)?.schema;
}

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

function statusText(exchange: Exchange): string {
  if (!exchange.response) return `no response (${exchange.error?.code ?? 'error'}: ${exchange.error?.message ?? ''})`;
  const body = exchange.response.text.length > 160 ? `${exchange.response.text.slice(0, 157)}...` : exchange.response.text;
  return `${exchange.response.status} ${body}`;
}
export { statusText };

/** Does a validation error body locate the fault at `loc` (with or without the `body`/`query` prefix)? */
export function locNames(detail: unknown, kase: Pick<InvalidCase, 'loc' | 'location'>): boolean {
  if (!Array.isArray(detail)) return false;
  const want = kase.loc.map(String);
  const named = want.filter((p) => !/^\d+$/.test(p));
  const field = named[named.length - 1];
  return detail.some((item) => {
    const loc = Array.isArray((item as { loc?: unknown })?.loc) ? ((item as { loc: unknown[] }).loc.map(String) as string[]) : [];
    const rest = loc[0] === kase.location ? loc.slice(1) : loc;
    if (rest.length >= want.length && want.every((p, i) => rest[i] === p)) return true;
    // An item may name a nested member as one dotted path ("speech_settings.style"): 2.8 only
    // asks for strings and integers.
    return field !== undefined && loc.some((item) => item === field || item.split('.').includes(field));
  });
}

export interface InvalidJudgeOptions {
  /** Judge the `loc` of the 422 body (off for malformed JSON, which has no field). */
  checkLoc?: boolean;
  /**
   * For a constraint the spec cannot state (the two provider ids, known from the run's fixtures):
   * whether the request as sent over the wire still breaks it, used instead of the validators.
   */
  stillInvalid?: (exchange: Exchange) => boolean;
}

/**
 * Judges the answer to a request that breaks one stated constraint: 422 with the validation error
 * body whose `loc` names the fault. "Accepted" (2xx) is a failure only when the request as it went
 * over the wire is still invalid by the project's validators. A 429 is a budget event, never judged.
 */
export function judgeInvalid(ctx: CheckContext, op: Operation, exchange: Exchange, kase: InvalidCase, options: InvalidJudgeOptions = {}): Judgement {
  const res = exchange.response;
  const rule = `${kase.description}: the contract answers a validation failure with 422 and the validation error body (sections 2.8, 4, 7)`;
  if (!res) return fail(ctx, exchange, rule, statusText(exchange), `${label(op)}: ${kase.description} got no response`, kase.value);
  if (res.status === 429) return OK;
  if (isSuccess(res.status)) {
    if (options.stillInvalid) {
      if (!options.stillInvalid(exchange)) return OK;
      return fail(ctx, exchange, rule, `accepted with ${res.status}`, `${kase.description} was accepted (${res.status}) on ${label(op)}`, kase.value);
    }
    const wire = ctx.validateWire(op, exchange);
    if (!wire.available) {
      ctx.observe({ operation: label(op), message: `${kase.description} was accepted (${res.status}); could not re-validate the wire request, so not judged` });
      return OK;
    }
    if (wire.valid) return OK;
    return fail(ctx, exchange, rule, `accepted with ${res.status}`, `${kase.description} was accepted (${res.status}) on ${label(op)}`, kase.value);
  }
  if (res.status !== 422) {
    return fail(ctx, exchange, rule, `status ${res.status}`, `${kase.description} on ${label(op)} answered ${res.status}, not 422`, kase.value);
  }
  const shape = validate('HTTPValidationError', res.json);
  if (!shape.ok) {
    const why = res.json === undefined ? 'the body is not JSON' : shape.issues.map((i) => i.message).slice(0, 3).join('; ');
    return fail(ctx, exchange, `${rule}: {detail: [{loc, msg, type}]}`, why, `the 422 body of ${label(op)} is not the validation error body (${why})`, kase.value);
  }
  if (options.checkLoc !== false && kase.loc.length > 0) {
    const detail = (res.json as { detail: unknown }).detail;
    if (!locNames(detail, kase)) {
      const locs = (detail as Array<{ loc: unknown }>).map((d) => JSON.stringify(d.loc)).join(', ');
      return fail(
        ctx,
        exchange,
        `a 422 whose loc names ${[kase.location, ...kase.loc].join('.')} (section 2.8)`,
        `loc ${locs || '(none)'}`,
        `the 422 of ${label(op)} for ${kase.description} does not name ${kase.loc.join('.')} in loc`,
        kase.value,
      );
    }
  }
  return OK;
}

const enumConflictCache = new WeakMap<SpecModel, Map<string, Set<unknown>>>();

/**
 * Field → the values a request body's enum accepts that every response enum of that field lacks:
 * the contract's own conflict (3.1: the update accepts campaign status `scheduled`, the record's
 * status list lacks it), read from the spec rather than typed here.
 */
export function enumConflicts(spec: SpecModel): Map<string, Set<unknown>> {
  const cached = enumConflictCache.get(spec);
  if (cached) return cached;
  const collect = (into: Map<string, Set<unknown>>) => (_pointer: string, field: string, schema: JsonSchema) => {
    if (!Array.isArray(schema['enum'])) return;
    const values = into.get(field) ?? new Set<unknown>();
    for (const v of schema['enum']) values.add(v);
    into.set(field, values);
  };
  const accepted = new Map<string, Set<unknown>>();
  const returned = new Map<string, Set<unknown>>();
  for (const op of spec.operations) {
    if (op.requestBody) walkProperties(op.requestBody.schema, '', collect(accepted));
    for (const response of op.responses) if (response.schema) walkProperties(response.schema, '', collect(returned));
  }
  const conflicts = new Map<string, Set<unknown>>();
  for (const [field, values] of accepted) {
    const known = returned.get(field);
    if (!known) continue;
    const missing = [...values].filter((v) => !known.has(v));
    if (missing.length) conflicts.set(field, new Set(missing));
  }
  enumConflictCache.set(spec, conflicts);
  return conflicts;
}

/** True for a response issue caused by the contract's own enum conflict (see enumConflicts). */
export function isEnumConflict(spec: SpecModel, issue: ValidationIssue): boolean {
  if (issue.rule !== 'enum') return false;
  const field = issue.pointer.split('/').pop() ?? '';
  return enumConflicts(spec).get(field)?.has(issue.actual) ?? false;
}

export interface ResponseJudgeOptions {
  /** What was asked for, for the messages. */
  what?: string;
}

/**
 * Judges a response to a valid request against what the contract documents for its status:
 * headers, content type and body. The contract's `scheduled` conflict is an observation; a 2xx the
 * contract leaves open (x-unspecified success status) is an observation.
 */
export function judgeResponse(ctx: CheckContext, op: Operation, exchange: Exchange, options: ResponseJudgeOptions = {}): Judgement {
  const res = exchange.response;
  const what = options.what ?? `a valid request to ${label(op)}`;
  if (!res) return fail(ctx, exchange, `an answer to ${what}`, statusText(exchange), `${what} got no response`);
  if (res.status === 429) return OK;
  const documented = op.responses.find((r) => r.status === String(res.status) || r.status === `${String(res.status)[0]}XX`);
  if (!documented) {
    if (isSuccess(res.status) && op.unspecified.some((u) => /success status/i.test(u))) {
      ctx.observe({ operation: label(op), message: `answered ${res.status}, a success status the contract leaves open` });
      return OK;
    }
    return fail(ctx, exchange, `one of the documented statuses ${op.responses.map((r) => r.status).join(', ')}`, `status ${res.status}`, `${label(op)} answered ${res.status}, which the contract does not document for it`);
  }
  if (documented.contentType) {
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== documented.contentType && !(documented.contentType === 'application/json' && /\+json$/.test(type))) {
      return fail(ctx, exchange, `content type ${documented.contentType} (section 4)`, `content type ${type || '(none)'}`, `${label(op)} answered ${res.status} with content type ${type || '(none)'}, not ${documented.contentType}`);
    }
    if (res.json === undefined) {
      return fail(ctx, exchange, `a JSON body`, res.jsonError ?? 'no JSON body', `${label(op)} answered ${res.status} with a body that is not JSON`);
    }
  }
  let result = validateResponse(op.id, res.status, { headers: res.headers, body: res.json });
  if (result.ok) return OK;
  const conflicts = result.issues.filter((i) => isEnumConflict(ctx.spec, i));
  if (conflicts.length) {
    // The contract's own conflict (3.1): judge the rest of the body as if the status were allowed.
    ctx.observe({
      id: 'contract-conflict.campaign-status-scheduled',
      operation: label(op),
      message: conflicts
        .map((c) => `the record's ${c.pointer.split('/').pop()} is ${JSON.stringify(c.actual)}, which the record's list lacks while the update accepts it (contract section 3.1): not judged`)
        .join('; '),
    });
    let body = res.json;
    for (const c of conflicts) {
      const allowed = Array.isArray(c.expected) ? c.expected.find((v) => typeof v === 'string') : undefined;
      body = setPointer(body, c.pointer, allowed ?? null);
    }
    result = validateResponse(op.id, res.status, { headers: res.headers, body });
    if (result.ok) return OK;
  }
  let issues = result.issues.filter((i) => !isEnumConflict(ctx.spec, i));
  if (op.method === 'OPTIONS') {
    // A CORS preflight is usually answered by a CORS layer ahead of any rate limiter, and browsers
    // never read its headers: missing rate-limit headers there are noted, not failed (the
    // ratelimit suite judges them on ordinary responses).
    const headerIssues = issues.filter((i) => i.location === 'header');
    if (headerIssues.length) {
      ctx.observe({ operation: label(op), message: `the preflight answer lacks documented headers (${headerIssues.map((i) => i.message).join('; ')}); not judged on a preflight` });
      issues = issues.filter((i) => i.location !== 'header');
    }
  }
  if (!issues.length) return OK;
  const text = issues.slice(0, 4).map((i) => i.message).join('; ');
  return fail(ctx, exchange, `the ${documented.status} response documented for ${label(op)} (its headers and body schema)`, text, `${label(op)} ${res.status}: ${issues[0]!.message}`);
}

/** Path parameter values from fixtures (and `extra`), for filling an operation's path. */
export function pathValues(ctx: CheckContext, op: Operation, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const v = extra[p.name] ?? pathFixture(p.name, ctx.fixtures);
    if (v !== undefined) out[p.name] = v;
  }
  return out;
}

export function missingPathParams(ctx: CheckContext, op: Operation, extra: Record<string, string> = {}): string[] {
  const have = pathValues(ctx, op, extra);
  return op.parameters.filter((p) => p.in === 'path' && have[p.name] === undefined).map((p) => p.name);
}

export function request(op: Operation, ctx: CheckContext, parts: Partial<HttpRequest> & { pathValues?: Record<string, string> } = {}): HttpRequest & { operation: Operation } {
  const { pathValues: values, ...rest } = parts;
  return { method: op.method, path: fillPath(op.path, pathValues(ctx, op, values)), operation: op, ...rest };
}

export const genOptions = (ctx: CheckContext, extra: Partial<GenOptions> = {}): GenOptions => ({ fixtures: ctx.fixtures, ...extra });

/** One sample of an arbitrary, fixed by the run's seed (and a salt, so checks differ). */
export function sampleOne<T>(ctx: CheckContext, arb: fc.Arbitrary<T>, salt = 0): T {
  return fc.sample(arb, { seed: ctx.seed + salt, numRuns: 1 })[0]!;
}

/**
 * Samples of body arbitraries by arbitrary and seed. `validBody` hands out one arbitrary per
 * schema and generation options, and a sample is a pure function of the arbitrary and the seed,
 * so the auth probes (one valid body per request, same salt) need not regenerate it each time.
 * Every caller gets its own deep copy.
 */
const bodySamples = new WeakMap<fc.Arbitrary<unknown>, Map<number, unknown>>();

function sampleBodyOf<T>(ctx: CheckContext, arb: fc.Arbitrary<T>, salt: number): T {
  const seed = ctx.seed + salt;
  let bySeed = bodySamples.get(arb);
  if (!bySeed) {
    bySeed = new Map();
    bodySamples.set(arb, bySeed);
  }
  if (!bySeed.has(seed)) {
    if (bySeed.size > 256) bySeed.clear();
    bySeed.set(seed, fc.sample(arb, { seed, numRuns: 1 })[0]!);
  }
  return cloneJson(bySeed.get(seed) as T);
}

/** The operation of the spec whose path and method match another operation's own path (e.g. GET of a PATCH path). */
export function operationById(ctx: CheckContext, id: string): Operation | undefined {
  return ctx.spec.operations.find((o) => o.id === id);
}

/** The POST operation whose success body is the record a path-parameter operation reads (createCampaign for /campaign/{id}). */
export function creatorOf(ctx: CheckContext, op: Operation): Operation | undefined {
  const param = op.parameters.find((p) => p.in === 'path');
  if (!param) return undefined;
  const base = op.path.slice(0, op.path.indexOf(`/{${param.name}}`));
  return ctx.spec.operations.find((o) => o.method === 'POST' && o.path === base && o.requestBody);
}

/**
 * Creates a record through the creating operation of `op`'s path (POST /campaign for
 * /campaign/{campaign_id}) with a valid fully-populated body; returns its id, or why it could not.
 */
export async function createRecord(ctx: CheckContext, op: Operation, salt = 0): Promise<{ id?: string; reason?: string; body?: unknown; exchange?: Exchange }> {
  const creator = creatorOf(ctx, op);
  if (!creator) return { reason: `no operation creates the records of ${op.path}` };
  const body = sampleBodyOf(ctx, validBody(creator, genOptions(ctx)), 7919 + salt);
  const exchange = await ctx.send(request(creator, ctx, { json: body }));
  const res = exchange.response;
  if (!res || !isSuccess(res.status)) return { reason: `${label(creator)} with a valid body answered ${res ? res.status : statusText(exchange)}`, exchange, body };
  const id = (res.json as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' && typeof id !== 'number') return { reason: `${label(creator)} returned no id`, exchange, body };
  return { id: String(id), body, exchange };
}

/** The path parameter an operation's record id goes in. */
export function idParam(op: Operation): string | undefined {
  return op.parameters.find((p) => p.in === 'path')?.name;
}

/** Path values for `op`, creating the record its path names when the fixtures do not have it. */
export async function pathForRecord(ctx: CheckContext, op: Operation, salt = 0): Promise<{ values?: Record<string, string>; reason?: string }> {
  const missing = missingPathParams(ctx, op);
  if (!missing.length) return { values: pathValues(ctx, op) };
  if (creatorOf(ctx, op)) {
    const created = await createRecord(ctx, op, salt);
    if (!created.id) return { reason: created.reason ?? 'could not create a record' };
    return { values: pathValues(ctx, op, { [missing[0]!]: created.id }) };
  }
  return { reason: `no ${missing.join(', ')} fixture (path parameter of ${label(op)})` };
}

/** Operations that need a created record for their path (`/campaign/{campaign_id}`). */
export const needsCreatedRecord = (ctx: { spec: { operations: Operation[] } }, op: Operation): boolean => {
  const param = op.parameters.find((p) => p.in === 'path');
  if (!param) return false;
  const base = op.path.slice(0, op.path.indexOf(`/{${param.name}}`));
  return ctx.spec.operations.some((o) => o.method === 'POST' && o.path === base && o.requestBody);
};

export const skipped = (message: string): CheckOutcome => ({ status: 'skipped', message });

const recordCache = new WeakMap<object, Map<string, Promise<{ values?: Record<string, string>; reason?: string }>>>();

/**
 * Like `pathForRecord`, but the record is created once per run (cached on the run's fixtures
 * object) and shared by the checks that only need some existing record to send to.
 */
export function sharedPathForRecord(ctx: CheckContext, op: Operation): Promise<{ values?: Record<string, string>; reason?: string }> {
  let byPath = recordCache.get(ctx.fixtures);
  if (!byPath) {
    byPath = new Map();
    recordCache.set(ctx.fixtures, byPath);
  }
  const key = op.path;
  let found = byPath.get(key);
  if (!found) {
    found = pathForRecord(ctx, op, 104729);
    byPath.set(key, found);
    // A failed creation is not cached: a later check may try again.
    found.then((r) => {
      if (!r.values) byPath!.delete(key);
    }, () => byPath!.delete(key));
  }
  return found;
}

/** A valid body for an operation (one sample, fixed by the seed), or undefined when it has none. */
export function sampleBody(ctx: CheckContext, op: Operation, salt = 0): Record<string, unknown> | undefined {
  return op.requestBody ? sampleBodyOf(ctx, validBody(op, genOptions(ctx)), salt) : undefined;
}

/** Requests a creation-free check needs a record for: 1 when the operation's path names a created record. */
export const recordCost = (op: Operation, spec: { operations: Operation[] }): number => (needsCreatedRecord({ spec }, op) ? 1 : 0);

/** The stated numeric bound of a body field of an operation (spec.bounds()), if any. */
export function boundOf(spec: SpecModel, op: Operation, field: string): NumericBound | undefined {
  return spec.bounds().find((b) => b.operationId === op.id && b.field === field);
}

/**
 * A plain credentialed read: GET, credentials required, no parameters, no body, no side effects
 * (GET /users/me). Checks that need one request any valid credentials must pass pick the first.
 */
export const isCredentialedRead = (op: Operation): boolean =>
  op.method === 'GET' && op.requiresCredentials && op.credentials.length > 0 && op.parameters.length === 0 && !op.requestBody && !op.sideEffects;
