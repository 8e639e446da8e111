import type { PacingInfo } from '../results/events.js';

/** The advertised rate limit as last read from X-RateLimit-* headers. */
export interface RateLimitState {
  limit?: number;
  remaining?: number;
  /** Absolute time (ms since epoch) when the window resets, as interpreted. */
  resetAt?: number;
  /**
   * The window's length (ms) as inferred from the first answer of a fresh window (see
   * `inferWindowMs`); undefined until such an answer is seen. X-RateLimit-Limit carries no window.
   */
  windowMs?: number;
}

/**
 * The window's length as an answer tells it, when that answer is the first of a fresh window:
 * Remaining at Limit − 1 (this request alone counted), so the time until its Reset is the whole
 * window, rounded up to whole seconds (Reset is usually whole seconds). Undefined for any other
 * answer: a window partly spent says nothing of its length. A server whose windows are aligned to
 * the clock (each minute at :00) and first reached late in one shows a shorter window than it has.
 */
export function inferWindowMs(state: RateLimitState, now: number): number | undefined {
  const { limit, remaining, resetAt } = state;
  if (limit === undefined || remaining === undefined || resetAt === undefined || limit < 1 || remaining < limit - 1)
    return undefined;
  return Math.max(1, Math.ceil((resetAt - now) / 1000)) * 1000;
}

