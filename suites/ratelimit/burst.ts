/**
 * ratelimit.burst-429: a burst past the advertised limit is answered 429 with {detail} and the
 * headers, no sooner than advertised, and Remaining never rises within the window (sections 7, 8).
 * A window that resets during a slow burst starts the count again (WindowCount).
 */
import { defineCheck, type CheckContext, type CheckOutcome } from '../../src/checks/check.js';
import { answerStart } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { burstSender } from '../lib/burst.js';
import {
  Findings,
  errorDetailProblem,
  errorDetailWording,
  fail,
  isSuccess,
  label,
  request,
  skipped,
  statusText,
  type Judgement,
  OK,
  unjudged,
} from '../lib.js';
import {
  headerFacts,
  headerField,
  isProbe,
  loopRepro,
  rateHeaders,
  read,
  unreadable,
  withRepro,
  type RateHeaders,
  type Reading,
} from './reading.js';

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
export const overBudget = (limit: number): CheckOutcome =>
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
