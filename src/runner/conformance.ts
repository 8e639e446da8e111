import { VapcError } from '../errors.js';
import { packageVersion } from '../paths.js';
import type { RunEvents, RunPlan } from '../results/events.js';
import type { RunConfig } from '../results/run-config.js';
import type { WorkflowCoverage } from '../results/workflows.js';
import { summarize, type RateLimitWindow, type RunReport, type Suite } from '../results/model.js';
import { loadSpec } from '../spec/load.js';
import type { SpecModel } from '../spec/model.js';
import {
  createUndiciTransport,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT_MS,
  parseBaseUrl,
} from '../transport/undici.js';
import type { Exchange, Transport } from '../transport/types.js';
import type { Secrets } from '../secrets/index.js';
import { sanitizeConfig, sanitizeLine } from '../secrets/report.js';
import {
  applyBudget,
  dryRunPlan,
  fitRuns,
  orderByValue,
  requestBudget,
  type BudgetCut,
  type DryRunPlan,
} from './budget.js';
import type { RateLimitState } from './pacer.js';
import type { CheckDefinition, Credentials, Fixtures, RequestValidator } from '../checks/check.js';
import { createCheckContext, RunAbortedError, type CheckContextOptions, type RunContext } from './context.js';
import { diagnoseSetup, discoverFixtures, probeConfiguredFixtures, type DiscoveryResult } from './discovery.js';
import { planChecks, runPlan, type HeardAnswer, type PlannedCheck } from './run.js';
import { markCovered, passiveTurns } from './passive.js';
import { validateWireRequest } from '../checks/wire.js';
import { burstSuites, GENERIC_PROFILE, suiteOrder, type ContractProfile } from '../checks/profile.js';
import { shardPositions, type ShardField, type ShardInfo } from '../results/shard.js';
import { composeEvents } from '../results/events.js';
import { coverageTap } from '../coverage/index.js';
import { withVerdict } from '../results/verdict.js';
import { verdictRules } from '../checks/verdict-rules.js';

/** A run with no --seed uses a random seed; it is printed up front and written to report.json. */
export const randomSeed = (): number => Math.floor(Math.random() * 2 ** 31);

/** Default whole-run deadline: far above a 6-minute default run, low enough that a stuck run ends. */
export const DEFAULT_DEADLINE_MS = 20 * 60_000;

/**
 * The part of the whole-run deadline in which requests may start: the rest (a tenth, at most
 * 30 s) is kept for the request in flight and for writing the reports, so the deadline covers the
 * whole run, reports included.
 */
export function sendingWindowMs(deadlineMs: number): number {
  return deadlineMs - Math.min(30_000, Math.floor(deadlineMs / 10));
}

