/**
 * What a fault of the catalogue must make fail, as data: the check, and where it matters the
 * operation, the failure's `kind` and the `field` pointer, so that a test proves the RIGHT finding
 * (the clause the fault breaks), not "some result of that check failed for some reason". A plain
 * check id is short for `{ check }`.
 */
import type { CheckResult, FailureKind } from '../../../src/results/model.js';

export interface Catch {
  check: string;
  /** `METHOD /path`: the finding is on this operation. */
  operation?: string;
  /** The failure's kind (FAILURE_KINDS). */
  kind?: FailureKind;
  /** The JSON Pointer of the failure's field, e.g. `/message`. */
  field?: string;
}

export type CatchSpec = string | Catch;

export const catchOf = (spec: CatchSpec): Catch => (typeof spec === 'string' ? { check: spec } : spec);
export const checkOf = (spec: CatchSpec): string => catchOf(spec).check;

/** The failed results of a run that are the finding `spec` names. */
export function caughtBy(results: readonly CheckResult[], spec: CatchSpec): CheckResult[] {
  const want = catchOf(spec);
  return results.filter(
    (r) =>
      r.id === want.check &&
      r.status === 'failed' &&
      (want.operation === undefined || r.operation === want.operation) &&
      (r.failures ?? []).some(
        (f) =>
          (want.kind === undefined || f.kind === want.kind) &&
          (want.field === undefined || f.field?.pointer === want.field),
      ),
  );
}

/** One line naming a catch, for test titles. */
export function describeCatch(spec: CatchSpec): string {
  const c = catchOf(spec);
  const parts = [c.operation, c.kind, c.field].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? `${c.check} (${parts.join(', ')})` : c.check;
}
