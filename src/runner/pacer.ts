import type { PacingInfo } from '../results/events.js';

/** The advertised rate limit as last read from X-RateLimit-* headers. */
export interface RateLimitState {
  limit?: number;
  remaining?: number;
  /** Absolute time (ms since epoch) when the window resets, as interpreted. */
  resetAt?: number;
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
  /** Requests kept in reserve below the advertised remaining count. Default 1. */
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
export function deadlineSleep(sleep: (ms: number) => Promise<void>, deadlineAt: number | undefined, past: (waitMs: number) => Error, now: () => number = Date.now): (ms: number) => Promise<void> {
  if (deadlineAt === undefined) return sleep;
  return (ms) => (now() + ms > deadlineAt ? Promise.reject(past(ms)) : sleep(ms));
}

/**
 * Keeps the runner under the server's advertised limit and the --rpm cap. Acquisitions are
 * serialised, so concurrent sends are paced as one stream.
 *
 * - rpm: at most `rpm` requests in any sliding 60 s window (timestamps of the last `rpm` sends).
 * - headers: while the advertised remaining count (minus requests sent since it was read) is at
 *   the reserve, wait until the advertised reset.
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
  private sentSinceHeaders = 0;
  private chain: Promise<void> = Promise.resolve();

  constructor(options: PacerOptions = {}) {
    this.rpm = options.rpm && options.rpm > 0 ? options.rpm : undefined;
    this.followHeaders = options.followHeaders ?? true;
    this.reserve = options.reserve ?? 1;
    this.maxWaitMs = options.maxWaitMs ?? MAX_ADVERTISED_WAIT_MS;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
    this.onPacing = options.onPacing;
  }

  /** Acquisitions queued on the chain and not yet settled. */
  private queued = 0;

  /** Waits until one more request may be sent. */
  acquire(): Promise<void> {
    this.queued++;
    const next = this.chain.then(() => this.waitTurn());
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
  tryAcquire(): boolean {
    if (this.queued > 0 || this.waitNeeded() > 0) return false;
    this.takeTurn();
    return true;
  }

  private takeTurn(): void {
    // The send log feeds only the --rpm window; without a cap nothing reads it.
    if (this.rpm !== undefined) {
      this.sent.push(this.now());
      if (this.sent.length > this.rpm) this.sent.splice(0, this.sent.length - this.rpm);
    }
    this.sentSinceHeaders++;
  }

  private async waitTurn(): Promise<void> {
    for (let guard = 0; guard < 4; guard++) {
      const wait = this.waitNeeded();
      if (wait <= 0) break;
      this.emit(wait);
      await this.sleep(wait);
      if (this.state.resetAt !== undefined && this.now() >= this.state.resetAt) {
        // A new window: forget the stale count until the next response says otherwise.
        delete this.state.remaining;
        this.sentSinceHeaders = 0;
      }
    }
    this.takeTurn();
  }

  /** Milliseconds to wait before the next request (0 when it may go now). */
  waitNeeded(): number {
    const now = this.now();
    let wait = 0;
    if (this.rpm !== undefined && this.sent.length >= this.rpm) {
      wait = Math.max(wait, this.sent[this.sent.length - this.rpm]! + 60_000 - now);
    }
    if (this.followHeaders && this.state.remaining !== undefined) {
      const left = this.state.remaining - this.sentSinceHeaders;
      if (left <= this.reserve) {
        const resetAt = this.state.resetAt ?? now + 1_000;
        wait = Math.max(wait, resetAt - now + 50);
      }
    }
    return Math.min(Math.max(0, Math.ceil(wait)), this.maxWaitMs);
  }

  /** Forgets the advertised remaining count (a new window began). */
  windowReset(): void {
    delete this.state.remaining;
    this.sentSinceHeaders = 0;
  }

  /** Updates the advertised limit from a response's headers. */
  observe(headers: Record<string, string>): void {
    const read = readRateLimit(headers, this.now());
    if (read.limit !== undefined) this.state.limit = read.limit;
    if (read.resetAt !== undefined) this.state.resetAt = read.resetAt;
    if (read.remaining !== undefined) {
      this.state.remaining = read.remaining;
      this.sentSinceHeaders = 0;
    }
  }

  /**
   * How long to wait after a 429 before retrying: until the advertised reset (or Retry-After),
   * else exponential from 1 s; at least `minMs`. Call `windowReset()` once the wait is over.
   */
  backoffAfter429(headers: Record<string, string>, attempt: number, minMs = 250): number {
    const now = this.now();
    const read = readRateLimit(headers, now);
    this.observe(headers);
    const base = read.resetAt !== undefined ? read.resetAt - now + 50 : 1_000 * 2 ** attempt;
    return Math.min(Math.max(minMs, Math.ceil(base)), this.maxWaitMs);
  }

  private emit(waitMs: number): void {
    if (!this.onPacing) return;
    const info: PacingInfo = { waitMs };
    if (this.state.limit !== undefined) info.limit = this.state.limit;
    if (this.state.remaining !== undefined) info.remaining = this.state.remaining;
    if (this.rpm !== undefined) info.rpm = this.rpm;
    this.onPacing(info);
  }
}
