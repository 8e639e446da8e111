/**
 * Authentication plugin: after the rate limit, before parsing and validation (401 before 422).
 * A route-level onRequest hook appended to every operation route after the rate-limit plugin's
 * own, so an unauthenticated request is still counted (in its client address's bucket) and its
 * 401 carries the headers. Who is let in is `internals.authenticate` (tests wrap it).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { UNAUTHORIZED_DETAIL } from '../errors.js';
import type { ReferenceInternals } from '../types.js';

/** The operationId a route serves (set in its config), for hooks. */
export function operationIdOf(request: FastifyRequest): string | undefined {
  const id = request.routeOptions?.config?.operationId;
  return typeof id === 'string' ? id : undefined;
}

export const authPlugin = fp<{ internals: ReferenceInternals }>(
  async (app, { internals }) => {
    const byId = new Map(internals.spec.operations.map((o) => [o.id, o]));
    const authenticate = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
      const id = operationIdOf(request);
      const op = id === undefined ? undefined : byId.get(id);
      if (op && !internals.authenticate(op, request.headers)) {
        // Returning the reply ends the request here: nothing after this hook runs.
        return reply.code(401).header('WWW-Authenticate', 'Bearer').send({ detail: UNAUTHORIZED_DETAIL });
      }
      return undefined;
    };
    app.addHook('onRoute', (route) => {
      if (route.config?.operationId === undefined) return;
      const hooks = route.onRequest;
      route.onRequest =
        hooks === undefined ? [authenticate] : Array.isArray(hooks) ? [...hooks, authenticate] : [hooks, authenticate];
    });
  },
  { name: 'vapc-auth' },
);