export interface ConformanceOptions {
  baseUrl: string;
  /** The checks to run (the suites' registry). */
  checks: readonly CheckDefinition[];
  /**
   * What the runner must know of the contract beside its checks: discovery, fixture keys, which
   * operations are destructive or replace a credential (this contract's: suites/profile.ts, which
   * the CLI and `voice-agent-contract/runner` pass). Default GENERIC_PROFILE: no discovery.
   */
  profile?: ContractProfile;
  spec?: SpecModel;
  /** A transport to use instead of undici (a recording wrapper, or a test's fake). */
  transport?: Transport;
  credentials?: Credentials;
  /** Configured fixtures; they win over discovered ones. */
  fixtures?: Fixtures;
  suites?: readonly Suite[];
  /** Only the checks of these operations (`METHOD /path`); `focus` says why, for report.json. */
  operations?: ReadonlySet<string>;
  /** Recorded as report.json's `focus` (vapc run --changed-since). */
  focus?: RunReport['focus'];
  seed: number;
  /** Generated cases per property; default: the largest that fits the request budget. */
  runs?: number;
  rpm?: number;
  /** Follow X-RateLimit-* (default true; benchmarks turn pacing off). */
  followRateLimit?: boolean;
  timeoutMs?: number;
  maxBodyBytes?: number;
  deadlineMs?: number;
  includeDestructive?: boolean;
  strictTypes?: boolean;
  dryRun?: boolean;
  /** `--budget N`: plan at most N requests, the checks catching most catalogue faults per request first. */
  budget?: number;
  events?: RunEvents;
  /**
   * Re-validates each request as it went over the wire before a check may call it "invalid input
   * accepted" (default: the project's validators; `false` turns the re-validation off).
   */
  validateRequest?: RequestValidator | false;
  /** The secrets to share (the CLI scrubs its live output with the secrets the run learns). */
  secrets?: Secrets;
  onExchange?: (exchange: Exchange, checkId: string | undefined) => void;
  /** The effective options as the report shows them (already without secrets); the runner adds runs, request_budget, suites and fixtures_sources. */
  config?: RunConfig;
  /**
   * Run only this shard of the plan (see src/results/shard.ts). --runs is sized on the whole plan,
   * so every shard, and an unsharded run, send the same cases for the pairs they share.
   */
  shard?: ShardInfo;
  /** Called with the plan once discovery is done and before any check runs. */
  onPlanned?: (info: { runs: number; discovery: DiscoveryResult; budget: number }) => void;
  /** What workflows of a team's Arazzo files ran (`vapc run --arazzo`): report.json's `workflows`, read when the report is made. */
  workflowCoverage?: () => WorkflowCoverage;
  /** The coverage floor of a whole-plan run, in percent (default DEFAULT_COVERAGE_FLOOR; 0 turns it off): src/results/verdict.ts. */
  coverageFloor?: number;
}

export interface ConformanceResult {
  report: RunReport;
  /** Every literal secret the run knew (credentials, keys and tokens seen), for output scrubbers. */
  secrets: string[];
  discovery: DiscoveryResult;
  /** Set with --dry-run: the plan; no check ran. */
  dryRun?: DryRunPlan;
  /** Set when the run stopped early. */
  aborted?: { reason: 'deadline' | 'unreachable'; message: string };
}

function contextOptions(
  options: ConformanceOptions,
  spec: SpecModel,
  transport: Transport,
  started: number,
): CheckContextOptions {
  const ctxOptions: CheckContextOptions = {
    spec,
    transport,
    credentials: options.credentials ?? {},
    seed: options.seed,
    strictTypes: options.strictTypes ?? false,
    includeDestructive: options.includeDestructive ?? false,
    followRateLimit: options.followRateLimit ?? true,
    deadlineAt: started + sendingWindowMs(options.deadlineMs ?? DEFAULT_DEADLINE_MS),
  };
  if (options.rpm !== undefined) ctxOptions.rpm = options.rpm;
  if (options.events) ctxOptions.events = options.events;
  if (options.validateRequest !== false) ctxOptions.validateRequest = options.validateRequest ?? validateWireRequest;
  if (options.secrets) ctxOptions.secrets = options.secrets;
  if (options.onExchange) ctxOptions.onExchange = options.onExchange;
  return ctxOptions;
}

/**
 * Discovery, then the setup it shows: an unreachable target, or a wrong setup (credentials missing
 * or refused, the contract not at the base URL), stops the run before any check is judged: dozens
 * of failed checks would blame the server for it. The fixtures found join the context's.
 */
