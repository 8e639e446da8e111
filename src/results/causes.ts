/**
 * One cause, one finding: failed results grouped by what broke, so one wrong header or one 422
 * `loc` bug reads as one cause touching many checks instead of dozens of failures. A pure read of
 * the failures' data (`kind`, `field`), never of their prose; report.json keeps every failure.
 *
 * A cause is (kind, field location, field pointer with array indices as `*`, operation family).
 * The operation family is the path without the method (`GET /agents/{id}` and `PATCH /agents/{id}`
 * share one), or every operation (`*`) for a response header, which the server sets in one place.
 * The kinds about the 422 body's shape (`loc`, `validation-body`) are the server's one validation
 * error handler, not the field sent: their cause is (kind, location) on every operation, any field.
 * A failure without a kind falls back to its own (check, operation); one with a kind but no field
 * to (kind, check, operation): nothing is merged on a guess, and nothing is lost.
 */

import type { CheckResult, Failure, Suite } from './model.js';
import { FAILURE_KINDS, normalisePointer } from './model.js';

export interface Cause {
  /** A stable key: `kind location pointer @ family`, or `check operation` for a failure without kind. */
  key: string;
  /** The failure kind, when the failures had one. */
  kind?: string;
  /** Where (normalised pointer: array indices as `*`, header names lower-cased). */
  location?: string;
  pointer?: string;
  /** The path the cause is on, or `*` for all operations. */
  family: string;
  /** Failures (not results) with this cause. */
  failures: number;
  /** Failed results (check x operation) with at least one failure of this cause. */
  results: number;
  /** The check ids, operations and suites it touched, in first-seen order. */
  checks: string[];
  operations: string[];
  suites: Suite[];
}

/** Kinds whose fault is in how the server builds every 422, whatever field was sent (see above). */
export const HANDLER_WIDE_KINDS: ReadonlySet<string> = new Set([FAILURE_KINDS.loc, FAILURE_KINDS.validationBody]);

/** The operation family: the path without the method; `*` for a response header or a cross-operation check. */
export function familyOf(operation: string, location?: string): string {
  if (location === 'response-header' || operation === '*') return '*';
  const space = operation.indexOf(' ');
  return space > 0 ? operation.slice(space + 1) : operation;
}

interface CauseId {
  key: string;
  kind?: string;
  location?: string;
  pointer?: string;
  family: string;
}

/** The cause one failure of a result belongs to. */
export function causeOf(result: CheckResult, failure: Failure | undefined): CauseId {
  const kind = typeof failure?.kind === 'string' && failure.kind !== '' ? failure.kind : undefined;
  const field = failure?.field;
  if (kind === undefined) return { key: `${result.id} ${result.operation}`, family: result.operation };
  if (!field) return { key: `${kind} (${result.id} ${result.operation})`, kind, family: result.operation };
  const wide = HANDLER_WIDE_KINDS.has(kind);
  const pointer = wide ? '*' : normalisePointer(field.pointer, field.location);
  const family = wide ? '*' : familyOf(result.operation, field.location);
  return {
    key: `${kind} ${field.location} ${pointer === '' ? '(whole)' : pointer} @ ${family}`,
    kind,
    location: field.location,
    pointer,
    family,
  };
}

const addOnce = <T>(list: T[], item: T): void => {
  if (!list.includes(item)) list.push(item);
};

/**
 * The causes of the failed results given (pass only the ones to show, e.g. the new ones under a
 * baseline), most failures first, then by key. A failed result without failures counts as one.
 */
export function groupCauses(results: readonly CheckResult[]): Cause[] {
  const byKey = new Map<string, Cause>();
  for (const r of results) {
    if (r.status !== 'failed') continue;
    const failures: Array<Failure | undefined> = r.failures && r.failures.length > 0 ? r.failures : [undefined];
    const seen = new Set<string>();
    for (const f of failures) {
      const id = causeOf(r, f);
      let cause = byKey.get(id.key);
      if (!cause) {
        cause = { ...id, failures: 0, results: 0, checks: [], operations: [], suites: [] };
        byKey.set(id.key, cause);
      }
      cause.failures += 1;
      if (!seen.has(id.key)) cause.results += 1;
      seen.add(id.key);
      addOnce(cause.checks, r.id);
      addOnce(cause.operations, r.operation);
      addOnce(cause.suites, r.suite);
    }
  }
  return [...byKey.values()].sort((a, b) => b.failures - a.failures || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Whether grouping says more than the per-check list: some cause touches two or more failed results. */
export const causesGroup = (causes: readonly Cause[]): boolean => causes.some((c) => c.results > 1);

/** The keys of the causes of one result (for a JUnit message, a per-result note). */
export function causeKeysOf(result: CheckResult): string[] {
  const failures: Array<Failure | undefined> =
    result.failures && result.failures.length > 0 ? result.failures : [undefined];
  const keys: string[] = [];
  for (const f of failures) addOnce(keys, causeOf(result, f).key);
  return keys;
}

/** A suite whose failures all come from one cause that other suites share too. */
export interface SharedCauseNote {
  suite: Suite;
  failed: number;
  cause: Cause;
}

/**
 * Suites whose failed results all have one and the same cause, when that cause also touched
 * another suite: the per-suite count is exact, but the behaviour the suite tests may be fine.
 */
export function sharedCauseNotes(results: readonly CheckResult[], causes: readonly Cause[]): SharedCauseNote[] {
  const byKey = new Map(causes.map((c) => [c.key, c]));
  const perSuite = new Map<Suite, { failed: number; keys: Set<string> }>();
  for (const r of results) {
    if (r.status !== 'failed') continue;
    const entry = perSuite.get(r.suite) ?? { failed: 0, keys: new Set<string>() };
    entry.failed += 1;
    for (const k of causeKeysOf(r)) entry.keys.add(k);
    perSuite.set(r.suite, entry);
  }
  const notes: SharedCauseNote[] = [];
  for (const [suite, { failed, keys }] of perSuite) {
    if (keys.size !== 1) continue;
    const cause = byKey.get([...keys][0]!);
    if (cause && cause.suites.length > 1) notes.push({ suite, failed, cause });
  }
  return notes;
}

/** A short name of a cause for people: `schema at response-header /x-ratelimit-reset (all operations)`. */
export function causeLabel(c: Cause): string {
  if (c.location === undefined)
    return c.kind !== undefined
      ? `${c.kind} in ${c.checks[0] ?? ''} ${c.operations[0] ?? ''}`
      : `${c.checks[0] ?? ''} ${c.operations[0] ?? ''}`;
  const where =
    c.pointer === '' ? c.location : c.pointer === '*' ? `${c.location}, any field` : `${c.location} ${c.pointer}`;
  return `${c.kind} at ${where} (${c.family === '*' ? 'all operations' : c.family})`;
}
