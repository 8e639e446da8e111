import type { PacingInfo, RunEvents } from '../../results/events.js';
import { VapcError } from '../../errors.js';
import { secretResponsePointers, type Operation, type SpecModel } from '../../spec/model.js';
import { valuesAt, type Secrets } from '../../secrets/index.js';
import type { Exchange, HttpRequest, HttpResponse, Transport, TransportErrorCode } from '../../transport/types.js';
import type { Pacer } from '../pacer.js';

/** Thrown by `send` when the run must stop (deadline passed, target stopped answering). Never a check failure. */
export class RunAbortedError extends VapcError {
  constructor(
    message: string,
    readonly reason: 'deadline' | 'unreachable',
  ) {
    super('E_RUN_ABORTED', message);
    this.name = 'RunAbortedError';
  }
}

/** `GET /calls/{call_id}`: the operation a pacing message names. */
const labelOf = (request: HttpRequest, op: Operation | undefined): string =>
  `${request.method} ${op?.path ?? request.path}`;

/** Hears an exchange on a known operation, with the id of the check that sent it. */
export type AnswerListener = (exchange: Exchange, op: Operation, checkId: string | undefined) => void;

const CONNECTION_ERRORS: TransportErrorCode[] = ['connection_refused', 'connection_reset', 'timeout'];

export interface SendingOptions {
  spec: SpecModel;
  transport: Transport;
  pacer: Pacer;
  secrets: Secrets;
  events: RunEvents | undefined;
  sleep: (ms: number) => Promise<void>;
  /** Resends after a 429 when the caller asks for retries. */
  maxRetries429: number;
  /** Absolute time (ms since epoch) after which `send` throws RunAbortedError('deadline'). */
  deadlineAt: number | undefined;
  /** Consecutive connection-level failures after which the run is aborted. */
  maxConsecutiveTransportErrors: number;
  onExchange: ((exchange: Exchange, checkId: string | undefined) => void) | undefined;
  /** Hears a request the transport resent once (the connection closed before any answer): an observation. */
  onResent?: (operation: string, message: string) => void;
}

/**
 * The run's sending policy: a deadline, pacing under the advertised limit and the client cap, 429
 * waited out and resent, a streak of connection failures ending the run; every answer teaches
 * vapc the secrets it documents and is scrubbed of known ones before a check reads it.
 */
export class SendingPolicy {
  /** Requests sent so far. */
  total = 0;
  /** Answers that were 429, the resent ones included. */
  limited = 0;
  private streak = 0;
  private readonly secretPointers: Map<Operation, string[]>;
  /** Hears every answer on a known operation once it is scrubbed, before the sender reads it (passive judging). */
  private readonly listeners = new Set<AnswerListener>();

  /** The credential headers (lower case), the bearer's first: the first one a request carries names its rate-limit bucket. */
  private readonly credentialNames: string[];

  constructor(private readonly o: SendingOptions) {
    this.secretPointers = new Map(o.spec.operations.map((op) => [op, secretResponsePointers(op)]));
    const schemes = [...o.spec.securitySchemes].sort(
      (x, y) => Number(y.credential === 'bearer') - Number(x.credential === 'bearer'),
    );
    this.credentialNames = [...new Set(schemes.map((s) => s.header.toLowerCase()))];
  }

  /**
   * The bucket a server counts a request in: its key (servers count per API key, whatever the user
   * id beside it), else its other credential, '' without any. The key stays in memory; messages
   * name the bucket by number (see Pacer).
   */
  private bucketOf(request: HttpRequest): string {
    const headers = request.headers ?? {};
    let best = '';
    let rank = this.credentialNames.length;
    for (const [name, value] of Object.entries(headers)) {
      const i = this.credentialNames.indexOf(name.toLowerCase());
      if (i >= 0 && i < rank) [best, rank] = [`${i}\0${value}`, i];
    }
    return best;
  }

  /** Sends, then (when `retry`) waits out and resends a 429 up to the retry limit; `sent` counts every attempt. */
  async send(
    request: HttpRequest,
    pace: boolean,
    op: Operation | undefined,
    retry: boolean,
    sent: { n: number },
  ): Promise<Exchange> {
    let exchange = await this.sendOnce(request, pace, op);
    sent.n++;
    for (let attempt = 0; retry && exchange.response?.status === 429 && attempt < this.o.maxRetries429; attempt++) {
      const bucket = this.bucketOf(request);
      await this.pause(
        this.o.pacer.backoffAfter429(exchange.response.headers, attempt, undefined, bucket, labelOf(request, op)),
        this.o.pacer.causeOf(bucket),
      );
      exchange = await this.sendOnce(request, pace, op);
      sent.n++;
    }
    return exchange;
  }

