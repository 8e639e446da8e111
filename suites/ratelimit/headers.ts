/**
 * The ratelimit suite's header checks, sent before the burst spends the window: the three headers
 * present and integers, Remaining decreasing within a window, Reset a plausible time (section 8).
 */
import { defineCheck } from '../../src/checks/check.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import type { Exchange } from '../../src/transport/types.js';
import { Findings, fail, label, request, skipped, OK, unjudged } from '../lib.js';
import {
  headerFacts,
  isProbe,
  judgeHeaders,
  loopRepro,
  rateHeaders,
  read,
  unreadable,
  withRepro,
  type Reading,
} from './reading.js';

const HEADER_PROBES = 3;

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