async function discoverSetup(ctx: RunContext, options: ConformanceOptions, baseUrl: string): Promise<DiscoveryResult> {
  const profile = options.profile ?? GENERIC_PROFILE;
  let discovery: DiscoveryResult;
  try {
    discovery = await discoverFixtures(ctx, profile, options.fixtures ?? {});
  } catch (error) {
    if (error instanceof RunAbortedError && error.reason === 'deadline')
      throw new VapcError('E_RUN_ABORTED', `the run stopped during discovery: ${error.message}`);
    if (error instanceof RunAbortedError) throw new VapcError('E_UNREACHABLE', `${options.baseUrl}: ${error.message}`);
    throw error;
  }
  if (discovery.unreachable) {
    throw new VapcError('E_UNREACHABLE', `cannot reach ${options.baseUrl}: ${discovery.error ?? 'no response'}`);
  }
  // A dry run sends only reads: the fixture probe (a POST to the configured ids) waits for a real run.
  const problem =
    diagnoseSetup(discovery, ctx.spec, ctx.credentials, ctx.secrets.text(baseUrl)) ??
    (options.dryRun ? undefined : await probeConfiguredFixtures(ctx, profile, options.fixtures ?? {}));
  if (problem) throw new VapcError(problem.code, ctx.secrets.evidence(problem.message));
  Object.assign(ctx.fixtures, discovery.fixtures);
  return discovery;
}

/**
 * The profile's preparation of the planned run (ContractProfile.prepare): fixtures cannot turn
 * checks off, so configured values every valid create refuses stop the run here, before any check.
 */
async function prepareRun(ctx: RunContext, options: ConformanceOptions, plan: readonly PlannedCheck[]): Promise<void> {
  const profile = options.profile ?? GENERIC_PROFILE;
  if (options.dryRun || !profile.prepare) return;
  const operations = [...new Set(plan.filter((p) => p.skip === undefined).map((p) => p.operation))];
  const refused = await profile.prepare(ctx, options.fixtures ?? {}, operations);
  if (refused) throw new VapcError('E_FIXTURE_NOT_FOUND', ctx.secrets.evidence(refused));
}

/** This shard's part of the whole plan, from the checks' own estimates, whatever the fixtures: every shard computes the same costs. */
function shardOf(wholePlan: readonly PlannedCheck[], runs: number, spec: SpecModel, info: ShardInfo): ShardField {
  const costs = wholePlan.map((item) => {
    const estimate = item.check.plannedRequests?.(item.operation, runs, spec, {
      strictTypes: item.strictTypes ?? false,
      ...(item.covered ? { covered: true } : {}),
    });
    return {
      burst: item.burst === true,
      requests: typeof estimate === 'number' && Number.isFinite(estimate) ? estimate : runs,
    };
  });
  return { ...info, plan_size: wholePlan.length, positions: shardPositions(costs, info) };
}

function planEventOf(plan: PlannedCheck[], suites: readonly Suite[], seed: number, target: string): RunPlan {
  const planEvent: RunPlan = {
    target,
    seed,
    suites: [...suites],
    checksPerSuite: {},
    total: plan.length,
  };
  for (const item of plan)
    planEvent.checksPerSuite[item.check.suite] = (planEvent.checksPerSuite[item.check.suite] ?? 0) + 1;
  return planEvent;
}

/**
 * The run's plan: the default --runs fitted to the request budget (and to --budget N), the checks
 * most likely to catch a fault first (the profile's checkValues; the burst last), and with
 * --budget N at most N planned requests, the highest-value pairs kept and the rest listed.
 */
function orderedPlan(
  registryPlan: PlannedCheck[],
  options: ConformanceOptions,
  budget: number,
  spec: SpecModel,
  advertisedLimit: number | undefined,
): { runs: number; plan: PlannedCheck[]; cut?: BudgetCut } {
  const runs =
    options.runs ?? fitRuns(registryPlan, Math.min(budget, options.budget ?? Number.POSITIVE_INFINITY), spec);
  const faults = (options.profile ?? GENERIC_PROFILE).checkValues ?? {};
  const plan = orderByValue(registryPlan, runs, spec, faults);
  if (options.budget === undefined) return { runs, plan };
  const kept = applyBudget(plan, options.budget, runs, spec, {
    faults,
    ...(advertisedLimit === undefined ? {} : { advertisedLimit }),
  });
  return { runs, plan: kept.plan, cut: kept.cut };
}

