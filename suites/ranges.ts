/**
 * ranges: every numeric bound the contract states on a request body (read from `spec.bounds()`),
 * on create and on update: min-1, 0, the type limits below (-1, -2^53) and a random value below
 * rejected with 422; max+1, the type limits above (2^31, 2^53) and a random value above rejected
 * with 422; min, max and a value between accepted (sections 4.2, 4.4, 8). And every number the
 * contract has, bounded or not (query, path, body, nested), at its edges: `ranges.numeric-edges`.
 *
 * One check per bound field and side, so a result names the rule it enforces
 * (`ranges.max-concurrency-above-maximum`); `boundChecks(field)` builds the three of a field from
 * the spec's bounds at run time, and the registry test asserts every bound of the spec has them.
 */
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/checks/check.js';
import { FAILURE_KINDS as KIND, pointerOf } from '../src/results/model.js';
import type { NumericBound, Operation, SpecModel } from '../src/spec/model.js';
import {
  boundCase,
  boundaryValues,
  describeEdge,
  numericEdges,
  numericTargets,
  setPointer,
  typeLimitsOutside,
  type BoundSide,
  type InvalidCase,
  type NumericEdge,
  type NumericTarget,
} from '../src/generators/index.js';
import { validate } from '../src/validators/index.js';
import { onOwnPath } from './lib/covering.js';
import { withControl } from './lib/control.js';
import { judgeAnswer } from '../src/checks/judge.js';
import type { Refusal } from './lib/learned.js';
import type { RecordPath } from './lib/requests.js';
import type { Exchange } from '../src/transport/types.js';
import {
  Findings,
  boundOf,
  OK,
  RATE_LIMITED,
  fail,
  isSuccess,
  judgeAllowed,
  judgeInvalid,
  judgeResponse,
  label,
  locNames,
  recordCost,
  request,
  baseBody,
  openRule,
  ownPathForRecord,
  skipped,
  unjudged,
  validCreateRefused,
  type Judgement,
} from './lib.js';

const kebab = (field: string): string => field.replace(/_/g, '-');

/** A record of the check's own for `op`'s path (never an invented id), or why none could be had. */
async function pathFor(ctx: CheckContext, op: Operation, salt: number): Promise<RecordPath> {
  if (!op.parameters.some((p) => p.in === 'path')) return { values: {} };
  return ownPathForRecord(ctx, op, salt);
}

/** The skip of a check with no record to send to, its cause the refusal that left it without one. */
const noRecord = (op: Operation, found: RecordPath) =>
  skipped(found.reason ?? `no record to send ${label(op)} to`, found.why ?? { cause: 'no-record' });

/**
 * Where a bound's full set of values goes: the operation on a path of its own (the create, POST
 * /campaign), where a record's bounds are first enforced; an operation on a record's path (the
 * update) is sent the boundaries only (min-1, min, max, max+1), since a server checking a bound
 * twice most often gets one place's boundary wrong, not the type limits. Fixed, so every seed sends the same values.
 */
const fullSet = onOwnPath;

/**
 * The out-of-range values: min-1 or max+1; with the full set, also below a minimum above 1 the 0
 * (a check written `if (value && value < min)` skips the falsy 0) and -1 (a check of `== min-1`
 * only), above a maximum 2^31 (past an int32 column) and twice the maximum plus one (a narrower
 * type wraps it back into range). The edges come from the generators (boundaryValues, typeLimitsOutside).
 */
export function edgeValues(bound: NumericBound, side: BoundSide, full = true): number[] {
  const edge = boundaryValues(bound).find(
    (b) => !b.inRange && (side === 'below-minimum' ? b.label === 'min-1' : b.label === 'max+1'),
  )!.value;
  if (!full) return [edge];
  const limits = typeLimitsOutside(bound, side).filter((n) => Math.abs(n) <= 2 ** 31);
  if (side === 'above-maximum') return [...new Set([edge, ...limits, 2 * bound.maximum! + 1])];
  const zero = bound.minimum! > 1 && edge !== 0 ? [0] : [];
  return [...new Set([edge, ...zero, ...limits])];
}

const sideWords = (side: BoundSide): string =>
  side === 'below-minimum'
    ? 'below its minimum (min-1; on the create also 0 when the minimum is above 1, and -1)'
    : 'above its maximum (max+1; on the create also 2^31 and twice the maximum plus one)';

