import type { PacingInfo } from '../results/events.js';
import type { Suite } from '../results/model.js';
import type { Observation } from '../results/model.js';
import type { Operation, SpecModel } from '../spec/model.js';
import { pathPattern } from '../spec/path-template.js';
import { isDistinctive, Secrets } from '../secrets/index.js';
import type { HttpRequest, Transport, Exchange } from '../transport/types.js';
import type { RunEvents } from '../results/events.js';
import type { CheckContext, Credentials, Fixtures, RequestValidator, SendOptions } from '../checks/check.js';
import { deadlineSleep, Pacer, realSleep } from './pacer.js';
import { documentedHeaders } from './context/credentials.js';
import { evidenceOf } from './context/evidence.js';
import { ObservationLog } from './context/observations.js';
import { RunAbortedError, SendingPolicy } from './context/sending.js';

export { credentialHeaders } from './context/credentials.js';
export { RunAbortedError } from './context/sending.js';

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
  /** Resends after a 429 outside the ratelimit suite (default 6). */
  maxRetries429?: number;
  /** Absolute time (ms since epoch) after which `send` throws RunAbortedError('deadline'). */
  deadlineAt?: number;
  /** Consecutive connection-level failures (refused, reset, timeout) after which the run is aborted. Default 8. */
  maxConsecutiveTransportErrors?: number;
  /** Sees every exchange, before redaction (for recording transports in tests). */
  onExchange?: (exchange: Exchange, checkId: string | undefined) => void;
  sleep?: (ms: number) => Promise<void>;
}

/** The runner's view of a context: the CheckContext plus counters and per-check scopes. */
export interface RunContext extends CheckContext {
  readonly pacer: Pacer;
  readonly secrets: Secrets;
  /** Requests sent so far (all scopes). */
  readonly requests: number;
  readonly observations: Observation[];
  /** A context for one check × operation: counts its own requests and tags its observations. */
  scope(checkId: string, suite: Suite, operation?: Operation): ScopedContext;
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
  const compiled = spec.operations.map((op) => ({ op, re: pathPattern(op.path, { anchored: true, emptyParams: false }) }));
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
  const pacerOptions: ConstructorParameters<typeof Pacer>[0] = { followHeaders: options.followRateLimit ?? true, sleep };
  if (options.rpm !== undefined) pacerOptions.rpm = options.rpm;
  if (events?.onPacing) pacerOptions.onPacing = (info: PacingInfo) => events.onPacing?.(info);
  return new Pacer(pacerOptions);
}

/** The request as the transport gets it: documented credentials (unless `auth: 'none'`) under the caller's headers. */
function prepareRequest(input: HttpRequest & SendOptions, headers: Record<string, string>, checkId: string | undefined): HttpRequest {
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

/**
 * Builds the context checks run in: documented credentials applied per operation, pacing under the
 * advertised limit and the --rpm cap, 429 outside the ratelimit suite waited out and resent,
 * requests counted, observations collected, secrets redacted from everything a report shows.
 */
export function createCheckContext(options: CheckContextOptions): RunContext {
  const { spec, transport } = options;
  const credentials: Credentials = { ...options.credentials };
  const fixtures: Fixtures = { ...options.fixtures };
  const seed = options.seed ?? 0;
  // Every wait (pacing, 429 backoff, the burst's window) stops the run at the deadline instead of passing it.
  const sleep = deadlineSleep(options.sleep ?? realSleep, options.deadlineAt, (ms) => new RunAbortedError(`a rate-limit wait of ${Math.ceil(ms / 1000)} s would pass the run deadline (--deadline-ms)`, 'deadline'));
  const pacer = pacerFor(options, sleep);
  const secrets = options.secrets ?? new Secrets({ apiKeys: credentials.apiKey ? [credentials.apiKey] : [], userIds: credentials.userId ? [credentials.userId] : [] });
  const sending = new SendingPolicy({ spec, transport, pacer, secrets, events: options.events, sleep, maxRetries429: options.maxRetries429 ?? 6, deadlineAt: options.deadlineAt, maxConsecutiveTransportErrors: options.maxConsecutiveTransportErrors ?? 8, onExchange: options.onExchange });
  const matchOperation = operationMatcher(spec);
  const headersFor = documentedHeaders(spec, credentials);
  const observations = new ObservationLog(secrets, options.events);
  const evidence = evidenceOf(secrets, seed, options.validateRequest);
  let runs = options.runs ?? 25;
  let lostCredentials: string | undefined;

  function makeContext(checkId: string | undefined, suite: Suite | undefined, scopeOp: Operation | undefined, counter: { n: number }): CheckContext {
    const ctx: CheckContext = {
      spec,
      fixtures,
      credentials,
      seed,
      get runs() {
        return runs;
      },
      strictTypes: options.strictTypes ?? false,
      includeDestructive: options.includeDestructive ?? false,
      send(input: HttpRequest & SendOptions): Promise<Exchange> {
        const operation = input.operation;
        const op = typeof operation === 'string' ? spec.operation(operation) : (operation ?? matchOperation(input.method, input.path) ?? scopeOp);
        const headers = input.auth === 'none' ? { ...input.headers } : { ...headersFor(op), ...input.headers };
        const retry = input.retryOn429 ?? suite !== 'ratelimit';
        // A request made once per run for whichever check needs it first (tagged `setup`: a shared
        // record, the create that learns a pairing) counts in the run's total, not in that check's.
        return sending.send(prepareRequest(input, headers, checkId), input.pace ?? true, op, retry, input.checkId === 'setup' ? { n: 0 } : counter);
      },
      observe(observation) {
        observations.add(observation, checkId ?? 'runner');
      },
      rotateApiKey(newKey: string) {
        // A key the server handed out is scrubbed only if it could be a secret: a plain word (a
        // mock's example "string") would otherwise be erased from every rule and message.
        if (isDistinctive(newKey)) secrets.addApiKey(newKey);
        credentials.apiKey = newKey;
      },
      credentialsLost(reason: string) {
        lostCredentials ??= reason;
      },
      ...evidence,
      rateLimit() {
        return { ...pacer.state };
      },
      waitForWindow: () => sending.waitForWindow(),
      pause: (ms, cause) => sending.pauseWithin(ms, cause),
    };
    if (suite !== undefined) ctx.suite = suite;
    return ctx;
  }

  const root = makeContext(undefined, undefined, undefined, { n: 0 });
  const run: RunContext = Object.assign(root, {
    setRuns(n: number) {
      runs = n;
    },
    pacer,
    secrets,
    observations: observations.list,
    scope(checkId: string, suite: Suite, operation?: Operation): ScopedContext {
      const counter = { n: 0 };
      const scoped = makeContext(checkId, suite, operation, counter);
      return Object.defineProperty(scoped, 'requests', { get: () => counter.n, enumerable: true }) as ScopedContext;
    },
  }) as RunContext;
  Object.defineProperty(run, 'requests', { get: () => sending.total, enumerable: true });
  Object.defineProperty(run, 'lostCredentials', { get: () => lostCredentials, enumerable: true });
  return run;
}
