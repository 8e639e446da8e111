/**
 * robustness: no generated input, valid or invalid, gets a 5xx or no answer at all: unicode, long
 * strings, empty arrays, nested open objects, boundary numbers, arbitrary JSON in place of a body,
 * arbitrary query values and path ids (sections 4, 7: failures are 422, never server faults).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/checks/check.js';
import { judgeAnswer } from '../src/checks/judge.js';
import type { Operation } from '../src/spec/model.js';
import {
  integerQueryParams,
  itemsOf,
  propertiesOf,
  typesOf,
  validBody,
  validQueryValue,
  malformedJson,
  malformedJsonExamples,
  type JsonType,
} from '../src/generators/index.js';
import { coveringShare } from './lib/covering.js';
import {
  Findings,
  OK,
  checkProperty,
  genOptions,
  label,
  recordCost,
  request,
  pairedSample,
  sharedPathForRecord,
  skipped,
  type Judgement,
} from './lib.js';

interface Input {
  path: Record<string, string>;
  query: Array<[string, string]>;
  body?: unknown;
  rawBody?: string;
  /** A packed example's cases one by one, sent when the packed one is refused (a refusal of one must not hide another's crash). */
  parts?: Input[];
}

/** No 5xx and an answer, for any input: the one start judges exactly that (a 429 judges nothing); any other answer passes. */
function judge(
  ctx: CheckContext,
  op: Operation,
  exchange: Awaited<ReturnType<CheckContext['send']>>,
  what: string,
  input: unknown,
): Judgement {
  const expected = `an answer to ${what}: a bad input is a 422, a good one a success (sections 4, 7); never a dropped or hung connection`;
  return judgeAnswer(ctx, op, exchange, { what, expected, input }, () => OK);
}

async function basePath(ctx: CheckContext, op: Operation): Promise<Record<string, string>> {
  const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  if (!names.length) return {};
  const shared = await sharedPathForRecord(ctx, op);
  return shared.values ?? Object.fromEntries(names.map((n) => [n, 'vapc-robustness']));
}

const queryParams = (op: Operation) => op.parameters.filter((p) => p.in === 'query');

function validInputs(ctx: CheckContext, op: Operation, path: Record<string, string>): fc.Arbitrary<Input> {
  const options = genOptions(ctx, { mode: 'hostile' });
  const query = fc.tuple(
    ...queryParams(op).map((p) =>
      fc.option(
        validQueryValue(p.schema, p.name, options).map((v) => [p.name, v] as [string, string]),
        { nil: undefined },
      ),
    ),
  );
  const body = op.requestBody ? validBody(op, options) : fc.constant(undefined);
  return fc.record({ query, body }).map(({ query: q, body: b }) => {
    const input: Input = { path, query: q.filter((x): x is [string, string] => x !== undefined) };
    if (b !== undefined) input.body = b;
    return input;
  });
}

const garbageText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('-1', '1e309', '9'.repeat(40), 'null', '[]', '%00'),
);

function invalidInputs(op: Operation, path: Record<string, string>, base: unknown): fc.Arbitrary<Input> {
  const pathNames = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const randomPath = fc
    .tuple(
      ...pathNames.map((n) =>
        fc
          .oneof(fc.constant(path[n] ?? 'x'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }))
          .map((v) => [n, v] as const),
      ),
    )
    .map((pairs) => Object.fromEntries(pairs));
  const query = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...queryParams(op).map((p) => p.name), 'vapc'), fc.string({ maxLength: 8 })),
      garbageText,
    ),
    { maxLength: 3 },
  );
  const body = op.requestBody
    ? fc.oneof(
        fc.jsonValue({ maxDepth: 4 }).map((v) => ({ body: v as unknown })),
        malformedJson(base).map((c) => ({ rawBody: c.rawBody! })),
        fc.constant({ body: { nested: JSON.parse('['.repeat(64) + ']'.repeat(64)) } as unknown }),
      )
    : fc.constant({});
  return fc
    .record({ path: randomPath, query, body })
    .map(({ path: p, query: q, body: b }) => ({ path: p, query: q as Array<[string, string]>, ...b }));
}

