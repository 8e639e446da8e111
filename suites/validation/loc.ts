/**
 * validation.loc-names-location: the loc of a 422 names the right location (body, query) before
 * the field; a loc with no location is observed (section 2.8).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../../src/checks/check.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND, pointerOf } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { integerQueryParams, typedFields, wrongTypeCase, type InvalidCase } from '../../src/generators/index.js';
import { Findings, baseBody, fail, label, recordCost, request, type Judgement, unjudged, OK } from '../lib.js';
import { targetFor } from './targets.js';

const topLevel = (op: Operation) => typedFields(op).filter((f) => f.depth === 0);

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
