/**
 * Coverage as a pure function of the universe (spec), the plan, the exchange log and the results:
 * a cell is `judged-pass`/`judged-fail` when a check that passed/failed sent an exchange touching
 * it, `sent` when only checks that did not judge (skipped, tool error) or 429 retries outside the
 * ratelimit suite touched it, `not-sent` otherwise, with the reason the plan gives.
 */
import type { Coverage, CoverageCell, CoverageState, UndocumentedStatus } from '../results/coverage.js';
import type { CheckResult } from '../results/model.js';
import { blankCell, type CellDef, type Universe } from './universe.js';
import type { ExchangeRecord } from './log.js';

/** A pair of the whole plan (check × operation), with the reason it will not run, if it will not. */
export interface PlanPair {
  suite: string;
  operation: string;
  skip?: string;
  destructive?: boolean;
}

export const STATE_RANK: Record<CoverageState, number> = { 'not-sent': 0, sent: 1, 'judged-pass': 2, 'judged-fail': 3 };

export const REASONS = {
  notPlanned: 'not in the plan: no selected check applies to its operation',
  destructive: 'destructive, not enabled: the operation has effects outside test data (--include-destructive)',
  fixture: 'a fixture the checks need is missing (set it in the config file)',
  skippedPlan: 'every planned check of its operation is skipped',
  serverError: 'not reachable by the contract: no valid or invalid request is meant to produce it',
  statusNotProvoked: 'no planned check provoked this status',
  rateLimitElsewhere:
    'the rate-limit burst runs on one operation; the limiter is shared, so 429 is not provoked again here',
  noInvalidInput: 'not reachable by the contract: no input of the operation has a constraint a request could break',
  notProbed: 'no planned check sent a request that probes it',
  sentOnly: 'sent, but not judged: only checks that were skipped or could not run, or 429 retries, touched it',
} as const;

const isJudged = (state: CoverageState): boolean => state === 'judged-pass' || state === 'judged-fail';

export function summarizeCoverage(cells: readonly CoverageCell[]): Coverage['summary'] {
  const judged = cells.filter((c) => isJudged(c.state)).length;
  const sent = cells.filter((c) => c.state === 'sent').length;
  const percent = cells.length === 0 ? 100 : Math.floor((judged * 1000) / cells.length) / 10;
  return { cells: cells.length, judged, sent, not_sent: cells.length - judged - sent, percent };
}

/** Whether the operation of a cell has any keyword a request could break (else a 422 cannot be provoked). */
const constrained = (def: CellDef, universe: Universe): boolean =>
  (universe.byOperation.get(def.operation)?.cells ?? []).some((c) => c.dimension === 'keyword');

/** Why nothing judged a cell, from the whole plan (so every shard gives the same reason). */
function reasonOf(
  def: CellDef,
  state: CoverageState,
  pairsOn: (operation: string) => readonly PlanPair[],
  universe: Universe,
): string | undefined {
  if (isJudged(state)) return undefined;
  if (state === 'sent') return REASONS.sentOnly;
  const onOp = pairsOn(def.operation);
  if (onOp.length === 0) return REASONS.notPlanned;
  const running = onOp.filter((p) => p.skip === undefined);
  if (running.length === 0) {
    if (onOp.every((p) => p.destructive)) return REASONS.destructive;
    return onOp.some((p) => /fixture/.test(p.skip ?? '')) ? REASONS.fixture : REASONS.skippedPlan;
  }
  if (def.dimension === 'status' || def.dimension === 'response' || def.dimension === 'header') {
    if (/^5|default/i.test(def.status ?? '')) return REASONS.serverError;
    if (def.status === '429') return REASONS.rateLimitElsewhere;
    if (/^(400|422)$/.test(def.status ?? '') && !constrained(def, universe)) return REASONS.noInvalidInput;
    return REASONS.statusNotProvoked;
  }
  return REASONS.notProbed;
}

/** The plan pairs on an operation (those on every operation, `*`, included), in plan order; each list built once. */
function planPairsOn(plan: readonly PlanPair[]): (operation: string) => readonly PlanPair[] {
  const lists = new Map<string, PlanPair[]>();
  return (operation) => {
    let list = lists.get(operation);
    if (!list) lists.set(operation, (list = plan.filter((p) => p.operation === operation || p.operation === '*')));
    return list;
  };
}

/**
 * Does the exchange's answer count as judged by its check? Only an answer the one verdict path
 * judged (`record.judged`: not a 429 retry, not an open rule, not a probe the check set aside), in
 * a result that passed or failed.
 */
