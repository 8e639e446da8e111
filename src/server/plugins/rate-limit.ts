/**
 * Rate-limit plugin (@fastify/rate-limit): per valid API key, else per client address, with the
 * limit and window read per request from the internals (tests change them). The X-RateLimit-*
 * headers go on every routed response; the 429 body is built by the errors plugin.
 */
import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { RATE_LIMITED_DETAIL } from '../errors.js';
import type { ReferenceInternals } from '../types.js';

export const rateLimitPlugin = fp<{ internals: ReferenceInternals }>(
  async (app, { internals }) => {
    await app.register(rateLimit, {
      max: (_request, _key) => internals.rateLimit.max,
      timeWindow: (_request, _key) => internals.rateLimit.windowMs,
      keyGenerator: (request) => internals.rateLimitKey(request),
      errorResponseBuilder: (_request, context) =>
        Object.assign(new Error(RATE_LIMITED_DETAIL), { statusCode: context.statusCode }),
    });
  },
  { name: 'vapc-rate-limit' },
);
