/**
 * Faults every seed must catch (issue 23): servers that break on the edges of strings, and servers
 * that break a promise an earlier answer made (a partial update that clears what it was not sent,
 * a limiter that stays closed past its advertised reset, a Remaining that goes back up within a
 * window). Each is the reference server with one behaviour broken through its `configure` seam.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { operationIdOf, type ReferenceInternals } from '../../../src/server/index.js';
import { propertiesOf } from '../../../src/spec/schema.js';
import type { ServerFault } from './server-faults.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Every string anywhere in a JSON value. */
function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

/** Answers 500 to a request whose JSON body matches, before the route runs (a crash in the handler). */
function crashWhen(app: FastifyInstance, matches: (body: Json) => boolean): void {
  app.addHook('preHandler', async (request, reply) => {
    if (request.body !== undefined && matches(request.body)) {
      await reply.code(500).send({ detail: 'Internal Server Error' });
      return reply;
    }
    return undefined;
  });
}

function limitHeaders(reply: FastifyReply, internals: ReferenceInternals, remaining: number, reset: number): void {
  reply.header('x-ratelimit-limit', String(internals.rateLimit.max));
  reply.header('x-ratelimit-remaining', String(remaining));
  reply.header('x-ratelimit-reset', String(reset));
}

export const promiseFaults: ServerFault[] = [
  // ---- string edges (ranges.string-edges) --------------------------------------------------------
  {
    name: 'string-non-ascii-name-500',
    catches: ['ranges.string-edges'],
    description: 'a body whose `name` has a character outside ASCII is answered 500 (an ASCII-only column)',
    configure: (app) => crashWhen(app, (body) => typeof body?.name === 'string' && /[^\u0000-\u007f]/.test(body.name)),
  },
  {
    name: 'string-empty-500',
    catches: ['ranges.string-edges'],
    description: 'a body with an empty string anywhere is answered 500 (a `value[0]` on every string)',
    configure: (app) => crashWhen(app, (body) => stringsIn(body).some((s) => s === '')),
  },
  {
    name: 'string-long-500',
    catches: ['ranges.string-edges'],
    description:
      'a body with a string longer than 1,000 characters, where the contract states no maxLength, is answered 500 (a VARCHAR(1000))',
    configure: (app) => crashWhen(app, (body) => stringsIn(body).some((s) => s.length > 1000)),
  },
  // ---- partial updates (stateful.update-keeps-unsent) --------------------------------------------
  {
    name: 'update-clears-unsent',
    catches: ['stateful.update-keeps-unsent'],
    description:
      'PATCH /campaign/{campaign_id} resets every field it was not sent (other than name and status) to null',
    configure(_app, internals) {
      const store = internals.store;
      const original = store.updateCampaign.bind(store);
      const accepted = Object.keys(
        propertiesOf(internals.spec.operations.find((o) => o.id === 'updateCampaign')!.requestBody!.schema),
      );
      store.updateCampaign = (id, body) => {
        const cleared: Json = { ...body };
        for (const field of accepted)
          if (!(field in body) && field !== 'name' && field !== 'status')
            cleared[field] = field === 'recipients' ? [] : null;
        return original(id, cleared);
      };
    },
  },
  {
    name: 'update-empty-resets',
    catches: ['stateful.update-keeps-unsent'],
    description:
      'PATCH /campaign/{campaign_id} with an empty body puts max_concurrency and campaign_context back to defaults',
    configure(_app, internals) {
      const store = internals.store;
      const original = store.updateCampaign.bind(store);
      store.updateCampaign = (id, body) =>
        original(id, Object.keys(body).length === 0 ? { max_concurrency: 1, campaign_context: '' } : body);
    },
  },
  // ---- rate-limit promises (ratelimit.reset-honoured, ratelimit.burst-429) ----------------------
  {
    name: 'ratelimit-stays-closed',
    catches: ['ratelimit.reset-honoured'],
    description:
      'after its first 429 the limiter answers 429 for four windows, while X-RateLimit-Reset keeps promising a reset in 1 s',
    options: { rateLimit: 5 },
    configure(app, internals) {
      let closedUntil = 0;
      let tripped = false;
      app.addHook('onRequest', async (request, reply) => {
        if (Date.now() >= closedUntil || operationIdOf(request) === 'getHealth') return undefined;
        limitHeaders(reply, internals, 0, 1);
        await reply.code(429).send({ detail: 'Rate limit exceeded' });
        return reply;
      });
      app.addHook('onSend', async (_request, reply, payload) => {
        if (reply.statusCode === 429 && !tripped) {
          tripped = true;
          closedUntil = Date.now() + 4 * internals.rateLimit.windowMs;
        }
        return payload;
      });
    },
  },
  {
    name: 'ratelimit-remaining-rises',
    catches: ['ratelimit.burst-429'],
    description:
      'half-way through a window, one answer advertises 3 more requests remaining than the one before, with the same Reset',
    options: { rateLimit: 5 },
    configure(app, internals) {
      app.addHook('onSend', async (_request, reply, payload) => {
        const remaining = Number(reply.getHeader('x-ratelimit-remaining'));
        if (Number.isFinite(remaining) && remaining === Math.floor(internals.rateLimit.max / 2)) {
          reply.header('x-ratelimit-remaining', String(Math.min(internals.rateLimit.max, remaining + 3)));
        }
        return payload;
      });
    },
  },
];
