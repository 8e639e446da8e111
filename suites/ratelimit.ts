/**
 * ratelimit (runs last): the rate-limit headers are present and integers, Remaining never above
 * Limit and decreasing within a window, Reset plausible (seconds until the reset or an epoch, both
 * faithful readings of the contract), and a burst past the advertised limit gets 429 with {detail}
 * and the headers, no sooner than advertised (sections 7, 8).
 */
import { defineCheck, type CheckContext, type CheckDefinition, type CheckOutcome } from '../src/checks/check.js';
import { answerStart, judgeAnswer } from '../src/checks/judge.js';
import { FAILURE_KINDS as KIND, pointerOf, type FailureField } from '../src/results/model.js';
import type { Operation, SpecModel } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import { burstSender } from './lib/burst.js';
import {
  Findings,
  errorDetailProblem,
  errorDetailWording,
  fail,
  isCredentialedRead,
  isSuccess,
  label,
  request,
  skipped,
  statusText,
  successResponse,
  type Judgement,
  OK,
  unjudged,
} from './lib.js';

export interface RateHeaders {
  limit: string;
  remaining: string;
  reset: string;
}

/** The rate-limit header names, read from the documented headers of a response. */
export function rateHeaders(op: Operation): RateHeaders | undefined {
  const names = (successResponse(op)?.headers ?? []).map((h) => h.name);
  const find = (re: RegExp) => names.find((n) => re.test(n));
  const limit = find(/ratelimit-limit$/i);
  const remaining = find(/ratelimit-remaining$/i);
  const reset = find(/ratelimit-reset$/i);
  return limit && remaining && reset ? { limit, remaining, reset } : undefined;
}

/** The operation the suite probes: the first read-only one that needs credentials, has no parameters and documents the headers. */
export function probeOperation(spec: SpecModel): Operation | undefined {
  return spec.operations.find((o) => isCredentialedRead(o) && rateHeaders(o));
}
const isProbe = (op: Operation, spec: SpecModel): boolean => probeOperation(spec)?.id === op.id;

const INTEGER = /^-?\d+$/;

interface Reading {
  limit?: number;
  remaining?: number;
  reset?: number;
  missing: string[];
  notInteger: string[];
  /** Each header's value as sent, when present. */
  raw: Partial<RateHeaders>;
}

function read(exchange: Exchange, names: RateHeaders): Reading {
  const headers = exchange.response?.headers ?? {};
  const out: Reading = { missing: [], notInteger: [], raw: {} };
  for (const key of ['limit', 'remaining', 'reset'] as const) {
    const name = names[key];
    const raw = headers[name.toLowerCase()];
    if (raw !== undefined) out.raw[key] = raw;
    if (raw === undefined) out.missing.push(name);
    else if (!INTEGER.test(raw.trim())) out.notInteger.push(`${name}: ${JSON.stringify(raw)}`);
    else out[key] = Number(raw.trim());
  }
  return out;
}

/** A header value quoted for a message: JSON-escaped and cut at 60 characters. */
const quoted = (raw: string): string => JSON.stringify(raw.length > 60 ? `${raw.slice(0, 59)}…` : raw);

/**
 * Why the `keys` headers of a reading give no integer, or undefined when each does: absent, or
 * present but not an integer (the value quoted). A skip says which, never "missing" for a value sent.
 */
export function unreadable(r: Reading, names: RateHeaders, keys: ReadonlyArray<keyof RateHeaders>): string | undefined {
  const problems = keys
    .filter((k) => r[k] === undefined)
    .map((k) => {
      const raw = r.raw[k];
      return raw === undefined ? `${names[k]} absent` : `${names[k]} present but not an integer: ${quoted(raw)}`;
    });
  return problems.length > 0 ? problems.join('; ') : undefined;
}

/** A response header as a failure's field. */
const headerField = (exchange: Exchange, name: string): FailureField => ({
  location: 'response-header',
  pointer: pointerOf([name.toLowerCase()]),
  status: String(exchange.response?.status ?? ''),
});

/** The facts of a rate-limit header that says the wrong thing: a mismatch of that header. */
const headerFacts = (exchange: Exchange, name: string) => ({
  kind: KIND.mismatch,
  field: headerField(exchange, name),
});

