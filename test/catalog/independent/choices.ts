/**
 * Defensible choices a correct server may make where the contract is silent, each switched on in
 * the reference server through its `configure` seam (the shipped server makes none of them). A run
 * against any of them must end with no failure: each reproduces a false alarm of issue 21.
 *
 * - `pairing`: POST /campaign requires `channel` to be the provider of `phone_number_id` (the seeded
 *   calls show which provider each phone number uses), else 422 naming `channel`.
 * - `lookupFirst`: an unknown campaign id is 404 before its body is validated.
 * - `terminal`: `completed` is terminal; a PATCH of a completed campaign is 409.
 * - `refuseWrites`: every create and every update is refused with 422 naming `phone_number_id`
 *   (the account has no usable number): nothing can be judged that needs an accepted write.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operationIdOf, type ReferenceInternals } from '../../../src/server/index.js';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
export type Choice = 'pairing' | 'lookupFirst' | 'terminal' | 'refuseWrites';

const refuse = (reply: FastifyReply, field: string, msg: string) =>
  reply.code(422).send({ detail: [{ loc: ['body', field], msg, type: 'value_error' }] });

/** The provider each phone number uses, read from the seeded calls. */
function providerOfPhone(internals: ReferenceInternals): Map<string, string> {
  const calls = internals.store.listCalls({ limit: 1000, offset: 0, provider: null }) as Json[];
  return new Map(calls.map((c) => [c.phone_number_id as string, c.provider as string]));
}

const HOOKS: Record<
  Choice,
  (internals: ReferenceInternals) => (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined
> = {
  pairing: (internals) => {
    const providers = providerOfPhone(internals);
    return (request, reply) => {
      if (operationIdOf(request) !== 'createCampaign') return undefined;
      const body = (request.body ?? {}) as Json;
      if (typeof body.phone_number_id !== 'string' || typeof body.channel !== 'string') return undefined;
      const wanted = providers.get(body.phone_number_id);
      if (wanted === undefined) return refuse(reply, 'phone_number_id', 'Phone number not found');
      return body.channel === wanted
        ? undefined
        : refuse(reply, 'channel', `channel must be ${wanted}, the provider of the phone number`);
    };
  },
  lookupFirst: (internals) => (request, reply) => {
    const id = (request.params as Json)?.campaign_id;
    if (typeof id !== 'string' || internals.store.campaigns.has(id)) return undefined;
    return reply.code(404).send({ detail: 'Campaign not found' });
  },
  terminal: (internals) => (request, reply) => {
    if (operationIdOf(request) !== 'updateCampaign') return undefined;
    const stored = internals.store.campaigns.get((request.params as Json)?.campaign_id);
    if (stored?.record['status'] !== 'completed') return undefined;
    return reply.code(409).send({ detail: 'Campaign is completed: no further changes' });
  },
  refuseWrites: () => (request, reply) => {
    const id = operationIdOf(request);
    if (id !== 'createCampaign' && id !== 'updateCampaign') return undefined;
    return refuse(reply, 'phone_number_id', 'No phone number of this account can place calls');
  },
};

/** A `configure` hook switching the named choices on (in the order given). */
export function withChoices(...choices: Choice[]): (app: FastifyInstance, internals: ReferenceInternals) => void {
  return (app, internals) => {
    const hooks = choices.map((c) => HOOKS[c](internals));
    app.addHook('preHandler', async (request, reply) => {
      for (const hook of hooks) {
        const answered = hook(request, reply);
        if (answered) return answered;
      }
      return undefined;
    });
  };
}
