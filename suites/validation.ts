/**
 * validation: for every operation with a body or an integer query parameter, inputs that break one
 * stated constraint at a time (a wrong JSON type for a field, a value outside an enum, malformed
 * JSON, a non-integer query value) are answered 422 with the validation error body, whose `loc`
 * names the fault (sections 2.8, 4, 7).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/checks/check.js';
import { FAILURE_KINDS as KIND, pointerOf } from '../src/results/model.js';
import { wireParts } from '../src/checks/wire.js';
import type { Operation } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import {
  enumCase,
  enumNearMiss,
  enumFields,
  integerQueryParams,
  malformedJson,
  malformedJsonExamples,
  nearMissWrongValue,
  nonIntegerQuery,
  nonIntegerQueryExamples,
  providerIdFields,
  setPointer,
  strictNearMissWrongValue,
  typedFields,
  wrongTypeCase,
  wrongTypeOf,
  type FieldInfo,
  type InvalidCase,
} from '../src/generators/index.js';
import { Findings, baseBody, checkProperty, fail, judgeInvalid, label, ownPathForRecord, recordCost, request, skipped, validCreateRefused, type InvalidJudgeOptions, type Judgement, unjudged } from './lib.js';

/**
 * Where and on what a check sends its invalid bodies: a record of its own (never an invented id:
 * with no record the check is skipped), and for a create, whether a valid body is refused too (a
 * 422 not naming the field then judges nothing).
 */
interface Target {
  values: Record<string, string>;
  validRefused?: string;
  /** The record as created for this check (its state goes along in the base body). */
  record?: Record<string, unknown>;
}

async function targetFor(ctx: CheckContext, op: Operation, salt: number): Promise<Target | { skip: string }> {
  const found = op.parameters.some((p) => p.in === 'path') ? await ownPathForRecord(ctx, op, salt) : { values: {} };
  if (!found.values) return { skip: found.reason ?? `no record to send ${label(op)} to` };
  const refused = await validCreateRefused(ctx, op);
  const target: Target = { values: found.values };
  if (refused !== undefined) target.validRefused = refused;
  if ('record' in found && found.record) target.record = found.record;
  return target;
}

async function sendCase(ctx: CheckContext, op: Operation, target: Target, kase: InvalidCase): Promise<Judgement> {
  const parts: Parameters<typeof request>[2] = { pathValues: target.values };
  if (kase.rawBody !== undefined) {
    parts.rawBody = kase.rawBody;
    parts.headers = { 'content-type': 'application/json' };
  } else if (kase.body !== undefined) parts.json = kase.body;
  if (kase.query) parts.query = kase.query;
  const exchange = await ctx.send(request(op, ctx, parts));
  const options: InvalidJudgeOptions = { checkLoc: kase.kind !== 'malformed-json' };
  if (target.validRefused !== undefined) options.validRefused = target.validRefused;
  return judgeInvalid(ctx, op, exchange, kase, options);
}

const topLevel = (op: Operation) => typedFields(op).filter((f) => f.depth === 0);
/** Random wrong-type cases after one per field (the per-field ones already reach every field). */
const RANDOM_CAP = 3;

