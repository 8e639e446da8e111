/**
 * Where the ranges suite's probes go: a record of the check's own (never an invented id), which
 * operation gets the full set of values, and the control request of an invalid case.
 */
import type { CheckContext } from '../../src/checks/check.js';
import { pointerOf } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import type { InvalidCase } from '../../src/generators/index.js';
import { onOwnPath } from '../lib/covering.js';
import type { RecordPath } from '../lib/requests.js';
import { request, ownPathForRecord } from '../lib.js';

/** A record of the check's own for `op`'s path (never an invented id), or why none could be had. */
export async function pathFor(ctx: CheckContext, op: Operation, salt: number): Promise<RecordPath> {
  if (!op.parameters.some((p) => p.in === 'path')) return { values: {} };
  return ownPathForRecord(ctx, op, salt);
}

/**
 * Where a bound's full set of values goes: the operation on a path of its own (the create, POST
 * /campaign), where a record's bounds are first enforced; an operation on a record's path (the
 * update) is sent the boundaries only (min-1, min, max, max+1), since a server checking a bound
 * twice most often gets one place's boundary wrong, not the type limits. Fixed, so every seed sends the same values.
 */
export const fullSet = onOwnPath;

/** The control of an invalid case: the same path with the valid body the case broke one field of (withControl). */
export function controlled(
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
