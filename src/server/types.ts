/**
 * The reference server's public types and defaults, and the per-request state its plugins share
 * (declared on Fastify's own types).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Operation, SpecModel } from '../spec/model.js';
import type { RequestParts, ValidatedRequest, ValidationResult } from '../validators/index.js';
import type { ReferenceStore } from './store.js';

/** The seeded ids a client needs and cannot discover through the contract (runner-interface.md). */
export interface ReferenceFixtures {
  api_key: string;
  user_id: string;
  org_id: string;
  recipient_list_id: string;
  api_key_id: string;
  channels: [string, string];
}

/** The seams a test's `configure` hook may wrap (the fault catalogue does); the server reads them per request. */
export interface ReferenceInternals {
  spec: SpecModel;
  store: ReferenceStore;
  fixtures: ReferenceFixtures;
  rateLimit: { max: number; windowMs: number };
  /** Validates a request of an operation (the project's validators by default). */
  validateRequest(operationId: string, parts: RequestParts): ValidationResult<ValidatedRequest>;
  /** True when the headers carry the credentials the operation documents. */
  authenticate(op: Operation, headers: IncomingHttpHeaders): boolean;
  /** The rate-limit bucket of a request: the API key when it is valid, else the client address. */
  rateLimitKey(request: FastifyRequest): string;
}

export interface ReferenceServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** The accepted bearer value; random (vapc_ref_...) when not given. */
  apiKey?: string;
  /** The accepted X-User-ID value. Default `user_ref_001`. */
  userId?: string;
  /** The two telephony provider identifiers (the contract does not name them). */
  channels?: [string, string];
  /** Requests per window per key. Default 100 (the development plan). */
  rateLimit?: number;
  /** Rate-limit window in milliseconds. Default 60 000. */
  rateWindowMs?: number;
  /** Largest accepted request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Fastify's logger; off by default. Never logs header values. */
  logger?: boolean;
  /** An already loaded spec model (tests share one); loaded from spec/ otherwise. */
  spec?: SpecModel;
  /**
   * Called after the plugins and before the routes: tests add hooks or wrap the internals here.
   * The rate limit and authentication run as route-level onRequest hooks, after any global
   * onRequest hook added here: a reply sent from such a hook carries no X-RateLimit-* headers and
   * skips authentication. To change who is let in, wrap `internals.authenticate` instead.
   */
  configure?: (app: FastifyInstance, internals: ReferenceInternals) => void | Promise<void>;
}

export interface ReferenceServer {
  url: string;
  fixtures: ReferenceFixtures;
  app: FastifyInstance;
  internals: ReferenceInternals;
  close(): Promise<void>;
}

export const DEFAULT_CHANNELS: [string, string] = ['provider-a', 'provider-b'];
export const DEFAULT_USER_ID = 'user_ref_001';
export const DEFAULT_RATE_LIMIT = 100;
export const DEFAULT_RATE_WINDOW_MS = 60_000;
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** The longest path parameter the router matches; longer ones are a 400. */
export const MAX_PARAM_LENGTH = 8192;

/** Why a request body could not be read as the operation's JSON (set by the bodies plugin). */
export type { BodyProblem } from '../http/validation-error.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation of the contract a route serves. */
    operationId?: string;
  }
}