/** The run's plan after discovery: --runs, the whole plan (all shards), this shard's part, the budget's cut. */
interface RunPlanning {
  suites: readonly Suite[];
  budget: number;
  runs: number;
  wholePlan: PlannedCheck[];
  plan: PlannedCheck[];
  cut?: BudgetCut;
  shard?: ShardField;
}

function planRun(ctx: RunContext, options: ConformanceOptions, spec: SpecModel): RunPlanning {
  // The selected suites in the run order of the profile (bursts last).
  const order = suiteOrder(options.profile ?? GENERIC_PROFILE, options.checks);
  const suites = options.suites ? order.filter((s) => options.suites!.includes(s)) : order;
  const registryPlan = planChecks(options.checks, ctx, {
    suites,
    includeDestructive: options.includeDestructive ?? false,
    strictTypes: options.strictTypes ?? false,
    profile: options.profile ?? GENERIC_PROFILE,
    ...(options.operations ? { operations: options.operations } : {}),
  });
  const budget = requestBudget(ctx.pacer.state.limit, options.rpm, ctx.pacer.state.windowMs);
  const { runs, plan: wholePlan, cut } = orderedPlan(registryPlan, options, budget, spec, ctx.pacer.state.limit);
  const shard = options.shard ? shardOf(wholePlan, runs, spec, options.shard) : undefined;
  const plan = shard ? shard.positions.map((i) => wholePlan[i]!) : wholePlan;
  // What a passive check's own turn will find covered, in the order the pairs will run.
  markCovered(passiveTurns(plan));
  return { suites, budget, runs, wholePlan, plan, ...(cut ? { cut } : {}), ...(shard ? { shard } : {}) };
}

/** The report of the run from its results, made safe at the source (see runConformance). */
function reportMaker(
  options: ConformanceOptions,
  spec: SpecModel,
  ctx: RunContext,
  planning: RunPlanning,
  extra: { startedAt: number; target: string; config: RunConfig; coverage: ReturnType<typeof coverageTap> },
) {
  const { shard, cut, wholePlan } = planning;
  return (
    results: RunReport['results'],
    run?: RunReport['run'],
    runOrder: RunReport['results'] = results,
  ): RunReport => ({
    tool: { name: 'voice-agent-contract', version: packageVersion() },
    spec_version: spec.version,
    target: sanitizeLine(extra.target, ctx.secrets),
    seed: options.seed,
    started_at: new Date(extra.startedAt).toISOString(),
    summary: {
      ...summarize(results, ctx.requests, Date.now() - extra.startedAt, ctx.observations.length),
      rate_limited: ctx.rateLimited,
    },
    results,
    observations: ctx.observations,
    config: sanitizeConfig(extra.config, ctx.secrets),
    ...(run ? { run } : {}),
    ...(options.focus ? { focus: options.focus } : {}),
    ...(shard ? { shard } : {}),
    ...(results.length > 0 ? { coverage: extra.coverage.compute(runOrder, wholePlan) } : {}),
    ...(cut ? { budget: cut } : {}),
  });
}

function transportOf(options: ConformanceOptions): Transport {
  return (
    options.transport ??
    createUndiciTransport({
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    })
  );
}

