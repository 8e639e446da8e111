/**
 * The one result model of a conformance run. The runner produces it; every reporter (console,
 * JSON, JUnit, HTML, GitHub) reads only this. report.json is this object serialised, and its
 * top-level shape is fixed by shared/runner-interface.md: tool, spec_version, target, seed,
 * summary {passed, failed, skipped, requests, duration_ms}, results[] {id, suite, operation,
 * status, message, repro}. Everything else here is an addition.
 */

import type { RunConfig } from './run-config.js';
import type { Coverage } from './coverage.js';
import type { WorkflowCoverage } from './workflows.js';

/** A suite's name: the contract's profile (suites/profile.ts) lists its suites and their order. */
export type Suite = string;

/**
 * passed: the server kept the rule; failed: the server broke the contract; skipped: not run (the
 * reason says why: fixture missing, destructive and not asked for, suite not selected);
 * error: the runner could not check (a tool fault, never the server's).
 */
export type Verdict = 'passed' | 'failed' | 'skipped' | 'error';
export type Severity = 'critical' | 'major' | 'minor';

/** An HTTP request as it went over the wire, secrets already replaced by placeholders. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body text as sent (JSON or deliberately malformed text), if any. */
  body?: string;
}

/** An HTTP response as received, headers lower-cased, body text truncated to a cap and redacted. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
  truncated?: boolean;
  duration_ms: number;
}

/**
 * Where a failure is, as data (consumers never parse it out of the prose): `location` is the part
 * of the request the fault is in (`body`, `query`, `path`, `header`) or of the response
 * (`response` for its body, `response-header`); `pointer` a JSON Pointer inside it ('' = the whole
 * part; array indices as sent); `status` the status answered, for the response locations.
 */
export interface FailureField {
  location: string;
  pointer: string;
  status?: string;
}

/**
 * What kind of deviation a failure is: a stable identifier, data not prose (see FAILURE_KINDS for
 * the ones the shipped checks use; a custom check may add its own). Baseline signatures, SARIF
 * locations and catalogue tests read it, never the `expected`/`actual` wording.
 */
export type FailureKind = string;

/**
 * The kinds the shipped judges and checks set. The status kinds are judged by the class of the
 * status answered (`status:4xx` in a baseline signature).
 */
export const FAILURE_KINDS = {
  /** No answer (timeout, reset, refused). */
  noResponse: 'no-response',
  /** A status the rule does not allow for this request (a 5xx, a refusal of a valid request, ...). */
  status: 'status',
  /** A request that breaks a stated constraint was accepted (2xx) as it went over the wire. */
  acceptedInvalid: 'accepted-invalid',
  /** A value the contract allows was refused. */
  rejectedValid: 'rejected-valid',
  /** A status the operation does not document. */
  undocumentedStatus: 'undocumented-status',
  /** The content type differs from the documented one. */
  contentType: 'content-type',
  /** The body is not JSON where the contract documents JSON. */
  invalidJson: 'invalid-json',
  /** A documented response schema or header is broken; `field` says where. */
  schema: 'schema',
  /** The 422 body is not `{detail: [{loc, msg, type}]}`. */
  validationBody: 'validation-body',
  /** The 422's `loc` does not name the field at fault. */
  loc: 'loc',
  /** An error body's `detail` does not say what section 7 says it says. */
  errorDetail: 'error-detail',
  /** A value differs from the one the contract says it must equal (an echo, a read-back). */
  mismatch: 'mismatch',
  /** A success criterion of a team's Arazzo workflow (`vapc run --arazzo`) did not hold on the answer, or a declared output could not be read from it. */
  criterion: 'criterion',
} as const;