/** The rate-limit headers of one answer, through the one start (no answer and a 5xx fail, a 429 judges nothing here). */
function judgeHeaders(ctx: CheckContext, op: Operation, exchange: Exchange, names: RateHeaders): Judgement {
  const expected = `the headers ${Object.values(names).join(', ')} on every response, each an integer (section 8)`;
  return judgeAnswer(ctx, op, exchange, { what: `a request to ${label(op)}`, expected }, () =>
    headersOf(ctx, op, exchange, names),
  );
}

function headersOf(ctx: CheckContext, op: Operation, exchange: Exchange, names: RateHeaders): Judgement {
  if (!exchange.response) return OK;
  const r = read(exchange, names);
  if (r.missing.length) {
    return fail(
      ctx,
      exchange,
      `the headers ${Object.values(names).join(', ')} on every response (section 8)`,
      `missing ${r.missing.join(', ')}`,
      `${label(op)} ${exchange.response.status} lacks ${r.missing.join(', ')}`,
      undefined,
      {
        kind: KIND.schema,
        field: headerField(exchange, r.missing[0]!),
      },
    );
  }
  if (r.notInteger.length) {
    const bad =
      (['limit', 'remaining', 'reset'] as const).find((k) => r.raw[k] !== undefined && r[k] === undefined) ?? 'reset';
    const facts = { kind: KIND.schema, field: headerField(exchange, names[bad]) };
    return fail(
      ctx,
      exchange,
      'each rate-limit header an integer (section 8)',
      r.notInteger.join('; '),
      `rate-limit header not an integer: ${r.notInteger.join('; ')}`,
      undefined,
      facts,
    );
  }
  if (r.remaining! > r.limit!) {
    return fail(
      ctx,
      exchange,
      `${names.remaining} never above ${names.limit}`,
      `${r.remaining} > ${r.limit}`,
      `${names.remaining} ${r.remaining} is above ${names.limit} ${r.limit}`,
      undefined,
      {
        kind: KIND.mismatch,
        field: headerField(exchange, names.remaining),
      },
    );
  }
  if (r.remaining! < 0 || r.limit! < 0 || r.reset! < 0) {
    return fail(
      ctx,
      exchange,
      'non-negative rate-limit values',
      `limit ${r.limit}, remaining ${r.remaining}, reset ${r.reset}`,
      'a rate-limit header is negative',
      undefined,
      headerFacts(exchange, r.remaining! < 0 ? names.remaining : r.limit! < 0 ? names.limit : names.reset),
    );
  }
  return OK;
}

const HEADER_PROBES = 3;

/**
 * The repro of a failure only a series of requests shows: a shell loop sending the same request
 * `count` times in a row (from a fresh window), printing each status line and the named headers,
 * then, with `showLast`, the last answer in full. One curl line cannot show a missing 429.
 */
export function loopRepro(
  ctx: CheckContext,
  exchange: Exchange,
  count: number,
  headers: string[],
  showLast = false,
): string {
  const curl = ctx.curl(exchange);
  const pattern = ['HTTP/', ...headers.map((h) => `${h}:`)].join('|');
  const shown = `${curl} | grep -iE '^(${pattern})'`;
  if (!showLast) return `for i in $(seq 1 ${count}); do ${shown}; done`;
  return count > 1 ? `for i in $(seq 1 ${count - 1}); do ${shown}; done; ${curl}` : curl;
}

/** Gives every failure of `findings` the same loop repro. */
function withRepro(findings: Findings, repro: string): Findings {
  for (const f of findings.failures) f.repro = repro;
  return findings;
}

export const headersPresent = defineCheck({
  id: 'ratelimit.headers-present',
  suite: 'ratelimit',
  rule: 'Responses carry X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset, each an integer, Remaining never above Limit',
  contractRef: '8',
  severity: 'major',
  expects: 'success',
  core: true,
  appliesTo: isProbe,
  plannedRequests: () => HEADER_PROBES,
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    const findings = new Findings();
    for (let i = 0; i < HEADER_PROBES; i++) {
      findings.add(judgeHeaders(ctx, op, await ctx.send(request(op, ctx)), names));
    }
    return findings.outcome('the three headers are present and integers');
  },
});

