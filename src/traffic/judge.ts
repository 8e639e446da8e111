/**
 * Judging recorded traffic (`vapc drift`, `vapc proxy`): every exchange goes to the passive judges of
 * the runner's checks (`judgeExchange`, through the one verdict path of src/checks/judge.ts), each
 * pair check × operation in its own scoped context of a run that never sends, so a finding has the
 * kind, field, wording, curl line and secrets handling of a `vapc run` finding. At the end one
 * `RunReport`: a result per pair (failed, passed on the answers it judged, or skipped: the traffic
 * held nothing it judges), the coverage block of the contract by the traffic, and the verdict of
 * three. Memory stays flat in the number of exchanges: no exchange is kept, only the coverage
 * log's cell keys and at most a few dozen failures per pair.
 */
import type { CheckDefinition, CheckOutcome, Judgement, RequestValidator } from '../checks/check.js';
import { Findings, recordedFailures, RECORDED_FAILURES } from '../checks/outcomes.js';
import { verdictRules } from '../checks/verdict-rules.js';
import { validateWireRequest } from '../checks/wire.js';
import type { ContractProfile } from '../checks/profile.js';
import { buildUniverse, coverageTap } from '../coverage/index.js';
import { isToolFault, VapcError } from '../errors.js';
import { packageVersion } from '../paths.js';
import type { Coverage } from '../results/coverage.js';
import { summarize, type CheckResult, type RunReport, type TrafficSummary } from '../results/model.js';
import type { RunConfig } from '../results/run-config.js';
import { withVerdict } from '../results/verdict.js';
import { createCheckContext, type RunContext, type ScopedContext } from '../runner/context.js';
import { planChecks, toResult, type PlannedCheck } from '../runner/run.js';
import type { Secrets } from '../secrets/index.js';
import { sanitizeConfig, sanitizeLine, sanitizeObservation, sanitizeResult } from '../secrets/report.js';
import { operationLabel, type Operation, type SpecModel } from '../spec/model.js';
import { parsePathTemplate, pathPattern } from '../spec/path-template.js';
import type { Exchange, Transport } from '../transport/types.js';
import { CredentialLearner } from './credentials.js';

export interface TrafficJudgeOptions {
  spec: SpecModel;
  /** The checks whose passive judges judge the traffic (the suites' registry: the CLI passes it). */
  checks: readonly CheckDefinition[];
  /** The contract's profile: its suites and their order, the statuses it leaves open, the verdict's rules. */
  profile?: ContractProfile;
  /** The run's secrets: the recording's credentials are added to them as each exchange is read. */
  secrets: Secrets;
  /** Where the traffic comes from, as report.json's `target` shows it. */
  target: string;
  source: 'drift' | 'proxy';
  /** The path the contract's paths stand under in the recorded URLs (`/v2`); default none. */
  basePath?: string;
  config?: RunConfig;
  validateRequest?: RequestValidator;
}

/** A pair of the plan that judges traffic, with what it found. */
interface Pair {
  item: PlannedCheck;
  index: number;
  ctx: ScopedContext;
  findings: Findings;
  /** Answers it judged (passed or failed), and of those, failed. */
  judged: number;
  failing: number;
  error?: unknown;
}

/** A transport that never sends: a judge that tries is the tool's fault, never the traffic's. */
function silentTransport(target: string): Transport {
  return {
    baseUrl: target,
    send: () =>
      Promise.reject(new VapcError('E_TOOL_FAILED', 'a passive judge tried to send a request while judging traffic')),
    close: async () => undefined,
  };
}

/** A pair keeps at most this many failures in memory: what a result records, and room for the distinct ones first. */
const KEPT_FAILURES = RECORDED_FAILURES * 4;
const KEPT_REASONS = 200;

/** The reasons the coverage block gives for a cell the traffic did not judge. */
export const TRAFFIC_REASONS = {
  notSent: 'the recorded traffic never exercised it',
  sent: 'exercised by the traffic, but no judge judged an answer touching it (drift judges the answers to valid requests, preflights and updates: docs/drift.md)',
} as const;

export class TrafficJudge {
  private readonly pairs: Pair[];
  private readonly byOperation = new Map<Operation, Pair[]>();
  private readonly coverage;
  private readonly match: (method: string, path: string) => Operation | undefined;
  private readonly learner: CredentialLearner;
  private readonly started = Date.now();
  private readonly run: RunContext;
  private readonly seen = new Map<string, number>();
  private readonly counts = { exchanges: 0, onContract: 0, judged: 0, unanswered: 0 };