export interface Failure {
  /** What kind of deviation (stable data; see FAILURE_KINDS). Absent only in reports written before it existed. */
  kind?: FailureKind;
  /** Where in the request or response the deviation is, when it is about one field or part. */
  field?: FailureField;
  /** What the contract expects, in words. */
  expected: string;
  /** What the server did, in words. */
  actual: string;
  /** The shrunk minimal input, when the check generated inputs. */
  input?: unknown;
  request?: RecordedRequest;
  response?: RecordedResponse;
  /** A curl line that reproduces it, secrets as $VAPC_API_KEY / $VAPC_USER_ID placeholders. */
  repro?: string;
  /** fast-check seed and path, to replay the property alone. */
  seed?: number;
  path?: string;
  /** Where in a recording the exchange stands (`traffic.ndjson line 12`), for a finding of `vapc drift` or `vapc proxy`. */
  recorded_at?: string;
}

/**
 * Why a check × operation judged nothing (a skipped result's `not_judged`), as data: the verdict
 * groups by it and coverage reads it, never the message. The causes, and whether each can make a
 * run inconclusive (src/results/verdict.ts `COUNTED_CAUSES`):
 * - `plan`: not run by the plan's choice (destructive not enabled, a fixture missing, not selected);
 * - `aborted`: the run stopped before it (deadline, unreachable target, credentials lost);
 * - `covered`: another check's answers on the operation were judged for it;
 * - `rate-limited`: every answer it got was a 429 (still after the resends);
 * - `refused`: the server refused with an answer the contract leaves open (403, 409, 404, a 422
 *   naming another field) and nothing in the run contradicts it;
 * - `no-record`: no record to send to (the create that would make one was refused);
 * - `untestable`: the target's data or design leaves the rule untestable here (too few calls, no
 *   provider known, a preflight answered before any credential is read);
 * - `timing`: the evidence depends on the machine's speed or the run's deadline (a window that reset
 *   during the burst, a wait cut short);
 * - `runner`: the runner's own limit or setting (its body size cap, the burst budget, no user id given,
 *   a value the wire could not carry), or nothing to send;
 * - `elsewhere`: the answer is another check's to judge;
 * - `no-traffic`: recorded traffic (`vapc drift`, `vapc proxy`) held no exchange the check judges on
 *   the operation (what the traffic never exercised: the coverage block says it cell by cell).
 */
export type NotJudgedCause =
  | 'plan'
  | 'aborted'
  | 'covered'
  | 'rate-limited'
  | 'refused'
  | 'no-record'
  | 'untestable'
  | 'timing'
  | 'runner'
  | 'elsewhere'
  | 'no-traffic';

export const NOT_JUDGED_CAUSES: readonly NotJudgedCause[] = [
  'plan',
  'aborted',
  'covered',
  'rate-limited',
  'refused',
  'no-record',
  'untestable',
  'timing',
  'runner',
  'elsewhere',
  'no-traffic',
];

/** A skipped result's reason as data: the cause, and for a refusal the status and the field its 422 named. */
export interface NotJudged {
  cause: NotJudgedCause;
  /** The status the server answered, when its answer is the cause. */
  status?: number;
  /** Where a refusing 422 located the fault (`body.x_internal_quota`), when it named a field. */
  loc?: string;
}

/** The verdict of a run (src/results/verdict.ts decides it). */
export type RunVerdict = 'passed' | 'failed' | 'inconclusive';
export const RUN_VERDICTS: readonly RunVerdict[] = ['passed', 'failed', 'inconclusive'];

/** What kept pairs from being judged, grouped by cause (the cause, the status, the field a 422 named). */
export interface NotJudgedGroup extends NotJudged {
  /** Check × operation pairs not judged for it. */
  checks: number;
  /** Their operations, each once, in report order. */
  operations: string[];
  /** One line for people: what the server did, and what it kept from being judged. */
  message: string;
  /** Whether this cause can make the run inconclusive (COUNTED_CAUSES). */
  counted: boolean;
}

export type VerdictReasonKind =
  'operations-unjudged' | 'check-unjudged' | 'coverage-floor' | 'traffic-unjudged' | 'nothing-judged';

export interface VerdictReason {
  kind: VerdictReasonKind;
  /** The operations or checks it is about. */
  items: string[];
  /** The cause that kept them (absent for the floor). */
  cause?: NotJudged;
  message: string;
}

