import { causeOf } from '../results/causes.js';
import type { BaselineMark, CheckResult, NotObservedEntry, RunReport } from '../results/model.js';
import { printable } from '../results/printable.js';
import { signatureOf, TODO_REASON, type Baseline, type BaselineEntry } from './file.js';
import { kindsOfFailure, kindsOfResult } from './kind.js';

/**
 * The baseline applied to a run: pure functions from a RunReport and a Baseline to a new
 * RunReport (known findings marked, counts added, entries not seen listed), and to the entries
 * --write-baseline and --prune-baseline write. No file, console or process here.
 */

export interface ApplyOptions {
  /** The baseline file as the user named it (shown in reports). */
  file: string;
  /** Today, YYYY-MM-DD: an entry whose `expires` is before today has expired. */
  today: string;
}

/** An entry counts until the end of its `expires` day. */
export const isExpired = (entry: Pick<BaselineEntry, 'expires'>, today: string): boolean =>
  entry.expires !== undefined && entry.expires < today;

const pairKey = (check: string, operation: string): string => `${check}\u0000${operation}`;

/** The findings of a run: one (check, operation, kind) per kind of each failed result, sorted, without repeats. */
export function findingsOf(
  report: Pick<RunReport, 'results'>,
): Array<Pick<BaselineEntry, 'check' | 'operation' | 'kind'>> {
  const out = new Map<string, Pick<BaselineEntry, 'check' | 'operation' | 'kind'>>();
  for (const r of report.results) {
    for (const kind of kindsOfResult(r)) {
      const f = { check: r.id, operation: r.operation, kind };
      out.set(signatureOf(f), f);
    }
  }
  return [...out.values()];
}

/** How a failed result stands against the baseline. */
export function markResult(
  result: CheckResult,
  index: ReadonlyMap<string, BaselineEntry>,
  today: string,
): BaselineMark {
  const kinds = kindsOfResult(result);
  const matched = kinds.map((kind) => index.get(signatureOf({ check: result.id, operation: result.operation, kind })));
  const entries = matched.filter((e): e is BaselineEntry => e !== undefined);
  const newKinds = kinds.filter((_, i) => matched[i] === undefined);
  const expired = entries.some((e) => isExpired(e, today));
  const mark: BaselineMark = { known: kinds.length > 0 && newKinds.length === 0 && !expired, kinds };
  if (entries.length > 0) {
    // The baseline file is the checkout's (a pull request can edit it): its text is shown as data.
    mark.reason = printable([...new Set(entries.map((e) => e.reason))].join('; '));
    const dates = entries
      .map((e) => e.expires)
      .filter((d): d is string => d !== undefined)
      .sort();
    if (dates[0] !== undefined) mark.expires = dates[0];
  }
  if (expired) mark.expired = true;
  if (newKinds.length > 0) mark.new_kinds = newKinds;
  return mark;
}

/** The status of each check × operation this run (a pair that failed anywhere counts as failed). */
function pairStatuses(report: Pick<RunReport, 'results'>): Map<string, CheckResult['status']> {
  const rank: Record<CheckResult['status'], number> = { failed: 3, error: 2, passed: 1, skipped: 0 };
  const out = new Map<string, CheckResult['status']>();
  for (const r of report.results) {
    const key = pairKey(r.id, r.operation);
    const before = out.get(key);
    if (before === undefined || rank[r.status] > rank[before]) out.set(key, r.status);
  }
  return out;
}

