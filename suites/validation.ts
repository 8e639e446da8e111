/**
 * validation: for every operation with a body or an integer query parameter, inputs that break one
 * stated constraint at a time (a wrong JSON type for a field, a value outside an enum, malformed
 * JSON, a non-integer query value) are answered 422 with the validation error body, whose `loc`
 * names the fault (sections 2.8, 4, 7).
 *
 * Requests (issue 25): the wrong types of every field, and the non-integer values of every query
 * parameter, go in one request per pack and are narrowed by what each 422 names (suites/lib/packed.ts):
 * a field counts as judged only when a 422 names it, so one fault cannot mask another, and any
 * other answer sends the open cases one by one. Malformed JSON is a covering design (every
 * malformation on the create, one each on the record operations). Not seen any more: random wrong
 * types beyond one per field, random words and fractions beyond `xyz` and `2.5` in the query, and a
 * malformation a per-route parser takes on a record operation while it refuses the one sent there.
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/checks/check.js';
import { judgeAnswer } from '../src/checks/judge.js';
import { FAILURE_KINDS as KIND, pointerOf } from '../src/results/model.js';
import { wireParts } from '../src/checks/wire.js';
import type { Operation } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import {
  enumCase,
  enumNearMiss,
  enumFields,
  integerQueryParams,
  malformedJsonExamples,
  nearMissWrongValue,
  nonIntegerQueryExamples,
  providerIdFields,
  setPointer,
  strictNearMissWrongValue,
  toPointer,
  typedFields,
  wrongTypeCase,
  wrongTypeValue,
  wrongTypeOf,
  type FieldInfo,
  type InvalidCase,
} from '../src/generators/index.js';
import { coveringShare } from './lib/covering.js';
import { probePacked } from './lib/packed.js';
import { withControl } from './lib/control.js';
import type { Refusal } from './lib/learned.js';
import type { RecordPath } from './lib/requests.js';
import {
  Findings,
  baseBody,
  checkProperty,
  fail,
  judgeInvalid,
  label,
  ownPathForRecord,
  recordCost,
  request,
  skipped,
  validCreateRefused,
  type InvalidJudgeOptions,
  type Judgement,
  unjudged,
  OK,
} from './lib.js';

/**
 * Where and on what a check sends its invalid bodies: a record of its own (never an invented id:
 * with no record the check is skipped), and for a create, whether a valid body is refused too (a
 * 422 not naming the field then judges nothing).
 */
interface Target {
  values: Record<string, string>;
  validRefused?: Refusal;
  /** The record as created for this check (its state goes along in the base body). */
  record?: Record<string, unknown>;
  /** The valid body the cases break one field of: a 403 or 409 refusal's control sends it (withControl). */
  base?: Record<string, unknown>;
}

/** A skip for want of a record to send to, with the cause of that want. */
const noRecord = (op: Operation, found: RecordPath) =>
  skipped(found.reason ?? `no record to send ${label(op)} to`, found.why ?? { cause: 'no-record' });

async function targetFor(
  ctx: CheckContext,
  op: Operation,
  salt: number,
): Promise<Target | { skip: ReturnType<typeof skipped> }> {
  const found: RecordPath = op.parameters.some((p) => p.in === 'path')
    ? await ownPathForRecord(ctx, op, salt)
    : { values: {} };
  if (!found.values) return { skip: noRecord(op, found) };
  const refused = await validCreateRefused(ctx, op);
  const target: Target = { values: found.values };
  if (refused !== undefined) target.validRefused = refused;
  if (found.record) target.record = found.record;
  return target;
}

/** The control of a case: the same operation and path with the target's valid body, without the case's query values. */
const controlOf = (ctx: CheckContext, op: Operation, target: Target) => () =>
  request(op, ctx, { pathValues: target.values, ...(target.base ? { json: target.base } : {}) });

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
  return withControl(ctx, op, exchange, judgeInvalid(ctx, op, exchange, kase, options), {
    what: kase.description,
    expected: 'a validation failure is answered 422 with the validation error body (sections 2.8, 7)',
    field: { location: kase.location, pointer: pointerOf(kase.loc) },
    input: kase.value,
    control: controlOf(ctx, op, target),
  });
}