async function sendInput(
  ctx: CheckContext,
  op: Operation,
  input: Input,
): Promise<Awaited<ReturnType<CheckContext['send']>>> {
  const parts: Parameters<typeof request>[2] = { pathValues: input.path };
  if (input.query.length) parts.query = input.query;
  if (input.rawBody !== undefined) {
    parts.rawBody = input.rawBody;
    parts.headers = { 'content-type': 'application/json' };
  } else if (input.body !== undefined) parts.json = input.body;
  return ctx.send(request(op, ctx, parts));
}

/** Random cases per operation after the examples. */
const CAP = 3;

/** Top-level body fields of a JSON type (string, integer...), in schema order. */
const fieldsOfType = (op: Operation, type: JsonType): string[] =>
  op.requestBody
    ? Object.entries(propertiesOf(op.requestBody.schema))
        .filter(([, s]) => typesOf(s).includes(type))
        .map(([name]) => name)
    : [];

/** Top-level array fields whose items are objects (recipients). */
const objectArrayFields = (op: Operation): string[] =>
  op.requestBody
    ? fieldsOfType(op, 'array').filter((f) =>
        typesOf(itemsOf(propertiesOf(op.requestBody!.schema)[f]!) ?? {}).includes('object'),
      )
    : [];

/**
 * Valid bodies tried first, at any --runs, where servers classically crash (the contract states no
 * maximum length, count or minimum size): one 150 KiB long (one free-text field that long), one with
 * 40 items in each array of objects and every free-text field "" and every object field {} (packed:
 * sent again as two bodies only when refused, so a server refusing "" cannot hide a crash on 40
 * items), and the empty body {} (no field is stated required). A 413 or a 422 is fine, a 5xx is not.
 * Which ones exist is read from the schema, so the plan counts them with an empty `base`.
 */
function validExamples(op: Operation, path: Record<string, string>, base: Record<string, unknown>): Input[] {
  if (!op.requestBody) return [];
  const freeText = fieldsOfType(op, 'string').filter((f) => /context|template|name/.test(f));
  const out: Input[] = [];
  const longField = freeText[0] ?? fieldsOfType(op, 'string')[0];
  if (longField)
    out.push({ path, query: [], body: { ...base, [longField]: 'Lorem ipsum dolor sit amet. '.repeat(5500) } });
  // Many items apart from the long body, so a server's body-size limit (413) cannot hide them.
  const empty: Record<string, unknown> = { ...base };
  for (const f of freeText) empty[f] = '';
  for (const f of fieldsOfType(op, 'object')) empty[f] = {};
  const arrays = objectArrayFields(op);
  if (arrays.length) {
    const many: Record<string, unknown> = { ...base };
    for (const f of arrays) {
      const items = base[f];
      const item = Array.isArray(items) && items.length > 0 ? items[0] : {};
      many[f] = Array.from({ length: 40 }, () => item);
    }
    // Many items and the empty fields in one body; each alone only when that one is refused.
    const packed = { ...empty, ...Object.fromEntries(arrays.map((f) => [f, many[f]])) };
    out.push({
      path,
      query: [],
      body: packed,
      parts: [
        { path, query: [], body: many },
        { path, query: [], body: empty },
      ],
    });
  } else out.push({ path, query: [], body: empty });
  out.push({ path, query: [], body: {} });
  return out;
}

/**
 * Bodies that are no JSON object at all, where a server reading fields before checking the shape
 * crashes: a JSON array, malformed JSON text, nesting 64 levels deep. Faults here are the server's
 * body parser, usually one for every operation, so the whole set goes to the operation on a path
 * of its own (POST /campaign) and each operation on a record's path gets one, in a fixed rotation
 * over the operations in contract order (every seed sends the same).
 */