function outsideCheck(field: string, side: BoundSide): CheckDefinition {
  const which = side === 'below-minimum' ? 'minimum' : 'maximum';
  return defineCheck({
    id: `ranges.${kebab(field)}-${side}`,
    suite: 'ranges',
    rule: `${field} ${sideWords(side)} is answered 422 naming ${field}`,
    contractRef: '4.2, 4.4, 8',
    severity: 'critical',
    core: true,
    appliesTo: (op, spec) => boundOf(spec, op, field)?.[which] !== undefined,
    plannedRequests: (op, _runs, spec) =>
      edgeValues(boundOf(spec, op, field)!, side, fullSet(op)).length + recordCost(op, spec),
    plannedCases: (op, spec) => [
      `body ${field}: ${edgeValues(boundOf(spec, op, field)!, side, fullSet(op)).join(' ')}`,
    ],
    async run(ctx, op) {
      const bound = boundOf(ctx.spec, op, field)!;
      const found = await pathFor(ctx, op, 19);
      const { values, record } = found;
      if (!values) return noRecord(op, found);
      const validRefused = await validCreateRefused(ctx, op);
      const base = baseBody(ctx, op, 19, [field], record);
      const findings = new Findings();
      for (const value of edgeValues(bound, side, fullSet(op))) {
        const kase = boundCase(base, bound, value);
        const exchange = await ctx.send(request(op, ctx, { pathValues: values, json: kase.body }));
        const described = {
          ...kase,
          description: `${field}=${value} (the contract allows ${bound.minimum ?? '-inf'}..${bound.maximum ?? 'inf'})`,
        };
        const judged = judgeInvalid(ctx, op, exchange, described, validRefused === undefined ? {} : { validRefused });
        findings.add(await withControl(ctx, op, exchange, judged, controlled(ctx, op, values, base, described)));
      }
      return findings.outcome(
        `${field} ${side === 'below-minimum' ? `< ${bound.minimum}` : `> ${bound.maximum}`} rejected with 422`,
      );
    },
  });
}

function inRangeCheck(field: string): CheckDefinition {
  return defineCheck({
    id: `ranges.${kebab(field)}-in-range`,
    suite: 'ranges',
    rule: `${field} at its minimum and at its maximum is accepted (not rejected naming ${field})`,
    contractRef: '4.2, 4.4, 8',
    severity: 'major',
    expects: 'success',
    core: true,
    appliesTo: (op, spec) => boundOf(spec, op, field) !== undefined,
    plannedRequests: (op, _runs, spec) => inRangeValues(boundOf(spec, op, field)!).length + recordCost(op, spec),
    async run(ctx, op) {
      const bound = boundOf(ctx.spec, op, field)!;
      const found = await pathFor(ctx, op, 23);
      const { values, record } = found;
      if (!values) return noRecord(op, found);
      // Even when every valid create the run tried was refused, a 422 naming this field for its
      // minimum or maximum is the fault itself (a refusal for another reason judges nothing).
      await validCreateRefused(ctx, op);
      const base = baseBody(ctx, op, 23, [field], record);
      const accepted: number[] = [];
      const findings = new Findings();
      for (const value of inRangeValues(bound)) {
        const kase = boundCase(base, bound, value);
        const exchange = await ctx.send(request(op, ctx, { pathValues: values, json: kase.body }));
        const judged = judgeInRange(ctx, op, exchange, {
          field,
          value,
          loc: kase.loc,
          range: `${bound.minimum ?? '-inf'}..${bound.maximum ?? 'inf'}`,
        });
        if (judged.ok && judged.unjudged === undefined) accepted.push(value);
        findings.add(judged);
      }
      return findings.outcome(`${field} accepted at ${[...new Set(accepted)].join(', ')} on ${label(op)}`);
    },
  });
}

/**
 * The values inside the bounds: the minimum and the maximum, where an exclusive comparison refuses
 * what the contract allows. A value between them is accepted wherever these are (a random one found
 * nothing they do not), and the valid bodies of the other checks carry such values.
 */
const inRangeValues = (bound: NumericBound): number[] =>
  boundaryValues(bound)
    .filter((b) => b.inRange)
    .map((b) => b.value);

/**
 * The answer to a value inside the bounds: accepted (the evidence), or refused naming the field (a
 * failure); a refusal for another reason (a rule the contract leaves to the server) judges nothing.
 */