export const remainingDecreases = defineCheck({
  id: 'ratelimit.remaining-decreases',
  suite: 'ratelimit',
  rule: 'Within one window, X-RateLimit-Remaining goes down as requests are made (never up, never stuck)',
  contractRef: '8',
  severity: 'major',
  expects: 'success',
  appliesTo: isProbe,
  plannedRequests: () => HEADER_PROBES,
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    const readings: Array<{ exchange: Exchange; r: Reading }> = [];
    for (let i = 0; i < HEADER_PROBES; i++) {
      const exchange = await ctx.send({ ...request(op, ctx), pace: false });
      if (!exchange.response || exchange.response.status === 429) continue;
      const r = read(exchange, names);
      const wrong = unreadable(r, names, ['remaining', 'reset']);
      if (wrong)
        return skipped(`${wrong} on ${exchange.response.status} (judged by ratelimit.headers-present)`, {
          cause: 'elsewhere',
        });
      readings.push({ exchange, r });
    }
    if (readings.length < 2)
      return skipped('too few answers to compare (the others were 429s or got no answer)', {
        cause: 'rate-limited',
        status: 429,
      });
    const findings = new Findings();
    let decreased = false;
    let sameWindowPairs = 0;
    for (let i = 1; i < readings.length; i++) {
      const a = readings[i - 1]!.r;
      const b = readings[i]!.r;
      // A new window shows as a Reset that moved forward (epoch) or back up (seconds until).
      const sameWindow = b.reset! <= a.reset! && b.limit === a.limit;
      if (!sameWindow) continue;
      sameWindowPairs++;
      if (b.remaining! > a.remaining!) {
        findings.add(
          fail(
            ctx,
            readings[i]!.exchange,
            `${names.remaining} not rising within a window`,
            `${a.remaining} then ${b.remaining}`,
            `${names.remaining} rose from ${a.remaining} to ${b.remaining} within one window`,
            undefined,
            headerFacts(readings[i]!.exchange, names.remaining),
          ),
        );
      }
      if (b.remaining! < a.remaining!) decreased = true;
    }
    // The answers compared were judged on the property (their Remaining within one window).
    if (sameWindowPairs > 0) for (const { exchange } of readings) ctx.noteJudged?.(exchange);
    findings.add(
      sameWindowPairs > 0 ? OK : unjudged('every two answers in a row fell in different windows', { cause: 'timing' }),
    );
    if (sameWindowPairs > 0 && !decreased && findings.failures.length === 0) {
      const last = readings[readings.length - 1]!;
      findings.add(
        fail(
          ctx,
          last.exchange,
          `${names.remaining} going down as requests are made`,
          `stuck at ${last.r.remaining}`,
          `${names.remaining} stayed at ${last.r.remaining} over ${readings.length} requests`,
          undefined,
          headerFacts(last.exchange, names.remaining),
        ),
      );
    }
    return withRepro(
      findings,
      loopRepro(ctx, readings[0]!.exchange, HEADER_PROBES, [names.remaining, names.reset]),
    ).outcome(`${names.remaining} decreases within a window`);
  },
});

/** Is a Reset value plausible: seconds until the reset (up to a day), or an epoch (seconds or milliseconds) within a day from now? */
export function plausibleReset(value: number, nowMs = Date.now()): boolean {
  const day = 86_400;
  if (value >= 0 && value <= day) return true;
  const nowS = nowMs / 1000;
  if (value >= nowS - 120 && value <= nowS + day + 120) return true;
  return value >= nowMs - 120_000 && value <= nowMs + (day + 120) * 1000;
}

export const resetPlausible = defineCheck({
  id: 'ratelimit.reset-plausible',
  suite: 'ratelimit',
  rule: 'X-RateLimit-Reset is seconds until the reset or an epoch time, within a day (the contract leaves the unit and epoch open: both accepted)',
  contractRef: '8',
  severity: 'minor',
  expects: 'success',
  appliesTo: isProbe,
  plannedRequests: () => 1,
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    const exchange = await ctx.send(request(op, ctx));
    const findings = new Findings();
    let reset: number | undefined;
    findings.add(
      judgeAnswer(
        ctx,
        op,
        exchange,
        { what: `a request to ${label(op)}`, expected: `a plausible ${names.reset}` },
        (res) => {
          const r = read(exchange, names);
          reset = r.reset;
          if (r.reset === undefined)
            return unjudged(
              `${unreadable(r, names, ['reset'])} on ${res.status} (judged by ratelimit.headers-present)`,
              {
                cause: 'elsewhere',
              },
            );
          if (plausibleReset(r.reset)) return OK;
          return fail(
            ctx,
            exchange,
            `${names.reset} as seconds until the reset (0..86400) or an epoch within a day`,
            `${r.reset}`,
            `${names.reset} ${r.reset} is neither seconds until a reset nor a near epoch`,
            undefined,
            headerFacts(exchange, names.reset),
          );
        },
      ),
    );
    return findings.outcome(`${names.reset} ${reset} is plausible`);
  },
});

