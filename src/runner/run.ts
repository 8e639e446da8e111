import { isToolFault } from '../errors.js';
import type { RunEvents } from '../results/events.js';
import type { CheckResult, Failure, NotJudgedCause, Suite } from '../results/model.js';
import { operationLabel, type Operation } from '../spec/model.js';
import type { Exchange } from '../transport/types.js';
import { sanitizeLine, sanitizeResult } from '../secrets/report.js';
import type { CheckDefinition, CheckOutcome } from '../checks/check.js';
import { burstSuites, GENERIC_PROFILE, suiteOrder, type ContractProfile } from '../checks/profile.js';
import { RECORDED_FAILURES, recordedFailures } from '../checks/outcomes.js';
import { RunAbortedError, type RunContext } from './context.js';
import { markCovered, PassiveJudges, passiveTurns, type Settled } from './passive.js';
import type { PlannedCheck } from './planned.js';

export type { PlannedCheck };

export interface PlanOptions {
  /** Suites to run, default all. */
  suites?: readonly Suite[];
  includeDestructive?: boolean;
  strictTypes?: boolean;
  /** Only these operations (`METHOD /path`), e.g. the ones `--changed-since` selected; default all. */
  operations?: ReadonlySet<string>;
  /** Which operations are destructive or replace a credential (default: GENERIC_PROFILE). */
  profile?: ContractProfile;
}

export { operationLabel };

/** True for a pair with effects outside test data (the check says so, or the profile calls the operation destructive). */
export const isDestructive = (
  check: CheckDefinition,
  op: Operation,
  profile: ContractProfile = GENERIC_PROFILE,
): boolean => Boolean(check.destructive || profile.destructive(op) !== undefined);

/**
 * Orders the work: suites in the profile's order (a burst suite last), within a suite the checks in
 * registry order × the operations in spec order, destructive pairs at the end of their suite and
 * the ones the profile says replace a credential (key regeneration) last of all within it.
 */
export function planChecks(
  checks: readonly CheckDefinition[],
  ctx: Pick<RunContext, 'spec' | 'fixtures'>,
  options: PlanOptions = {},
): PlannedCheck[] {
  const profile = options.profile ?? GENERIC_PROFILE;
  const order = suiteOrder(profile, checks);
  const selected = new Set(options.suites ?? order);
  const bursts = burstSuites(profile);
  const plan: PlannedCheck[] = [];
  for (const suite of order) {
    if (!selected.has(suite)) continue;
    const normal: PlannedCheck[] = [];
    const destructivePairs: PlannedCheck[] = [];
    const credential: PlannedCheck[] = [];
    for (const check of checks.filter((c) => c.suite === suite)) {
      for (const op of ctx.spec.operations) {
        if (options.operations && !options.operations.has(operationLabel(op))) continue;
        if (!check.appliesTo(op, ctx.spec)) continue;
        const item: PlannedCheck = { check, operation: op };
        if (options.strictTypes) item.strictTypes = true;
        if (bursts.has(suite)) item.burst = true;
        const missing = (check.needs ?? []).filter((name) => {
          const value = ctx.fixtures[name];
          return value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
        });
        const destructive = isDestructive(check, op, profile);
        if (destructive && !options.includeDestructive) {
          item.skip = `destructive (${profile.destructive(op) ?? 'effects outside test data'}); run with --include-destructive to exercise it`;
        } else if (missing.length > 0) {
          item.skip = `fixture ${missing.join(', ')} missing: not discovered from the API; set fixtures.${missing[0]} in the config file`;
        }
        if (!destructive) normal.push(item);
        else if (profile.replacesCredential(op)) credential.push(item);
        else destructivePairs.push(item);
      }
    }
    plan.push(...normal, ...destructivePairs, ...credential);
  }
  markCovered(passiveTurns(plan));
  return plan;
}

/** The failures a result keeps: one per finding first, no repeats, at most `max` (see `recordedFailures`). */
export function dedupeFailures(failures: readonly Failure[], max = RECORDED_FAILURES): Failure[] {
  return recordedFailures(failures, max);
}

export interface RunChecksOptions extends PlanOptions {
  events?: RunEvents;
}

export interface RunChecksResult {
  /** One result per pair of the plan, in plan order. */
  results: CheckResult[];
  /** The same results in the order they were done (passive pairs late, or early when they failed): what the coverage log indexes. */
  runOrder: CheckResult[];
  /** Set when the run stopped early (deadline, target stopped answering); the rest is skipped. */
  aborted?: { reason: 'deadline' | 'unreachable'; message: string };
}