const topLevel = (op: Operation) => typedFields(op).filter((f) => f.depth === 0);

/**
 * The fields of an operation in packs that can share a request: no field in a pack holds another
 * (a wrong `speech_settings` would hide a wrong `speech_settings.style`), so the innermost fields
 * go first and each parent in the pack after its deepest member.
 */
export function fieldPacks(fields: readonly FieldInfo[]): FieldInfo[][] {
  const inside = (child: FieldInfo, parent: FieldInfo) =>
    child !== parent && child.pointer.startsWith(`${parent.pointer}/`);
  const height = (f: FieldInfo): number => Math.max(0, ...fields.filter((c) => inside(c, f)).map((c) => height(c) + 1));
  const packs: FieldInfo[][] = [];
  for (const f of fields) (packs[height(f)] ??= []).push(f);
  return packs.filter((p) => p.length > 0);
}

/** The wrong values a field is given, one per round: the near miss, (strict types) the coerced one, and one drawn by the seed. */
function wrongValues(
  ctx: CheckContext,
  f: FieldInfo,
  i: number,
  drawn: boolean,
): Array<{ value: unknown } | undefined> {
  const arb = wrongTypeValue(f.schema, ctx.strictTypes);
  const near = nearMissWrongValue(f.schema);
  const coerced = ctx.strictTypes ? strictNearMissWrongValue(f.schema) : undefined;
  const sample = () => (arb ? { value: fc.sample(arb, { seed: ctx.seed + i, numRuns: 1 })[0] } : undefined);
  return [
    near !== undefined ? { value: near } : sample(),
    coerced !== undefined ? { value: coerced } : undefined,
    drawn ? sample() : undefined,
  ];
}

/** Rounds of wrong values (near miss, strict, drawn): how many are sent per pack. */
const wrongRounds = (op: Operation, runs: number, strictTypes: boolean | undefined): number =>
  1 +
  (strictTypes && typedFields(op).some((f) => strictNearMissWrongValue(f.schema) !== undefined) ? 1 : 0) +
  (Math.min(runs, DRAWN) > 0 ? 1 : 0);

/** One packed round of wrong values after the fixed ones, each field's drawn by the seed. */
const DRAWN = 1;

export const wrongType = defineCheck({
  id: 'validation.wrong-type',
  suite: 'validation',
  rule: 'A body field of the wrong JSON type is answered 422 with the validation error body naming the field in loc (every field judged on its own: packed into one request, each field counted only when the 422 names it, the others sent again without it)',
  contractRef: '2.8, 4, 7',
  severity: 'major',
  core: true,
  appliesTo: (op) => typedFields(op).length > 0,
  plannedRequests: (op, runs, spec, options) =>
    fieldPacks(typedFields(op)).length * wrongRounds(op, runs, options?.strictTypes) + recordCost(op, spec),
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 11);
    if ('skip' in target) return target.skip;
    const fields = typedFields(op);
    // Per field: the near miss a hand-written check most often lets through (7 for a string, 2.5 for
    // an integer, [] for an object), with strict types what frameworks coerce, then one drawn by the seed.
    const values = fields.map((f, i) => wrongValues(ctx, f, i, Math.min(ctx.runs, DRAWN) > 0));
    if (!values.some((v) => v.some(Boolean))) return skipped('no field whose type can be broken', { cause: 'runner' });
    const findings = new Findings();
    // The body: the required fields and the top-level members under test, one wrong value per field.
    const baseOf = (fs: readonly FieldInfo[]) =>
      baseBody(ctx, op, 11, [...new Set(fs.map((f) => String(f.loc[0])))], target.record);
    target.base = baseOf([]);
    let cases = 0;
    for (let round = 0; round < 3; round++) {
      for (const pack of fieldPacks(fields)) {
        const kases = pack.flatMap((f) => {
          const v = values[fields.indexOf(f)]![round];
          return v ? [wrongTypeOf(baseOf([f]), f, v.value)] : [];
        });
        if (!kases.length) continue;
        cases += kases.length;
        await probePacked(ctx, findings, kases, {
          together: (open) =>
            sendTogether(ctx, op, target, open, baseOf(open.map((k) => fields.find((f) => f.loc === k.loc)!))),
          alone: async (kase) => {
            const j = await sendCase(ctx, op, target, kase);
            return j.ok ? j : { ...j, failure: { ...j.failure, input: ctx.redact(kase) } };
          },
        });
      }
    }
    return findings.outcome(`422 with the field named in loc for ${cases} wrong-type values`);
  },
});