/**
 * Watches the Remaining of a series of answers: it never goes up within one window (a window ends
 * when Reset moves up: seconds until a later reset, or a later epoch). The first rise is a failure.
 */
class RisingRemaining {
  failure?: Judgement;
  private last: Reading;
  constructor(
    private readonly ctx: CheckContext,
    private readonly names: RateHeaders,
    first: Exchange,
  ) {
    this.last = read(first, names);
  }
  see(exchange: Exchange): void {
    const now = read(exchange, this.names);
    const a = this.last;
    if (now.remaining === undefined || now.reset === undefined || now.limit === undefined) return;
    this.last = now;
    if (this.failure || a.remaining === undefined || a.reset === undefined) return;
    const sameWindow = now.reset <= a.reset && now.limit === a.limit;
    if (sameWindow && now.remaining > a.remaining) {
      const { remaining, reset } = this.names;
      this.failure = fail(
        this.ctx,
        exchange,
        `${remaining} never going up within a window without a reset (section 8)`,
        `${remaining} ${a.remaining} then ${now.remaining}, ${reset} ${a.reset} then ${now.reset}`,
        `${remaining} rose from ${a.remaining} to ${now.remaining} within one window (${reset} did not move on)`,
        undefined,
        headerFacts(exchange, remaining),
      );
    }
  }
}

/** Integer Limit and Remaining that are present but say no limit: Limit below 1, Remaining below 0. */
function implausibleStart(limit: number, remaining: number, names: RateHeaders): string | undefined {
  const problems = [
    ...(limit < 1 ? [`${names.limit} ${limit} (below 1)`] : []),
    ...(remaining < 0 ? [`${names.remaining} ${remaining} (below 0)`] : []),
  ];
  return problems.length > 0 ? `present but implausible: ${problems.join(', ')}` : undefined;
}

/** The largest advertised limit the burst will exceed; above it the burst would cost too much. */
export const MAX_BURST = 2000;

/**
 * The burst's requests at an advertised limit: what is left of the window it starts in (the run's
 * `before` requests spend the windows before it, the pacer waiting at each end) and the 429; the
 * limit and two past it when `before` is unknown; one probe when skipped; 102 when the limit is unknown.
 */
export function burstRequests(limit: number | undefined, before?: number): number {
  if (limit === undefined) return 102;
  if (limit > MAX_BURST) return 1;
  return before === undefined || limit < 1 ? limit + 2 : limit - (before % limit) + 1;
}

/** What a burst saw: the answers served before the 429 (the first included), the last of them, and the 429. */
interface Burst {
  okCount: number;
  lastServed?: Exchange;
  limited?: Exchange;
  /** An exchange without an answer ended the burst. */
  unanswered?: Exchange;
  rising?: Judgement;
  /** More requests were served within one window than its first answer advertised as remaining (+1). */
  overdrawn?: boolean;
  /** Windows that began during the burst (Reset moved on and Remaining went back up). */
  rollovers: number;
}

/**
 * Counts what one window served: a new window (Reset moved on and Remaining went back up) starts the
 * count again, so a burst slower than a short window (a loaded machine) is not taken for a server
 * that never limits; a request served after its window said none remain, or more served in one
 * window than it advertised, is.
 */
