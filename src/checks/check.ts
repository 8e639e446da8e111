import type { Operation, SpecModel } from '../spec/model.js';
import type {
  Failure,
  FailureField,
  FailureKind,
  NotJudged,
  Observation,
  RecordedRequest,
  RecordedResponse,
  Severity,
  Suite,
} from '../results/model.js';
import type { Exchange, HttpRequest } from '../transport/types.js';
import type { Fixtures } from '../results/fixtures.js';

export type { Fixtures };

export interface Credentials {
  apiKey?: string;
  userId?: string;
}

/** Options of `CheckContext.send` beyond the request itself. */
export interface SendOptions {
  /**
   * 'documented' (default) adds the credentials the operation documents (needs `operation`, or
   * adds both headers when the operation is unknown); 'none' adds nothing.
   */
  auth?: 'documented' | 'none';
  /** The operation (or its operationId) the request targets; used for documented credentials. */
  operation?: Operation | string;
  /** Wait for the pacer first (default true). The rate-limit burst turns it off. */
  pace?: boolean;
  /**
   * A 429 is a budget event: wait for the reset and resend (default true, except in the ratelimit
   * suite, which sees its 429s).
   */
  retryOn429?: boolean;
}

/** The outcome of re-validating a request exactly as it went over the wire. */
export interface WireValidation {
  /** False when no request validator is available: the check cannot confirm, so must not fail. */
  available: boolean;
  valid: boolean;
  /** Human-readable reasons the wire request is invalid (empty when valid). */
  errors: string[];
}

/** Validates a wire request against an operation (the project's validators, adapted by the runner). */
export type RequestValidator = (op: Operation, exchange: Exchange) => { valid: boolean; errors: string[] };

/** The advertised rate limit as last read from X-RateLimit-* (resetAt: ms since epoch). */
export interface RateLimitSnapshot {
  limit?: number;
  remaining?: number;
  resetAt?: number;
}

/**
 * What a check gets. `send` applies the documented credentials of `op` unless told otherwise,
 * paces under the rate limit, records the exchange and counts it. Checks never touch undici,
 * the console or process.
 */
export interface CheckContext {
  spec: SpecModel;
  fixtures: Fixtures;
  credentials: Credentials;
  seed: number;
  /** Generated cases per property. */
  runs: number;
  /** Opt-in strict-types mode: judge framework leniency (coercion of "5", "true", null as absent). */
  strictTypes: boolean;
  includeDestructive: boolean;
  /**
   * Sends a request. `auth: 'documented'` (default) adds the credentials the operation documents;
   * `'none'` adds nothing; a record sets exactly these headers (for auth probes).
   */
  send(request: HttpRequest & SendOptions): Promise<Exchange>;
  /** Records something notable the contract does not rule on. */
  observe(observation: Omit<Observation, 'id'> & { id?: string }): void;
  /** Replaces the API key in use (after a key regeneration that rotates it). */
  rotateApiKey(newKey: string): void;
  /**
   * Declares that the credentials no longer work (the key a regeneration returned is refused and
   * so is the one before it): every later check × operation that needs credentials is skipped
   * with this reason, rather than failed for what one failure already says.
   */
  credentialsLost(reason: string): void;
  /** Renders a curl line for an exchange, secrets as $VAPC_API_KEY / $VAPC_USER_ID placeholders. */
  curl(exchange: Exchange): string;
  /**
   * Re-validates the request of an exchange exactly as it was sent (after query, path and header
   * serialisation). Judged on what was really sent: before failing "invalid input accepted",
   * confirm `valid === false` (and `available`).
   */
  validateWire(op: Operation, exchange: Exchange): WireValidation;
  /** A Failure with the redacted request/response, the curl line and the seed filled in. */
  failure(exchange: Exchange, details: FailureDetails): Failure;
  /**
   * The run's own evidence that `op` serves these credentials: the first success answer (2xx) the
   * run got on it to a request the wire validator calls valid, sent with the credentials in use
   * (whoever sent it); undefined when there is none yet (or outside a run).
   */
  servedBefore?(op: Operation): Exchange | undefined;
  /**
   * Notes that the answer of `exchange` was judged on a check's property (the one verdict path,
   * src/checks/judge.ts, calls it): coverage counts a cell judged only through such answers.
   */
  noteJudged?(exchange: Exchange): void;
  /** The exchange as a report may show it, secrets removed. */
  record(exchange: Exchange): { request: RecordedRequest; response?: RecordedResponse };
  /** Removes known secrets (credentials, x-secret values seen so far) from a string or JSON value. */
  redact<T>(value: T): T;
  /** The advertised rate limit as last read from the target's headers. */
  rateLimit(): RateLimitSnapshot;
  /** The suite of the check being run (the ratelimit suite sees its 429s). */
  suite?: Suite;
  /**
   * Waits until the advertised rate-limit window resets (X-RateLimit-Reset; bounded to ~65 s),
   * never past the run's deadline. Returns at once (true) when no reset is known; false when the
   * deadline cut the wait short.
   */
  waitForWindow(): Promise<boolean>;
  /** Sleeps `ms` (a pacing event names `cause`), never past the run's deadline: false when the deadline cut it short. */
  pause(ms: number, cause: string): Promise<boolean>;
  /**
   * For a check with `judgeExchange`: what it has judged so far on its operation from the answers to
   * other checks' requests (the runner's passive judging; absent outside a run). Its `run` then sends
   * only what nothing else covered.
   */
  judgedElsewhere?(): SharedTally;
}