function judgeInRange(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  probe: { field: string; value: number; loc: InvalidCase['loc']; range: string },
): Judgement {
  const { field, value, range } = probe;
  const where = { location: 'body', pointer: pointerOf(probe.loc) };
  const expected = `${field}=${value} accepted (the contract allows ${range})`;
  const rules = {
    what: `${field}=${value}`,
    expected,
    field: where,
    input: value,
    // A 422 naming the field is this check's own failure; the open rules come for the rest.
    open: (res: { status: number; json?: unknown }) =>
      isSuccess(res.status) || (res.status === 422 && namesField(res.json, probe.loc))
        ? undefined
        : openRule(ctx, op, exchange, {
            valid: true,
            fields: [{ loc: probe.loc, location: 'body' }],
            what: `${field}=${value}`,
            expected,
            field: where,
          }),
  };
  return judgeAnswer(ctx, op, exchange, rules, (res) => {
    if (isSuccess(res.status)) return OK;
    if (res.status === 422 && namesField(res.json, probe.loc))
      return fail(
        ctx,
        exchange,
        expected,
        `422 naming ${field}`,
        `${field}=${value} was rejected on ${label(op)}; the contract allows ${range}`,
        value,
        { kind: KIND.rejectedValid, field: where },
      );
    // Rejected for something else: a server may be stricter where the contract is silent.
    ctx.observe({
      operation: label(op),
      message: `a valid body with ${field}=${value} was answered ${res.status} for another reason: ${res.text.slice(0, 160)}`,
    });
    return unjudged(`a valid body with ${field}=${value} was answered ${res.status} for another reason`, {
      cause: 'refused',
      status: res.status,
    });
  });
}

const namesField = (json: unknown, loc: InvalidCase['loc']): boolean =>
  locNames((json as { detail?: unknown } | undefined)?.detail, { loc, location: 'body' });

/** The control of an invalid case: the same path with the valid body the case broke one field of (withControl). */
function controlled(
  ctx: CheckContext,
  op: Operation,
  path: Record<string, string>,
  base: Record<string, unknown> | undefined,
  kase: InvalidCase,
) {
  return {
    what: kase.description,
    expected: 'a value outside a stated bound is answered 422 with the validation error body (sections 2.8, 7, 8)',
    field: { location: kase.location, pointer: pointerOf(kase.loc) },
    input: kase.value,
    control: () => request(op, ctx, { pathValues: path, ...(base ? { json: base } : {}) }),
  };
}

/** A probe of one numeric edge: where it goes, what it sends, how it is judged. */
interface EdgeProbe {
  target: NumericTarget;
  edge: NumericEdge;
  /** Judged as a value the contract allows (no 5xx) or as one it refuses (422 naming the field). */
  allowed: boolean;
}

/**
 * The edges this check sends on an operation: every edge of every numeric parameter and field,
 * except numbers outside a stated body bound (the below-minimum/above-maximum checks of that field
 * send them). A numeric string the contract allows is judged as allowed unless strict types is on.
 */
export function edgeProbes(op: Operation, strictTypes = false): EdgeProbe[] {
  const out: EdgeProbe[] = [];
  for (const target of numericTargets(op)) {
    for (const edge of numericEdges(target)) {
      if (target.location === 'body' && !edge.quoted && !edge.withinBounds) continue;
      out.push({ target, edge, allowed: edge.withinBounds && !(edge.quoted && strictTypes) });
    }
  }
  return out;
}

/**
 * The requests of an operation, each the probes it carries. On an operation on a record's path
 * (the update) only the numeric strings go in the body: the number edges of the same fields go to
 * the create (fullSet), a covering design fixed for every seed; the strings stay on both, since
 * coercion is the code most often written twice. The query and path edges of one label go together
 * when the contract allows them all (`limit=-1&offset=-1`), sent again one by one only when the
 * answer is not a plain success (a 5xx names no parameter, a 422 may have stopped at the first).
 */
export function edgeRequests(op: Operation, strictTypes = false): EdgeProbe[][] {
  const full = fullSet(op);
  const out: EdgeProbe[][] = [];
  const byLabel = new Map<string, EdgeProbe[]>();
  for (const probe of edgeProbes(op, strictTypes)) {
    if (probe.target.location === 'body' && !full && !probe.edge.quoted) continue;
    if (probe.target.location === 'body' || !probe.allowed) {
      out.push([probe]);
      continue;
    }
    const group = byLabel.get(probe.edge.label);
    if (group) group.push(probe);
    else {
      byLabel.set(probe.edge.label, [probe]);
      out.push(byLabel.get(probe.edge.label)!);
    }
  }
  return out;
}

