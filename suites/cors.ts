/**
 * cors: the three preflight operations, sent the way the contract documents them (OPTIONS with
 * `Authorization: Bearer`), as a browser's preflight (Origin, Access-Control-Request-Method and
 * -Headers), are answered with a success and the headers a browser needs to go on (section 4.11).
 * 200 and 204 are both accepted; allowed origins, methods and headers beyond the request are open.
 */
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/checks/check.js';
import { judgeAnswer } from '../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../src/results/model.js';
import { credentialHeader, type Operation } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import {
  Findings,
  OK,
  fail,
  isSuccess,
  label,
  pathValues,
  preflightHeaders,
  request,
  skipped,
  type Judgement,
  unjudged,
} from './lib.js';

const isPreflight = (op: Operation): boolean => op.method === 'OPTIONS';

async function preflight(ctx: CheckContext, op: Operation): Promise<Exchange> {
  const values = {
    ...Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, 'vapc-preflight'])),
    ...pathValues(ctx, op),
  };
  return ctx.send(request(op, ctx, { pathValues: values, headers: preflightHeaders(ctx.spec) }));
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);

/**
 * A preflight as the contract documents it, whoever sent it: the browser's preflight headers and
 * the credentials in use (a wrong or missing key is the auth suite's probe, not a preflight to judge).
 */