  constructor(private readonly options: TrafficJudgeOptions) {
    const { spec } = options;
    this.run = createCheckContext({
      spec,
      transport: silentTransport(options.target),
      secrets: options.secrets,
      validateRequest: options.validateRequest ?? validateWireRequest,
      seed: 0,
      followRateLimit: false,
    });
    const plan = planChecks(
      options.checks,
      { spec, fixtures: {} },
      { includeDestructive: true, ...(options.profile ? { profile: options.profile } : {}) },
    ).filter((item) => typeof item.check.judgeExchange === 'function');
    this.pairs = plan.map((item, index) => ({
      item,
      index,
      ctx: this.run.scope(item.check.id, item.check.suite, item.operation),
      findings: new Findings(),
      judged: 0,
      failing: 0,
    }));
    for (const pair of this.pairs)
      this.byOperation.set(pair.item.operation, [...(this.byOperation.get(pair.item.operation) ?? []), pair]);
    const universe = buildUniverse(spec);
    this.match = operationMatcher(spec);
    this.coverage = coverageTap(
      spec,
      {
        credentials: () => undefined,
        ...(options.profile?.leftOpenStatuses ? { leftOpen: options.profile.leftOpenStatuses } : {}),
      },
      undefined,
      universe,
    );
    this.learner = new CredentialLearner(options.secrets, spec);
  }

  /** The operation of a recorded request: its path under the base path, matched against the contract's paths. */
  operationOf(exchange: Exchange): Operation | undefined {
    const { pathname } = new URL(exchange.request.url);
    const base = (this.options.basePath ?? '').replace(/\/+$/, '');
    if (base !== '' && pathname !== base && !pathname.startsWith(`${base}/`)) return undefined;
    return this.match(exchange.request.method, pathname.slice(base.length) || '/');
  }

  private get spec(): SpecModel {
    return this.options.spec;
  }

  /** Recorded requests whose answer never came (HAR entries the browser gave up on): counted, not judged. */
  unanswered(count = 1): void {
    this.counts.unanswered += count;
  }

  /** Judges one exchange (`where`: its place in the recording, kept on its failures). */
  judge(exchange: Exchange, where: string): void {
    this.counts.exchanges++;
    const op = this.operationOf(exchange);
    this.learner.learn(exchange, op, where);
    if (!op) return;
    this.inUse(exchange);
    this.counts.onContract++;
    const label = operationLabel(op);
    this.seen.set(label, (this.seen.get(label) ?? 0) + 1);
    // The traffic's own record: what the exchange touched (sent), and the ids the server handed out.
    this.coverage.log.exchange(exchange, 'traffic', false, -1);
    let judgedHere = false;
    for (const pair of this.byOperation.get(op) ?? []) {
      if (pair.error !== undefined) continue;
      const judgement = this.judgeOne(pair, op, exchange);
      if (judgement === undefined) continue;
      if (!judgement.ok) judgement.failure.recorded_at = sanitizeLine(where, this.options.secrets);
      pair.findings.add(judgement);
      if (!judgement.ok || judgement.unjudged === undefined) {
        pair.judged++;
        judgedHere = true;
        this.coverage.log.exchange(exchange, pair.item.check.id, true, pair.index);
      }
      if (!judgement.ok) pair.failing++;
      compact(pair.findings);
    }
    if (judgedHere) this.counts.judged++;
  }

  /**
   * The credentials "in use" are the ones the exchange was sent with: a judge that asks whether a
   * request carried the run's credentials (the documented preflight) reads the recording's own.
   */
  private inUse(exchange: Exchange): void {
    const { apiKey, userId } = this.learner.credentialsOf(exchange);
    const credentials = this.run.credentials;
    if (apiKey === undefined) delete credentials.apiKey;
    else credentials.apiKey = apiKey;
    if (userId === undefined) delete credentials.userId;
    else credentials.userId = userId;
  }

  private judgeOne(pair: Pair, op: Operation, exchange: Exchange): Judgement | undefined {
    try {
      return pair.item.check.judgeExchange!(pair.ctx, op, exchange);
    } catch (error) {
      // A fault of the installed tool stops the command (exit 2); any other throw is this pair's error.
      if (isToolFault(error)) throw error;
      pair.error = error;
      return undefined;
    }
  }

  /** What the traffic held so far. */
  get tally(): Readonly<{ exchanges: number; onContract: number; judged: number; unanswered: number }> {
    return this.counts;
  }

