/**
 * The reference server: the whole contract in memory, on Fastify 5 with @fastify/rate-limit and
 * @fastify/cors. Routes, parameters, bodies and security come from the spec model; requests are
 * validated by the project's precompiled validators; nothing of the contract is restated here.
 *
 * Order of a request: rate limit (429) → CORS headers → authentication (401) → body parsing →
 * validation (422) → the operation. Each step is a Fastify plugin of ./plugins, registered in that
 * order. The `configure` hook lets tests switch faults on (see test/catalog/faults/); the shipped server
 * has no fault code.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { loadSpec } from '../spec/load.js';
import type { SpecModel } from '../spec/model.js';
import { createInternals } from './internals.js';
import { authPlugin } from './plugins/auth.js';
import { bodiesPlugin } from './plugins/bodies.js';
import { corsPlugin } from './plugins/cors.js';
import { errorOptions, errorsPlugin } from './plugins/errors.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { routesPlugin } from './plugins/routes.js';
import {
  DEFAULT_BODY_LIMIT,
  MAX_PARAM_LENGTH,
  type ReferenceInternals,
  type ReferenceServer,
  type ReferenceServerOptions,
} from './types.js';

export { ReferenceStore, propertyNames, snakeCase } from './store.js';
export { SEEDED_CALLS } from './seed.js';
export { pointerSegments, validationItem, RATE_LIMITED_DETAIL, UNAUTHORIZED_DETAIL } from './errors.js';
export { jsonErrorPosition } from '../http/json-position.js';
export { bearerOf } from './internals.js';
export { operationIdOf } from './plugins/auth.js';
export {
  DEFAULT_BODY_LIMIT,
  DEFAULT_CHANNELS,
  DEFAULT_RATE_LIMIT,
  DEFAULT_RATE_WINDOW_MS,
  DEFAULT_USER_ID,
  type ReferenceFixtures,
  type ReferenceInternals,
  type ReferenceServer,
  type ReferenceServerOptions,
} from './types.js';

let sharedSpec: Promise<SpecModel> | undefined;
/** The spec model, loaded once per process (loading validates and dereferences the document). */
export function referenceSpec(): Promise<SpecModel> {
  sharedSpec ??= loadSpec().catch((error: unknown) => {
    sharedSpec = undefined;
    throw error;
  });
  return sharedSpec;
}

/** Builds the Fastify app (not listening). `startReferenceServer` listens; benches and tests may inject. */
export async function buildReferenceApp(
  options: ReferenceServerOptions = {},
): Promise<{ app: FastifyInstance; internals: ReferenceInternals }> {
  const spec = options.spec ?? (await referenceSpec());
  const internals = createInternals(spec, options);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const app = Fastify({
    logger: options.logger ? { level: 'info' } : false,
    bodyLimit,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    requestTimeout: 30_000,
    forceCloseConnections: true,
    ...errorOptions(MAX_PARAM_LENGTH),
  });
  await app.register(errorsPlugin, { bodyLimit });
  await app.register(rateLimitPlugin, { internals });
  await app.register(corsPlugin, { spec });
  await app.register(bodiesPlugin);
  await app.register(authPlugin, { internals });
  await options.configure?.(app, internals);
  await app.register(routesPlugin, { internals });
  return { app, internals };
}

/** Starts the reference server and resolves when it listens. Port 0 picks a free port. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const { app, internals } = await buildReferenceApp(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 4010 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 4010);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    fixtures: internals.fixtures,
    app,
    internals,
    close: () => (closed ??= app.close()),
  };
}