class WindowCount {
  rollovers = 0;
  overdrawn = false;
  private served = 0;
  private start: Reading;
  private last: Reading;
  private windowEnds: number | undefined;
  constructor(
    first: Reading,
    firstServed: boolean,
    private readonly resetAt: () => number | undefined,
  ) {
    this.start = first;
    this.last = first;
    this.served = firstServed ? 1 : 0;
    this.windowEnds = resetAt();
  }
  see(now: Reading, served: boolean): void {
    const a = this.last;
    this.last = now;
    const fresh =
      now.reset !== undefined &&
      a.reset !== undefined &&
      now.reset > a.reset &&
      now.remaining !== undefined &&
      a.remaining !== undefined &&
      now.remaining > a.remaining;
    // A new window only once the old one's advertised reset has come (a second of rounding allowed):
    // a server handing out fresh windows early is one that never limits.
    if (fresh && (this.windowEnds === undefined || Date.now() >= this.windowEnds - 1000)) {
      this.rollovers++;
      this.start = now;
      this.served = 0;
      this.windowEnds = this.resetAt();
    } else if (served && a.remaining === 0) this.overdrawn = true; // served after the window said none remain
    if (served) this.served++;
    if (this.start.remaining !== undefined && this.served > this.start.remaining + 1) this.overdrawn = true;
  }
}

/**
 * Sends the rest of the burst after `first` until a 429 (at most Remaining + Limit + 2 requests):
 * concurrently while far from the edge, one at a time near it (suites/lib/burst.ts).
 */
async function burstUntil429(
  ctx: CheckContext,
  names: RateHeaders,
  first: Exchange,
  send: () => Promise<Exchange>,
): Promise<Burst> {
  const start = read(first, names);
  const limited = first.response!.status === 429 ? first : undefined;
  const out: Burst = {
    okCount: isSuccess(first.response!.status) ? 1 : 0,
    rollovers: 0,
    ...(limited ? { limited } : { lastServed: first }),
  };
  const cap = start.remaining! + start.limit! + 2;
  const rising = new RisingRemaining(ctx, names, first);
  const windows = new WindowCount(start, out.okCount === 1, () => ctx.rateLimit().resetAt);
  const next = burstSender(send, (e) => read(e, names).remaining);
  for (let i = 0; !out.limited && i < cap; i++) {
    const exchange = await next();
    if (!exchange.response) {
      out.unanswered = exchange;
      break;
    }
    rising.see(exchange);
    windows.see(read(exchange, names), exchange.response.status !== 429);
    if (exchange.response.status === 429) out.limited = exchange;
    else {
      out.okCount++;
      out.lastServed = exchange;
    }
  }
  if (rising.failure) out.rising = rising.failure;
  out.rollovers = windows.rollovers;
  if (windows.overdrawn) out.overdrawn = true;
  return out;
}

/** The facts of a 429 that came when or as it should not: a status finding. */
const burstFacts = { kind: KIND.status } as const;

/** Judges the 429 that ended a burst: not before the advertised Remaining was used, {detail}, the headers with Remaining 0. */
function judge429(
  ctx: CheckContext,
  op: Operation,
  names: RateHeaders,
  first: Exchange,
  burst: Burst,
  findings: Findings,
): void {
  const limited = burst.limited!;
  const start = read(first, names);
  // The first answer already counted itself in Remaining; okCount includes it.
  const advertised = start.remaining! + 1;
  if (burst.okCount < advertised && first.response!.status !== 429) {
    findings.add(
      fail(
        ctx,
        limited,
        `no 429 before ${advertised} requests (Remaining ${start.remaining} after the first)`,
        `429 after ${burst.okCount} requests`,
        `429 came after ${burst.okCount} requests, sooner than the advertised ${advertised}`,
        undefined,
        burstFacts,
      ),
    );
  }
  const before = burst.lastServed ? read(burst.lastServed, names).remaining : undefined;
  if (before !== undefined && before > 0) {
    findings.add(
      fail(
        ctx,
        limited,
        `no 429 while Remaining is above 0 (section 8)`,
        `429 right after an answer advertising ${names.remaining}: ${before}`,
        `429 came while ${before} request(s) were still advertised as remaining`,
        undefined,
        burstFacts,
      ),
    );
  }
  const problem = errorDetailProblem(429, limited.response!);
  if (problem)
    findings.add(
      fail(
        ctx,
        limited,
        'a 429 with {detail: string} saying the rate limit was exceeded (section 7)',
        problem,
        `the 429: ${problem}`,
        undefined,
        { kind: KIND.errorDetail, field: { location: 'response', pointer: '/detail', status: '429' } },
      ),
    );
  const wording = problem ? undefined : errorDetailWording(429, limited.response!);
  if (wording) ctx.observe({ operation: label(op), message: wording });
  const headers = read(limited, names);
  if (headers.missing.length || headers.notInteger.length) {
    findings.add(
      fail(
        ctx,
        limited,
        'the rate-limit headers on the 429 (section 8)',
        [...headers.missing.map((m) => `missing ${m}`), ...headers.notInteger].join('; '),
        `the 429 lacks integer rate-limit headers (${[...headers.missing, ...headers.notInteger].join(', ')})`,
        undefined,
        { kind: KIND.schema, field: headerField(limited, headers.missing[0] ?? names.remaining) },
      ),
    );
  } else if (headers.remaining! > 0) {
    findings.add(
      fail(
        ctx,
        limited,
        `${names.remaining}: 0 on the 429 (the limit is exceeded, section 8)`,
        `${names.remaining}: ${headers.remaining}`,
        `the 429 advertises ${headers.remaining} request(s) remaining`,
        undefined,
        headerFacts(limited, names.remaining),
      ),
    );
  }
  ctx.noteJudged?.(limited);
  findings.add(OK); // the burst reached its 429, and the 429 was judged
}