/** The cases of one pack in one request: `base` with every case's value at its field. */
function sendTogether(
  ctx: CheckContext,
  op: Operation,
  target: Target,
  kases: readonly InvalidCase[],
  base: Record<string, unknown>,
): Promise<Exchange> {
  const parts: Parameters<typeof request>[2] = { pathValues: target.values };
  const query = kases.flatMap((k) => k.query ?? []);
  if (query.length) parts.query = query;
  if (kases.some((k) => k.body !== undefined))
    parts.json = kases.reduce<unknown>((body, k) => setPointer(body, toPointer(k.loc), k.value), base);
  return ctx.send(request(op, ctx, parts));
}

/** The wire body's value at a top-level field, as the validators read it (wireParts), or undefined. */
function sentValue(op: Operation, exchange: Exchange, field: string): unknown {
  const split = wireParts(op, exchange);
  const body = split.ok ? split.parts.body : undefined;
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
}

/** Values drawn outside an enum after its near miss: any word outside it shows an unchecked enum, so one. */
const ENUM_DRAWN = 1;

export const enumViolation = defineCheck({
  id: 'validation.enum-violation',
  suite: 'validation',
  rule: 'A value outside a stated closed set is answered 422 with the validation error body naming the field: the campaign status of the update (an allowed value in upper case first), and the campaign channel outside the two provider ids (judged when the fixtures name both)',
  contractRef: '3.1, 4.2, 4.4, 2.8, 7',
  severity: 'major',
  appliesTo: (op) => enumFields(op).length > 0 || providerIdFields(op).some((f) => f.depth === 0),
  plannedRequests: (op, runs, spec) =>
    (enumFields(op).length ? enumFields(op).length + Math.min(runs, ENUM_DRAWN) : 0) +
    providerIdFields(op).filter((f) => f.depth === 0).length +
    recordCost(op, spec),
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 13);
    if ('skip' in target) return target.skip;
    // The enum cases set their field themselves; the body keeps the record's own status otherwise.
    const under = providerIdFields(op)
      .filter((f) => f.depth === 0)
      .map((f) => String(f.loc[0]));
    const base = baseBody(ctx, op, 13, under, target.record);
    target.base = base;
    const findings = new Findings();
    const cases = enumFields(op)
      .map((f) => enumCase(base, f))
      .filter((a): a is fc.Arbitrary<InvalidCase> => a !== undefined);
    if (cases.length) {
      // First an allowed value in upper case ("DRAFT"): a comparison ignoring case lets it in.
      const examples = enumFields(op)
        .map((f) => enumNearMiss(base, f))
        .filter((c): c is InvalidCase => c !== undefined);
      findings.add(
        await checkProperty(ctx, fc.oneof(...cases), (kase) => sendCase(ctx, op, target, kase), {
          examples,
          numRuns: Math.min(ctx.runs, ENUM_DRAWN),
        }),
      );
    }
    // The provider ids are a closed set the spec cannot list (the contract does not name them): judged
    // only when the run knows both, and on the wire body as sent.
    const channels = ctx.fixtures.channels ?? [];
    for (const field of providerIdFields(op).filter((f) => f.depth === 0)) {
      if (channels.length < 2) {
        ctx.observe({
          operation: label(op),
          message: `${field.field} outside the provider ids not judged: the run knows ${channels.length} of the two (set fixtures.channels)`,
        });
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
      const options: InvalidJudgeOptions = {
        stillInvalid: (ex) => !channels.includes(sentValue(op, ex, field.field) as string),
      };
      if (target.validRefused !== undefined) options.validRefused = target.validRefused;
      findings.add(
        await withControl(ctx, op, exchange, judgeInvalid(ctx, op, exchange, kase, options), {
          what: kase.description,
          expected: 'a value outside a closed set is answered 422 with the validation error body (sections 2.8, 7)',
          field: { location: 'body', pointer: field.pointer },
          input: value,
          control: controlOf(ctx, op, target),
        }),
      );
    }
    return findings.outcome('422 naming the field for values outside the closed sets');
  },
});