export const wrongType = defineCheck({
  id: 'validation.wrong-type',
  suite: 'validation',
  rule: 'A body field of the wrong JSON type (one field at a time) is answered 422 with the validation error body naming the field in loc',
  contractRef: '2.8, 4, 7',
  severity: 'major',
  appliesTo: (op) => typedFields(op).length > 0,
  plannedRequests: (op, runs, spec, options) =>
    typedFields(op).filter((f) => options?.strictTypes && strictNearMissWrongValue(f.schema) !== undefined).length +
    typedFields(op).length +
    Math.min(runs, RANDOM_CAP) +
    recordCost(op, spec),
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 11);
    if ('skip' in target) return skipped(target.skip);
    const fields = typedFields(op);
    // Each field's body: the required fields and the field's own top-level member (one variable at a time).
    const baseOf = (f: FieldInfo) => baseBody(ctx, op, 11, [String(f.loc[0])], target.record);
    const cases = fields.map((f) => [f, wrongTypeCase(baseOf(f), f, ctx.strictTypes)] as const).filter((c): c is readonly [FieldInfo, fc.Arbitrary<InvalidCase>] => c[1] !== undefined);
    const perField = cases.map(([, a]) => a);
    if (!perField.length) return skipped('no field whose type can be broken');
    // One case per field first, nested ones included (recipients[].phone_number...), so no field's
    // type goes unchecked at any --runs: the near miss a hand-written check most often lets through
    // (7 for a string, 2.5 for an integer, [] for an object), else one drawn by the seed; then
    // random fields and wrong types.
    const examples = cases.flatMap(([f, a], i) => {
      const near = nearMissWrongValue(f.schema);
      const first = near !== undefined ? wrongTypeOf(baseOf(f), f, near) : fc.sample(a, { seed: ctx.seed + i, numRuns: 1 })[0]!;
      // Strict types (opt-in) also tries what frameworks coerce by design, first thing for each field.
      const coerced = ctx.strictTypes ? strictNearMissWrongValue(f.schema) : undefined;
      return coerced !== undefined ? [first, wrongTypeOf(baseOf(f), f, coerced)] : [first];
    });
    const findings = new Findings();
    // Each field is judged on its own, so every field that breaks the rule is reported.
    for (const kase of examples) {
      const j = await sendCase(ctx, op, target, kase);
      findings.add(j.ok ? j : { ...j, failure: { ...j.failure, input: ctx.redact(kase) } });
    }
    findings.add(
      await checkProperty(ctx, fc.oneof(...perField), (kase) => sendCase(ctx, op, target, kase), {
        numRuns: Math.min(ctx.runs, RANDOM_CAP),
      }),
    );
    return findings.outcome(`422 with the field named in loc for ${examples.length + Math.min(ctx.runs, RANDOM_CAP)} wrong-type bodies`);
  },
});

/** The wire body's value at a top-level field, as the validators read it (wireParts), or undefined. */
function sentValue(op: Operation, exchange: Exchange, field: string): unknown {
  const split = wireParts(op, exchange);
  const body = split.ok ? split.parts.body : undefined;
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
}

export const enumViolation = defineCheck({
  id: 'validation.enum-violation',
  suite: 'validation',
  rule: 'A value outside a stated closed set is answered 422 with the validation error body naming the field: the campaign status of the update (an allowed value in upper case first), and the campaign channel outside the two provider ids (judged when the fixtures name both)',
  contractRef: '3.1, 4.2, 4.4, 2.8, 7',
  severity: 'major',
  appliesTo: (op) => enumFields(op).length > 0 || providerIdFields(op).some((f) => f.depth === 0),
  plannedRequests: (op, runs, spec) =>
    (enumFields(op).length ? enumFields(op).length + Math.min(runs, 3) : 0) + providerIdFields(op).filter((f) => f.depth === 0).length + recordCost(op, spec),
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 13);
    if ('skip' in target) return skipped(target.skip);
    // The enum cases set their field themselves; the body keeps the record's own status otherwise.
    const under = providerIdFields(op).filter((f) => f.depth === 0).map((f) => String(f.loc[0]));
    const base = baseBody(ctx, op, 13, under, target.record);
    const findings = new Findings();
    const cases = enumFields(op).map((f) => enumCase(base, f)).filter((a): a is fc.Arbitrary<InvalidCase> => a !== undefined);
    if (cases.length) {
      // First an allowed value in upper case ("DRAFT"): a comparison ignoring case lets it in.
      const examples = enumFields(op).map((f) => enumNearMiss(base, f)).filter((c): c is InvalidCase => c !== undefined);
      findings.add(await checkProperty(ctx, fc.oneof(...cases), (kase) => sendCase(ctx, op, target, kase), { examples, numRuns: Math.min(ctx.runs, 3) }));
    }
    // The provider ids are a closed set the spec cannot list (the contract does not name them): judged
    // only when the run knows both, and on the wire body as sent.
    const channels = ctx.fixtures.channels ?? [];
    for (const field of providerIdFields(op).filter((f) => f.depth === 0)) {
      if (channels.length < 2) {
        ctx.observe({ operation: label(op), message: `${field.field} outside the provider ids not judged: the run knows ${channels.length} of the two (set fixtures.channels)` });
        continue;
      }
      const value = 'vapc-not-a-provider';
      const kase: InvalidCase = {
        kind: 'enum',
        location: 'body',
        loc: field.loc,
        field: field.field,
        value,
        body: setPointer(base, field.pointer, value),
        description: `${field.field}=${JSON.stringify(value)} (one of the two provider ids ${channels.join(', ')})`,
      };
      const exchange = await ctx.send(request(op, ctx, { pathValues: target.values, json: kase.body }));
      const options: InvalidJudgeOptions = { stillInvalid: (ex) => !channels.includes(sentValue(op, ex, field.field) as string) };
      if (target.validRefused !== undefined) options.validRefused = target.validRefused;
      findings.add(judgeInvalid(ctx, op, exchange, kase, options));
    }
    return findings.outcome('422 naming the field for values outside the closed sets');
  },
});

