import type { Suite } from '../results/model.js';
import type { SpecModel } from '../spec/model.js';
import { operationLabel, type PlannedCheck } from './run.js';

/**
 * The request budget. A live server on the development plan allows 100 requests per minute, and a
 * default run there must end within about 3 minutes, burst included (issue 25). The run's time is
 * counted in windows: the burst spends what is left of the window it starts in, then
 * ratelimit.reset-honoured waits for the next, so a run whose requests before the burst stay under
 * three windows' worth ends as the fourth window begins. The checks before the burst get three
 * minutes of the limit less BUDGET_RESERVE: discovery's reads (3), the ratelimit suite's header
 * probes before the burst (up to 7) and a margin, so the burst starts inside the third window.
 * Measured against `vapc serve --rate-limit 100` (bench/RESULTS.md, `npm run bench -- verdict`).
 */
export const BUDGET_MINUTES = 3;
export const BUDGET_RESERVE = 12;
export const DEFAULT_LIMIT_PER_MINUTE = 100;
/** The window X-RateLimit-Limit is read per when no answer showed its length: a minute, as the contract's plans are (section 8). */
export const DEFAULT_WINDOW_MS = 60_000;
export const MAX_DEFAULT_RUNS = 50;
export const MIN_RUNS = 1;

/** Requests per minute at `limit` per window of `windowMs` (a minute when not inferred), capped by --rpm. */
export function perMinute(limit: number | undefined, rpm?: number, windowMs?: number): number {
  const advertised =
    limit === undefined ? Number.POSITIVE_INFINITY : (limit * 60_000) / (windowMs ?? DEFAULT_WINDOW_MS);
  return Math.min(advertised, rpm ?? Number.POSITIVE_INFINITY);
}

/**
 * Requests the pre-burst checks may send, at an advertised limit per window (`windowMs`, inferred
 * from the first answers' X-RateLimit-Reset: src/runner/pacer.ts `inferWindowMs`; a minute when
 * unknown) and the --rpm cap; the 100/min default when nothing is advertised.
 */
export function requestBudget(limit: number | undefined, rpm?: number, windowMs?: number): number {
  const rate = perMinute(limit ?? DEFAULT_LIMIT_PER_MINUTE, rpm, limit === undefined ? undefined : windowMs);
  return Math.max(50, Math.floor(rate * BUDGET_MINUTES) - BUDGET_RESERVE);
}

/**
 * Planned requests of one pair (the check's own estimate, else `runs`); the burst's from the
 * advertised limit when known, and from the requests planned before it (`requestsBefore`: the
 * burst spends what is left of the window it starts in).
 */
export function plannedRequestsOf(
  item: PlannedCheck,
  runs: number,
  spec: SpecModel,
  advertisedLimit?: number,
  requestsBefore?: number,
): number {
  if (item.skip) return 0;
  const options = {
    strictTypes: item.strictTypes ?? false,
    ...(advertisedLimit === undefined ? {} : { advertisedLimit }),
    ...(requestsBefore === undefined ? {} : { requestsBefore }),
    ...(item.covered ? { covered: true } : {}),
  };
  const key = JSON.stringify([runs, options.strictTypes, advertisedLimit, requestsBefore, item.covered === true]);
  let known = estimates.get(spec)?.get(item);
  const cached = known?.get(key);
  if (cached !== undefined) return cached;
  const estimate = item.check.plannedRequests?.(item.operation, runs, spec, options);
  const planned =
    typeof estimate === 'number' && Number.isFinite(estimate) && estimate >= 0 ? Math.ceil(estimate) : runs;
  if (!known) {
    const bySpec = estimates.get(spec) ?? new WeakMap<PlannedCheck, Map<string, number>>();
    estimates.set(spec, bySpec);
    bySpec.set(item, (known = new Map()));
  }
  known.set(key, planned);
  return planned;
}

/**
 * Estimates already asked of a pair, by its arguments: fitting --runs, ordering by value and the
 * budget's cut ask again for the same ones, and a check's estimate is a function of its arguments.
 */
const estimates = new WeakMap<SpecModel, WeakMap<PlannedCheck, Map<string, number>>>();

