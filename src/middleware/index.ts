/**
 * `voice-agent-contract-validators/middleware`: the contract enforced at run time in a server of
 * one's own, over the precompiled validators. Express (and any connect-style stack), Fastify, Hono
 * and a plain Node `http` handler; no dependency, not even the framework's (each adapter takes
 * what it needs from its arguments). Requests that break the contract are answered 422 with the
 * contract's validation error body; responses are judged in test mode (a breach becomes a 500) or
 * sampled in production (logged only). See docs/middleware.md.
 */
export { ContractEngine, type Answer, type RequestBody, type ResponseBody, type Route } from './core.js';
export { expressContract } from './express.js';
export { fastifyContract, type FastifyLike, type FastifyReplyLike, type FastifyRequestLike } from './fastify.js';
export { honoContract, type HonoContextLike, type HonoMiddleware } from './hono.js';
export { contractHandler, nodeMiddleware, type NodeMiddleware, type NodeRequest, type NodeResponse } from './node.js';
export type {
  ContractFinding,
  ContractLogger,
  ContractMiddlewareOptions,
  RequestFinding,
  ResolvedOptions,
  ResponseFinding,
  ResponseMode,
  ValidationErrorItem,
} from './types.js';