/** What a passive check judged of other checks' exchanges on one operation (see `judgeExchange`). */
export interface SharedTally {
  /** Answers judged on the check's property (whatever the verdict). */
  judged: number;
  /** Why other answers it looked at judged nothing. */
  unjudged: readonly string[];
  /** The same, as data. */
  why: readonly NotJudged[];
}

/**
 * A verdict of one probe: fine, a failure to report, or fine because nothing was judged
 * (`unjudged` says why in words, `why` as data). Made with the helpers of outcomes.ts (OK, unjudged, fail).
 */
export type Judgement =
  | { ok: true; unjudged?: undefined }
  | { ok: true; unjudged: string; why: NotJudged }
  | { ok: false; failure: Failure; summary: string };

/** What a check knows of a failure: the words for people, and the kind and field as data. */
export interface FailureDetails {
  expected: string;
  actual: string;
  input?: unknown;
  path?: string;
  /** What kind of deviation (FAILURE_KINDS, or a custom check's own): required, so one fault has one baseline signature whichever check reports it. */
  kind: FailureKind;
  field?: FailureField;
}

export type CheckOutcome =
  | { status: 'passed'; message: string }
  | { status: 'skipped'; message: string; notJudged: NotJudged }
  | { status: 'failed'; message: string; failures: Failure[] };

export interface CheckDefinition {
  /** Stable id `suite.name`, e.g. `ranges.max-concurrency-above-maximum`. */
  id: string;
  suite: Suite;
  /** The rule in words. */
  rule: string;
  /** Contract section(s), e.g. "4.2, 8". */
  contractRef: string;
  severity: Severity;
  /** Operations the check applies to (read from the spec model, never typed by hand). */
  appliesTo(op: Operation, spec: SpecModel): boolean;
  /** Has effects outside test data; runs only with --include-destructive. */
  destructive?: boolean;
  /**
   * Its requests are valid and expect a success answer: an operation it runs on must be judged on a
   * success answer for the run to pass (src/results/verdict.ts), unless nothing the server did kept it.
   */
  expects?: 'success';
  /** A core rule of its suite: when it runs, it must be judged on at least one operation for the run to pass. */
  core?: true;
  /**
   * Requests the check plans to send on `op` with `runs` generated cases, for --dry-run and the
   * request budget that sizes the default --runs. Without it the runner assumes `runs`.
   * `options.strictTypes` is set when --strict-types adds cases; `options.advertisedLimit` is the
   * target's X-RateLimit-Limit when known (the burst's size); `options.requestsBefore` the requests
   * planned before this pair (the burst spends what is left of the window it starts in).
   */
  plannedRequests?(op: Operation, runs: number, spec: SpecModel, options?: PlanEstimateOptions): number;
  /** The fixed inputs the check tries on `op`, one line per parameter or field, listed by --dry-run. */
  plannedCases?(op: Operation, spec: SpecModel): string[];
  /** Fixtures the check cannot run without (keys the profile declares): when one is missing the check is skipped with the reason. */
  needs?: string[];
  run(ctx: CheckContext, op: Operation): Promise<CheckOutcome>;
  /**
   * Passive judging: the runner calls it on every answer the run gets on an operation the check
   * applies to, whoever sent the request (its own requests and discovery's aside), from the first
   * pair of the run until this check × operation is reported. Returns the judgement, or undefined
   * for an exchange it does not judge (not counted). It must not send. A failure is reported at
   * once under this check × operation, with the request and its curl line; otherwise the result is
   * reported before the ratelimit suite. Its own `run` follows the last other pair on the operation
   * and sends only what nothing else covered (`ctx.judgedElsewhere()`). See ARCHITECTURE.md "Passive checks".
   */
  judgeExchange?(ctx: CheckContext, op: Operation, exchange: Exchange): Judgement | undefined;
}

/** What `plannedRequests` is told of the plan beside the operation and runs. */
export interface PlanEstimateOptions {
  strictTypes?: boolean;
  /** The target's X-RateLimit-Limit when known (the burst's size). */
  advertisedLimit?: number;
  /**
   * For a check with `judgeExchange`: another pair of the plan sends on this operation before this
   * one's own turn, so its answers are judged passively and the check's own plan may shrink.
   */
  covered?: boolean;
  /** The requests planned before this pair (the burst spends what is left of the window it starts in). */
  requestsBefore?: number;
}

/** Identity helper that keeps definitions typed. */
export function defineCheck(definition: CheckDefinition): CheckDefinition {
  return definition;
}