function shapeExamples(
  spec: { operations: Operation[] },
  op: Operation,
  path: Record<string, string>,
  base: unknown,
): Input[] {
  if (!op.requestBody) return [];
  const all: Input[] = [
    { path, query: [], body: ['vapc'] },
    { path, query: [], rawBody: malformedJsonExamples(base)[0]!.rawBody! },
    { path, query: [], body: { nested: JSON.parse('['.repeat(64) + ']'.repeat(64)) } as unknown },
  ];
  return coveringShare(spec, op, all);
}

/**
 * Inputs tried first, at any --runs, where servers classically crash: each integer query parameter
 * alone given a word (a bare int()), an integer parameter given twice, a body integer past 2^53
 * (1e20), the first body field null, and the bodies of another shape (shapeExamples). Read from the
 * schema, so the plan counts them with an empty `base`.
 */
function invalidExamples(
  spec: { operations: Operation[] },
  op: Operation,
  path: Record<string, string>,
  base: unknown,
): Input[] {
  const out: Input[] = integerQueryParams(op).map((p) => ({ path, query: [[p.name, 'vapc']] }));
  const first = integerQueryParams(op)[0];
  if (first)
    out.push({
      path,
      query: [
        [first.name, '5'],
        [first.name, '6'],
      ],
    });
  if (op.requestBody && base && typeof base === 'object') {
    const integer = fieldsOfType(op, 'integer')[0];
    if (integer) out.push({ path, query: [], body: { ...base, [integer]: 1e20 } });
    const any = Object.keys(propertiesOf(op.requestBody.schema))[0];
    if (any) out.push({ path, query: [], body: { ...base, [any]: null } });
  }
  return [...out, ...shapeExamples(spec, op, path, base), ...pathExamples(op)];
}

/** A path id no server issues: characters outside [A-Za-z0-9_-] and over 100 characters once encoded (a route pattern, a fixed-size buffer). */
export const GARBAGE_PATH_ID = `vapc ☃ ${'x'.repeat(120)}`;

/**
 * An operation whose only input is its path (a read or a preflight of one record) is sent the
 * garbage id in every path parameter, in place of a drawn one, so whether a long or odd id is tried
 * never depends on the seed.
 */
function pathExamples(op: Operation): Input[] {
  if (!pathOnly(op)) return [];
  return [
    {
      path: Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, GARBAGE_PATH_ID])),
      query: [],
    },
  ];
}

const pathOnly = (op: Operation): boolean =>
  !op.requestBody && queryParams(op).length === 0 && op.parameters.some((p) => p.in === 'path');

/** Sends a valid input and judges the answer; a packed one refused (4xx but 429) is sent again case by case. */
async function judgeValidInput(ctx: CheckContext, op: Operation, input: Input): Promise<Judgement> {
  const exchange = await sendInput(ctx, op, input);
  const judged = judge(ctx, op, exchange, 'a valid input', input.body ?? input);
  const status = exchange.response?.status ?? 0;
  if (!judged.ok || !input.parts || status < 400 || status >= 500 || status === 429) return judged;
  for (const part of input.parts) {
    const alone = judge(ctx, op, await sendInput(ctx, op, part), 'a valid input', part.body);
    if (!alone.ok) return alone;
  }
  return OK;
}

const hasInputs = (op: Operation): boolean =>
  Boolean(op.requestBody) || op.parameters.some((p) => p.in === 'query' || p.in === 'path');
/**
 * Random valid inputs differ only in the query and the body (the path names one existing record):
 * an operation with neither would send the same request again, so it is sent once.
 */
const validVaries = (op: Operation): boolean => Boolean(op.requestBody) || queryParams(op).length > 0;