  private outcomeOf(pair: Pair): CheckOutcome {
    const { findings } = pair;
    const label = operationLabel(pair.item.operation);
    if (findings.failures.length > 0) {
      const outcome = findings.outcome('');
      const share = `${pair.failing} of the ${pair.judged} recorded answer(s) judged failed`;
      return outcome.status === 'failed' ? { ...outcome, message: `${outcome.message} (${share})` } : outcome;
    }
    if (findings.probes > 0) return findings.outcome(`${pair.judged} recorded answer(s) on ${label} judged`);
    return {
      status: 'skipped',
      message: `the traffic held no exchange this check judges on ${label}`,
      notJudged: { cause: 'no-traffic' },
    };
  }

  private resultOf(pair: Pair): CheckResult {
    const result = toResult(pair.item, this.outcomeOf(pair), 0, pair.judged);
    if (pair.error === undefined) return sanitizeResult(result, this.options.secrets);
    const message = pair.error instanceof Error ? pair.error.message : String(pair.error);
    const { failures: _f, repro: _r, ...rest } = result;
    return sanitizeResult(
      { ...rest, status: 'error', message: `tool error (not a server failure): ${message}` },
      this.options.secrets,
    );
  }

  /** The report of the traffic judged so far: results, coverage, the traffic's own figures and the verdict. */
  report(): RunReport {
    const results = this.pairs.map((pair) => this.resultOf(pair));
    const secrets = this.options.secrets;
    const report: RunReport = {
      tool: { name: 'voice-agent-contract', version: packageVersion() },
      spec_version: this.spec.version,
      target: sanitizeLine(this.options.target, secrets),
      seed: 0,
      started_at: new Date(this.started).toISOString(),
      summary: {
        ...summarize(results, this.counts.exchanges, Date.now() - this.started, this.run.observations.length),
      },
      results,
      // Made safe again with every credential the whole traffic held (one may come after an observation).
      observations: this.run.observations.map((o) => sanitizeObservation(o, secrets)),
      config: sanitizeConfig({ ...this.options.config, source: this.options.source }, secrets),
      run: { status: 'complete' },
      coverage: trafficCoverage(
        this.coverage.compute(
          results,
          this.pairs.map((p) => p.item),
        ),
      ),
      traffic: this.trafficSummary(),
    };
    return withVerdict(report, verdictRules(this.options.checks, 0, this.options.profile));
  }

  private trafficSummary(): TrafficSummary {
    const operations = this.spec.operations.map(operationLabel);
    return {
      source: this.options.source,
      exchanges: this.counts.exchanges,
      on_contract: this.counts.onContract,
      judged: this.counts.judged,
      unanswered: this.counts.unanswered,
      operations: operations.map((operation) => ({ operation, exchanges: this.seen.get(operation) ?? 0 })),
    };
  }
}

/**
 * The operation of a method and a path (the base path taken off): the whole path must be the
 * template, the most literal template first (`/campaign/new` before `/campaign/{id}`).
 */
function operationMatcher(spec: SpecModel): (method: string, path: string) => Operation | undefined {
  const compiled = spec.operations
    .map((op) => ({
      op,
      re: pathPattern(op.path, { anchored: true, emptyParams: false }),
      literal: parsePathTemplate(op.path).literals.join('').length,
    }))
    .sort((a, b) => b.literal - a.literal);
  return (method, path) => {
    const upper = method.toUpperCase();
    return compiled.find((c) => c.op.method === upper && c.re.test(path))?.op;
  };
}

/** Keeps a pair's findings bounded: the failures a result records (one of each finding first), and some reasons. */
function compact(findings: Findings): void {
  if (findings.failures.length > KEPT_FAILURES) {
    const kept = recordedFailures(findings.failures, KEPT_FAILURES / 2);
    findings.failures.splice(0, findings.failures.length, ...kept);
    findings.summaries.splice(1);
  }
  if (findings.unjudged.length > KEPT_REASONS) {
    findings.unjudged.splice(KEPT_REASONS / 2);
    findings.why.splice(KEPT_REASONS / 2);
  }
}

/** The coverage block in the traffic's words: a cell no judge judged was not exercised, or exercised and not judged. */
function trafficCoverage(coverage: Coverage): Coverage {
  return {
    ...coverage,
    cells: coverage.cells.map((cell) =>
      cell.state === 'not-sent'
        ? { ...cell, reason: TRAFFIC_REASONS.notSent }
        : cell.state === 'sent'
          ? { ...cell, reason: TRAFFIC_REASONS.sent }
          : cell,
    ),
  };
}
