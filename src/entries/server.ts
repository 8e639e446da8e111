/**
 * `voice-agent-contract/server`: the reference server, the whole contract in memory.
 * `startReferenceServer({ port: 0 })` listens on loopback and returns its URL, the seeded fixtures
 * and `close()`; `buildReferenceApp` gives the Fastify app without listening (for `inject`).
 */
export {
  startReferenceServer,
  buildReferenceApp,
  DEFAULT_RATE_LIMIT,
  DEFAULT_RATE_WINDOW_MS,
  type ReferenceFixtures,
  type ReferenceServer,
  type ReferenceServerOptions,
} from '../server/index.js';
