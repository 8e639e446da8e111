/**
 * A `configure` hook for the reference server that accepts more API keys, each with its own
 * rate-limit window, as a real API issues one key per CI job. The shipped server already keeps
 * one window per valid key (`key:<bearer>`) and one per client address for the rest; it accepts
 * one key, so tests and benches of sharded runs add keys through this seam.
 */
import { bearerOf, type ReferenceServerOptions } from '../../src/server/index.js';

export function acceptExtraKeys(keys: readonly string[]): NonNullable<ReferenceServerOptions['configure']> {
  return (_app, internals) => {
    const { authenticate, rateLimitKey } = internals;
    const extra = (headers: Parameters<typeof bearerOf>[0]): string | undefined => {
      const bearer = bearerOf(headers);
      return bearer !== undefined && keys.includes(bearer) ? bearer : undefined;
    };
    internals.authenticate = (op, headers) =>
      extra(headers)
        ? authenticate(op, { ...headers, authorization: `Bearer ${internals.store.apiKey}` })
        : authenticate(op, headers);
    internals.rateLimitKey = (request) => {
      const key = extra(request.headers);
      return key ? `key:${key}` : rateLimitKey(request);
    };
  };
}
