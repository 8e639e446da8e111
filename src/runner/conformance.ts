import { VapcError } from '../errors.js';
import { packageVersion } from '../paths.js';
import type { RunEvents, RunPlan } from '../results/events.js';
import { SUITES, summarize, type RunReport, type Suite } from '../results/model.js';
import { loadSpec } from '../spec/load.js';
import type { SpecModel } from '../spec/model.js';
import { createUndiciTransport, DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT_MS, parseBaseUrl } from '../transport/undici.js';
import type { Exchange, Transport } from '../transport/types.js';
import type { Secrets } from '../secrets/index.js';
import { sanitizeReport } from '../secrets/report.js';
import { dryRunPlan, fitRuns, requestBudget, type DryRunPlan } from './budget.js';
import type { CheckDefinition, Credentials, Fixtures, RequestValidator } from '../checks/check.js';
import { createCheckContext, RunAbortedError, type CheckContextOptions, type RunContext } from './context.js';
import { diagnoseSetup, discoverFixtures, type DiscoveryResult } from './discovery.js';
import { planChecks, runPlan, type PlannedCheck } from './run.js';
import { validateWireRequest } from '../checks/wire.js';
import { shardPositions, type ShardField, type ShardInfo } from '../results/shard.js';

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
  events?: RunEvents;
  /**
   * Re-validates each request as it went over the wire before a check may call it "invalid input
   * accepted" (default: the project's validators; `false` turns the re-validation off).
   */
  validateRequest?: RequestValidator | false;
  /** The secrets to share (the CLI scrubs its live output with the secrets the run learns). */
  secrets?: Secrets;
  onExchange?: (exchange: Exchange, checkId: string | undefined) => void;
  /** The effective options as the report shows them (already without secrets). */
  config?: Record<string, unknown>;
  /**
   * Run only this shard of the plan (see src/results/shard.ts). --runs is sized on the whole plan,
   * so every shard, and an unsharded run, send the same cases for the pairs they share.
   */
  shard?: ShardInfo;
  /** Called with the plan once discovery is done and before any check runs. */
  onPlanned?: (info: { runs: number; discovery: DiscoveryResult; budget: number }) => void;
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

function contextOptions(options: ConformanceOptions, spec: SpecModel, transport: Transport, started: number): CheckContextOptions {
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
  let discovery: DiscoveryResult;
  try {
    discovery = await discoverFixtures(ctx, options.fixtures ?? {});
  } catch (error) {
    if (error instanceof RunAbortedError) throw new VapcError('E_UNREACHABLE', `${options.baseUrl}: ${error.message}`);
    throw error;
  }
  if (discovery.unreachable) {
    throw new VapcError('E_UNREACHABLE', `cannot reach ${options.baseUrl}: ${discovery.error ?? 'no response'}`);
  }
  const problem = diagnoseSetup(discovery, ctx.spec, ctx.credentials, ctx.secrets.text(baseUrl));
  if (problem) throw new VapcError(problem.code, ctx.secrets.evidence(problem.message));
  Object.assign(ctx.fixtures, discovery.fixtures);
  return discovery;
}

function planEventOf(plan: PlannedCheck[], suites: readonly Suite[], seed: number, target: string): RunPlan {
  const planEvent: RunPlan = { target, seed, suites: SUITES.filter((s) => suites.includes(s)), checksPerSuite: {}, total: plan.length };
  for (const item of plan) planEvent.checksPerSuite[item.check.suite] = (planEvent.checksPerSuite[item.check.suite] ?? 0) + 1;
  return planEvent;
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
  const startedAt = new Date(started).toISOString();
  const spec = options.spec ?? (await loadSpec());
  parseBaseUrl(options.baseUrl);
  const transport =
    options.transport ??
    createUndiciTransport({
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    });
  try {
    const ctx = createCheckContext(contextOptions(options, spec, transport, started));
    const discovery = await discoverSetup(ctx, options, transport.baseUrl);

    const suites = options.suites ?? SUITES;
    const wholePlan = planChecks(options.checks, ctx, {
      suites,
      includeDestructive: options.includeDestructive ?? false,
      strictTypes: options.strictTypes ?? false,
      ...(options.operations ? { operations: options.operations } : {}),
    });
    const budget = requestBudget(ctx.pacer.state.limit, options.rpm);
    const runs = options.runs ?? fitRuns(wholePlan, budget, spec);
    let shard: ShardField | undefined;
    if (options.shard) {
      // The checks' own estimates, whatever the fixtures: every shard must compute the same costs.
      const costs = wholePlan.map((item) => {
        const estimate = item.check.plannedRequests?.(item.operation, runs, spec, { strictTypes: item.strictTypes ?? false });
        return { suite: item.check.suite, requests: typeof estimate === 'number' && Number.isFinite(estimate) ? estimate : runs };
      });
      shard = { ...options.shard, plan_size: wholePlan.length, positions: shardPositions(costs, options.shard) };
    }
    const plan = shard ? shard.positions.map((i) => wholePlan[i]!) : wholePlan;
    ctx.setRuns(runs);
    options.onPlanned?.({ runs, discovery, budget });

    const config: Record<string, unknown> = {
      ...options.config,
      runs,
      request_budget: budget,
      suites: [...suites],
      fixtures_sources: discovery.sources,
    };
    const planEvent = planEventOf(plan, suites, options.seed, ctx.secrets.text(transport.baseUrl));

    const makeReport = (results: RunReport['results']): RunReport => ({
      tool: { name: 'voice-agent-contract', version: packageVersion() },
      spec_version: spec.version,
      target: planEvent.target,
      seed: options.seed,
      started_at: startedAt,
      summary: summarize(results, ctx.requests, Date.now() - started, ctx.observations.length),
      results,
      observations: ctx.observations,
      config: ctx.redact(config),
      ...(options.focus ? { focus: options.focus } : {}),
      ...(shard ? { shard } : {}),
    });

    if (options.dryRun) {
      return { report: sanitizeReport(makeReport([]), ctx.secrets), secrets: ctx.secrets.known(), discovery, dryRun: dryRunPlan(plan, runs, spec, ctx.pacer.state.limit, options.rpm) };
    }

    options.events?.onStart?.(planEvent);
    const outcome = await runPlan(plan, ctx, options.events);
    const report = sanitizeReport(makeReport(outcome.results), ctx.secrets);
    if (outcome.aborted) report.config['aborted'] = outcome.aborted.message;
    options.events?.onEnd?.(report);
    const result: ConformanceResult = { report, discovery, secrets: ctx.secrets.known() };
    if (outcome.aborted) result.aborted = outcome.aborted;
    return result;
  } finally {
    if (!options.transport) await transport.close();
  }
}
