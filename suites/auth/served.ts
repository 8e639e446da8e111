/**
 * The auth suite's served requests: health without credentials, the bearer-only operations with the
 * bearer only, and GET /protected echoing the user id (sections 4.9-4.12, 5.3, 5.4).
 */
import { defineCheck, type CheckContext } from '../../src/checks/check.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import {
  Findings,
  OK,
  unjudged,
  fail,
  isSuccess,
  judgeResponse,
  label,
  request,
  skipped,
  statusText,
  successSchema,
  preflightHeaders,
} from '../lib.js';
import { propertiesOf } from '../../src/generators/index.js';
import { documentedHeaders, probePath, withBody } from './probes.js';

export const healthOpen = defineCheck({
  id: 'auth.health-open',
  suite: 'auth',
  rule: 'Health checks need no credentials: GET /health without any header is answered 200 with an application/json body',
  contractRef: '4.10, 5.1, 5.3',
  severity: 'major',
  expects: 'success',
  appliesTo: (op) => !op.requiresCredentials,
  plannedRequests: () => 1,
  async run(ctx, op) {
    const exchange = await ctx.send({ ...request(op, ctx), auth: 'none' });
    const what = `${label(op)} without credentials`;
    const findings = new Findings();
    findings.add(
      judgeAnswer(ctx, op, exchange, { what, expected: `${what} answered (rule 5.1)` }, (res) =>
        isSuccess(res.status)
          ? judgeResponse(ctx, op, exchange, { what })
          : fail(
              ctx,
              exchange,
              `${what} answered (rule 5.1)`,
              `status ${res.status}`,
              `${what} answered ${res.status}`,
              undefined,
              {
                kind: KIND.status,
              },
            ),
      ),
    );
    return findings.outcome(`${label(op)} answers without credentials`);
  },
});

/**
 * A preflight served with the bearer only proves the rule only if credentials are read there: the
 * same preflight without any credential is refused. When it is served too, the answer came before
 * any credential was read (a CORS layer ahead of auth): the rule cannot be judged on it.
 */
async function readsCredentials(ctx: CheckContext, op: Operation, values: Record<string, string>): Promise<boolean> {
  const bare = await ctx.send({
    ...request(op, ctx, withBody(ctx, op, { pathValues: values, headers: preflightHeaders(ctx.spec) })),
    auth: 'none',
  });
  return bare.response !== undefined && !isSuccess(bare.response.status) && bare.response.status !== 429;
}

export const bearerOnly = defineCheck({
  id: 'auth.bearer-only',
  suite: 'auth',
  rule: 'The operations documented with the bearer header only are served with the bearer only (no X-User-ID); on a preflight, judged only where the same preflight without credentials is refused (else credentials are not read there)',
  contractRef: '4.9, 4.11, 5.4',
  severity: 'major',
  expects: 'success',
  // Key regeneration is exercised (bearer only) by stateful.regenerate-key, with the destructive flag.
  appliesTo: (op) =>
    op.requiresCredentials && op.credentials.length === 1 && op.credentials[0] === 'bearer' && !op.sideEffects,
  plannedRequests: (op) => (op.method === 'OPTIONS' ? 2 : 1),
  async run(ctx, op) {
    const values = await probePath(ctx, op);
    const headers = { ...(op.method === 'OPTIONS' ? preflightHeaders(ctx.spec) : {}), ...documentedHeaders(ctx, op) };
    const exchange = await ctx.send({
      ...request(op, ctx, withBody(ctx, op, { pathValues: values, headers })),
      auth: 'none',
    });
    const what = `${label(op)} with the bearer only`;
    const expected = `${what} served (section 5.4)`;
    const findings = new Findings();
    const judged = judgeAnswer(ctx, op, exchange, { what, expected }, (res) => {
      if (res.status === 401 || res.status === 403)
        return fail(ctx, exchange, expected, `status ${res.status}`, `${what} was refused (${res.status})`, undefined, {
          kind: KIND.status,
        });
      return isSuccess(res.status)
        ? judgeResponse(ctx, op, exchange, { what })
        : unjudged(`${what} was answered ${res.status}`, { cause: 'refused', status: res.status });
    });
    if (
      judged.ok &&
      judged.unjudged === undefined &&
      op.method === 'OPTIONS' &&
      !(await readsCredentials(ctx, op, values))
    )
      findings.add(
        unjudged(`the preflight of ${op.path} is served without any credential too: credentials are not read there`, {
          cause: 'untestable',
        }),
      );
    else findings.add(judged);
    return findings.outcome(`${label(op)} is served with the bearer only`);
  },
});

