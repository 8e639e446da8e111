/**
 * ratelimit (runs last): the rate-limit headers are present and integers, Remaining never above
 * Limit and decreasing within a window, Reset plausible (seconds until the reset or an epoch, both
 * faithful readings of the contract), and a burst past the advertised limit gets 429 with {detail}
 * and the headers, no sooner than advertised (sections 7, 8).
 */
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/checks/check.js';
import { FAILURE_KINDS as KIND, pointerOf, type FailureField } from '../src/results/model.js';
import type { Operation, SpecModel } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import { Findings, errorDetailProblem, fail, isCredentialedRead, isSuccess, label, request, skipped, statusText, successResponse, type Judgement, OK } from './lib.js';

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
}

function read(exchange: Exchange, names: RateHeaders): Reading {
  const headers = exchange.response?.headers ?? {};
  const out: Reading = { missing: [], notInteger: [] };
  for (const key of ['limit', 'remaining', 'reset'] as const) {
    const name = names[key];
    const raw = headers[name.toLowerCase()];
    if (raw === undefined) out.missing.push(name);
    else if (!INTEGER.test(raw.trim())) out.notInteger.push(`${name}: ${JSON.stringify(raw)}`);
    else out[key] = Number(raw.trim());
  }
  return out;
}

/** A response header as a failure's field. */
const headerField = (exchange: Exchange, name: string): FailureField => ({ location: 'response-header', pointer: pointerOf([name.toLowerCase()]), status: String(exchange.response?.status ?? '') });

function judgeHeaders(ctx: CheckContext, op: Operation, exchange: Exchange, names: RateHeaders): Judgement {
  if (!exchange.response) return fail(ctx, exchange, 'an answer', statusText(exchange), `${label(op)}: no response`);
  const r = read(exchange, names);
  if (r.missing.length) {
    return fail(ctx, exchange, `the headers ${Object.values(names).join(', ')} on every response (section 8)`, `missing ${r.missing.join(', ')}`, `${label(op)} ${exchange.response.status} lacks ${r.missing.join(', ')}`, undefined, {
      kind: KIND.schema,
      field: headerField(exchange, r.missing[0]!),
    });
  }
  if (r.notInteger.length) {
    return fail(ctx, exchange, 'each rate-limit header an integer (section 8)', r.notInteger.join('; '), `rate-limit header not an integer: ${r.notInteger.join('; ')}`, undefined, { kind: KIND.schema });
  }
  if (r.remaining! > r.limit!) {
    return fail(ctx, exchange, `${names.remaining} never above ${names.limit}`, `${r.remaining} > ${r.limit}`, `${names.remaining} ${r.remaining} is above ${names.limit} ${r.limit}`, undefined, {
      kind: KIND.mismatch,
      field: headerField(exchange, names.remaining),
    });
  }
  if (r.remaining! < 0 || r.limit! < 0 || r.reset! < 0) {
    return fail(ctx, exchange, 'non-negative rate-limit values', `limit ${r.limit}, remaining ${r.remaining}, reset ${r.reset}`, 'a rate-limit header is negative');
  }
  return OK;
}

const HEADER_PROBES = 3;

/**
 * The repro of a failure only a series of requests shows: a shell loop sending the same request
 * `count` times in a row (from a fresh window), printing each status line and the named headers,
 * then, with `showLast`, the last answer in full. One curl line cannot show a missing 429.
 */
export function loopRepro(ctx: CheckContext, exchange: Exchange, count: number, headers: string[], showLast = false): string {
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
  appliesTo: isProbe,
  plannedRequests: () => HEADER_PROBES,
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    const findings = new Findings();
    for (let i = 0; i < HEADER_PROBES; i++) {
      const exchange = await ctx.send(request(op, ctx));
      if (exchange.response?.status === 429) continue;
      findings.add(judgeHeaders(ctx, op, exchange, names));
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
  appliesTo: isProbe,
  plannedRequests: () => HEADER_PROBES,
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    const readings: Array<{ exchange: Exchange; r: Reading }> = [];
    for (let i = 0; i < HEADER_PROBES; i++) {
      const exchange = await ctx.send({ ...request(op, ctx), pace: false });
      if (!exchange.response || exchange.response.status === 429) continue;
      const r = read(exchange, names);
      if (r.remaining === undefined || r.reset === undefined) return skipped('the headers are missing (judged by ratelimit.headers-present)');
      readings.push({ exchange, r });
    }
    if (readings.length < 2) return skipped('too few answers to compare');
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
        findings.add(fail(ctx, readings[i]!.exchange, `${names.remaining} not rising within a window`, `${a.remaining} then ${b.remaining}`, `${names.remaining} rose from ${a.remaining} to ${b.remaining} within one window`));
      }
      if (b.remaining! < a.remaining!) decreased = true;
    }
    if (sameWindowPairs > 0 && !decreased && findings.failures.length === 0) {
      const last = readings[readings.length - 1]!;
      findings.add(fail(ctx, last.exchange, `${names.remaining} going down as requests are made`, `stuck at ${last.r.remaining}`, `${names.remaining} stayed at ${last.r.remaining} over ${readings.length} requests`));
    }
    return withRepro(findings, loopRepro(ctx, readings[0]!.exchange, HEADER_PROBES, [names.remaining, names.reset])).outcome(`${names.remaining} decreases within a window`);
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
  appliesTo: isProbe,
  plannedRequests: () => 1,
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    const exchange = await ctx.send(request(op, ctx));
    const r = read(exchange, names);
    if (r.reset === undefined) return skipped('no integer Reset header (judged by ratelimit.headers-present)');
    const findings = new Findings();
    if (!plausibleReset(r.reset)) {
      findings.add(fail(ctx, exchange, `${names.reset} as seconds until the reset (0..86400) or an epoch within a day`, `${r.reset}`, `${names.reset} ${r.reset} is neither seconds until a reset nor a near epoch`, undefined, {
        kind: KIND.mismatch,
        field: headerField(exchange, names.reset),
      }));
    }
    return findings.outcome(`${names.reset} ${r.reset} is plausible`);
  },
});