/** Why the burst's first answer gives nothing to burst past, or undefined when it does. */
function noBurst(ctx: CheckContext, op: Operation, names: RateHeaders, first: Exchange): CheckOutcome | undefined {
  // The one start: no answer and a 5xx fail; a 429 here still starts the burst (it is the limit).
  if (first.response?.status !== 429) {
    const start = answerStart(ctx, op, first, { what: `the first request of the burst`, expected: 'an answer' });
    if (start && !start.ok) return { status: 'failed', message: start.summary, failures: [start.failure] };
  }
  const start = read(first, names);
  if (start.limit === undefined || start.remaining === undefined)
    return skipped(
      `${unreadable(start, names, ['limit', 'remaining'])}: no limit to burst past (judged by ratelimit.headers-present)`,
      { cause: 'elsewhere' },
    );
  const implausible = implausibleStart(start.limit, start.remaining, names);
  if (implausible)
    return skipped(`${implausible}: no limit to burst past (judged by ratelimit.headers-present)`, {
      cause: 'elsewhere',
    });
  if (start.limit > MAX_BURST) return overBudget(start.limit);
  return undefined;
}

/** A limit the burst will not spend: the runner's budget, not the server's doing. */
const overBudget = (limit: number): CheckOutcome =>
  skipped(`the advertised limit ${limit} exceeds the burst budget of ${MAX_BURST} requests`, { cause: 'runner' });

export const burst429 = defineCheck({
  id: 'ratelimit.burst-429',
  suite: 'ratelimit',
  rule: 'A burst past the advertised limit is answered 429 with {detail: string} and the rate-limit headers (Remaining 0), no 429 comes before the advertised Remaining is used up, and Remaining never goes up within the window',
  contractRef: '7, 8',
  severity: 'critical',
  core: true,
  appliesTo: isProbe,
  // What is left of its window when the dry run knows the limit and the requests before, else 102.
  plannedRequests: (_op, _runs, _spec, options) => burstRequests(options?.advertisedLimit, options?.requestsBefore),
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    // A limit already advertised above the budget: skip now rather than after waiting for a window.
    const known = ctx.rateLimit().limit;
    if (known !== undefined && known > MAX_BURST) return overBudget(known);
    // No wait for a fresh window: the burst spends what is left of this one (Remaining + 1
    // requests), and ratelimit.reset-honoured then waits for the advertised reset. Only a window
    // the last answer said was spent is waited out first (as the pacer would before any request):
    // a burst starting on a 429 would show nothing of the limit.
    const now = ctx.rateLimit();
    if (now.remaining === 0 && now.resetAt !== undefined && now.resetAt > Date.now()) await ctx.waitForWindow();
    let sent = 0;
    const send = () => {
      sent++;
      return ctx.send({ ...request(op, ctx), pace: false, retryOn429: false });
    };
    const first = await send();
    const none = noBurst(ctx, op, names, first);
    if (none) return none;
    const start = read(first, names);
    const burst = await burstUntil429(ctx, names, first, send);
    const findings = new Findings();
    // Every burst failure is shown by the burst itself: the loop of the requests sent, the last in full.
    const outcome = (message: string) =>
      withRepro(findings, loopRepro(ctx, first, sent, [names.remaining], true)).outcome(message);
    if (burst.unanswered) {
      findings.add(
        fail(
          ctx,
          burst.unanswered,
          'an answer during the burst',
          statusText(burst.unanswered),
          `${label(op)}: no response during the burst`,
          undefined,
          { kind: KIND.noResponse },
        ),
      );
      return outcome('');
    }
    if (burst.rising) findings.add(burst.rising);
    if (!burst.limited && !burst.overdrawn && burst.rollovers > 0) {
      findings.add(
        unjudged(
          `the window reset ${burst.rollovers} time(s) during the burst before its Remaining was used (the requests were slower than the window): no window was spent`,
          { cause: 'timing' },
        ),
      );
      return outcome('');
    }
    if (!burst.limited) {
      findings.add(
        fail(
          ctx,
          first,
          `a 429 once ${start.limit} requests per window are used (section 8)`,
          `${burst.okCount} requests served, none limited`,
          `no 429 after ${burst.okCount} requests; the advertised limit is ${start.limit}`,
          undefined,
          burstFacts,
        ),
      );
      return outcome('');
    }
    judge429(ctx, op, names, first, burst, findings);
    return outcome(`429 {detail} after ${burst.okCount} requests (limit ${start.limit})`);
  },
});