/** report.json's `evidence`: what the verdict rests on (an addition to the fixed shape). */
export interface RunEvidence {
  reasons: VerdictReason[];
  not_judged: NotJudgedGroup[];
  /** The coverage floor applied, or null when the plan was partial (or the floor off). */
  floor: number | null;
  /** Answers that were 429 (the limit took them from the run). */
  rate_limited: number;
  /** --allow-inconclusive: an inconclusive run exits 0, and every report says so. */
  allow_inconclusive?: true;
}

/** Something notable the contract does not rule on: reported, never a failure. */
export interface Observation {
  id: string;
  operation?: string;
  message: string;
}

export interface CheckResult {
  /** Stable check id, `suite.name`. */
  id: string;
  suite: Suite;
  /** `METHOD /path` of the operation, or '*' for checks across operations. */
  operation: string;
  status: Verdict;
  /** One line for people: why it failed, why it was skipped, or what passed. */
  message: string;
  /** The rule the check enforces, with its contract section, e.g. "4.2: max_concurrency 1..200". */
  rule: string;
  contract_ref: string;
  severity: Severity;
  /** Repro line of the first failure (report.json's documented field). */
  repro?: string;
  failures?: Failure[];
  duration_ms: number;
  requests: number;
  /** Set on failed results when the run had a --baseline: whether the finding is a known one. */
  baseline?: BaselineMark;
  /** On a skipped result: why nothing was judged, as data (the message says it for people). */
  not_judged?: NotJudged;
}

/**
 * A failed result seen through the baseline (an addition to report.json). `known: true` when
 * every kind of finding in it has a baseline entry that has not expired; the status stays
 * "failed" either way.
 */
export interface BaselineMark {
  known: boolean;
  /** The reason(s) of the matching entries. */
  reason?: string;
  /** The earliest `expires` of the matching entries. */
  expires?: string;
  /** A matching entry is past its expiry date: the finding fails again. */
  expired?: boolean;
  /** The kinds of finding in this result (with check and operation, the signatures). */
  kinds: string[];
  /** The kinds no entry covers: what is new. */
  new_kinds?: string[];
}

/** A baseline entry that matched no failure this run: reported as not observed, never as fixed. */
export interface NotObservedEntry {
  check: string;
  operation: string;
  kind: string;
  reason: string;
  expires?: string;
  /** What became of its check and operation this run: passed, failed (another kind), skipped, error, or not-run. */
  this_run: 'passed' | 'failed' | 'skipped' | 'error' | 'not-run';
}

/** The baseline part of report.json, present when the run had --baseline. */
export interface BaselineSummary {
  file: string;
  entries: number;
  known: number;
  new_failures: number;
  expired: number;
  not_observed: NotObservedEntry[];
  /** Entries --prune-baseline dropped (their check and operation ran and passed). */
  pruned?: number;
}

export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  errors: number;
  requests: number;
  duration_ms: number;
  observations: number;
  /** With --baseline: failed results that are not (or no longer) known. */
  new_failures?: number;
  /** With --baseline: failed results whose findings are all known. */
  known?: number;
  /** Answers that were 429 (the advertised limit took them from the run; the ratelimit suite's own included). */
  rate_limited?: number;
}

/** report.json's `run`: `complete`, or `aborted` with one sentence saying why (deadline, unreachable, setup). */
export interface RunStatus {
  status: 'complete' | 'aborted';
  reason?: string;
}