/**
 * Is `found` the user id sent, as a server may write it back? The whitespace around the value is
 * not part of it (RFC 9110 5.5), and a UUID (RFC 9562 4: case-insensitive on input) or an e-mail
 * address (used case-insensitively by identity providers) may come back in another case: a server
 * that keeps user ids canonical echoes the canonical form of the id it was sent.
 */
function isUserId(sent: string, found: string, contains: boolean): boolean {
  const id = sent.trim();
  const caseless = /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(id) || /^[^\s@]+@[^\s@]+$/.test(id);
  const [want, have] = caseless ? [id.toLowerCase(), found.toLowerCase()] : [id, found];
  return contains ? have.includes(want) : have === want;
}

export const protectedEchoesUserId = defineCheck({
  id: 'auth.protected-echoes-user-id',
  suite: 'auth',
  rule: 'GET /protected answers with `user_id` equal to the X-User-ID sent and a `message` that contains it (a UUID or e-mail user id in any case, whitespace around it ignored)',
  contractRef: '4.12',
  severity: 'minor',
  expects: 'success',
  appliesTo: (op) => {
    const schema = successSchema(op);
    if (!schema || !op.credentials.includes('userId')) return false;
    const props = Object.keys(propertiesOf(schema));
    return props.includes('user_id') && props.includes('message');
  },
  plannedRequests: () => 1,
  async run(ctx, op) {
    const userId = ctx.credentials.userId;
    if (!userId) return skipped('no user id configured (--user-id)', { cause: 'runner' });
    const exchange = await ctx.send(request(op, ctx));
    const findings = new Findings();
    const what = `${label(op)} with valid credentials`;
    const served = judgeAnswer(ctx, op, exchange, { what, expected: `${what} served` }, (res) =>
      isSuccess(res.status)
        ? OK
        : fail(ctx, exchange, `${what} served`, statusText(exchange), `${what} answered ${res.status}`, undefined, {
            kind: KIND.status,
          }),
    );
    const res = exchange.response;
    if (!served.ok || served.unjudged !== undefined || !res) {
      findings.add(served);
      return findings.outcome(`${label(op)} echoes the user id`);
    }
    const body = res.json as { user_id?: unknown; message?: unknown } | undefined;
    if (typeof body?.user_id !== 'string' || !isUserId(userId, body.user_id, false)) {
      findings.add(
        fail(
          ctx,
          exchange,
          'user_id equal to the X-User-ID sent (section 4.12)',
          `user_id ${JSON.stringify(ctx.redact(body?.user_id))}`,
          `${label(op)} does not echo the user id in user_id`,
          undefined,
          { kind: KIND.mismatch, field: { location: 'response', pointer: '/user_id', status: String(res.status) } },
        ),
      );
    }
    if (typeof body?.message !== 'string' || !isUserId(userId, body.message, true)) {
      findings.add(
        fail(
          ctx,
          exchange,
          'a message that contains the user id (section 4.12)',
          `message ${JSON.stringify(ctx.redact(body?.message))}`,
          `${label(op)}'s message does not contain the user id`,
          undefined,
          { kind: KIND.mismatch, field: { location: 'response', pointer: '/message', status: String(res.status) } },
        ),
      );
    }
    findings.add(OK); // the answer was judged on both clauses
    return findings.outcome(`${label(op)} echoes the user id`);
  },
});