/** For --dry-run: the edges sent per parameter or field, `query offset: -1 0 2147483648 ...`. */
function edgeListing(op: Operation): string[] {
  const byTarget = new Map<string, string[]>();
  for (const { target, edge } of edgeRequests(op).flat()) {
    const key = `${target.location} ${target.loc.join('.')}`;
    byTarget.set(key, [...(byTarget.get(key) ?? []), edge.quoted ? JSON.stringify(edge.literal) : edge.literal]);
  }
  const together = edgeRequests(op).filter((r) => r.length > 1).length;
  return [
    ...[...byTarget].map(([key, literals]) => `${key}: ${literals.join(' ')}`),
    ...(together ? [`query and path edges of one kind in one request (${together} requests)`] : []),
  ];
}

const EDGE_MARK = 'vapc-numeric-edge-literal';

/** The request parts of a probe: the literal in its query, path or body place, the rest valid. */
function edgeParts(
  probe: EdgeProbe,
  path: Record<string, string>,
  base: Record<string, unknown> | undefined,
): { parts: Parameters<typeof request>[2]; kase: InvalidCase } {
  const { target, edge } = probe;
  const parts: Parameters<typeof request>[2] = { pathValues: path };
  const exact = String(edge.spelled) === edge.literal;
  // The input a failure shows: the number, or its text when it is a string or no double holds it.
  const value = edge.quoted || !exact ? edge.literal : edge.spelled;
  const kase: InvalidCase = {
    kind: 'numeric-edge',
    location: target.location,
    loc: target.loc,
    field: target.name,
    value,
    description: describeEdge(target, edge),
  };
  if (target.location === 'query') parts.query = kase.query = [[target.name, edge.literal]];
  if (target.location === 'path') parts.pathValues = { ...path, [target.name]: edge.literal };
  if (target.location !== 'body') {
    if (base) parts.json = base;
    return { parts, kase };
  }
  if (edge.quoted || exact) {
    parts.json = kase.body = setPointer(base ?? {}, target.pointer!, edge.quoted ? edge.literal : edge.spelled);
  } else {
    // 2^53+1 cannot go through a double: the JSON text carries its digits.
    parts.rawBody = kase.rawBody = JSON.stringify(setPointer(base ?? {}, target.pointer!, EDGE_MARK)).replace(
      JSON.stringify(EDGE_MARK),
      edge.literal,
    );
    parts.headers = { 'content-type': 'application/json' };
  }
  return { parts, kase };
}

/** Judges the answer to an allowed edge (the one judgeAllowed of both edge suites); a 422 naming it is noted as stricter. */
function judgeEdge(run: EdgeRun, exchange: Exchange, kase: InvalidCase, noteRefusal: boolean): Judgement {
  const judged = judgeAllowed(run.ctx, run.op, exchange, {
    what: kase.description,
    fields: [kase],
    field: { location: kase.location, pointer: pointerOf(kase.loc) },
    input: kase.value,
  });
  if (noteRefusal && judged.ok && judged.unjudged === undefined && exchange.response?.status === 422)
    run.refused.push(kase.description);
  return judged;
}

export const numericEdgesCheck = defineCheck({
  id: 'ranges.numeric-edges',
  suite: 'ranges',
  rule: 'Every numeric parameter and field at its edges (-1, 0, 2^31, 2^53, 2^53+1, -2^53 and a numeric-looking string; on the update only the numeric strings, the create takes the numbers), bounded or not, never gets a 5xx: a value the contract allows is accepted or refused with the validation error body, one outside a stated bound is answered 422 naming it',
  contractRef: '4.1, 4.2, 4.4, 8, 2.8, 7',
  severity: 'critical',
  expects: 'success',
  appliesTo: (op) => numericTargets(op).length > 0,
  plannedRequests: (op, _runs, spec, options) => edgeRequests(op, options?.strictTypes).length + recordCost(op, spec),
  plannedCases: (op) => edgeListing(op),
  async run(ctx, op) {
    const found = await pathFor(ctx, op, 37);
    const { values: path, record } = found;
    if (!path) return noRecord(op, found);
    const validRefused = await validCreateRefused(ctx, op);
    const base = op.requestBody
      ? baseBody(
          ctx,
          op,
          37,
          numericTargets(op)
            .filter((t) => t.location === 'body')
            .map((t) => String(t.loc[0])),
          record,
        )
      : undefined;
    const run: EdgeRun = {
      ctx,
      op,
      path,
      base,
      findings: new Findings(),
      refused: [],
      ...(validRefused === undefined ? {} : { validRefused }),
    };
    const requests = edgeRequests(op, ctx.strictTypes);
    for (const probes of requests) {
      if (probes.length === 1 || !(await probeTogether(run, probes)))
        for (const probe of probes) await probeAlone(run, probe);
    }
    if (run.refused.length) {
      ctx.observe({
        operation: label(op),
        message: `refused with 422 numbers the contract allows (stricter where it is silent): ${run.refused.join('; ')}`,
      });
    }
    return run.findings.outcome(`${requests.flat().length} numeric edges answered as the contract allows`);
  },
});