export interface RunReport {
  tool: { name: 'voice-agent-contract'; version: string };
  spec_version: string;
  target: string;
  seed: number;
  started_at: string;
  summary: RunSummary;
  results: CheckResult[];
  observations: Observation[];
  /** The effective options, redacted (no secret values). */
  config: RunConfig;
  /** Whether the run judged its whole plan: `aborted` (with the reason) when it stopped early or never started judging. */
  run?: RunStatus;
  /**
   * passed, failed or inconclusive (src/results/verdict.ts): `inconclusive` when nothing failed but
   * the run judged too little to pass; `evidence` says why, as data.
   */
  verdict?: RunVerdict;
  /** What the verdict rests on: the reasons of an inconclusive run, what was not judged and why. */
  evidence?: RunEvidence;
  /** With --baseline: known, new and not observed findings. */
  baseline?: BaselineSummary;
  /** Present for `vapc run --changed-since BASE`: the operations checked and why (rule ids or `smoke`). */
  focus?: {
    changed_since: string;
    operations: Array<{ operation: string; reasons: string[] }>;
    total_operations: number;
  };
  /** Set by `vapc run --shard I/N`: this report holds shard `index` of `count` (see shard.ts). */
  shard?: ShardField;
  /** Which cells of the contract the run sent and judged (src/coverage/, docs/coverage.md). */
  coverage?: Coverage;
  /**
   * The rate-limit window as the run last read it (X-RateLimit-*; the ratelimit suite runs last):
   * when it resets, so the end of a run can say when repro lines stop meeting the burst's 429.
   */
  rate_limit?: RateLimitWindow;
  /** Set by `vapc drift` and `vapc proxy`: what the traffic held (an addition to the fixed shape). */
  traffic?: TrafficSummary;
  /** Set by `vapc run --arazzo FILE`: the workflows, steps and success criteria run and judged, the actions taken (docs/arazzo.md). */
  workflows?: WorkflowCoverage;
  /** Set by `vapc run --budget N`: the requests allowed, those planned, and the checks left out. */
  budget?: { requests: number; planned: number; left_out: Array<{ id: string; operation: string; requests: number }> };
}

/** report.json's `traffic` (`vapc drift`, `vapc proxy`): the exchanges read and how many each operation had. */
export interface TrafficSummary {
  source: 'drift' | 'proxy';
  /** Exchanges read (or forwarded). */
  exchanges: number;
  /** Of those, requests to an operation of the contract. */
  on_contract: number;
  /** Of those, exchanges at least one judge judged. */
  judged: number;
  /** Recorded requests that got no answer (a HAR entry with status 0): counted, not judged. */
  unanswered: number;
  /** Every operation of the contract with the exchanges the traffic held on it (0: never exercised). */
  operations: Array<{ operation: string; exchanges: number }>;
}

/** report.json's `rate_limit`: the last advertised window, its reset as an ISO time. */
export interface RateLimitWindow {
  reset_at: string;
  limit?: number;
  remaining?: number;
}

export function summarize(
  results: CheckResult[],
  requests: number,
  durationMs: number,
  observations: number,
): RunSummary {
  const count = (v: Verdict) => results.filter((r) => r.status === v).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    errors: count('error'),
    requests,
    duration_ms: durationMs,
    observations,
  };
}

/** Which of N deterministic parts of a plan a run is (`vapc run --shard I/N`, 1-based). */
export interface ShardInfo {
  index: number;
  count: number;
}

/** report.json's `shard`: which shard, and where its results stand in the whole plan. */
export interface ShardField extends ShardInfo {
  /** Pairs in the whole plan. */
  plan_size: number;
  /** The plan position (0-based) of each of this shard's results, in order. */
  positions: number[];
}

/** A JSON Pointer of path segments (`['speech_settings', 'style']` → `/speech_settings/style`). */
export function pointerOf(segments: ReadonlyArray<string | number>): string {
  return segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/**
 * A failure's pointer as every consumer compares it (baseline signatures, causes, the legacy prose
 * reader): array indices as `*` (`/recipients/0/phone_number` → `/recipients/*\/phone_number`), the
 * same finding whatever the index, and under a `response-header` location the header name
 * lower-cased (HTTP header names are case-insensitive). The pointer text is otherwise kept as it
 * is (`/` stays `/`), so old baseline signatures still match.
 */
export function normalisePointer(pointer: string, location?: string): string {
  const p = pointer.replace(/\/\d+(?=\/|$)/g, '/*');
  return location === 'response-header' ? p.toLowerCase() : p;
}

/** The segments of a JSON Pointer (`''` → `[]`). */
export function segmentsOf(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
