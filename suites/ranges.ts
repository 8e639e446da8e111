/**
 * ranges: every numeric bound the contract states on a request body (read from `spec.bounds()`),
 * on create and on update: min-1 and random values below rejected with 422, max+1 and random values
 * above rejected with 422, min, max and random values between accepted (sections 4.2, 4.4, 8).
 *
 * One check per bound field and side, so a result names the rule it enforces
 * (`ranges.max-concurrency-above-maximum`); `boundChecks(field)` builds the three of a field from
 * the spec's bounds at run time, and the registry test asserts every bound of the spec has them.
 */
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/runner/check.js';
import type { NumericBound, Operation, SpecModel } from '../src/spec/model.js';
import { boundCase, boundaryValues, inRange, outOfRange, type BoundSide } from '../src/generators/index.js';
import {
  Findings,
  boundOf,
  OK,
  checkProperty,
  fail,
  isSuccess,
  judgeInvalid,
  label,
  locNames,
  recordCost,
  request,
  sampleBody,
  sharedPathForRecord,
  skipped,
  statusText,
  type Judgement,
} from './lib.js';

const kebab = (field: string): string => field.replace(/_/g, '-');


async function pathFor(ctx: CheckContext, op: Operation): Promise<Record<string, string> | undefined> {
  if (!op.parameters.some((p) => p.in === 'path')) return {};
  return (await sharedPathForRecord(ctx, op)).values;
}

const RANDOM_CAP = 4;

/**
 * The out-of-range values tried first: min-1 or max+1, and below a minimum above 1, also 0 (a
 * check written `if (value && value < min)` skips the falsy 0).
 */
function edgeValues(bound: NumericBound, side: BoundSide): number[] {
  const edge = boundaryValues(bound).find((b) => !b.inRange && (side === 'below-minimum' ? b.label === 'min-1' : b.label === 'max+1'))!.value;
  return side === 'below-minimum' && bound.minimum !== undefined && bound.minimum > 1 && edge !== 0 ? [edge, 0] : [edge];
}

function outsideCheck(field: string, side: BoundSide): CheckDefinition {
  const which = side === 'below-minimum' ? 'minimum' : 'maximum';
  return defineCheck({
    id: `ranges.${kebab(field)}-${side}`,
    suite: 'ranges',
    rule: `${field} ${side === 'below-minimum' ? 'below its minimum (min-1, 0 when the minimum is above 1, and random values below)' : 'above its maximum (max+1 and random values above)'} is answered 422 naming ${field}`,
    contractRef: '4.2, 4.4, 8',
    severity: 'critical',
    appliesTo: (op, spec) => boundOf(spec, op, field)?.[which] !== undefined,
    plannedRequests: (op, runs, spec) => edgeValues(boundOf(spec, op, field)!, side).length + Math.min(runs, RANDOM_CAP) + recordCost(op, spec),
    async run(ctx, op) {
      const bound = boundOf(ctx.spec, op, field)!;
      const values = await pathFor(ctx, op);
      if (!values) return skipped(`no record to send ${label(op)} to`);
      const base = sampleBody(ctx, op, 19) ?? {};
      const findings = new Findings();
      const verdict = await checkProperty(
        ctx,
        outOfRange(bound, side)!,
        async (value) => {
          const kase = boundCase(base, bound, value);
          const exchange = await ctx.send(request(op, ctx, { pathValues: values, json: kase.body }));
          return judgeInvalid(ctx, op, exchange, { ...kase, description: `${field}=${value} (the contract allows ${bound.minimum ?? '-inf'}..${bound.maximum ?? 'inf'})` });
        },
        { examples: edgeValues(bound, side), numRuns: Math.min(ctx.runs, RANDOM_CAP) },
      );
      findings.add(verdict);
      return findings.outcome(`${field} ${side === 'below-minimum' ? `< ${bound.minimum}` : `> ${bound.maximum}`} rejected with 422`);
    },
  });
}

function inRangeCheck(field: string): CheckDefinition {
  return defineCheck({
    id: `ranges.${kebab(field)}-in-range`,
    suite: 'ranges',
    rule: `${field} at its minimum, at its maximum and between is accepted (not rejected naming ${field})`,
    contractRef: '4.2, 4.4, 8',
    severity: 'major',
    appliesTo: (op, spec) => boundOf(spec, op, field) !== undefined,
    plannedRequests: (op, runs, spec) => 2 + Math.min(runs, 2) + recordCost(op, spec),
    async run(ctx, op) {
      const bound = boundOf(ctx.spec, op, field)!;
      const values = await pathFor(ctx, op);
      if (!values) return skipped(`no record to send ${label(op)} to`);
      const base = sampleBody(ctx, op, 23) ?? {};
      const edges = boundaryValues(bound).filter((b) => b.inRange).map((b) => b.value);
      const findings = new Findings();
      const verdict = await checkProperty(
        ctx,
        inRange(bound),
        async (value): Promise<Judgement> => {
          const kase = boundCase(base, bound, value);
          const exchange = await ctx.send(request(op, ctx, { pathValues: values, json: kase.body }));
          const res = exchange.response;
          const range = `${bound.minimum ?? '-inf'}..${bound.maximum ?? 'inf'}`;
          if (!res) return fail(ctx, exchange, `${field}=${value} accepted`, statusText(exchange), `${label(op)} with ${field}=${value}: no response`, value);
          if (res.status === 429 || isSuccess(res.status)) return OK;
          if (res.status >= 500) return fail(ctx, exchange, `${field}=${value} accepted (the contract allows ${range})`, `status ${res.status}`, `${label(op)} failed with ${res.status} for ${field}=${value}`, value);
          const detail = (res.json as { detail?: unknown } | undefined)?.detail;
          if (res.status === 422 && locNames(detail, { loc: kase.loc, location: 'body' })) {
            return fail(ctx, exchange, `${field}=${value} accepted (the contract allows ${range})`, `422 naming ${field}`, `${field}=${value} was rejected on ${label(op)}; the contract allows ${range}`, value);
          }
          // Rejected for something else: a server may be stricter where the contract is silent.
          ctx.observe({ operation: label(op), message: `a valid body with ${field}=${value} was answered ${res.status} for another reason: ${res.text.slice(0, 160)}` });
          return OK;
        },
        { examples: edges, numRuns: Math.min(ctx.runs, 2) },
      );
      findings.add(verdict);
      return findings.outcome(`${field} accepted at ${edges.join(', ')} and between`);
    },
  });
}

/** The three checks of a bound field: below its minimum, above its maximum, in range. */
export function boundChecks(field: string): CheckDefinition[] {
  return [outsideCheck(field, 'below-minimum'), outsideCheck(field, 'above-maximum'), inRangeCheck(field)];
}

/** The fields of the contract with numeric bounds (section 8); the registry test compares this with spec.bounds(). */
export const BOUNDED_FIELDS = ['max_concurrency', 'machine_detection_timeout_seconds'] as const;

export const rangesChecks: CheckDefinition[] = BOUNDED_FIELDS.flatMap(boundChecks);

/** For dry-run listings: the bounds a check of this suite judges on an operation. */
export const boundsOf = (spec: SpecModel, op: Operation): NumericBound[] => spec.bounds().filter((b) => b.operationId === op.id);