function baseResult(item: PlannedCheck): Omit<CheckResult, 'status' | 'message' | 'duration_ms' | 'requests'> {
  return {
    id: item.check.id,
    suite: item.check.suite,
    operation: operationLabel(item.operation),
    rule: item.check.rule,
    contract_ref: item.check.contractRef,
    severity: item.check.severity,
  };
}

function toResult(item: PlannedCheck, outcome: CheckOutcome, durationMs: number, requests: number): CheckResult {
  const result: CheckResult = {
    ...baseResult(item),
    status: outcome.status,
    message: String(outcome.message),
    duration_ms: Math.round(durationMs),
    requests,
  };
  if (outcome.status === 'skipped') result.not_judged = outcome.notJudged;
  if (outcome.status === 'failed') {
    const failures = dedupeFailures(outcome.failures);
    result.failures = failures;
    const repro = failures.find((f) => f.repro)?.repro;
    if (repro) result.repro = repro;
  }
  return result;
}

/**
 * Runs every check × applicable operation in plan order, one CheckResult each. A check that
 * throws is an `error` verdict (the tool's fault, never the server's); a failed outcome without
 * failures is still failed. Each pair runs in its own scope, so requests are counted per result.
 */
export async function runChecks(
  checks: readonly CheckDefinition[],
  ctx: RunContext,
  options: RunChecksOptions = {},
): Promise<RunChecksResult> {
  const plan = planChecks(checks, ctx, options);
  return runPlan(plan, ctx, options.events);
}

/** An exchange heard before the plan ran (discovery), with its operation and the tag of its sender. */
export type HeardAnswer = [exchange: Exchange, op: Operation, checkId: string | undefined];

/** What runPlan hears and tells beside the events: discovery's answers, and the exchanges each passive pair judged (coverage). */
export interface PassiveTaps {
  heard?: readonly HeardAnswer[];
  onJudged?: (exchange: Exchange, checkId: string) => void;
}

/** Announces suite starts and ends as the plan moves from one suite to the next. */
function suiteTracker(
  plan: readonly PlannedCheck[],
  events: RunEvents | undefined,
): { at(index: number): void; end(): void } {
  let current: Suite | undefined;
  return {
    at(index) {
      const suite = plan[index]!.check.suite;
      if (suite === current) return;
      if (current !== undefined) events?.onSuiteEnd?.(current);
      current = suite;
      let count = 0;
      for (let j = index; j < plan.length && plan[j]!.check.suite === suite; j++) count++;
      events?.onSuiteStart?.(suite, count);
    },
    end() {
      if (current !== undefined) events?.onSuiteEnd?.(current);
    },
  };
}

/** Why a pair is not run (the run aborted, the credentials were lost, the plan skips it), or undefined. */
function notRunReason(
  item: PlannedCheck,
  ctx: RunContext,
  aborted: RunChecksResult['aborted'],
): { message: string; cause: NotJudgedCause } | undefined {
  if (aborted) return { message: `not run: ${aborted.message}`, cause: 'aborted' };
  if (ctx.lostCredentials !== undefined && (item.operation?.credentials.length ?? 0) > 0)
    return { message: `not run: ${ctx.lostCredentials}`, cause: 'aborted' };
  return item.skip === undefined ? undefined : { message: item.skip, cause: 'plan' };
}