  /** Adds a listener of every exchange on a known operation (see RunContext.onAnswer); returns its removal. */
  listen(listener: AnswerListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Waits until the advertised rate-limit window resets (at most 65 s, and never past the run's deadline); false when the deadline cut it short. */
  async waitForWindow(): Promise<boolean> {
    const { resetAt } = this.o.pacer.state;
    if (resetAt === undefined) return true;
    return this.pauseWithin(
      Math.min(resetAt - Date.now() + 100, 65_000),
      "the rate-limit window's advertised reset, for the ratelimit suite (X-RateLimit-Reset)",
    );
  }

  /** Sleeps `ms`, never past the run's deadline (--deadline-ms): false when the deadline cut the wait short. */
  async pauseWithin(ms: number, cause: string): Promise<boolean> {
    const { deadlineAt } = this.o;
    const wait = Math.min(ms, deadlineAt === undefined ? Infinity : deadlineAt - Date.now());
    if (wait > 0) await this.pause(wait, cause);
    return wait >= ms;
  }

  private async pause(waitMs: number, cause?: string): Promise<void> {
    const { pacer, events } = this.o;
    const info: PacingInfo = { waitMs };
    if (pacer.state.limit !== undefined) info.limit = pacer.state.limit;
    if (cause !== undefined) info.cause = cause;
    events?.onPacing?.(info);
    await this.o.sleep(waitMs);
    pacer.windowReset();
  }

  private async sendOnce(request: HttpRequest, pace: boolean, op: Operation | undefined): Promise<Exchange> {
    const { pacer, deadlineAt } = this.o;
    if (deadlineAt !== undefined && Date.now() > deadlineAt) {
      throw new RunAbortedError('the run deadline passed before all checks ran', 'deadline');
    }
    const bucket = this.bucketOf(request);
    if (pace && !pacer.tryAcquire(bucket)) await pacer.acquire(bucket);
    const exchange = await this.o.transport.send(request);
    if (pace) pacer.release(bucket);
    this.total++;
    if (exchange.response?.status === 429) this.limited++;
    if (exchange.retried) this.countResent(exchange.retried.message, labelOf(request, op));
    this.o.events?.onRequest?.(this.total);
    this.o.onExchange?.(exchange, request.checkId);
    if (exchange.response) {
      pacer.observe(exchange.response.headers, bucket, labelOf(request, op));
      this.learnSecrets(exchange.response, op);
      this.scrubResponse(exchange.response);
    }
    if (op) for (const listener of this.listeners) listener(exchange, op, request.checkId);
    this.countUnreachable(exchange);
    return exchange;
  }

  /** A request sent twice counts twice, and the report says why (evidence stays honest). */
  private countResent(cause: string, label: string): void {
    this.total++;
    this.o.onResent?.(
      label,
      `${label}: the connection closed before any answer (${cause}); the idempotent request was resent once on a new connection (RFC 9112 9.3.1)`,
    );
  }

  private countUnreachable(exchange: Exchange): void {
    if (!(exchange.error && CONNECTION_ERRORS.includes(exchange.error.code) && !exchange.response)) {
      this.streak = 0;
      return;
    }
    this.streak++;
    if (this.streak >= this.o.maxConsecutiveTransportErrors) {
      throw new RunAbortedError(
        `the target stopped answering: ${this.streak} requests in a row failed (last: ${exchange.error.message})`,
        'unreachable',
      );
    }
  }

  /**
   * Learns the x-secret values of a successful answer to an operation whose documented success
   * response carries them (the invite vapc created, the key it regenerated), and nothing else:
   * an error body, or an operation without x-secret fields, teaches vapc no secret.
   */
  private learnSecrets(response: HttpResponse, op: Operation | undefined): void {
    if (!op || response.status < 200 || response.status > 299 || response.json === undefined) return;
    for (const pointer of this.secretPointers.get(op) ?? []) {
      for (const value of valuesAt(response.json, pointer)) this.o.secrets.learn(value);
    }
  }

  /**
   * What checks read of a response no longer holds a known secret: a check that quotes or slices
   * the text cannot cut a credential in half. A cut body loses a trailing start of a secret too.
   * The parsed JSON stays as it came (a regenerated key is read from it).
   */
  private scrubResponse(response: HttpResponse): void {
    const secrets = this.o.secrets;
    const text = secrets.text(response.text);
    response.text = response.truncated ? secrets.trimPartial(text) : text;
    for (const [name, value] of Object.entries(response.headers)) response.headers[name] = secrets.text(value);
  }
}
