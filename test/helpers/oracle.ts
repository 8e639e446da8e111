// One oracle (issue 35, point 4): one corpus of requests, made by the project's own generators
// (src/generators) from a fixed seed, valid and invalid for every operation of the contract, each
// with what it was made to be (`intent`, and for an invalid one where its fault is); and judges
// that each say of every case whether it is valid and, when not, where. The differential test
// (test/oracle/) runs every judge on every case and expects no disagreement with the intent or
// with each other. A judge is a name and a function: the middleware on each framework, the
// project's validators on the wire request (the runner's view, src/checks/wire.ts), and later
// `vapc drift` on the same cases recorded as exchanges, are all added the same way.
import fc from 'fast-check';
import { wireParts } from '../../src/checks/wire.js';
import {
  boundCase,
  boundaryValues,
  enumCase,
  enumFields,
  malformedJsonExamples,
  nonIntegerQuery,
  nonIntegerQueryExamples,
  outOfRange,
  typedFields,
  validBody,
  validQueryValue,
  wrongTypeCase,
  type InvalidCase,
  type InvalidKind,
} from '../../src/generators/index.js';
import { requestErrorItems } from '../../src/http/validation-error.js';
import type { Fixtures } from '../../src/results/fixtures.js';
import type { Operation, SpecModel } from '../../src/spec/model.js';
import { fillPath } from '../../src/spec/path-template.js';
import type { WireRequest } from '../../src/transport/types.js';
import { validateRequest } from '../../src/validators/index.js';
import { FIXTURES } from '../../suites/fixtures.js';

export type Loc = Array<string | number>;

/** The origin every case's URL carries; an HTTP judge sends the path and query to its own server. */
export const ORACLE_ORIGIN = 'http://oracle.invalid';

export interface OracleCase {
  /** Stable within a seed: `createCampaign wrong-type 3`. */
  id: string;
  operationId: string;
  intent: 'valid' | InvalidKind;
  /** For an invalid case: the loc of its fault, location first (`['body', 'max_concurrency']`). */
  loc?: Loc;
  /** The request as it goes over the wire, as an Exchange carries it (so drift can record it). */
  request: WireRequest;
}

/** A judge's word on one case: valid, or invalid with the locs of what it refused (when it can say). */
export interface RequestVerdict {
  valid: boolean;
  locs?: Loc[];
  /** Anything else a judge saw (an unexpected status): always a disagreement. */
  other?: string;
}

export interface RequestJudge {
  name: string;
  judge(c: OracleCase): Promise<RequestVerdict> | RequestVerdict;
}

export const ORACLE_FIXTURES: Fixtures = {
  assistant_id: 'asst-1',
  phone_number_id: 'pn-1',
  recipient_list_id: 'rl-1',
  org_id: 'org-1',
  api_key_id: 'key-1',
  channels: ['provider-a', 'provider-b'],
};

const CREDENTIALS = { authorization: 'Bearer oracle-key', 'x-user-id': 'oracle-user' };

interface Sizes {
  valid: number;
  perField: number;
}

function sample<T>(arb: fc.Arbitrary<T>, seed: number, numRuns: number): T[] {
  return fc.sample(arb, { seed, numRuns });
}

/** A path of the operation with every parameter filled (any non-empty text: path parameters are strings). */
function pathArb(op: Operation): fc.Arbitrary<string> {
  const names = op.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  if (names.length === 0) return fc.constant(op.path);
  const value = fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,12}$/), fc.string({ minLength: 1, maxLength: 10 }));
  return fc.tuple(...names.map(() => value)).map((values) => {
    const filled: Record<string, string> = {};
    names.forEach((n, i) => (filled[n] = values[i]!));
    return fillPath(op.path, filled);
  });
}

/** A query of documented parameters, each present or not, with valid values. */
function queryArb(op: Operation): fc.Arbitrary<Array<[string, string]>> {
  const params = op.parameters.filter((p) => p.in === 'query');
  if (params.length === 0) return fc.constant([]);
  return fc
    .tuple(...params.map((p) => fc.option(validQueryValue(p.schema, p.name, { fixtures: ORACLE_FIXTURES }))))
    .map((values) => params.flatMap((p, i) => (values[i] === null ? [] : [[p.name, values[i]!] as [string, string]])));
}