/** Runs one pair in its own scope: its result (and outcome, when it returned one), or the abort that stopped it. */
async function runPair(
  item: PlannedCheck,
  ctx: RunContext,
  passive: PassiveJudges,
): Promise<{ result: CheckResult; outcome?: CheckOutcome; aborted?: RunAbortedError }> {
  const scoped = passive.has(item)
    ? ctx.scope(item.check.id, item.check.suite, item.operation, passive.tally(item))
    : ctx.scope(item.check.id, item.check.suite, item.operation);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const outcome = await item.check.run(scoped, item.operation);
    if (
      !outcome ||
      typeof outcome !== 'object' ||
      !['passed', 'failed', 'skipped'].includes((outcome as CheckOutcome).status)
    ) {
      throw new Error(`the check returned no valid outcome (${JSON.stringify(outcome)?.slice(0, 80)})`);
    }
    return { result: toResult(item, outcome, performance.now() - started, scoped.requests), outcome };
  } catch (error) {
    // The tool itself is broken (a precompiled validator missing): no verdict of this run can be
    // trusted, so the run stops and the CLI exits 2 with the fix, never a check `error` (exit 1).
    if (isToolFault(error)) throw error;
    if (error instanceof RunAbortedError) {
      return {
        result: {
          ...baseResult(item),
          status: 'skipped',
          message: `not finished: ${error.message}`,
          duration_ms: elapsed(),
          requests: scoped.requests,
          not_judged: { cause: 'aborted' },
        },
        aborted: error,
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return {
      result: {
        ...baseResult(item),
        status: 'error',
        message: `tool error (not a server failure): ${message}`,
        duration_ms: elapsed(),
        requests: scoped.requests,
      },
    };
  }
}

/**
 * Runs the plan in its order, one CheckResult per pair, each made safe and announced as it is
 * recorded. A passive pair (judgeExchange) judges every answer on its operation until it is
 * reported: at once when it fails, else before the ratelimit suite (or at the end), with its own
 * turn's outcome held till then (passive.ts).
 */
export async function runPlan(
  given: readonly PlannedCheck[],
  ctx: RunContext,
  events?: RunEvents,
  taps: PassiveTaps = {},
): Promise<RunChecksResult> {
  const plan = passiveTurns(given);
  // Results in the given order (shard positions name plan order); the run order, which the coverage log indexes, apart.
  const position = new Map(given.map((item, i) => [item, i]));
  const results = new Array<CheckResult>(given.length);
  const runOrder: CheckResult[] = [];
  let aborted: RunChecksResult['aborted'];
  const suites = suiteTracker(plan, events);
  const passive = new PassiveJudges(plan, ctx, toResult);
  const stopListening =
    passive.size > 0 ? ctx.onAnswer((exchange, op, checkId) => passive.judge(exchange, op, checkId)) : () => undefined;
  // Made safe once, here: every sink (live console, reports) then shows the same safe text.
  const record = (result: CheckResult, item: PlannedCheck): void => {
    // The exchanges of others a passive pair judged belong to its result (coverage), told just before it.
    if (taps.onJudged) for (const exchange of passive.judgedBy(item)) taps.onJudged(exchange, item.check.id);
    const safe = sanitizeResult(result, ctx.secrets);
    results[position.get(item)!] = safe;
    runOrder.push(safe);
    events?.onCheckDone?.(safe);
  };
  const recordAll = (settled: Settled[]) => settled.forEach((s) => record(s.result, s.item));
  try {
    // The answers heard before the plan ran (discovery's reads) are judged first.
    for (const [exchange, op, checkId] of taps.heard ?? []) passive.judge(exchange, op, checkId);
    recordAll(passive.failedNow());
    for (const [index, item] of plan.entries()) {
      // The burst and the waits of a burst suite are judged by that suite: passive results are final before it.
      if (item.burst) recordAll(passive.settle());
      if (passive.reported(item)) continue;
      suites.at(index);
      const reason = notRunReason(item, ctx, aborted);
      const ran =
        reason === undefined
          ? await runPair(item, ctx, passive)
          : {
              result: {
                ...baseResult(item),
                status: 'skipped' as const,
                message: reason.message,
                duration_ms: 0,
                requests: 0,
                not_judged: { cause: reason.cause },
              },
            };
      if ('aborted' in ran && ran.aborted) aborted = { reason: ran.aborted.reason, message: ran.aborted.message };
      const held =
        'outcome' in ran &&
        ran.outcome !== undefined &&
        passive.hold(item, ran.outcome, ran.result.duration_ms, ran.result.requests);
      if (!held) {
        passive.close(item);
        record(ran.result, item);
      }
      recordAll(passive.failedNow());
    }
    recordAll(passive.settle());
  } finally {
    stopListening();
  }
  suites.end();
  const down = (list: CheckResult[]) =>
    aborted?.reason === 'unreachable'
      ? list.map((r) => notJudgedWhenDown(r, sanitizeLine(aborted!.message, ctx.secrets)))
      : list;
  return { results: down(results), runOrder: down(runOrder), ...(aborted ? { aborted } : {}) };
}

/**
 * A target that stopped answering is an aborted run, not contract failures: a failed result whose
 * every failure got no response (refused, reset, timed out) before the run gave up is skipped,
 * naming why (`why` already made safe: the result is). A failure that got an answer stays a failure.
 */
export function notJudgedWhenDown(result: CheckResult, why: string): CheckResult {
  if (result.status !== 'failed' || !(result.failures ?? []).every((f) => f.response === undefined)) return result;
  const { failures: _failures, repro: _repro, ...rest } = result;
  return { ...rest, status: 'skipped', message: `not judged: ${why}`, not_judged: { cause: 'aborted' } };
}
