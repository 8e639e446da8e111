/**
 * The ratelimit suite's reading of the rate-limit headers (section 8): which headers an operation
 * documents, their values on one answer (present, integers, not negative, Remaining never above
 * Limit), and the shell-loop repro of a failure only a series of requests shows.
 */
import type { CheckContext } from '../../src/checks/check.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND, pointerOf, type FailureField } from '../../src/results/model.js';
import type { Operation, SpecModel } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { Findings, fail, isCredentialedRead, label, successResponse, type Judgement, OK } from '../lib.js';

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
export const isProbe = (op: Operation, spec: SpecModel): boolean => probeOperation(spec)?.id === op.id;

const INTEGER = /^-?\d+$/;

export interface Reading {
  limit?: number;
  remaining?: number;
  reset?: number;
  missing: string[];
  notInteger: string[];
  /** Each header's value as sent, when present. */
  raw: Partial<RateHeaders>;
}

export function read(exchange: Exchange, names: RateHeaders): Reading {
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
export const headerField = (exchange: Exchange, name: string): FailureField => ({
  location: 'response-header',
  pointer: pointerOf([name.toLowerCase()]),
  status: String(exchange.response?.status ?? ''),
});

/** The facts of a rate-limit header that says the wrong thing: a mismatch of that header. */
export const headerFacts = (exchange: Exchange, name: string) => ({
  kind: KIND.mismatch,
  field: headerField(exchange, name),
});

/** The rate-limit headers of one answer, through the one start (no answer and a 5xx fail, a 429 judges nothing here). */
export function judgeHeaders(ctx: CheckContext, op: Operation, exchange: Exchange, names: RateHeaders): Judgement {
  const expected = `the headers ${Object.values(names).join(', ')} on every response, each an integer (section 8)`;
  return judgeAnswer(ctx, op, exchange, { what: `a request to ${label(op)}`, expected }, () =>
    headersOf(ctx, op, exchange, names),
  );
}

export function headersOf(ctx: CheckContext, op: Operation, exchange: Exchange, names: RateHeaders): Judgement {
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
export function withRepro(findings: Findings, repro: string): Findings {
  for (const f of findings.failures) f.repro = repro;
  return findings;
}