export const noServerErrorValid = defineCheck({
  id: 'robustness.no-5xx-valid',
  suite: 'robustness',
  rule: 'Valid but awkward inputs (unicode, long strings, a 150 KiB body with 40 recipients, empty strings, objects and bodies, empty arrays, nested open objects, boundary numbers) never get a 5xx or no answer; nor does any valid request of the run, whoever sent it (its own random inputs wherever inputs vary)',
  contractRef: '4, 7',
  severity: 'critical',
  expects: 'success',
  core: true,
  appliesTo: (op) => !op.sideEffects,
  plannedRequests: (op, runs, spec, options) => {
    const examples = validExamples(op, {}, {}).length;
    // Covered by others: the random draws stay where inputs vary (they explore what no fixed case names).
    if (options?.covered && !validVaries(op)) return examples + (examples > 0 ? recordCost(op, spec) : 0);
    return (validVaries(op) ? Math.min(runs, CAP) : 1) + examples + recordCost(op, spec);
  },
  judgeExchange(ctx, op, exchange) {
    if (exchange.response?.status === 429) return undefined;
    const wire = ctx.validateWire(op, exchange);
    if (!wire.available || !wire.valid) return undefined;
    return judge(ctx, op, exchange, 'a valid request', undefined);
  },
  async run(ctx, op) {
    // Every valid request of the run on the operation was judged as it came (judgeExchange). Its own
    // random valid inputs still go where inputs vary (a huge offset, a control character in a
    // filter: what no other check's fixed case names); a fixed read others sent is not sent again.
    const elsewhere = ctx.judgedElsewhere?.().judged ?? 0;
    if (elsewhere > 0 && !validVaries(op))
      return skipped(`no request of its own: the valid requests other checks sent on ${label(op)} were judged`, {
        cause: 'covered',
      });
    const path = await basePath(ctx, op);
    const findings = new Findings();
    const numRuns = validVaries(op) ? Math.min(ctx.runs, CAP) : 1;
    const base = pairedSample(ctx, op, 83);
    const examples = base ? validExamples(op, path, base) : [];
    findings.add(
      await checkProperty(ctx, validInputs(ctx, op, path), (input) => judgeValidInput(ctx, op, input), {
        numRuns,
        examples,
      }),
    );
    return findings.outcome(`no 5xx for ${examples.length + numRuns} valid awkward inputs`);
  },
});

/** Random invalid inputs per operation after the examples (path ids, query values, any JSON body): the examples hold the classic crashes, the draw explores. */
const INVALID_DRAWN = 1;

export const noServerErrorInvalid = defineCheck({
  id: 'robustness.no-5xx-invalid',
  suite: 'robustness',
  rule: 'Invalid inputs (a JSON array, malformed JSON and 64-deep nesting in place of the body, null fields, integers past 2^53, garbage and repeated query values, a long path id of odd characters, arbitrary JSON, query values and path ids) never get a 5xx or no answer',
  contractRef: '4, 7',
  severity: 'critical',
  core: true,
  appliesTo: (op) => !op.sideEffects && hasInputs(op),
  plannedRequests: (op, runs, spec) =>
    invalidExamples(spec, op, {}, {}).length +
    (pathOnly(op) ? 0 : Math.min(runs, INVALID_DRAWN)) +
    recordCost(op, spec),
  async run(ctx, op) {
    const path = await basePath(ctx, op);
    const base = op.requestBody
      ? fc.sample(validBody(op, genOptions(ctx)), { seed: ctx.seed, numRuns: 1 })[0]
      : undefined;
    const findings = new Findings();
    const numRuns = pathOnly(op) ? 0 : Math.min(ctx.runs, INVALID_DRAWN);
    const examples = invalidExamples(ctx.spec, op, path, base);
    findings.add(
      await checkProperty(
        ctx,
        invalidInputs(op, path, base),
        async (input) => judge(ctx, op, await sendInput(ctx, op, input), 'an invalid input', input),
        { numRuns, examples },
      ),
    );
    return findings.outcome(`no 5xx for ${examples.length + numRuns} invalid inputs`);
  },
});

export const robustnessChecks: CheckDefinition[] = [noServerErrorValid, noServerErrorInvalid];