/** The report with the baseline applied: failed results marked, summary counts, entries not observed. */
export function applyBaseline(report: RunReport, baseline: Baseline, options: ApplyOptions): RunReport {
  const index = new Map(baseline.findings.map((e) => [signatureOf(e), e]));
  const observed = new Set<string>();
  let known = 0;
  let expired = 0;
  const results = report.results.map((r) => {
    if (r.status !== 'failed') return r;
    const mark = markResult(r, index, options.today);
    for (const kind of mark.kinds) observed.add(signatureOf({ check: r.id, operation: r.operation, kind }));
    if (mark.known) known += 1;
    if (mark.expired) expired += 1;
    return { ...r, baseline: mark };
  });
  const statuses = pairStatuses(report);
  const notObserved: NotObservedEntry[] = baseline.findings
    .filter((e) => !observed.has(signatureOf(e)))
    .map((e) => ({
      check: printable(e.check),
      operation: printable(e.operation),
      kind: printable(e.kind),
      reason: printable(e.reason),
      ...(e.expires !== undefined ? { expires: e.expires } : {}),
      this_run: statuses.get(pairKey(e.check, e.operation)) ?? 'not-run',
    }));
  const failed = results.filter((r) => r.status === 'failed').length;
  return {
    ...report,
    summary: { ...report.summary, new_failures: failed - known, known },
    results,
    baseline: {
      file: printable(options.file),
      entries: baseline.findings.length,
      known,
      new_failures: failed - known,
      expired,
      not_observed: notObserved,
    },
  };
}

/**
 * Entries --prune-baseline may drop: their check and operation ran this run and did not fail
 * (passed). Entries of checks that were skipped, errored, not selected or failed otherwise stay.
 */
export function prunable(baseline: Baseline, report: Pick<RunReport, 'results'>): BaselineEntry[] {
  const statuses = pairStatuses(report);
  return baseline.findings.filter((e) => statuses.get(pairKey(e.check, e.operation)) === 'passed');
}

/**
 * The cause of each finding of a run (by signature): the `Cause.key` of the failures that gave it
 * (src/results/causes.ts), several joined with "; " in order. A failed result without failures has
 * the cause of its check and operation.
 */
export function causesOfFindings(report: Pick<RunReport, 'results'>): Map<string, string> {
  const causes = new Map<string, Set<string>>();
  const add = (signature: string, cause: string) =>
    causes.set(signature, (causes.get(signature) ?? new Set()).add(cause));
  for (const r of report.results) {
    if (r.status !== 'failed') continue;
    if (!r.failures || r.failures.length === 0) {
      for (const kind of kindsOfResult(r))
        add(signatureOf({ check: r.id, operation: r.operation, kind }), causeOf(r, undefined).key);
      continue;
    }
    for (const f of r.failures)
      for (const kind of kindsOfFailure(f))
        add(signatureOf({ check: r.id, operation: r.operation, kind }), causeOf(r, f).key);
  }
  return new Map([...causes].map(([sig, keys]) => [sig, [...keys].sort().join('; ')]));
}

/**
 * The entries --write-baseline writes: every finding of this run with its cause (an entry of
 * `previous` with the same signature keeps its reason and expiry; a new one gets the TODO reason),
 * plus the entries of `previous` not seen this run, unless `prune` is set and they are prunable.
 */
export function entriesToWrite(
  report: Pick<RunReport, 'results'>,
  previous?: Baseline,
  prune = false,
): BaselineEntry[] {
  const index = new Map((previous?.findings ?? []).map((e) => [signatureOf(e), e]));
  const causes = causesOfFindings(report);
  const out = new Map<string, BaselineEntry>();
  for (const f of findingsOf(report)) {
    const sig = signatureOf(f);
    const cause = causes.get(sig);
    out.set(sig, { ...(index.get(sig) ?? { ...f, reason: TODO_REASON }), ...(cause !== undefined ? { cause } : {}) });
  }
  const drop = new Set(prune && previous ? prunable(previous, report).map(signatureOf) : []);
  for (const [sig, e] of index) if (!out.has(sig) && !drop.has(sig)) out.set(sig, e);
  return [...out.values()];
}

/** --prune-baseline alone: the entries of `previous` that stay (all but the prunable ones). */
export function prunedEntries(
  previous: Baseline,
  report: Pick<RunReport, 'results'>,
): { kept: BaselineEntry[]; dropped: BaselineEntry[] } {
  const drop = new Set(prunable(previous, report).map(signatureOf));
  return {
    kept: previous.findings.filter((e) => !drop.has(signatureOf(e))),
    dropped: previous.findings.filter((e) => drop.has(signatureOf(e))),
  };
}
