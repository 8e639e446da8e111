import { FAILURE_KINDS, normalisePointer, type CheckResult, type Failure } from '../results/model.js';
import { legacyKindOfIssue, legacyKindsOfFailure } from '../results/legacy.js';

/**
 * The kind of a finding in a baseline signature (check id, operation, kind): what went wrong,
 * read from the failure's `kind` and `field` (data, never its wording), without the values the
 * run generated, so the same deviation gets the same signature whatever the seed, the number of
 * runs or the data the server holds:
 * - the status kinds (a wrong status, an invalid input accepted, a valid one refused, an
 *   undocumented status) are `status:<class>xx` of the status answered, so 400 and 409 stay one
 *   finding; `no-response` when there was no answer;
 * - a kind with a field is `<kind> <location> <pointer>`, array indices as `*`, e.g.
 *   `schema response /*\/duration_seconds`, `loc body /max_concurrency`;
 * - any other kind is the kind itself (`content-type`, `mismatch`, ...).
 * Failures of report.json files written before `kind` existed are read from their prose
 * (src/results/legacy.ts).
 */
export type FindingKind = string;

const STATUS_KINDS: ReadonlySet<string> = new Set([
  FAILURE_KINDS.status,
  FAILURE_KINDS.acceptedInvalid,
  FAILURE_KINDS.rejectedValid,
  FAILURE_KINDS.undocumentedStatus,
]);

/** The signature kind of a failure that carries `kind`. */
export function kindOfFailure(failure: Pick<Failure, 'kind' | 'field' | 'response'> & { kind: string }): FindingKind {
  if (STATUS_KINDS.has(failure.kind)) {
    return failure.response ? `status:${String(failure.response.status).charAt(0)}xx` : FAILURE_KINDS.noResponse;
  }
  if (!failure.field) return failure.kind;
  const pointer = normalisePointer(String(failure.field.pointer ?? ''), failure.field.location);
  return `${failure.kind} ${failure.field.location} ${pointer || '/'}`;
}

/** The old wording's kind of one issue line (kept for reports written before `kind`). */
export const kindOfIssue = legacyKindOfIssue;

/** The kinds of one failure: its own, or for an old report's failure, those its prose implies. */
export function kindsOfFailure(failure: Pick<Failure, 'kind' | 'field' | 'actual' | 'response'>): FindingKind[] {
  if (typeof failure.kind === 'string') return [kindOfFailure({ ...failure, kind: failure.kind })];
  return legacyKindsOfFailure(failure);
}

/** The kinds of a failed result across all its failures (an old result without details: from its message). */
export function kindsOfResult(result: Pick<CheckResult, 'status' | 'failures' | 'message'>): FindingKind[] {
  if (result.status !== 'failed') return [];
  const failures = result.failures && result.failures.length > 0 ? result.failures : [{ actual: result.message }];
  return [...new Set(failures.flatMap((f) => kindsOfFailure(f)))].sort();
}