function wire(op: Operation, path: string, query: Array<[string, string]>, body?: string): WireRequest {
  const search = query.length ? `?${new URLSearchParams(query).toString()}` : '';
  const headers: Record<string, string> = { ...CREDENTIALS };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return {
    method: op.method,
    url: `${ORACLE_ORIGIN}${path}${search}`,
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

function validCases(op: Operation, seed: number, sizes: Sizes): OracleCase[] {
  const modes = op.requestBody ? (['realistic', 'hostile'] as const) : (['realistic'] as const);
  return modes.flatMap((mode, m) => {
    const arb = fc.tuple(
      pathArb(op),
      queryArb(op),
      validBody(op, { fixtureSpecs: FIXTURES, fixtures: ORACLE_FIXTURES, mode }),
    );
    return sample(arb, seed + m, sizes.valid).map(([path, query, body], i) => ({
      id: `${op.id} valid-${mode} ${i}`,
      operationId: op.id,
      intent: 'valid' as const,
      request: wire(op, path, query, op.requestBody ? JSON.stringify(body) : undefined),
    }));
  });
}

/** Every invalid case the generators make for the operation, each breaking one stated constraint. */
function invalidOf(spec: SpecModel, op: Operation, seed: number, sizes: Sizes): InvalidCase[] {
  const out: InvalidCase[] = [...nonIntegerQueryExamples(op)];
  const query = nonIntegerQuery(op);
  if (query) out.push(...sample(query, seed, sizes.perField));
  if (!op.requestBody) return out;
  const [base] = sample(validBody(op, { fixtureSpecs: FIXTURES, fixtures: ORACLE_FIXTURES }), seed, 1);
  out.push(...malformedJsonExamples(base));
  for (const field of typedFields(op)) {
    const arb = wrongTypeCase(base, field);
    if (arb) out.push(...sample(arb, seed, sizes.perField));
  }
  for (const field of enumFields(op)) {
    const arb = enumCase(base, field);
    if (arb) out.push(...sample(arb, seed, sizes.perField));
  }
  for (const bound of spec.bounds().filter((b) => b.operationId === op.id)) {
    const edges = boundaryValues(bound).filter((b) => !b.inRange);
    const further = (['below-minimum', 'above-maximum'] as const).flatMap((side) => {
      const arb = outOfRange(bound, side);
      return arb ? sample(arb, seed, sizes.perField) : [];
    });
    for (const value of [...edges.map((e) => e.value), ...further]) out.push(boundCase(base, bound, value));
  }
  return out;
}

function invalidCases(spec: SpecModel, op: Operation, seed: number, sizes: Sizes): OracleCase[] {
  const [path] = sample(pathArb(op), seed, 1);
  return invalidOf(spec, op, seed, sizes).map((c, i) => {
    const body = c.rawBody ?? (op.requestBody ? JSON.stringify(c.body) : undefined);
    return {
      id: `${op.id} ${c.kind} ${i}`,
      operationId: op.id,
      intent: c.kind,
      loc: [c.location, ...c.loc],
      request: wire(op, path!, c.query ?? [], body),
    };
  });
}

/** The corpus: for every operation, valid requests and the invalid ones of the generators. */
export function oracleCases(spec: SpecModel, seed: number, sizes: Sizes = { valid: 8, perField: 3 }): OracleCase[] {
  return spec.operations.flatMap((op, i) => [
    ...validCases(op, seed + i * 101, sizes),
    ...invalidCases(spec, op, seed + i * 101, sizes),
  ]);
}

/**
 * The project's validators on the request as it went over the wire: the runner's own split
 * (wireParts: path parameters decoded, the query as sent, the body parsed) and validateRequest,
 * the refusal located as the contract's 422 would locate it. A body that does not parse is
 * invalid at `['body']` (the runner does not locate a syntax error).
 */
export function validatorsJudge(spec: SpecModel): RequestJudge {
  return {
    name: 'validators (wire)',
    judge(c) {
      const op = spec.operation(c.operationId);
      const split = wireParts(op, { request: c.request });
      if (!split.ok) return { valid: false, locs: [['body']] };
      const result = validateRequest(op.id, split.parts);
      if (result.ok) return { valid: true };
      return { valid: false, locs: requestErrorItems(undefined, result.issues).map((item) => item.loc) };
    },
  };
}

/** Whether a judge's locs name the case's fault: the same loc, or for malformed JSON any offset in the body. */
export function locates(c: OracleCase, locs: Loc[] | undefined): boolean {
  if (!c.loc || !locs) return true;
  const expected = JSON.stringify(c.loc);
  if (c.intent === 'malformed-json')
    return locs.some((l) => l[0] === 'body' && (l.length === 1 || (l.length === 2 && typeof l[1] === 'number')));
  return locs.some((l) => JSON.stringify(l) === expected);
}

/** What is wrong with a judge's verdict on a case, or undefined when it agrees with the intent. */
export function disagreement(c: OracleCase, v: RequestVerdict): string | undefined {
  if (v.other) return v.other;
  const valid = c.intent === 'valid';
  if (v.valid !== valid) return `called it ${v.valid ? 'valid' : 'invalid'}; made ${c.intent}`;
  if (!valid && !locates(c, v.locs))
    return `refused it at ${JSON.stringify(v.locs)}; the fault is at ${JSON.stringify(c.loc)}`;
  return undefined;
}
