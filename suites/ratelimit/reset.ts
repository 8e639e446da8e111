/**
 * ratelimit.reset-honoured: after the burst's 429, once the advertised Reset has passed, the next
 * request is served with the rate-limit headers (sections 7, 8).
 */
import { defineCheck, type CheckContext, type CheckOutcome } from '../../src/checks/check.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { Findings, fail, label, request, skipped, statusText } from '../lib.js';
import {
  headersOf,
  isProbe,
  loopRepro,
  rateHeaders,
  read,
  unreadable,
  withRepro,
  type RateHeaders,
} from './reading.js';
import { MAX_BURST, overBudget } from './burst.js';

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