interface EdgeRun {
  ctx: CheckContext;
  op: Operation;
  path: Record<string, string>;
  base: Record<string, unknown> | undefined;
  findings: Findings;
  refused: string[];
  validRefused?: Refusal;
}

async function probeAlone(run: EdgeRun, probe: EdgeProbe): Promise<void> {
  const { ctx, op } = run;
  const { parts, kase } = edgeParts(probe, run.path, run.base);
  const exchange = await ctx.send(request(op, ctx, parts));
  // A refused numeric string is a framework's choice (coercion or not), not worth noting.
  if (probe.allowed) {
    run.findings.add(judgeEdge(run, exchange, kase, probe.edge.label !== 'numeric string'));
    return;
  }
  const judged = judgeInvalid(
    ctx,
    op,
    exchange,
    kase,
    run.validRefused === undefined ? {} : { validRefused: run.validRefused },
  );
  run.findings.add(await withControl(ctx, op, exchange, judged, controlled(ctx, op, run.path, run.base, kase)));
}

/**
 * Allowed query and path edges in one request: a plain success judges them all, and so does a 422
 * naming every one of them (true); anything else judges nothing here (false), and the caller sends
 * them one by one.
 */
async function probeTogether(run: EdgeRun, probes: EdgeProbe[]): Promise<boolean> {
  const { ctx, op } = run;
  const each = probes.map((p) => edgeParts(p, run.path, run.base));
  const parts: Parameters<typeof request>[2] = {
    ...each[0]!.parts,
    pathValues: Object.assign({}, ...each.map((e) => e.parts?.pathValues)),
  };
  const query = each.flatMap((e) => e.parts?.query ?? []);
  if (query.length) parts.query = query;
  const exchange = await ctx.send(request(op, ctx, parts));
  const status = exchange.response?.status ?? 0;
  if (status === 429) {
    run.findings.add(RATE_LIMITED);
    return true;
  }
  const detail = (exchange.response?.json as { detail?: unknown } | undefined)?.detail;
  if (
    status === 422 &&
    validate('HTTPValidationError', exchange.response?.json).ok &&
    each.every((e) => locNames(detail, e.kase))
  ) {
    // Refused naming every one of them: what each alone would show (stricter where the contract is silent).
    probes.forEach((p, i) =>
      run.findings.add(judgeEdge(run, exchange, each[i]!.kase, p.edge.label !== 'numeric string')),
    );
    return true;
  }
  if (!isSuccess(status)) return false;
  const judged = judgeResponse(ctx, op, exchange, {
    what: `${each.map((e) => e.kase.description).join(' and ')} on ${label(op)}`,
  });
  for (const _ of probes) run.findings.add(judged);
  return true;
}

/** The three checks of a bound field: below its minimum, above its maximum, in range. */
export function boundChecks(field: string): CheckDefinition[] {
  return [outsideCheck(field, 'below-minimum'), outsideCheck(field, 'above-maximum'), inRangeCheck(field)];
}

/** The fields of the contract with numeric bounds (section 8); the registry test compares this with spec.bounds(). */
export const BOUNDED_FIELDS = ['max_concurrency', 'machine_detection_timeout_seconds'] as const;

export const rangesChecks: CheckDefinition[] = [...BOUNDED_FIELDS.flatMap(boundChecks), numericEdgesCheck];

/** For dry-run listings: the bounds a check of this suite judges on an operation. */
export const boundsOf = (spec: SpecModel, op: Operation): NumericBound[] =>
  spec.bounds().filter((b) => b.operationId === op.id);
