import type { RunEvents } from '../results/events.js';
import { SUITES, type CheckResult, type Failure, type Suite } from '../results/model.js';
import { operationLabel, type Operation } from '../spec/model.js';
import { sanitizeLine, sanitizeResult } from '../secrets/report.js';
import type { CheckDefinition, CheckOutcome } from '../checks/check.js';
import { GENERIC_PROFILE, type ContractProfile } from '../checks/profile.js';
import { RECORDED_FAILURES, recordedFailures } from '../checks/outcomes.js';
import { RunAbortedError, type RunContext } from './context.js';

/** One check applied to one operation: the unit that yields one CheckResult. */
export interface PlannedCheck {
  check: CheckDefinition;
  operation: Operation;
  /** Why it will not run (destructive without the flag, fixture missing), when it will not. */
  skip?: string;
  /** Planned under --strict-types (some checks send more cases). */
  strictTypes?: boolean;
}

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
export const isDestructive = (check: CheckDefinition, op: Operation, profile: ContractProfile = GENERIC_PROFILE): boolean =>
  Boolean(check.destructive || profile.destructive(op) !== undefined);

/**
 * Orders the work: suites in the fixed order (ratelimit last), within a suite the checks in
 * registry order × the operations in spec order, destructive pairs at the end of their suite and
 * the ones the profile says replace a credential (key regeneration) last of all within it.
 */
export function planChecks(checks: readonly CheckDefinition[], ctx: Pick<RunContext, 'spec' | 'fixtures'>, options: PlanOptions = {}): PlannedCheck[] {
  const selected = new Set(options.suites ?? SUITES);
  const profile = options.profile ?? GENERIC_PROFILE;
  const plan: PlannedCheck[] = [];
  for (const suite of SUITES) {
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
  results: CheckResult[];
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
export async function runChecks(checks: readonly CheckDefinition[], ctx: RunContext, options: RunChecksOptions = {}): Promise<RunChecksResult> {
  const plan = planChecks(checks, ctx, options);
  return runPlan(plan, ctx, options.events);
}

export async function runPlan(plan: readonly PlannedCheck[], ctx: RunContext, events?: RunEvents): Promise<RunChecksResult> {
  const results: CheckResult[] = [];
  let aborted: RunChecksResult['aborted'];
  let currentSuite: Suite | undefined;
  for (const [index, item] of plan.entries()) {
    const suite = item.check.suite;
    if (suite !== currentSuite) {
      if (currentSuite !== undefined) events?.onSuiteEnd?.(currentSuite);
      currentSuite = suite;
      let count = 0;
      for (let j = index; j < plan.length && plan[j]!.check.suite === suite; j++) count++;
      events?.onSuiteStart?.(suite, count);
    }
    let result: CheckResult;
    if (aborted) {
      result = { ...baseResult(item), status: 'skipped', message: `not run: ${aborted.message}`, duration_ms: 0, requests: 0 };
    } else if (ctx.lostCredentials !== undefined && (item.operation?.credentials.length ?? 0) > 0) {
      result = { ...baseResult(item), status: 'skipped', message: `not run: ${ctx.lostCredentials}`, duration_ms: 0, requests: 0 };
    } else if (item.skip) {
      result = { ...baseResult(item), status: 'skipped', message: item.skip, duration_ms: 0, requests: 0 };
    } else {
      const scoped = ctx.scope(item.check.id, suite, item.operation);
      const started = performance.now();
      try {
        const outcome = await item.check.run(scoped, item.operation);
        if (!outcome || typeof outcome !== 'object' || !['passed', 'failed', 'skipped'].includes((outcome as CheckOutcome).status)) {
          throw new Error(`the check returned no valid outcome (${JSON.stringify(outcome)?.slice(0, 80)})`);
        }
        result = toResult(item, outcome, performance.now() - started, scoped.requests);
      } catch (error) {
        if (error instanceof RunAbortedError) {
          aborted = { reason: error.reason, message: error.message };
          result = { ...baseResult(item), status: 'skipped', message: `not finished: ${error.message}`, duration_ms: Math.round(performance.now() - started), requests: scoped.requests };
        } else {
          const message = error instanceof Error ? error.message : String(error);
          result = {
            ...baseResult(item),
            status: 'error',
            message: `tool error (not a server failure): ${message}`,
            duration_ms: Math.round(performance.now() - started),
            requests: scoped.requests,
          };
        }
      }
    }
    // Made safe once, here: every sink (live console, reports) then shows the same safe text.
    result = sanitizeResult(result, ctx.secrets);
    results.push(result);
    events?.onCheckDone?.(result);
  }
  if (currentSuite !== undefined) events?.onSuiteEnd?.(currentSuite);
  return aborted ? { results: aborted.reason === 'unreachable' ? results.map((r) => notJudgedWhenDown(r, sanitizeLine(aborted!.message, ctx.secrets))) : results, aborted } : { results };
}

/**
 * A target that stopped answering is an aborted run, not contract failures: a failed result whose
 * every failure got no response (refused, reset, timed out) before the run gave up is skipped,
 * naming why (`why` already made safe: the result is). A failure that got an answer stays a failure.
 */
export function notJudgedWhenDown(result: CheckResult, why: string): CheckResult {
  if (result.status !== 'failed' || !(result.failures ?? []).every((f) => f.response === undefined)) return result;
  const { failures: _failures, repro: _repro, ...rest } = result;
  return { ...rest, status: 'skipped', message: `not judged: ${why}` };
}