function isDocumentedPreflight(ctx: CheckContext, op: Operation, exchange: Exchange): boolean {
  const sent = Object.fromEntries(Object.entries(exchange.request.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const want: Record<string, string | undefined> = { ...preflightHeaders(ctx.spec) };
  for (const kind of op.credentials)
    want[credentialHeader(ctx.spec, kind)] =
      kind === 'bearer' ? `Bearer ${ctx.credentials.apiKey}` : ctx.credentials.userId;
  return Object.entries(want).every(([k, v]) => sent[k.toLowerCase()] === v);
}

/** Why a cors check sends nothing of its own: another check's documented preflight was judged. */
function coveredElsewhere(ctx: CheckContext, op: Operation): string | undefined {
  return (ctx.judgedElsewhere?.().judged ?? 0) > 0
    ? `no preflight of its own: the documented preflight another check sent to ${op.path} was judged`
    : undefined;
}

/** The facts of a preflight answer missing what a browser needs: a mismatch of that header. */
const headerFacts = (exchange: Exchange, header: string) => ({
  kind: KIND.mismatch,
  field: { location: 'response-header', pointer: `/${header}`, status: String(exchange.response?.status ?? '') },
});

const ANSWERED = 'the preflight answered with a success (200 or 204) (section 4.11)';

function answered(ctx: CheckContext, op: Operation, exchange: Exchange): Judgement {
  return judgeAnswer(ctx, op, exchange, { what: 'the preflight', expected: ANSWERED }, (res) =>
    isSuccess(res.status)
      ? OK
      : fail(
          ctx,
          exchange,
          ANSWERED,
          `status ${res.status}`,
          `the preflight of ${op.path} was answered ${res.status}`,
          undefined,
          {
            kind: KIND.status,
          },
        ),
  );
}

/** One header of a preflight answer: judged on a success answer (any other is cors.preflight-answered's to judge). */
function judgeHeader(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  judge: (ctx: CheckContext, op: Operation, exchange: Exchange, headers: Record<string, string>) => Judgement | string,
): { judgement: Judgement; message?: string } {
  let message: string | undefined;
  const judgement = judgeAnswer(ctx, op, exchange, { what: 'the preflight', expected: ANSWERED }, (res) => {
    if (!isSuccess(res.status))
      return unjudged(`the preflight was answered ${res.status} (judged by cors.preflight-answered)`, {
        cause: 'elsewhere',
        status: res.status,
      });
    const verdict = judge(ctx, op, exchange, res.headers);
    if (typeof verdict !== 'string') return verdict;
    message = verdict;
    return OK;
  });
  return message === undefined ? { judgement } : { judgement, message };
}

export const preflightAnswered = defineCheck({
  id: 'cors.preflight-answered',
  suite: 'cors',
  rule: 'A CORS preflight with the documented Authorization bearer is answered with a success status (200 or 204)',
  contractRef: '4.11',
  severity: 'major',
  expects: 'success',
  core: true,
  appliesTo: isPreflight,
  plannedRequests: (_op, _runs, _spec, options) => (options?.covered ? 0 : 1),
  judgeExchange: (ctx, op, exchange) =>
    isDocumentedPreflight(ctx, op, exchange) && exchange.response?.status !== 429
      ? answered(ctx, op, exchange)
      : undefined,
  async run(ctx, op) {
    const covered = coveredElsewhere(ctx, op);
    if (covered) return skipped(covered, { cause: 'covered' });
    const findings = new Findings();
    findings.add(answered(ctx, op, await preflight(ctx, op)));
    return findings.outcome('the preflight is answered');
  },
});

/**
 * A check of one header of the preflight answer: one preflight, and `judge` once it was answered
 * with a success (a failed or rate-limited answer is cors.preflight-answered's or a budget event).
 */
function preflightHeaderCheck(
  def: Pick<CheckDefinition, 'id' | 'rule' | 'contractRef' | 'severity'> & {
    judge: (
      ctx: CheckContext,
      op: Operation,
      exchange: Exchange,
      headers: Record<string, string>,
    ) => Judgement | string;
  },
): CheckDefinition {
  return defineCheck({
    id: def.id,
    suite: 'cors',
    rule: def.rule,
    contractRef: def.contractRef,
    severity: def.severity,
    expects: 'success',
    appliesTo: isPreflight,
    plannedRequests: (_op, _runs, _spec, options) => (options?.covered ? 0 : 1),
    judgeExchange(ctx, op, exchange) {
      const res = exchange.response;
      if (!res || !isSuccess(res.status) || !isDocumentedPreflight(ctx, op, exchange)) return undefined;
      return judgeHeader(ctx, op, exchange, def.judge).judgement;
    },
    async run(ctx, op) {
      const covered = coveredElsewhere(ctx, op);
      if (covered) return skipped(covered, { cause: 'covered' });
      const { judgement, message } = judgeHeader(ctx, op, await preflight(ctx, op), def.judge);
      const findings = new Findings();
      findings.add(judgement);
      return findings.outcome(message ?? `the preflight of ${op.path} carries what a browser needs`);
    },
  });
}

export const preflightAllowOrigin = preflightHeaderCheck({
  id: 'cors.preflight-allow-origin',
  rule: 'The preflight answer carries Access-Control-Allow-Origin matching the request Origin (or *)',
  contractRef: '4.11',
  severity: 'major',
  judge(ctx, op, exchange, headers) {
    const origin = preflightHeaders(ctx.spec)['Origin']!;
    const allow = headers['access-control-allow-origin'];
    if (allow !== '*' && allow !== origin) {
      return fail(
        ctx,
        exchange,
        `Access-Control-Allow-Origin: ${origin} or * (a browser needs it)`,
        allow === undefined ? 'no Access-Control-Allow-Origin' : `Access-Control-Allow-Origin: ${allow}`,
        `the preflight of ${op.path} does not allow the origin`,
        undefined,
        headerFacts(exchange, 'access-control-allow-origin'),
      );
    }
    return 'the origin is allowed';
  },
});

export const preflightAllowHeaders = preflightHeaderCheck({
  id: 'cors.preflight-allow-headers',
  rule: 'The preflight answer allows the request headers the contract needs (Authorization, X-User-ID) in Access-Control-Allow-Headers',
  contractRef: '4.11, 5.1',
  severity: 'major',
  judge(ctx, op, exchange, headers) {
    const asked = list(preflightHeaders(ctx.spec)['Access-Control-Request-Headers']);
    const allowed = list(headers['access-control-allow-headers']);
    const wildcard = allowed.includes('*');
    // The Fetch standard never lets `*` cover Authorization (the header this API is called with):
    // a browser given only `*` refuses to send the bearer. Other headers `*` covers.
    const missing = asked.filter((h) => !allowed.includes(h) && !(wildcard && h !== 'authorization'));
    if (missing.length) {
      const why = wildcard && missing.includes('authorization') ? ' (* never covers Authorization in a browser)' : '';
      return fail(
        ctx,
        exchange,
        `Access-Control-Allow-Headers covering ${asked.join(', ')}`,
        allowed.length ? `Access-Control-Allow-Headers: ${allowed.join(', ')}` : 'no Access-Control-Allow-Headers',
        `the preflight of ${op.path} does not allow ${missing.join(', ')}${why}`,
        undefined,
        headerFacts(exchange, 'access-control-allow-headers'),
      );
    }
    return 'the needed request headers are allowed';
  },
});

export const preflightAllowMethods = preflightHeaderCheck({
  id: 'cors.preflight-allow-methods',
  rule: 'The preflight answer carries Access-Control-Allow-Methods naming at least one method (browsers need it for any method beyond GET, HEAD and POST; which method follows each preflight is not shown, so any list is accepted)',
  contractRef: '4.11',
  severity: 'minor',
  judge(ctx, op, exchange, headers) {
    const methods = list(headers['access-control-allow-methods']);
    if (!methods.length) {
      return fail(
        ctx,
        exchange,
        'Access-Control-Allow-Methods listing the methods allowed after the preflight',
        'no Access-Control-Allow-Methods',
        `the preflight of ${op.path} names no allowed method`,
        undefined,
        headerFacts(exchange, 'access-control-allow-methods'),
      );
    }
    const method = preflightHeaders(ctx.spec)['Access-Control-Request-Method']!.toLowerCase();
    if (!methods.includes(method) && !methods.includes('*')) {
      ctx.observe({
        operation: label(op),
        message: `Access-Control-Allow-Methods (${methods.join(', ')}) does not list ${method.toUpperCase()}, a simple method browsers allow anyway`,
      });
    }
    return `methods allowed: ${methods.join(', ').toUpperCase()}`;
  },
});

export const corsChecks: CheckDefinition[] = [
  preflightAnswered,
  preflightAllowOrigin,
  preflightAllowHeaders,
  preflightAllowMethods,
];