/** The longest advertised reset ratelimit.reset-honoured waits for (a minute's window and a margin). */
export const RESET_WAIT_CAP_MS = 65_000;

/** How far below the limit Remaining may be on the first answer of a new window: a tenth of the limit, at least 2. */
export const nearLimit = (limit: number): number => limit - Math.max(2, Math.ceil(limit / 10));

/** Sends until a 429 (at most the advertised Remaining + 1, or the burst cap): right after ratelimit.burst-429, one request. */
async function until429(ctx: CheckContext, op: Operation, names: RateHeaders): Promise<Exchange | CheckOutcome> {
  let cap = 2;
  let last: number | undefined;
  let reset = false;
  for (let i = 0; i < cap && i <= MAX_BURST + 1; i++) {
    const exchange = await ctx.send({ ...request(op, ctx), pace: false, retryOn429: false });
    if (!exchange.response) return skipped(`${label(op)}: ${statusText(exchange)}`, { cause: 'elsewhere' });
    if (exchange.response.status === 429) return exchange;
    const r = read(exchange, names);
    if (i === 0 && r.remaining !== undefined) cap = r.remaining + 2;
    if (r.limit !== undefined && r.limit > MAX_BURST) return overBudget(r.limit);
    if (last !== undefined && r.remaining !== undefined && r.remaining > last) reset = true;
    last = r.remaining;
  }
  // A window that reset while it was being spent: the requests were slower than the window.
  if (reset)
    return skipped(
      'the window reset before its Remaining was spent (the requests were slower than the window): no 429 to wait out',
      {
        cause: 'timing',
      },
    );
  return skipped('no 429 to wait out (judged by ratelimit.burst-429)', { cause: 'elsewhere' });
}

/** The second more ratelimit.reset-honoured waits when Reset is whole seconds (it may be rounded down). */
export const ROUNDING_MS = 1_000;

/** What ratelimit.reset-honoured learnt by waiting: the 429 it waited out, its Reset, and the answer after. */
interface AfterReset {
  limited: Exchange;
  reset: number;
  after: Exchange;
  waitedMs: number;
  /** The advertised wait, ms from the 429. */
  advertisedMs: number;
}

/**
 * Judges the answer after the advertised reset on what section 8 says: served again (not a 429),
 * with the rate-limit headers present and integers. How full the new window is (a sliding window
 * gives back one slot at a time) is not stated: a Remaining far below Limit is an observation.
 */