/**
 * The conformance run, as a library call: discovery of fixtures (read-only), the plan (suites in
 * order, ratelimit last, destructive pairs only when asked), the default --runs sized to the
 * request budget at the advertised limit, the checks, and the RunReport. Touches no argv, console
 * or process. Throws VapcError E_UNREACHABLE when the target answers none of the discovery requests,
 * and E_NO_CREDENTIALS / E_CREDENTIALS_REFUSED / E_CONTRACT_NOT_FOUND when their answers show a
 * wrong setup (see `diagnoseSetup`); no check is judged then.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
  const started = Date.now();
  const spec = options.spec ?? (await loadSpec());
  parseBaseUrl(options.baseUrl);
  const transport = transportOf(options);
  try {
    // Coverage (src/coverage/): every exchange a check sends, and which result it belongs to.
    const coverage = coverageTap(
      spec,
      {
        credentials: () => ctx.credentials,
        fixtures: () => ctx.fixtures,
        ...(options.profile?.leftOpenStatuses ? { leftOpen: options.profile.leftOpenStatuses } : {}),
        burstSuites: burstSuites(options.profile ?? GENERIC_PROFILE),
      },
      options.onExchange,
    );
    const ctx = createCheckContext({
      ...contextOptions({ ...options, onExchange: coverage.onExchange }, spec, transport, started),
      burstSuites: burstSuites(options.profile ?? GENERIC_PROFILE),
      onJudged: (exchange, checkId) => coverage.noteJudged(exchange, checkId),
    });
    // Discovery's answers, kept for the passive checks (the plan, and so its checks, comes after).
    const heard: HeardAnswer[] = [];
    const stopHearing = ctx.onAnswer((exchange, op, checkId) => void heard.push([exchange, op, checkId]));
    const discovery = await discoverSetup(ctx, options, transport.baseUrl).finally(stopHearing);
    const planning = planRun(ctx, options, spec);
    const { runs, plan, suites, budget } = planning;
    await prepareRun(ctx, options, plan);
    ctx.setRuns(runs);
    options.onPlanned?.({ runs, discovery, budget });
    const config: RunConfig = {
      ...options.config,
      runs,
      request_budget: budget,
      suites: [...suites],
      all_suites: suiteOrder(options.profile ?? GENERIC_PROFILE, options.checks),
      fixtures_sources: discovery.sources,
    };
    const planEvent = planEventOf(plan, suites, options.seed, ctx.secrets.text(transport.baseUrl));
    // Made safe at the source: each result and observation as it is recorded (run.ts,
    // context/observations.ts), the target, config and run status here; nothing is added after.
    const makeReport = reportMaker(options, spec, ctx, planning, {
      startedAt: started,
      target: planEvent.target,
      config,
      coverage,
    });
    if (options.dryRun) {
      const dryRun = dryRunPlan(plan, runs, spec, ctx.pacer.state.limit, options.rpm, ctx.pacer.state.windowMs);
      if (planning.cut) dryRun.budget = planning.cut;
      return { report: makeReport([]), secrets: ctx.secrets.known(), discovery, dryRun };
    }
    options.events?.onStart?.(planEvent);
    const outcome = await runPlan(plan, ctx, composeEvents(coverage.events, options.events ?? {}), {
      heard,
      onJudged: (exchange, checkId) => coverage.onJudged(exchange, checkId),
    });
    // The aborted reason may quote the target: made safe like every other line.
    const run: RunReport['run'] = outcome.aborted
      ? { status: 'aborted', reason: sanitizeLine(outcome.aborted.message, ctx.secrets) }
      : { status: 'complete' };
    // The verdict of three (passed, failed, inconclusive), from the results and the coverage they judged.
    const report: RunReport = withVerdict(
      {
        ...makeReport(outcome.results, run, outcome.runOrder),
        ...withRateLimit(ctx.pacer.state),
        ...(options.workflowCoverage ? { workflows: options.workflowCoverage() } : {}),
      },
      verdictRules(options.checks, options.coverageFloor, options.profile),
    );
    options.events?.onEnd?.(report);
    const result: ConformanceResult = { report, discovery, secrets: ctx.secrets.known() };
    if (outcome.aborted) result.aborted = outcome.aborted;
    return result;
  } finally {
    if (!options.transport) await transport.close();
  }
}

/** report.json's `rate_limit` from the pacer's last reading; a reset no date can hold is left out. */
function withRateLimit(state: RateLimitState): { rate_limit?: RateLimitWindow } {
  const at = state.resetAt === undefined ? NaN : new Date(state.resetAt);
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) return {};
  const out: RateLimitWindow = { reset_at: at.toISOString() };
  if (state.limit !== undefined) out.limit = state.limit;
  if (state.remaining !== undefined) out.remaining = state.remaining;
  return { rate_limit: out };
}
