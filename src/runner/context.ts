import type { PacingInfo, RunEvents } from '../results/events.js';
import type { Failure, Observation, Suite } from '../results/model.js';
import { secretResponsePointers, type Operation, type SpecModel } from '../spec/model.js';
import { Secrets, valuesAt } from '../secrets/index.js';
import { curlOf, recordRequest, recordResponse, redactValue } from '../secrets/record.js';
import { sanitizeObservation } from '../secrets/report.js';
import type { Exchange, HttpRequest, HttpResponse, Transport, TransportErrorCode } from '../transport/types.js';
import type { CheckContext, Credentials, Fixtures, RequestValidator, SendOptions, WireValidation } from '../checks/check.js';
import { Pacer, realSleep } from './pacer.js';

/** Thrown by `send` when the run must stop (deadline passed, target stopped answering). Never a check failure. */
export class RunAbortedError extends Error {
  constructor(
    message: string,
    readonly reason: 'deadline' | 'unreachable',
  ) {
    super(message);
    this.name = 'RunAbortedError';
  }
}

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
}

export interface ScopedContext extends CheckContext {
  readonly requests: number;
}

const CONNECTION_ERRORS: TransportErrorCode[] = ['connection_refused', 'connection_reset', 'timeout'];

/** Compiles operation path templates so a request can be matched to its operation. */
function operationMatcher(spec: SpecModel): (method: string, path: string) => Operation | undefined {
  const compiled = spec.operations.map((op) => ({
    op,
    re: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
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

export function credentialHeaders(op: Operation | undefined, spec: SpecModel, credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = {};
  const kinds = op ? op.credentials : (['bearer', 'userId'] as const);
  for (const kind of kinds) {
    const scheme = spec.securitySchemes.find((s) => s.credential === kind);
    const header = scheme?.header ?? (kind === 'bearer' ? 'Authorization' : 'X-User-ID');
    if (kind === 'bearer' && credentials.apiKey !== undefined) headers[header] = `Bearer ${credentials.apiKey}`;
    if (kind === 'userId' && credentials.userId !== undefined) headers[header] = credentials.userId;
  }
  return headers;
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
  const events = options.events;
  const sleep = options.sleep ?? realSleep;
  const pacerOptions: ConstructorParameters<typeof Pacer>[0] = { followHeaders: options.followRateLimit ?? true, sleep };
  if (options.rpm !== undefined) pacerOptions.rpm = options.rpm;
  if (events?.onPacing) pacerOptions.onPacing = (info: PacingInfo) => events.onPacing?.(info);
  const pacer = options.pacer ?? new Pacer(pacerOptions);
  const secrets =
    options.secrets ??
    new Secrets({
      apiKeys: credentials.apiKey ? [credentials.apiKey] : [],
      userIds: credentials.userId ? [credentials.userId] : [],
    });
  const secretPointers = new Map(spec.operations.map((op) => [op, secretResponsePointers(op)]));
  const maxRetries = options.maxRetries429 ?? 6;
  const maxStreak = options.maxConsecutiveTransportErrors ?? 8;
  const matchOperation = operationMatcher(spec);
  // The documented credential headers of an operation, rebuilt only when the credentials change
  // (a rotated key, or a check setting them); the caller copies them into each request.
  const documentedCache = new Map<Operation | undefined, { apiKey: string | undefined; userId: string | undefined; headers: Record<string, string> }>();
  const documentedHeaders = (op: Operation | undefined): Record<string, string> => {
    const cached = documentedCache.get(op);
    if (cached && cached.apiKey === credentials.apiKey && cached.userId === credentials.userId) return cached.headers;
    const headers = credentialHeaders(op, spec, credentials);
    documentedCache.set(op, { apiKey: credentials.apiKey, userId: credentials.userId, headers });
    return headers;
  };
  const observations: Observation[] = [];
  const seen = new Set<string>();
  let total = 0;
  let streak = 0;
  let runs = options.runs ?? 25;

  function addObservation(observation: Omit<Observation, 'id'> & { id?: string }, fallbackId: string): void {
    const given: Observation = { id: observation.id ?? fallbackId, message: observation.message };
    if (observation.operation !== undefined) given.operation = observation.operation;
    const full = sanitizeObservation(given, secrets);
    const key = `${full.id}|${full.operation ?? ''}|${full.message}`;
    if (seen.has(key)) return;
    seen.add(key);
    observations.push(full);
    events?.onObservation?.(full);
  }

  async function sendOnce(request: HttpRequest, pace: boolean, op: Operation | undefined): Promise<Exchange> {
    if (options.deadlineAt !== undefined && Date.now() > options.deadlineAt) {
      throw new RunAbortedError('the run deadline passed before all checks ran', 'deadline');
    }
    if (pace && !pacer.tryAcquire()) await pacer.acquire();
    const exchange = await transport.send(request);
    total++;
    events?.onRequest?.(total);
    options.onExchange?.(exchange, request.checkId);
    if (exchange.response) {
      pacer.observe(exchange.response.headers);
      learnSecrets(exchange.response, op);
      scrubResponse(exchange.response);
    }
    if (exchange.error && CONNECTION_ERRORS.includes(exchange.error.code) && !exchange.response) {
      streak++;
      if (streak >= maxStreak) {
        throw new RunAbortedError(
          `the target stopped answering: ${streak} requests in a row failed (last: ${exchange.error.message})`,
          'unreachable',
        );
      }
    } else {
      streak = 0;
    }
    return exchange;
  }

  /**
   * Learns the x-secret values of a successful answer to an operation whose documented success
   * response carries them (the invite vapc created, the key it regenerated), and nothing else:
   * an error body, or an operation without x-secret fields, teaches vapc no secret.
   */
  function learnSecrets(response: HttpResponse, op: Operation | undefined): void {
    if (!op || response.status < 200 || response.status > 299 || response.json === undefined) return;
    for (const pointer of secretPointers.get(op) ?? []) {
      for (const value of valuesAt(response.json, pointer)) secrets.learn(value);
    }
  }

  /**
   * What checks read of a response no longer holds a known secret: a check that quotes or slices
   * the text cannot cut a credential in half. A cut body loses a trailing start of a secret too.
   * The parsed JSON stays as it came (a regenerated key is read from it).
   */
  function scrubResponse(response: HttpResponse): void {
    const text = secrets.text(response.text);
    response.text = response.truncated ? secrets.trimPartial(text) : text;
    for (const [name, value] of Object.entries(response.headers)) response.headers[name] = secrets.text(value);
  }

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
      async send(input: HttpRequest & SendOptions): Promise<Exchange> {
        const operation = input.operation;
        const op = typeof operation === 'string' ? spec.operation(operation) : (operation ?? matchOperation(input.method, input.path) ?? scopeOp);
        const headers = input.auth === 'none' ? { ...input.headers } : { ...documentedHeaders(op), ...input.headers };
        // The request fields picked one by one: a rest pattern excluding the send options copies
        // through a slow runtime path, once per request.
        const prepared: HttpRequest = { method: input.method, path: input.path, headers };
        if (input.query !== undefined) prepared.query = input.query;
        if (input.json !== undefined) prepared.json = input.json;
        if (input.rawBody !== undefined) prepared.rawBody = input.rawBody;
        const tag = input.checkId ?? checkId;
        if (tag !== undefined) prepared.checkId = tag;
        const retry = input.retryOn429 ?? suite !== 'ratelimit';
        const doPace = input.pace ?? true;
        let exchange = await sendOnce(prepared, doPace, op);
        counter.n++;
        for (let attempt = 0; retry && exchange.response?.status === 429 && attempt < maxRetries; attempt++) {
          const wait = pacer.backoffAfter429(exchange.response.headers, attempt);
          const info: PacingInfo = { waitMs: wait };
          if (pacer.state.limit !== undefined) info.limit = pacer.state.limit;
          events?.onPacing?.(info);
          await sleep(wait);
          pacer.windowReset();
          exchange = await sendOnce(prepared, doPace, op);
          counter.n++;
        }
        return exchange;
      },
      observe(observation) {
        addObservation(observation, checkId ?? 'runner');
      },
      rotateApiKey(newKey: string) {
        secrets.addApiKey(newKey);
        credentials.apiKey = newKey;
      },
      curl(exchange: Exchange): string {
        return curlOf(secrets, exchange);
      },
      validateWire(op: Operation, exchange: Exchange): WireValidation {
        if (!options.validateRequest) return { available: false, valid: true, errors: [] };
        const result = options.validateRequest(op, exchange);
        return { available: true, valid: result.valid, errors: result.errors.map((e) => secrets.evidence(e)) };
      },
      failure(exchange, details): Failure {
        const recorded = ctx.record(exchange);
        const failure: Failure = {
          expected: secrets.evidence(details.expected),
          actual: secrets.evidence(details.actual),
          request: recorded.request,
          repro: curlOf(secrets, exchange),
          seed,
        };
        if (recorded.response) failure.response = recorded.response;
        if (details.input !== undefined) failure.input = redactValue(secrets, details.input);
        if (details.path !== undefined) failure.path = details.path;
        return failure;
      },
      record(exchange: Exchange) {
        const out: ReturnType<CheckContext['record']> = { request: recordRequest(secrets, exchange.request) };
        if (exchange.response) out.response = recordResponse(secrets, exchange.response, exchange.durationMs);
        return out;
      },
      redact<T>(value: T): T {
        return redactValue(secrets, value) as T;
      },
      rateLimit() {
        return { ...pacer.state };
      },
      async waitForWindow() {
        const resetAt = pacer.state.resetAt;
        if (resetAt === undefined) return;
        const wait = Math.min(resetAt - Date.now() + 100, 65_000);
        if (wait <= 0) return;
        const info: PacingInfo = { waitMs: wait };
        if (pacer.state.limit !== undefined) info.limit = pacer.state.limit;
        events?.onPacing?.(info);
        await sleep(wait);
        pacer.windowReset();
      },
    };
    if (suite !== undefined) ctx.suite = suite;
    return ctx;
  }

  const rootCounter = { n: 0 };
  const root = makeContext(undefined, undefined, undefined, rootCounter);
  const run: RunContext = Object.assign(root, {
    setRuns(n: number) {
      runs = n;
    },
    pacer,
    secrets,
    observations,
    scope(checkId: string, suite: Suite, operation?: Operation): ScopedContext {
      const counter = { n: 0 };
      const scoped = makeContext(checkId, suite, operation, counter);
      return Object.defineProperty(scoped, 'requests', { get: () => counter.n, enumerable: true }) as ScopedContext;
    },
  }) as RunContext;
  Object.defineProperty(run, 'requests', { get: () => total, enumerable: true });
  return run;
}
