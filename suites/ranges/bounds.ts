/**
 * The ranges suite's bound checks: one per bound field and side (`ranges.max-concurrency-above-maximum`),
 * built from the spec's bounds: values outside a stated bound answered 422 naming the field, the
 * minimum and the maximum accepted (sections 4.2, 4.4, 8).
 */
import { defineCheck, type CheckContext, type CheckDefinition } from '../../src/checks/check.js';
import { FAILURE_KINDS as KIND, pointerOf } from '../../src/results/model.js';
import type { NumericBound, Operation, SpecModel } from '../../src/spec/model.js';
import {
  boundCase,
  boundaryValues,
  typeLimitsOutside,
  type BoundSide,
  type InvalidCase,
} from '../../src/generators/index.js';
import { withControl } from '../lib/control.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import type { Exchange } from '../../src/transport/types.js';
import {
  Findings,
  boundOf,
  OK,
  fail,
  isSuccess,
  judgeInvalid,
  label,
  locNames,
  recordCost,
  request,
  baseBody,
  openRule,
  unjudged,
  validCreateRefused,
  type Judgement,
  noRecord,
} from '../lib.js';
import { controlled, fullSet, pathFor } from './targets.js';

const kebab = (field: string): string => field.replace(/_/g, '-');

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

/** The three checks of a bound field: below its minimum, above its maximum, in range. */
export function boundChecks(field: string): CheckDefinition[] {
  return [outsideCheck(field, 'below-minimum'), outsideCheck(field, 'above-maximum'), inRangeCheck(field)];
}

/** For dry-run listings: the bounds a check of this suite judges on an operation. */
export const boundsOf = (spec: SpecModel, op: Operation): NumericBound[] =>
  spec.bounds().filter((b) => b.operationId === op.id);
