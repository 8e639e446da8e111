/**
 * Where and how the validation suite sends its invalid requests: a record of the check's own, the
 * control request of a case, one case alone, and the cases of one pack together.
 */
import type { CheckContext } from '../../src/checks/check.js';
import { pointerOf } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { setPointer, toPointer, type InvalidCase } from '../../src/generators/index.js';
import { withControl } from '../lib/control.js';
import type { Refusal } from '../lib/learned.js';
import type { RecordPath } from '../lib/requests.js';
import {
  judgeInvalid,
  noRecord,
  ownPathForRecord,
  request,
  skipped,
  validCreateRefused,
  type InvalidJudgeOptions,
  type Judgement,
} from '../lib.js';

/**
 * Where and on what a check sends its invalid bodies: a record of its own (never an invented id:
 * with no record the check is skipped), and for a create, whether a valid body is refused too (a
 * 422 not naming the field then judges nothing).
 */
export interface Target {
  values: Record<string, string>;
  validRefused?: Refusal;
  /** The record as created for this check (its state goes along in the base body). */
  record?: Record<string, unknown>;
  /** The valid body the cases break one field of: a 403 or 409 refusal's control sends it (withControl). */
  base?: Record<string, unknown>;
}

export async function targetFor(
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
export const controlOf = (ctx: CheckContext, op: Operation, target: Target) => () =>
  request(op, ctx, { pathValues: target.values, ...(target.base ? { json: target.base } : {}) });

export async function sendCase(
  ctx: CheckContext,
  op: Operation,
  target: Target,
  kase: InvalidCase,
): Promise<Judgement> {
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

/** The cases of one pack in one request: `base` with every case's value at its field. */
export function sendTogether(
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
