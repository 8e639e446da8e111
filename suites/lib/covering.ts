/**
 * Covering designs over operations (issue 25): fixed variants (malformations, body shapes) sent so
 * that every variant goes out at least once and every operation gets at least one, the same on
 * every seed (issue 23), rather than every variant to every operation.
 */
import type { Operation } from '../../src/spec/model.js';

/** The operation with a body on a path of its own (POST /campaign): where the whole set of body variants goes. */
export const onOwnPath = (op: Operation): boolean => !op.parameters.some((p) => p.in === 'path');

/**
 * The variants an operation is sent: all of them on an operation on a path of its own (the create,
 * where a body is first parsed); one each, in a fixed rotation over the contract's operations with
 * a body and a path parameter, on the others.
 */
export function coveringShare<T>(spec: { operations: Operation[] }, op: Operation, all: readonly T[]): T[] {
  if (onOwnPath(op) || all.length === 0) return [...all];
  const onPaths = spec.operations.filter((o) => o.requestBody && !onOwnPath(o));
  return [all[Math.max(0, onPaths.indexOf(op)) % all.length]!];
}