function judgedBy(
  record: ExchangeRecord,
  result: Pick<CheckResult, 'id' | 'status' | 'suite'> | undefined,
  burstSuites: ReadonlySet<string> = new Set(),
): CheckResult['status'] | undefined {
  if (!result || result.id !== record.check || !record.judged) return undefined;
  if (record.status === 429 && !burstSuites.has(result.suite)) return undefined;
  return result.status === 'passed' || result.status === 'failed' ? result.status : undefined;
}

/**
 * The header cells a failed result's own failures name (a documented header the answer lacked: the
 * answer did not carry it, so it touched no cell, but it was judged, and failed, on it).
 */
function failedHeaderCells(
  record: ExchangeRecord,
  result: Pick<CheckResult, 'failures'> | undefined,
  universe: Universe,
): string[] {
  if (!record.documented) return [];
  const names = new Set(
    (result?.failures ?? [])
      .filter((f) => f.field?.location === 'response-header' && f.response?.status === record.status)
      .map((f) => String(f.field!.pointer).replace(/^\//, '').toLowerCase()),
  );
  if (names.size === 0) return [];
  const cells = universe.byOperation.get(record.operation)?.cells ?? [];
  return cells
    .filter((c) => c.dimension === 'header' && c.status === record.documented && names.has(c.responseHeader ?? ''))
    .map((c) => c.key);
}

export interface CoverageInput {
  universe: Universe;
  records: readonly ExchangeRecord[];
  /** The run's results, in run order (ExchangeRecord.pair indexes them); their failures name the header cells an absent header failed. */
  results: ReadonlyArray<Pick<CheckResult, 'id' | 'status' | 'suite' | 'failures'>>;
  /** The whole plan (all shards), for the reasons of cells nothing judged. */
  plan: readonly PlanPair[];
  /** Statuses the contract leaves open whatever the request (the profile's `leftOpenStatuses`). */
  leftOpen?: ReadonlyArray<{ status: number; rule: string }>;
  /** The suites whose judged 429 answers count (the profile's burst suites); elsewhere a 429 judges no cell. */
  burstSuites?: ReadonlySet<string>;
}

export function computeCoverage(input: CoverageInput): Coverage {
  const tally = new Map<string, { requests: number; pass: Set<string>; fail: Set<string> }>();
  const undocumented = new Map<string, UndocumentedStatus>();
  for (const record of input.records) {
    const result = input.results[record.pair];
    const verdict = judgedBy(record, result, input.burstSuites);
    const extra = verdict === 'failed' ? failedHeaderCells(record, result, input.universe) : [];
    for (const key of extra.length ? [...new Set([...record.cells, ...extra])] : record.cells) {
      let t = tally.get(key);
      if (!t) tally.set(key, (t = { requests: 0, pass: new Set(), fail: new Set() }));
      if (!record.passive) t.requests++;
      if (verdict === 'passed') t.pass.add(record.check);
      if (verdict === 'failed') t.fail.add(record.check);
    }
    if (record.status !== undefined && record.documented === undefined && !record.passive) {
      const key = `${record.operation} ${record.status}`;
      const u = undocumented.get(key) ?? {
        operation: record.operation,
        status: record.status,
        requests: 0,
        checks: [],
      };
      u.requests++;
      if (record.unknownId) u.unknown_id_requests = (u.unknown_id_requests ?? 0) + 1;
      if (!u.checks.includes(record.check)) u.checks = [...u.checks, record.check].sort();
      undocumented.set(key, u);
    }
  }
  const pairsOn = planPairsOn(input.plan);
  const cells = input.universe.cells.map((def) => {
    const cell = blankCell(def);
    const t = tally.get(def.key);
    if (t) {
      cell.requests = t.requests;
      cell.checks = [...new Set([...t.pass, ...t.fail])].sort();
      cell.state = t.fail.size > 0 ? 'judged-fail' : t.pass.size > 0 ? 'judged-pass' : 'sent';
    }
    const reason = reasonOf(def, cell.state, pairsOn, input.universe);
    if (reason) cell.reason = reason;
    return cell;
  });
  const out: Coverage = { summary: summarizeCoverage(cells), cells };
  const list = [...undocumented.values()].sort((a, b) => a.operation.localeCompare(b.operation) || a.status - b.status);
  for (const u of list) {
    const open = input.leftOpen?.find((r) => r.status === u.status);
    if (open) u.left_open = open.rule;
  }
  if (list.length > 0) out.undocumented_statuses = list;
  return out;
}