function judgeAfterReset(ctx: CheckContext, op: Operation, names: RateHeaders, got: AfterReset): CheckOutcome {
  const { limited, reset, after } = got;
  const findings = new Findings();
  const waited = `waited ${got.waitedMs} ms after a 429 with ${names.reset}: ${reset}`;
  const served = `a served request once the advertised reset has passed (${names.reset}: ${reset} on the 429, section 8)`;
  // A 429 here is the finding itself, not a budget event: judged before the one start would set it aside.
  if (after.response?.status === 429) {
    ctx.noteJudged?.(after);
    findings.add(
      fail(
        ctx,
        after,
        served,
        `429 again (${waited})`,
        `still 429 after the advertised reset passed: the 429 said ${names.reset}: ${reset} (${waited})`,
        undefined,
        { kind: KIND.status },
      ),
    );
  } else
    findings.add(
      judgeAnswer(ctx, op, after, { what: 'the request after the advertised reset', expected: served }, () => {
        const headers = headersOf(ctx, op, after, names);
        const r = read(after, names);
        if (headers.ok && r.remaining !== undefined && r.limit !== undefined && r.remaining < nearLimit(r.limit))
          ctx.observe({
            operation: label(op),
            message: `after the advertised reset ${names.remaining} is ${r.remaining} of ${r.limit} (${waited}): the window is not full again, which section 8 does not require (a sliding window gives slots back one at a time)`,
          });
        return headers;
      }),
    );
  const repro = `${loopRepro(ctx, limited, 1, [names.remaining, names.reset])}; sleep ${Math.max(1, Math.ceil(got.advertisedMs / 1000))}; ${ctx.curl(after)}`;
  return withRepro(findings, repro).outcome(
    `served again after the advertised reset (${names.reset}: ${reset}; ${waited})`,
  );
}

/**
 * Waits out the 429's advertised reset and sends once more; whole seconds may be rounded down
 * (Reset 0 in the last second of a window), so a second 429 gets one more second. Every wait stops
 * at the run's deadline (--deadline-ms): then a skip that says so.
 */
async function afterReset(
  ctx: CheckContext,
  op: Operation,
  names: RateHeaders,
  limited: Exchange,
  reset: number,
  resetAt: number,
): Promise<AfterReset | string> {
  const send = () => ctx.send({ ...request(op, ctx), pace: false, retryOn429: false });
  const advertisedMs = resetAt - Date.now();
  const started = Date.now();
  const deadline = (what: string) =>
    `the run's deadline (--deadline-ms) comes before ${what} (${names.reset}: ${reset})`;
  if ((await ctx.waitForWindow()) === false || Date.now() < resetAt) return deadline('the advertised reset');
  let after = await send();
  if (after.response?.status === 429 && reset < 1e12) {
    if (
      !(await ctx.pause(
        ROUNDING_MS,
        `a second more after the advertised reset, which may be rounded down (${names.reset}: ${reset})`,
      ))
    )
      return deadline('a second past the advertised reset');
    after = await send();
  }
  return { limited, reset, after, waitedMs: Date.now() - started, advertisedMs };
}

export const resetHonoured = defineCheck({
  id: 'ratelimit.reset-honoured',
  suite: 'ratelimit',
  rule: `After a 429, once the advertised X-RateLimit-Reset has passed (waited for up to ${RESET_WAIT_CAP_MS / 1000} s; a second more when Reset is whole seconds, which may be rounded down), the next request is served, with the rate-limit headers present and integers (how full the new window is, the contract does not say: observed)`,
  contractRef: '7, 8',
  severity: 'critical',
  appliesTo: isProbe,
  plannedRequests: () => 2,
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    const limited = await until429(ctx, op, names);
    if ('status' in limited) return limited;
    const given = read(limited, names);
    if (given.reset === undefined)
      return skipped(
        `the 429: ${unreadable(given, names, ['reset'])}, so no reset to wait for (judged by ratelimit.burst-429)`,
        { cause: 'elsewhere' },
      );
    const resetAt = ctx.rateLimit().resetAt;
    if (resetAt === undefined)
      return skipped(`the 429's ${names.reset} ${given.reset} is an integer but gave the runner no time to wait for`, {
        cause: 'elsewhere',
      });
    const wait = resetAt - Date.now();
    if (wait > RESET_WAIT_CAP_MS)
      return skipped(
        `the advertised reset (${names.reset}: ${given.reset}) is ${Math.round(wait / 1000)} s away, past the ${RESET_WAIT_CAP_MS / 1000} s this check waits`,
        { cause: 'runner' },
      );
    const got = await afterReset(ctx, op, names, limited, given.reset, resetAt);
    return typeof got === 'string' ? skipped(got, { cause: 'timing' }) : judgeAfterReset(ctx, op, names, got);
  },
});

/** Registry order: the burst after the header checks, since it spends the window; then the wait for its reset. */
export const ratelimitChecks: CheckDefinition[] = [
  headersPresent,
  remainingDecreases,
  resetPlausible,
  burst429,
  resetHonoured,
];