export const malformedJsonCheck = defineCheck({
  id: 'validation.malformed-json',
  suite: 'validation',
  rule: 'A body that is not well-formed JSON is answered 422 with the validation error body',
  contractRef: '2.8, 4, 7',
  severity: 'major',
  appliesTo: (op) => Boolean(op.requestBody),
  plannedRequests: (op, _runs, spec) => malformedJsonExamples({}).length + recordCost(op, spec),
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 17);
    if ('skip' in target) return skipped(target.skip);
    const base = baseBody(ctx, op, 17, [], target.record);
    const findings = new Findings();
    // Every malformation, on every seed (a random draw of five would miss some); none is left to draw.
    findings.add(await checkProperty(ctx, malformedJson(base), (kase) => sendCase(ctx, op, target, kase), { examples: malformedJsonExamples(base), numRuns: 0 }));
    return findings.outcome('422 with the validation error body for malformed JSON');
  },
});

/** Random non-integer query values after the examples (a word and a fraction per parameter). */
const QUERY_RANDOM = 2;

export const nonIntegerQueryCheck = defineCheck({
  id: 'validation.non-integer-query',
  suite: 'validation',
  rule: 'An integer query parameter given a non-integer value (a word, a decimal) is answered 422 with the validation error body naming the parameter',
  contractRef: '4.1, 2.8, 7',
  severity: 'major',
  appliesTo: (op) => integerQueryParams(op).length > 0,
  plannedRequests: (op, runs) => nonIntegerQueryExamples(op).length + Math.min(runs, QUERY_RANDOM),
  plannedCases: (op) => integerQueryParams(op).map((p) => `query ${p.name}: ${nonIntegerQueryExamples(op).filter((k) => k.field === p.name).map((k) => k.value).join(' ')}`),
  async run(ctx, op) {
    const arb = nonIntegerQuery(op);
    if (!arb) return skipped('no integer query parameter');
    const findings = new Findings();
    findings.add(await checkProperty(ctx, arb, (kase) => sendCase(ctx, op, { values: {} }, kase), { examples: nonIntegerQueryExamples(op), numRuns: Math.min(ctx.runs, QUERY_RANDOM) }));
    return findings.outcome('422 naming the parameter for non-integer query values');
  },
});

const LOCATIONS = ['body', 'query', 'path', 'header', 'cookie'];

/**
 * How the 422's loc places the fault: `located` when an item starts with the right location
 * (`body`, `query`) and then names the field; `unlocated` when loc names the field with no location
 * at all (the contract only says loc is an array of strings and integers, so this is noted, not
 * failed); `misplaced` when loc names the field under another location, which says the wrong
 * "where"; `unnamed` when no item names the field (judged by the other validation checks).
 */