/**
 * The malformations sent to an operation. A malformed body fails in the JSON parser, before any
 * field is read, and a server usually has one parser for every operation: so every malformation
 * goes to the operation that takes a body on a path of its own (POST /campaign, the first a client
 * calls and where a parser is set up), and each operation on a record's path is sent one, in a fixed
 * rotation over the operations in contract order, so a per-route parser is still tried and every
 * seed sends the same bodies. Not seen: a per-route parser that takes one malformation and refuses
 * another, on the operations with a path parameter.
 */
export function malformationsFor(spec: { operations: Operation[] }, op: Operation, base: unknown): InvalidCase[] {
  return coveringShare(spec, op, malformedJsonExamples(base));
}

export const malformedJsonCheck = defineCheck({
  id: 'validation.malformed-json',
  suite: 'validation',
  rule: 'A body that is not well-formed JSON is answered 422 with the validation error body (every malformation on the operation without a path parameter, one each in rotation on the others)',
  contractRef: '2.8, 4, 7',
  severity: 'major',
  core: true,
  appliesTo: (op) => Boolean(op.requestBody),
  plannedRequests: (op, _runs, spec) => malformationsFor(spec, op, {}).length + recordCost(op, spec),
  plannedCases: (op, spec) => [
    `body: ${malformationsFor(spec, op, {})
      .map((k) => k.description.replace(/^malformed JSON \((.*)\)$/, '$1'))
      .join(', ')}`,
  ],
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 17);
    if ('skip' in target) return target.skip;
    const base = baseBody(ctx, op, 17, [], target.record);
    target.base = base;
    const findings = new Findings();
    for (const kase of malformationsFor(ctx.spec, op, base)) findings.add(await sendCase(ctx, op, target, kase));
    return findings.outcome('422 with the validation error body for malformed JSON');
  },
});

/** The non-integer values every integer query parameter is given (nonIntegerQueryExamples: a word, a fraction), one packed request each. */
const nonIntegerRounds = (op: Operation): string[] => [
  ...new Set(nonIntegerQueryExamples(op).map((k) => String(k.value))),
];

