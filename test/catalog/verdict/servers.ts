/**
 * Servers that try to get a green verdict without conformance (issue 31's table): the reference
 * server with one rewrite of its answers, each through its `configure` hook. Each would have ended
 * `PASSED` (exit 0) on 1a72e76 with only a larger skip count to tell it from the reference server.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operationIdOf, type ReferenceInternals } from '../../../src/server/index.js';

type When = (request: FastifyRequest, reply: FastifyReply) => boolean;

/** Answers `status` with `body` (JSON) instead of what the reference server answered, when `when` holds. */
function rewrite(app: FastifyInstance, when: When, status: number, body: unknown): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!when(request, reply)) return payload;
    reply.code(status);
    reply.header('content-type', 'application/json');
    return JSON.stringify(body);
  });
}

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
/** The reads a key that may only read and list keeps (issue 31: "403 on every authenticated operation except five GETs"). */
const KEPT_READS = new Set(['listAssistants', 'getCurrentUser', 'listCalls', 'getHealth', 'getProtected']);

export interface VerdictServer {
  name: string;
  /** What it does, in one line. */
  description: string;
  configure(app: FastifyInstance, internals: ReferenceInternals): void;
}

export const verdictServers: readonly VerdictServer[] = [
  {
    name: '403-for-422',
    description: 'every 422 is answered 403 {"detail":"forbidden"} instead',
    configure: (app) => rewrite(app, (_q, r) => r.statusCode === 422, 403, { detail: 'forbidden' }),
  },
  {
    name: '409-for-422',
    description: 'every 422 is answered 409 {"detail":"conflict"} instead',
    configure: (app) => rewrite(app, (_q, r) => r.statusCode === 422, 409, { detail: 'conflict' }),
  },
  {
    name: 'writes-422-unknown-field',
    description:
      'every valid write (a 201, or a 200 to a request that is not a GET) is answered 422 naming body.x_internal_quota, a field the request never sent',
    configure: (app) =>
      rewrite(app, (q, r) => WRITES.has(q.method) && (r.statusCode === 201 || r.statusCode === 200), 422, {
        detail: [{ loc: ['body', 'x_internal_quota'], msg: 'field required', type: 'value_error.missing' }],
      }),
  },
  {
    name: '403-but-five-reads',
    description: 'every authenticated operation but five reads (and the CORS preflights) is answered 403',
    configure: (app, internals) =>
      rewrite(
        app,
        (q, r) => {
          const id = operationIdOf(q);
          const op = internals.spec.operations.find((o) => o.id === id);
          return (
            !!op && op.requiresCredentials && op.method !== 'OPTIONS' && !KEPT_READS.has(op.id) && r.statusCode < 400
          );
        },
        403,
        { detail: 'forbidden' },
      ),
  },
  {
    name: 'read-only-key',
    description: 'the key may only read: every write is answered 403 insufficient_scope',
    configure: (app) =>
      rewrite(app, (q, r) => WRITES.has(q.method) && r.statusCode !== 401 && r.statusCode !== 429, 403, {
        detail: 'insufficient_scope',
      }),
  },
  {
    name: 'only-429-after-setup',
    description: 'serves discovery (three reads), then answers every request 429 (still 429 after every resend)',
    configure: (app) => {
      let served = 0;
      app.addHook('onRequest', async (_q, reply) => {
        if (++served <= 3) return undefined;
        reply.header('x-ratelimit-limit', '100').header('x-ratelimit-remaining', '0').header('x-ratelimit-reset', '0');
        return reply.code(429).send({ detail: 'rate limit exceeded' });
      });
    },
  },
];

/**
 * A correct server's choice where the contract is silent: a campaign's channel must be the provider
 * of its phone number (pn_ref_001 goes with the first channel, pn_ref_002 with the second), and the
 * phone number one of the account's: refused with 422 naming the field otherwise.
 */
export function pairsPhoneWithChannel(app: FastifyInstance, internals: ReferenceInternals): void {
  const [first, second] = internals.fixtures.channels;
  const provider: Record<string, string> = { pn_ref_001: first, pn_ref_002: second };
  app.addHook('preHandler', async (request, reply) => {
    if (operationIdOf(request) !== 'createCampaign') return undefined;
    const body = (request.body ?? {}) as { phone_number_id?: unknown; channel?: unknown };
    const refuse = (field: string, msg: string) =>
      reply.code(422).send({ detail: [{ loc: ['body', field], msg, type: 'value_error' }] });
    if (typeof body.phone_number_id !== 'string' || !(body.phone_number_id in provider))
      return refuse('phone_number_id', 'no phone number of this account');
    if (body.channel !== provider[body.phone_number_id])
      return refuse('channel', `the channel must be the provider of ${body.phone_number_id}`);
    return undefined;
  });
}

/** The reference server as it ships (for the tests of what a configuration does). */
const none: VerdictServer = {
  name: 'none',
  description: 'the reference server, unchanged',
  configure: () => undefined,
};

export const verdictServer = (name: string): VerdictServer => {
  const found = [...verdictServers, none].find((s) => s.name === name);
  if (!found) throw new Error(`no verdict server ${name}`);
  return found;
};
