import type { PacingInfo } from '../results/events.js';
import type { Suite } from '../results/model.js';
import type { Observation } from '../results/model.js';
import type { Operation, SpecModel } from '../spec/model.js';
import { pathPattern } from '../spec/path-template.js';
import { isDistinctive, Secrets } from '../secrets/index.js';
import type { HttpRequest, Transport, Exchange } from '../transport/types.js';
import type { RunEvents } from '../results/events.js';
import type {
  CheckContext,
  Credentials,
  Fixtures,
  RequestValidator,
  SendOptions,
  SharedTally,
} from '../checks/check.js';
import { deadlineSleep, Pacer, realSleep } from './pacer.js';
import { documentedHeaders } from './context/credentials.js';
import { evidenceOf } from './context/evidence.js';
import { ObservationLog } from './context/observations.js';
import { ServedEvidence } from './context/served.js';
import { RunAbortedError, SendingPolicy, type AnswerListener } from './context/sending.js';

export { credentialHeaders } from './context/credentials.js';
export { RunAbortedError, type AnswerListener } from './context/sending.js';

export interface CheckContextOptions {
  spec: SpecModel;
  transport: Transport;
  fixtures?: Fixtures;
  credentials?: Credentials;
  seed?: number;
  runs?: number;
  strictTypes?: boolean;
  includeDestructive?: boolean;
  /** Client-side cap in requests per minute. */
  rpm?: number;
  /** Follow X-RateLimit-* headers (default true). */
  followRateLimit?: boolean;
  /** A pacer to share; built from rpm/followRateLimit when absent. */
  pacer?: Pacer;
  /** The run's secrets (the CLI shares its own, to scrub live output with what the run learns). */
  secrets?: Secrets;
  /** Re-validates wire requests (the project's validators, adapted); without it `validateWire` reports unavailable. */
  validateRequest?: RequestValidator;
  events?: RunEvents;
  /** Resends after a 429 outside a burst suite (default 6). */
  maxRetries429?: number;
  /** The suites that spend the rate-limit window (the profile's `burst`): their 429s are answers, not resent. */
  burstSuites?: ReadonlySet<string>;
  /** Absolute time (ms since epoch) after which `send` throws RunAbortedError('deadline'). */
  deadlineAt?: number;
  /** Consecutive connection-level failures (refused, reset, timeout) after which the run is aborted. Default 8. */
  maxConsecutiveTransportErrors?: number;
  /** Sees every exchange, before redaction (for recording transports in tests). */
  onExchange?: (exchange: Exchange, checkId: string | undefined) => void;
  /** Hears that an exchange's answer was judged on the property of the check `checkId` (coverage counts cells through those). */
  onJudged?: (exchange: Exchange, checkId: string | undefined) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** The runner's view of a context: the CheckContext plus counters and per-check scopes. */
export interface RunContext extends CheckContext {
  readonly pacer: Pacer;
  readonly secrets: Secrets;
  /** Requests sent so far (all scopes). */
  readonly requests: number;
  /** Answers that were 429 so far (all scopes). */
  readonly rateLimited: number;
  readonly observations: Observation[];
  /**
   * A context for one check × operation: counts its own requests and tags its observations;
   * `judgedElsewhere` (a passive check's) becomes its `judgedElsewhere`.
   */
  scope(checkId: string, suite: Suite, operation?: Operation, judgedElsewhere?: () => SharedTally): ScopedContext;
  /** Hears every exchange on a known operation, scrubbed, before its sender reads it; returns the removal. */
  onAnswer(listener: AnswerListener): () => void;
  /** Sets the generated cases per property (the runner sizes it after discovery). */
  setRuns(runs: number): void;
  /** Why the credentials stopped working, once a check said so (`credentialsLost`). */
  readonly lostCredentials: string | undefined;
}

export interface ScopedContext extends CheckContext {
  readonly requests: number;
}

/** Compiles operation path templates so a request can be matched to its operation. */
function operationMatcher(spec: SpecModel): (method: string, path: string) => Operation | undefined {
  const compiled = spec.operations.map((op) => ({
    op,
    re: pathPattern(op.path, { anchored: true, emptyParams: false }),
  }));
  const cache = new Map<string, Operation | undefined>();
  return (method, path) => {
    const key = `${method.toUpperCase()} ${path.split('?')[0]!}`;
    if (cache.has(key)) return cache.get(key);
    const upper = method.toUpperCase();
    const bare = path.split('?')[0]!;
    const found = compiled.find((c) => c.op.method === upper && c.re.test(bare))?.op;
    if (cache.size > 2_000) cache.clear();
    cache.set(key, found);
    return found;
  };
}

function pacerFor(options: CheckContextOptions, sleep: (ms: number) => Promise<void>): Pacer {
  if (options.pacer) return options.pacer;
  const events = options.events;
  const pacerOptions: ConstructorParameters<typeof Pacer>[0] = {
    followHeaders: options.followRateLimit ?? true,
    sleep,
  };
  if (options.rpm !== undefined) pacerOptions.rpm = options.rpm;
  if (events?.onPacing) pacerOptions.onPacing = (info: PacingInfo) => events.onPacing?.(info);
  return new Pacer(pacerOptions);
}

/** The request as the transport gets it: documented credentials (unless `auth: 'none'`) under the caller's headers. */
function prepareRequest(
  input: HttpRequest & SendOptions,
  headers: Record<string, string>,
  checkId: string | undefined,
): HttpRequest {
  // The request fields picked one by one: a rest pattern excluding the send options copies
  // through a slow runtime path, once per request.
  const prepared: HttpRequest = { method: input.method, path: input.path, headers };
  if (input.query !== undefined) prepared.query = input.query;
  if (input.json !== undefined) prepared.json = input.json;
  if (input.rawBody !== undefined) prepared.rawBody = input.rawBody;
  const tag = input.checkId ?? checkId;
  if (tag !== undefined) prepared.checkId = tag;
  return prepared;
}

/** What every context of one run shares: the run's state and policies. */
interface RunShared {
  options: CheckContextOptions;
  fixtures: Fixtures;
  credentials: Credentials;
  seed: number;
  pacer: Pacer;
  secrets: Secrets;
  sending: SendingPolicy;
  matchOperation: (method: string, path: string) => Operation | undefined;
  headersFor: (op: Operation | undefined) => Record<string, string>;
  observations: ObservationLog;
  evidence: ReturnType<typeof evidenceOf>;
  served: ServedEvidence;
  state: { runs: number; lostCredentials: string | undefined };
}

/** The run's shared state and policies, from the options. */
function runShared(options: CheckContextOptions): RunShared {
  const { spec, transport } = options;
  const credentials: Credentials = { ...options.credentials };
  const seed = options.seed ?? 0;
  // Every wait (pacing, 429 backoff, the burst's window) stops the run at the deadline instead of passing it.
  const sleep = deadlineSleep(
    options.sleep ?? realSleep,
    options.deadlineAt,
    (ms) =>
      new RunAbortedError(
        `a rate-limit wait of ${Math.ceil(ms / 1000)} s would pass the run deadline (--deadline-ms)`,
        'deadline',
      ),
  );
  const pacer = pacerFor(options, sleep);
  const secrets =
    options.secrets ??
    new Secrets({
      apiKeys: credentials.apiKey ? [credentials.apiKey] : [],
      userIds: credentials.userId ? [credentials.userId] : [],
    });
  const observations = new ObservationLog(secrets, options.events);
  const sending = new SendingPolicy({
    spec,
    transport,
    pacer,
    secrets,
    events: options.events,
    sleep,
    maxRetries429: options.maxRetries429 ?? 6,
    deadlineAt: options.deadlineAt,
    maxConsecutiveTransportErrors: options.maxConsecutiveTransportErrors ?? 8,
    onExchange: options.onExchange,
    onResent: (operation, message) => observations.add({ id: 'transport.resent', operation, message }, 'runner'),
  });
  const served = new ServedEvidence(spec, credentials, options.validateRequest);
  sending.listen((exchange, op) => served.hear(exchange, op));
  return {
    options,
    fixtures: { ...options.fixtures },
    credentials,
    seed,
    pacer,
    secrets,
    sending,
    served,
    matchOperation: operationMatcher(spec),
    headersFor: documentedHeaders(spec, credentials),
    observations,
    evidence: evidenceOf(secrets, seed, options.validateRequest),
    state: { runs: options.runs ?? 25, lostCredentials: undefined },
  };
}

/** Sends for a check: documented credentials of the operation (unless `auth: 'none'`), 429 retried outside a burst suite. */
function sender(
  run: RunShared,
  checkId: string | undefined,
  suite: Suite | undefined,
  scopeOp: Operation | undefined,
  counter: { n: number },
): CheckContext['send'] {
  const { spec } = run.options;
  return (input) => {
    const operation = input.operation;
    const op =
      typeof operation === 'string'
        ? spec.operation(operation)
        : (operation ?? run.matchOperation(input.method, input.path) ?? scopeOp);
    const headers = input.auth === 'none' ? { ...input.headers } : { ...run.headersFor(op), ...input.headers };
    const retry = input.retryOn429 ?? !(suite !== undefined && run.options.burstSuites?.has(suite));
    // A request made once per run for whichever check needs it first (tagged `setup`: a shared
    // record, the create that learns a pairing) counts in the run's total, not in that check's.
    return run.sending.send(
      prepareRequest(input, headers, checkId),
      input.pace ?? true,
      op,
      retry,
      input.checkId === 'setup' ? { n: 0 } : counter,
    );
  };
}

/** The context of one check (or of the run itself when `checkId` is undefined). */
function contextOf(
  run: RunShared,
  checkId: string | undefined,
  suite: Suite | undefined,
  scopeOp: Operation | undefined,
  counter: { n: number },
): CheckContext {
  const { options, credentials, secrets, state } = run;
  const ctx: CheckContext = {
    spec: options.spec,
    fixtures: run.fixtures,
    credentials,
    seed: run.seed,
    get runs() {
      return state.runs;
    },
    strictTypes: options.strictTypes ?? false,
    includeDestructive: options.includeDestructive ?? false,
    send: sender(run, checkId, suite, scopeOp, counter),
    observe(observation) {
      run.observations.add(observation, checkId ?? 'runner');
    },
    rotateApiKey(newKey: string) {
      // A key the server handed out is scrubbed only if it could be a secret: a plain word (a
      // mock's example "string") would otherwise be erased from every rule and message.
      if (isDistinctive(newKey)) secrets.addApiKey(newKey);
      credentials.apiKey = newKey;
    },
    credentialsLost(reason: string) {
      state.lostCredentials ??= reason;
    },
    ...run.evidence,
    servedBefore: (op) => run.served.get(op),
    noteJudged: (exchange) => options.onJudged?.(exchange, checkId),
    rateLimit() {
      return { ...run.pacer.state };
    },
    waitForWindow: () => run.sending.waitForWindow(),
    pause: (ms, cause) => run.sending.pauseWithin(ms, cause),
  };
  if (suite !== undefined) ctx.suite = suite;
  return ctx;
}

/**
 * Builds the context checks run in: documented credentials applied per operation, pacing under the
 * advertised limit and the --rpm cap, 429 outside a burst suite waited out and resent,
 * requests counted, observations collected, secrets redacted from everything a report shows.
 */
export function createCheckContext(options: CheckContextOptions): RunContext {
  const shared = runShared(options);
  const root = contextOf(shared, undefined, undefined, undefined, { n: 0 });
  const run = Object.assign(root, {
    setRuns(n: number) {
      shared.state.runs = n;
    },
    pacer: shared.pacer,
    secrets: shared.secrets,
    observations: shared.observations.list,
    scope(checkId: string, suite: Suite, operation?: Operation, judgedElsewhere?: () => SharedTally): ScopedContext {
      const counter = { n: 0 };
      const scoped = contextOf(shared, checkId, suite, operation, counter);
      if (judgedElsewhere) scoped.judgedElsewhere = judgedElsewhere;
      return Object.defineProperty(scoped, 'requests', { get: () => counter.n, enumerable: true }) as ScopedContext;
    },
    onAnswer: (listener: AnswerListener) => shared.sending.listen(listener),
  }) as RunContext;
  Object.defineProperty(run, 'requests', { get: () => shared.sending.total, enumerable: true });
  Object.defineProperty(run, 'rateLimited', { get: () => shared.sending.limited, enumerable: true });
  Object.defineProperty(run, 'lostCredentials', { get: () => shared.state.lostCredentials, enumerable: true });
  return run;
}