export const nonIntegerQueryCheck = defineCheck({
  id: 'validation.non-integer-query',
  suite: 'validation',
  rule: 'An integer query parameter given a non-integer value (a word, a decimal) is answered 422 with the validation error body naming the parameter (every parameter judged on its own: all of them in one request, each counted only when the 422 names it, the others sent again without it)',
  contractRef: '4.1, 2.8, 7',
  severity: 'major',
  appliesTo: (op) => integerQueryParams(op).length > 0,
  plannedRequests: (op) => nonIntegerRounds(op).length,
  plannedCases: (op) =>
    integerQueryParams(op).map(
      (p) =>
        `query ${p.name}: ${nonIntegerQueryExamples(op)
          .filter((k) => k.field === p.name)
          .map((k) => k.value)
          .join(' ')}`,
    ),
  async run(ctx, op) {
    const examples = nonIntegerQueryExamples(op);
    if (!examples.length) return skipped('no integer query parameter', { cause: 'runner' });
    const findings = new Findings();
    // The fixed word and fraction reach every parameter on every seed; random ones repeat them.
    for (const value of nonIntegerRounds(op)) {
      await probePacked(
        ctx,
        findings,
        examples.filter((k) => k.value === value),
        {
          together: (open) => sendTogether(ctx, op, { values: {} }, open, {}),
          alone: (kase) => sendCase(ctx, op, { values: {} }, kase),
        },
      );
    }
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

/**
 * A 422's loc for one case: a loc naming the field under the wrong location fails; under the right
 * one (or with none: noted) passes; another answer, or a loc not naming the field, is judged by the
 * other validation checks.
 */
function judgePlacement(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  kase: InvalidCase,
  json: unknown,
): Judgement {
  const detail = (json as { detail?: unknown } | undefined)?.detail;
  const placement = exchange.response!.status === 422 && Array.isArray(detail) ? locPlacement(detail, kase) : 'unnamed';
  if (placement === 'unnamed')
    return unjudged(
      `${kase.description} was answered ${exchange.response!.status} without a loc naming ${kase.field} (judged by the other validation checks)`,
      { cause: 'elsewhere' },
    );
  const locs = (detail as unknown[]).map((d) => JSON.stringify((d as { loc?: unknown })?.loc)).join(', ');
  if (placement === 'misplaced')
    return fail(
      ctx,
      exchange,
      `a loc of ["${kase.location}", "${kase.field}", ...] (section 2.8)`,
      `loc ${locs}`,
      `the 422 for ${kase.description} places it in the wrong location (loc ${locs})`,
      kase.value,
      { kind: KIND.loc, field: { location: kase.location, pointer: pointerOf(kase.loc) } },
    );
  if (placement === 'unlocated')
    ctx.observe({
      operation: label(op),
      message: `the 422 for ${kase.description} names the field but not its location (loc ${locs}); FastAPI-style servers start loc with "${kase.location}", the contract does not require it`,
    });
  return OK;
}

export const locNamesLocation = defineCheck({
  id: 'validation.loc-names-location',
  suite: 'validation',
  rule: 'The loc of a 422 says where the fault is: a loc that names a location names the right one (body, query), then the field; a loc with no location is an observation',
  contractRef: '2.8, 7',
  severity: 'minor',
  appliesTo: (op) => topLevel(op).length > 0 || integerQueryParams(op).length > 0,
  plannedRequests: (op, _runs, spec) =>
    (topLevel(op).length > 0 ? 1 : 0) + (integerQueryParams(op).length > 0 ? 1 : 0) + recordCost(op, spec),
  async run(ctx, op) {
    const cases: InvalidCase[] = [];
    const field = topLevel(op).find((f) => wrongTypeCase(baseBody(ctx, op, 29, [f.field]), f) !== undefined);
    if (field)
      cases.push(
        fc.sample(wrongTypeCase(baseBody(ctx, op, 29, [field.field]), field)!, { seed: ctx.seed, numRuns: 1 })[0]!,
      );
    const param = integerQueryParams(op)[0];
    if (param)
      cases.push({
        kind: 'non-integer-query',
        location: 'query',
        loc: [param.name],
        field: param.name,
        value: 'xyz',
        query: [[param.name, 'xyz']],
        description: `${param.name}=xyz`,
      });
    const target = await targetFor(ctx, op, 29);
    if ('skip' in target) return target.skip;
    const values = target.values;
    const findings = new Findings();
    for (const kase of cases) {
      const parts: Parameters<typeof request>[2] = { pathValues: values };
      if (kase.body !== undefined) parts.json = kase.body;
      if (kase.query) parts.query = kase.query;
      const exchange = await ctx.send(request(op, ctx, parts));
      const field = { location: kase.location, pointer: pointerOf(kase.loc) };
      const expected = `a loc of ["${kase.location}", "${kase.field}", ...] (section 2.8)`;
      findings.add(
        judgeAnswer(ctx, op, exchange, { what: kase.description, expected, field, input: kase.value }, (res) =>
          judgePlacement(ctx, op, exchange, kase, res.json),
        ),
      );
    }
    return findings.outcome('loc names the right location and the field');
  },
});

export const validationChecks: CheckDefinition[] = [
  wrongType,
  enumViolation,
  malformedJsonCheck,
  nonIntegerQueryCheck,
  locNamesLocation,
];