function locPlacement(detail: unknown[], kase: InvalidCase): 'located' | 'unlocated' | 'misplaced' | 'unnamed' {
  const locs = detail
    .map((item) => (item as { loc?: unknown })?.loc)
    .filter((loc): loc is unknown[] => Array.isArray(loc))
    .map((loc) => loc.map(String));
  const naming = locs.filter((loc) => loc.includes(kase.field));
  if (naming.some((loc) => loc[0] === kase.location)) return 'located';
  if (naming.some((loc) => LOCATIONS.includes(loc[0]!) && loc[0] !== kase.field)) return 'misplaced';
  return naming.length > 0 ? 'unlocated' : 'unnamed';
}

export const locNamesLocation = defineCheck({
  id: 'validation.loc-names-location',
  suite: 'validation',
  rule: 'The loc of a 422 says where the fault is: a loc that names a location names the right one (body, query), then the field; a loc with no location is an observation',
  contractRef: '2.8, 7',
  severity: 'minor',
  appliesTo: (op) => topLevel(op).length > 0 || integerQueryParams(op).length > 0,
  plannedRequests: (op, _runs, spec) => (topLevel(op).length > 0 ? 1 : 0) + (integerQueryParams(op).length > 0 ? 1 : 0) + recordCost(op, spec),
  async run(ctx, op) {
    const cases: InvalidCase[] = [];
    const field = topLevel(op).find((f) => wrongTypeCase(baseBody(ctx, op, 29, [f.field]), f) !== undefined);
    if (field) cases.push(fc.sample(wrongTypeCase(baseBody(ctx, op, 29, [field.field]), field)!, { seed: ctx.seed, numRuns: 1 })[0]!);
    const param = integerQueryParams(op)[0];
    if (param) cases.push({ kind: 'non-integer-query', location: 'query', loc: [param.name], field: param.name, value: 'xyz', query: [[param.name, 'xyz']], description: `${param.name}=xyz` });
    const target = await targetFor(ctx, op, 29);
    if ('skip' in target) return skipped(target.skip);
    const values = target.values;
    const findings = new Findings();
    for (const kase of cases) {
      const parts: Parameters<typeof request>[2] = { pathValues: values };
      if (kase.body !== undefined) parts.json = kase.body;
      if (kase.query) parts.query = kase.query;
      const exchange = await ctx.send(request(op, ctx, parts));
      const res = exchange.response;
      // Other statuses and shapes are judged by the other validation checks.
      const detail = (res?.json as { detail?: unknown } | undefined)?.detail;
      if (!res || res.status !== 422 || !Array.isArray(detail)) {
        findings.add(unjudged(`${kase.description} was answered ${res ? res.status : 'with no response'}, not a 422 with a loc (judged by the other validation checks)`));
        continue;
      }
      const placement = locPlacement(detail, kase);
      const locs = detail.map((d) => JSON.stringify((d as { loc?: unknown })?.loc)).join(', ');
      if (placement === 'misplaced') {
        findings.add(fail(ctx, exchange, `a loc of ["${kase.location}", "${kase.field}", ...] (section 2.8)`, `loc ${locs}`, `the 422 for ${kase.description} places it in the wrong location (loc ${locs})`, kase.value, {
          kind: KIND.loc,
          field: { location: kase.location, pointer: pointerOf(kase.loc) },
        }));
      } else {
        if (placement === 'unlocated') {
          ctx.observe({ operation: label(op), message: `the 422 for ${kase.description} names the field but not its location (loc ${locs}); FastAPI-style servers start loc with "${kase.location}", the contract does not require it` });
        }
        findings.add({ ok: true });
      }
    }
    return findings.outcome('loc names the right location and the field');
  },
});

export const validationChecks: CheckDefinition[] = [wrongType, enumViolation, malformedJsonCheck, nonIntegerQueryCheck, locNamesLocation];