/** Total planned requests of the pairs outside the burst suite. */
export function preBurstRequests(plan: readonly PlannedCheck[], runs: number, spec: SpecModel): number {
  return plan.filter((p) => !p.burst).reduce((sum, p) => sum + plannedRequestsOf(p, runs, spec), 0);
}

/** The largest runs (≤ MAX_DEFAULT_RUNS) whose pre-burst plan fits the budget; at least MIN_RUNS. */
export function fitRuns(plan: readonly PlannedCheck[], budget: number, spec: SpecModel): number {
  // Planned requests grow with runs: binary search for the largest that fits.
  let lo = MIN_RUNS;
  let hi = MAX_DEFAULT_RUNS;
  if (preBurstRequests(plan, hi, spec) <= budget) return hi;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (preBurstRequests(plan, mid, spec) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface DryRunLine {
  suite: Suite;
  operation: string;
  checks: number;
  requests: number;
  skipped: number;
  /** The fixed inputs its checks try (their `plannedCases`), e.g. `query offset: -1 0 2147483648 ...`. */
  cases?: string[];
}

export interface DryRunPlan {
  lines: DryRunLine[];
  total: number;
  runs: number;
  /** The advertised X-RateLimit-Limit, read per minute unless `windowMs` says otherwise. */
  limitPerMinute?: number;
  /** The window's length inferred from the first answers' X-RateLimit-Reset (pacer.ts `inferWindowMs`); a minute when absent. */
  windowMs?: number;
  /** Projected minutes at the advertised limit (and --rpm cap), the wait for the burst's reset included. */
  projectedMinutes?: number;
  /** With --budget N: what the budget left out. */
  budget?: BudgetCut;
  /** What the plan cannot judge with the given credentials, fixtures and flags: its skips, grouped by reason. */
  unjudged: Array<{ reason: string; checks: number; operations: string[] }>;
}

/**
 * Minutes `total` requests take at `limit` per window (and the --rpm cap): the requests of each
 * window go at once, then the run waits for the next; the last window's requests end the run. A
 * plan with the burst fills the window it starts in, and ratelimit.reset-honoured's last request
 * opens one more: the same count. Undefined when nothing paces the run.
 */
export function projectMinutes(
  total: number,
  limit: number | undefined,
  rpm?: number,
  windowMs?: number,
): number | undefined {
  const windowMinutes = (windowMs ?? DEFAULT_WINDOW_MS) / 60_000;
  const byLimit =
    limit !== undefined && limit > 0 ? Math.max(0, Math.ceil(total / limit) - 1) * windowMinutes : undefined;
  const byRpm = rpm !== undefined && rpm > 0 ? Math.max(0, Math.ceil(total / rpm) - 1) : undefined;
  if (byLimit === undefined && byRpm === undefined) return undefined;
  return Math.max(byLimit ?? 0, byRpm ?? 0);
}

/** Planned requests per suite and operation, and the projected time at the advertised limit per window. */
export function dryRunPlan(
  plan: readonly PlannedCheck[],
  runs: number,
  spec: SpecModel,
  limitPerMinute?: number,
  rpm?: number,
  windowMs?: number,
): DryRunPlan {
  const lines = new Map<string, DryRunLine>();
  let before = 0;
  for (const item of plan) {
    const key = `${item.check.suite}|${operationLabel(item.operation)}`;
    const line = lines.get(key) ?? {
      suite: item.check.suite,
      operation: operationLabel(item.operation),
      checks: 0,
      requests: 0,
      skipped: 0,
    };
    line.checks++;
    if (item.skip) line.skipped++;
    const requests = plannedRequestsOf(item, runs, spec, limitPerMinute, before);
    line.requests += requests;
    before += requests;
    const cases = item.skip ? undefined : item.check.plannedCases?.(item.operation, spec);
    if (cases?.length) line.cases = [...(line.cases ?? []), ...cases.map((c) => `${item.check.id}: ${c}`)];
    lines.set(key, line);
  }
  const all = [...lines.values()];
  const total = all.reduce((s, l) => s + l.requests, 0);
  const out: DryRunPlan = { lines: all, total, runs, unjudged: planSkips(plan) };
  if (limitPerMinute !== undefined) out.limitPerMinute = limitPerMinute;
  if (limitPerMinute !== undefined && windowMs !== undefined) out.windowMs = windowMs;
  const minutes = projectMinutes(total, limitPerMinute, rpm, limitPerMinute === undefined ? undefined : windowMs);
  if (minutes !== undefined) out.projectedMinutes = minutes;
  return out;
}

/** The plan's own skips grouped by reason (destructive not enabled, a fixture missing), the largest group first. */
function planSkips(plan: readonly PlannedCheck[]): DryRunPlan['unjudged'] {
  const groups = new Map<string, { reason: string; checks: number; operations: string[] }>();
  for (const item of plan) {
    if (item.skip === undefined) continue;
    const group = groups.get(item.skip) ?? { reason: item.skip, checks: 0, operations: [] };
    group.checks++;
    const label = operationLabel(item.operation);
    if (!group.operations.includes(label)) group.operations.push(label);
    groups.set(item.skip, group);
  }
  return [...groups.values()].sort((a, b) => b.checks - a.checks);
}

/** How the dry run names the pace: `100 requests/minute` or `20 requests per 2 s window (inferred from X-RateLimit-Reset)`. */
function paceText(dry: DryRunPlan): string {
  if (dry.limitPerMinute === undefined) return 'the --rpm cap';
  if (dry.windowMs === undefined || dry.windowMs === DEFAULT_WINDOW_MS) {
    const how =
      dry.windowMs === undefined
        ? "X-RateLimit-Limit read per minute, as the contract's plans are"
        : 'a 60 s window, inferred from X-RateLimit-Reset';
    return `${dry.limitPerMinute} requests/minute (${how})`;
  }
  return `${dry.limitPerMinute} requests per ${dry.windowMs / 1000} s window (inferred from X-RateLimit-Reset on the first answer of a fresh window)`;
}

export function renderDryRun(dry: DryRunPlan): string {
  const lines = [`planned requests (runs=${dry.runs} generated cases per property):`];
  const width = Math.max(10, ...dry.lines.map((l) => l.operation.length));
  for (const l of dry.lines) {
    const skipped = l.skipped > 0 ? `  (${l.skipped} skipped)` : '';
    lines.push(
      `  ${l.suite.padEnd(11)} ${l.operation.padEnd(width)} ${String(l.checks).padStart(3)} checks ${String(l.requests).padStart(6)} requests${skipped}`,
    );
    for (const c of l.cases ?? []) lines.push(`      ${c}`);
  }
  lines.push(`  total ${dry.total} requests (discovery's few reads not counted)`);
  if (dry.projectedMinutes !== undefined) {
    lines.push(
      `projected time at ${paceText(dry)}: ${dry.projectedMinutes.toFixed(1)} min (each window's requests at once, then the wait for the next; the burst fills its window)`,
    );
  } else {
    lines.push(
      'projected time: the target advertises no rate limit (no X-RateLimit-Limit header); nothing paces the run',
    );
  }
  if (dry.budget) lines.push(...budgetLines(dry.budget));
  if (dry.unjudged.length > 0) {
    lines.push('not judged by this plan (the credentials, fixtures and flags given):');
    for (const u of dry.unjudged) lines.push(`  ${u.checks} check(s) on ${u.operations.join(', ')}: ${u.reason}`);
  }
  return `${lines.join('\n')}\n`;
}

/** What --budget N left out, for the console: one line, then the pairs (the first 20). */
export function budgetLines(cut: BudgetCut): string[] {
  const left = cut.left_out.reduce((s, l) => s + l.requests, 0);
  if (cut.left_out.length === 0) return [`budget ${cut.requests} requests: nothing left out (${cut.planned} planned)`];
  const lines = [
    `budget ${cut.requests} requests: ${cut.planned} planned; left out ${cut.left_out.length} check(s) of ${left} requests (fewest catalogue faults per request):`,
  ];
  for (const l of cut.left_out.slice(0, 20)) lines.push(`  ${l.id} ${l.operation} (${l.requests} requests)`);
  if (cut.left_out.length > 20) lines.push(`  ... and ${cut.left_out.length - 20} more (report.json budget.left_out)`);
  return lines;
}

/** What `--budget N` left out of the plan: report.json's `budget`. */
export interface BudgetCut {
  /** The N of --budget N: requests the plan may send (discovery's few reads not counted). */
  requests: number;
  /** Requests planned after the cut. */
  planned: number;
  /** The check × operation pairs left out, in plan order, with the requests each would have sent. */
  left_out: Array<{ id: string; operation: string; requests: number }>;
}

/** Catalogue faults per planned request of each pair (a check's faults shared among its operations); Infinity when it sends nothing. */
function pairValues(
  plan: readonly PlannedCheck[],
  costs: readonly number[],
  faults: Readonly<Record<string, number>>,
): number[] {
  const pairs = new Map<string, number>();
  for (const item of plan) pairs.set(item.check.id, (pairs.get(item.check.id) ?? 0) + 1);
  return plan.map((item, i) =>
    costs[i] === 0 ? Number.POSITIVE_INFINITY : (faults[item.check.id] ?? 1) / pairs.get(item.check.id)! / costs[i]!,
  );
}

/**
 * The run's order: the checks most likely to catch a fault early. Suites keep together (the console
 * groups by suite) and are ordered by their catalogue faults per planned request; the ratelimit
 * suite stays last, in the registry's order (its burst spends the window). Within another suite, pairs go by faults per request,
 * destructive ones last (a regenerated key changes the credentials of what follows); ties keep
 * the registry's order.
 */
export function orderByValue(
  plan: readonly PlannedCheck[],
  runs: number,
  spec: SpecModel,
  faults: Readonly<Record<string, number>> = {},
): PlannedCheck[] {
  const costs = plan.map((item) => plannedRequestsOf(item, runs, spec));
  const values = pairValues(plan, costs, faults);
  const groups = new Map<Suite, number[]>();
  plan.forEach((item, i) => groups.set(item.check.suite, [...(groups.get(item.check.suite) ?? []), i]));
  const density = (idx: number[]) => {
    const cost = idx.reduce((s, i) => s + costs[i]!, 0);
    return cost === 0
      ? 0
      : idx.reduce((s, i) => s + (Number.isFinite(values[i]!) ? values[i]! * costs[i]! : 0), 0) / cost;
  };
  const burst = (suite: Suite) => Number(plan[groups.get(suite)![0]!]!.burst === true);
  const suites = [...groups.keys()].sort(
    (a, b) => burst(a) - burst(b) || density(groups.get(b)!) - density(groups.get(a)!),
  );
  const last = (i: number) => Number(plan[i]!.check.destructive === true);
  // A burst suite keeps its own order: its checks read the window the ones before left
  // (headers first, then the burst that spends it, then the wait for its reset).
  const inOrder = (suite: Suite, idx: number[]) =>
    burst(suite) ? idx : idx.sort((a, b) => last(a) - last(b) || values[b]! - values[a]! || a - b);
  return suites.flatMap((suite) => inOrder(suite, groups.get(suite)!).map((i) => plan[i]!));
}

/**
 * `--budget N`: the pairs that catch the most catalogue faults per planned request come first
 * (a check's faults, from src/runner/check-values.ts, shared among the operations it applies to),
 * kept while the planned requests stay within N; pairs that send nothing (skipped) always stay.
 * The kept pairs run in plan order (suites in order, the burst last).
 */
export function applyBudget(
  plan: readonly PlannedCheck[],
  budget: number,
  runs: number,
  spec: SpecModel,
  options: { advertisedLimit?: number; faults?: Readonly<Record<string, number>> } = {},
): { plan: PlannedCheck[]; cut: BudgetCut } {
  const costs = plan.map((item) => plannedRequestsOf(item, runs, spec, options.advertisedLimit));
  const values = pairValues(plan, costs, options.faults ?? {});
  // Pairs that send nothing first (Infinity), then by value; ties in plan order.
  const order = plan
    .map((_, i) => i)
    .sort((a, b) => (values[b]! === values[a]! ? 0 : values[b]! - values[a]!) || a - b);
  const kept = new Set<number>();
  let planned = 0;
  for (const i of order) {
    if (planned + costs[i]! > budget) continue;
    planned += costs[i]!;
    kept.add(i);
  }
  const left_out = plan.flatMap((item, i) =>
    kept.has(i) ? [] : [{ id: item.check.id, operation: operationLabel(item.operation), requests: costs[i]! }],
  );
  return { plan: plan.filter((_, i) => kept.has(i)), cut: { requests: budget, planned, left_out } };
}