/** Reads an integer header; undefined when absent or not an integer. */
function intHeader(headers: Record<string, string>, name: string): number | undefined {
  const raw = headers[name];
  if (raw === undefined) return undefined;
  const comma = raw.indexOf(',');
  const trimmed = (comma < 0 ? raw : raw.slice(0, comma)).trim();
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/**
 * Interprets X-RateLimit-Reset: the contract leaves its unit open. Values that look like a Unix
 * epoch (seconds after 2001, or milliseconds) are absolute; smaller values are seconds until the reset.
 */
export function resetToAbsolute(value: number, now: number): number {
  if (value >= 1e12) return value; // epoch milliseconds
  if (value >= 1e9) return value * 1000; // epoch seconds
  return now + Math.max(0, value) * 1000;
}

/** Reads the three rate-limit headers (and Retry-After as a fallback for the reset). */
export function readRateLimit(headers: Record<string, string>, now: number): RateLimitState {
  const state: RateLimitState = {};
  const limit = intHeader(headers, 'x-ratelimit-limit');
  const remaining = intHeader(headers, 'x-ratelimit-remaining');
  const reset = intHeader(headers, 'x-ratelimit-reset');
  if (limit !== undefined) state.limit = limit;
  if (remaining !== undefined) state.remaining = remaining;
  if (reset !== undefined) state.resetAt = resetToAbsolute(reset, now);
  else {
    const retryAfter = intHeader(headers, 'retry-after');
    if (retryAfter !== undefined) state.resetAt = now + retryAfter * 1000;
  }
  return state;
}

export interface PacerOptions {
  /** Client-side cap in requests per minute (--rpm). */
  rpm?: number;
  /** Follow X-RateLimit-Remaining/Reset (default true). */
  followHeaders?: boolean;
  /** Requests kept in reserve below the advertised remaining count. Default 0: wait only when an answer says the budget is spent. */
  reserve?: number;
  /** Longest single wait, so a bogus far-future reset cannot stall a run. Default MAX_ADVERTISED_WAIT_MS (65 s). */
  maxWaitMs?: number;
  /** Clock and sleep, replaceable in tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  onPacing?: (info: PacingInfo) => void;
}

export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The longest single wait a server's advertisement can ask for (X-RateLimit-Reset, Retry-After, a
 * 429's backoff): a minute's window plus slack. A reset hours away waits this long, not hours.
 */
export const MAX_ADVERTISED_WAIT_MS = 65_000;

/**
 * A sleep that never passes the run's deadline: a wait that would end after `deadlineAt` is not
 * started; `past(ms)` makes the error it rejects with instead (the runner's RunAbortedError), so
 * every wait (pacing, 429 backoff, the burst's window) ends the run cleanly at the deadline.
 */
export function deadlineSleep(
  sleep: (ms: number) => Promise<void>,
  deadlineAt: number | undefined,
  past: (waitMs: number) => Error,
  now: () => number = Date.now,
): (ms: number) => Promise<void> {
  if (deadlineAt === undefined) return sleep;
  return (ms) => (now() + ms > deadlineAt ? Promise.reject(past(ms)) : sleep(ms));
}

/** One rate-limit bucket (the requests a server counts together) as its last answer described it. */
interface Bucket {
  /** How the bucket is named in pacing messages: never a credential's value. */
  name: string;
  remaining?: number;
  resetAt?: number;
  /** Paced requests of this bucket sent and not answered yet. */
  inFlight: number;
  /** What said `remaining`: the header (or the 429) and the operation of that answer. */
  cause?: string;
}

/**
 * Keeps the runner under the server's advertised limit and the --rpm cap. Acquisitions are
 * serialised, so concurrent sends are paced as one stream.
 *
 * - rpm: at most `rpm` requests in any sliding 60 s window (timestamps of the last `rpm` sends).
 * - headers, per bucket: a server counts requests per credential (or only authenticated ones), so
 *   each set of credentials is paced by what the last answer to that set said. The runner waits
 *   only when that answer's X-RateLimit-Remaining (less the requests still in flight in the
 *   bucket) is at the reserve (0 by default), or a 429 said so, until its reset. Requests whose
 *   answers carry no rate-limit headers are never counted against a budget: the server may not
 *   count them (a 401 to a request without credentials, on a server counting only its users).
 */
export class Pacer {
  readonly state: RateLimitState = {};
  private readonly rpm: number | undefined;
  private readonly followHeaders: boolean;
  private readonly reserve: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly onPacing: ((info: PacingInfo) => void) | undefined;
  private readonly sent: number[] = [];
  private readonly buckets = new Map<string, Bucket>();
  private chain: Promise<void> = Promise.resolve();

  constructor(options: PacerOptions = {}) {
    this.rpm = options.rpm && options.rpm > 0 ? options.rpm : undefined;
    this.followHeaders = options.followHeaders ?? true;
    this.reserve = options.reserve ?? 0;
    this.maxWaitMs = options.maxWaitMs ?? MAX_ADVERTISED_WAIT_MS;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
    this.onPacing = options.onPacing;
  }

  /** Acquisitions queued on the chain and not yet settled. */
  private queued = 0;

  /** The bucket of a key (`''`: no credentials), created and named on first use. */
  private bucket(key: string): Bucket {
    let found = this.buckets.get(key);
    if (!found) {
      const named = [...this.buckets.keys()].filter((k) => k !== '').length;
      found = { name: key === '' ? 'no credentials' : `credentials #${named + 1}`, inFlight: 0 };
      this.buckets.set(key, found);
    }
    return found;
  }

  /** Waits until one more request of `bucket` may be sent. */
  acquire(bucket = ''): Promise<void> {
    this.queued++;
    const next = this.chain.then(() => this.waitTurn(bucket));
    const settled = () => {
      this.queued--;
    };
    this.chain = next.then(settled, settled);
    return next;
  }

  /**
   * Takes the turn at once when no acquisition is queued and no wait is needed (what `acquire`
   * would do after a round of promise ticks); false when the caller must `await acquire()`.
   */
  tryAcquire(bucket = ''): boolean {
    if (this.queued > 0 || this.waitNeeded(bucket) > 0) return false;
    this.takeTurn(bucket);
    return true;
  }

  /** A paced request of `bucket` was answered (or failed): it is no longer in flight. */
  release(bucket = ''): void {
    const b = this.bucket(bucket);
    b.inFlight = Math.max(0, b.inFlight - 1);
  }

  private takeTurn(bucket: string): void {
    // The send log feeds only the --rpm window; without a cap nothing reads it.
    if (this.rpm !== undefined) {
      this.sent.push(this.now());
      if (this.sent.length > this.rpm) this.sent.splice(0, this.sent.length - this.rpm);
    }
    this.bucket(bucket).inFlight++;
  }

  private async waitTurn(bucket: string): Promise<void> {
    for (let guard = 0; guard < 4; guard++) {
      const { wait, cause } = this.waitFor(bucket);
      if (wait <= 0) break;
      this.emit(wait, cause, this.bucket(bucket));
      await this.sleep(wait);
      const b = this.bucket(bucket);
      // A new window (or one whose end was never advertised): forget the count until the next answer.
      if (b.resetAt === undefined || this.now() >= b.resetAt) this.forget(b);
    }
    this.takeTurn(bucket);
  }

  /** Milliseconds to wait before the next request of `bucket` (0 when it may go now). */
  waitNeeded(bucket = ''): number {
    return this.waitFor(bucket).wait;
  }

  /** The wait and what asks for it: the --rpm cap, or the answer that spent the bucket. */
  private waitFor(key: string): { wait: number; cause?: string } {
    const now = this.now();
    let wait = 0;
    let cause: string | undefined;
    if (this.rpm !== undefined && this.sent.length >= this.rpm) {
      wait = this.sent[this.sent.length - this.rpm]! + 60_000 - now;
      cause = `--rpm ${this.rpm}`;
    }
    const b = this.followHeaders ? this.buckets.get(key) : undefined;
    if (b && b.resetAt !== undefined && now >= b.resetAt) this.forget(b);
    if (b && b.remaining !== undefined && b.remaining - b.inFlight <= this.reserve) {
      const until = (b.resetAt ?? now + 1_000) - now + 50;
      if (until > wait) {
        wait = until;
        cause = `${b.cause ?? 'the last answer'} (${b.name})`;
      }
    }
    return {
      wait: Math.min(Math.max(0, Math.ceil(wait)), this.maxWaitMs),
      ...(cause !== undefined && wait > 0 ? { cause } : {}),
    };
  }

  private forget(b: Bucket): void {
    delete b.remaining;
    delete b.cause;
  }

  /** Forgets every advertised remaining count (a new window began: a 429 or a window waited out). */
  windowReset(): void {
    for (const b of this.buckets.values()) this.forget(b);
  }

  /** What the last wait-worthy answer of `bucket` was, for a message: `X-RateLimit-Remaining: 0 on GET /calls (credentials #1)`. */
  causeOf(bucket = ''): string | undefined {
    const b = this.buckets.get(bucket);
    return b?.cause !== undefined ? `${b.cause} (${b.name})` : undefined;
  }

  /** Updates the advertised limit, and the bucket's count, from an answer's headers (`operation` names it in messages). */
  observe(headers: Record<string, string>, bucket = '', operation?: string): void {
    const read = readRateLimit(headers, this.now());
    // The longest window a fresh answer showed: a clock-aligned window first reached late shows less.
    const windowMs = inferWindowMs(read, this.now());
    if (windowMs !== undefined) this.state.windowMs = Math.max(windowMs, this.state.windowMs ?? 0);
    if (read.limit !== undefined) this.state.limit = read.limit;
    if (read.resetAt !== undefined) this.state.resetAt = read.resetAt;
    if (read.remaining !== undefined) this.state.remaining = read.remaining;
    if (read.resetAt === undefined && read.remaining === undefined) return;
    const b = this.bucket(bucket);
    if (read.resetAt !== undefined) b.resetAt = read.resetAt;
    if (read.remaining !== undefined) {
      b.remaining = read.remaining;
      b.cause = `X-RateLimit-Remaining: ${read.remaining} on ${operation ?? 'an answer'}`;
    }
  }

  /**
   * How long to wait after a 429 before retrying: until the advertised reset (or Retry-After),
   * else exponential from 1 s; at least `minMs`. The 429 says the bucket is spent, whatever its
   * headers. Call `windowReset()` once the wait is over.
   */
  backoffAfter429(
    headers: Record<string, string>,
    attempt: number,
    minMs = 250,
    bucket = '',
    operation?: string,
  ): number {
    const now = this.now();
    const read = readRateLimit(headers, now);
    this.observe(headers, bucket, operation);
    const base = read.resetAt !== undefined ? read.resetAt - now + 50 : 1_000 * 2 ** attempt;
    const wait = Math.min(Math.max(minMs, Math.ceil(base)), this.maxWaitMs);
    const b = this.bucket(bucket);
    b.remaining = 0;
    b.cause = `429${read.remaining !== undefined ? ` with X-RateLimit-Remaining: ${read.remaining}` : ''} on ${operation ?? 'an answer'}`;
    if (read.resetAt === undefined) b.resetAt = now + wait;
    return wait;
  }

  private emit(waitMs: number, cause: string | undefined, bucket: Bucket): void {
    if (!this.onPacing) return;
    const info: PacingInfo = { waitMs };
    if (this.state.limit !== undefined) info.limit = this.state.limit;
    if (bucket.remaining !== undefined) info.remaining = bucket.remaining;
    if (this.rpm !== undefined) info.rpm = this.rpm;
    if (cause !== undefined) info.cause = cause;
    this.onPacing(info);
  }
}