/** The largest advertised limit the burst will exceed; above it the burst would cost too much. */
export const MAX_BURST = 2000;

export const burst429 = defineCheck({
  id: 'ratelimit.burst-429',
  suite: 'ratelimit',
  rule: 'A burst past the advertised limit is answered 429 with {detail: string} and the rate-limit headers (Remaining 0), and no 429 comes before the advertised Remaining is used up',
  contractRef: '7, 8',
  severity: 'critical',
  appliesTo: isProbe,
  plannedRequests: () => 102,
  async run(ctx, op) {
    const names = rateHeaders(op)!;
    // A limit already advertised above the budget: skip now rather than after waiting for a window.
    const known = ctx.rateLimit().limit;
    if (known !== undefined && known > MAX_BURST) return skipped(`the advertised limit ${known} exceeds the burst budget of ${MAX_BURST} requests`);
    await ctx.waitForWindow();
    let sent = 0;
    const send = () => {
      sent++;
      return ctx.send({ ...request(op, ctx), pace: false, retryOn429: false });
    };
    const first = await send();
    const start = read(first, names);
    if (!first.response) return { status: 'failed', message: `${label(op)}: no response`, failures: [ctx.failure(first, { expected: 'an answer', actual: statusText(first) })] };
    if (start.limit === undefined || start.remaining === undefined) return skipped('the target advertises no integer limit: no burst to judge (see ratelimit.headers-present)');
    if (start.limit > MAX_BURST) return skipped(`the advertised limit ${start.limit} exceeds the burst budget of ${MAX_BURST} requests`);
    const findings = new Findings();
    // Every burst failure is shown by the burst itself: the loop of the requests sent, the last in full.
    const outcome = (message: string) => withRepro(findings, loopRepro(ctx, first, sent, [names.remaining], true)).outcome(message);
    let okCount = isSuccess(first.response.status) ? 1 : 0;
    let limited: Exchange | undefined = first.response.status === 429 ? first : undefined;
    // The last answer served before the 429: its Remaining says whether the limit was used up.
    let lastServed: Exchange | undefined = limited ? undefined : first;
    const cap = start.remaining + start.limit + 2;
    for (let i = 0; !limited && i < cap; i++) {
      const exchange = await send();
      if (!exchange.response) {
        findings.add(fail(ctx, exchange, 'an answer during the burst', statusText(exchange), `${label(op)}: no response during the burst`));
        return outcome('');
      }
      if (exchange.response.status === 429) limited = exchange;
      else {
        okCount++;
        lastServed = exchange;
      }
    }
    if (!limited) {
      findings.add(fail(ctx, first, `a 429 once ${start.limit} requests per window are used (section 8)`, `${okCount} requests served, none limited`, `no 429 after ${okCount} requests; the advertised limit is ${start.limit}`));
      return outcome('');
    }
    // The first answer already counted itself in Remaining; okCount includes it.
    const advertised = start.remaining + 1;
    if (okCount < advertised && first.response.status !== 429) {
      findings.add(fail(ctx, limited, `no 429 before ${advertised} requests (Remaining ${start.remaining} after the first)`, `429 after ${okCount} requests`, `429 came after ${okCount} requests, sooner than the advertised ${advertised}`));
    }
    const before = lastServed ? read(lastServed, names).remaining : undefined;
    if (before !== undefined && before > 0) {
      findings.add(fail(ctx, limited, `no 429 while Remaining is above 0 (section 8)`, `429 right after an answer advertising ${names.remaining}: ${before}`, `429 came while ${before} request(s) were still advertised as remaining`));
    }
    const problem = errorDetailProblem(429, limited.response!);
    if (problem) findings.add(fail(ctx, limited, 'a 429 with {detail: string} saying the rate limit was exceeded (section 7)', problem, `the 429: ${problem}`));
    const headers = read(limited, names);
    if (headers.missing.length || headers.notInteger.length) {
      findings.add(fail(ctx, limited, 'the rate-limit headers on the 429 (section 8)', [...headers.missing.map((m) => `missing ${m}`), ...headers.notInteger].join('; '), `the 429 lacks integer rate-limit headers (${[...headers.missing, ...headers.notInteger].join(', ')})`));
    } else if (headers.remaining! > 0) {
      findings.add(fail(ctx, limited, `${names.remaining}: 0 on the 429 (the limit is exceeded, section 8)`, `${names.remaining}: ${headers.remaining}`, `the 429 advertises ${headers.remaining} request(s) remaining`));
    }
    return outcome(`429 {detail} after ${okCount} requests (limit ${start.limit})`);
  },
});

/** Registry order: the burst last, since it spends the window. */
export const ratelimitChecks: CheckDefinition[] = [headersPresent, remainingDecreases, resetPlausible, burst429];
