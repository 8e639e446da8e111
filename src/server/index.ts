/**
 * The reference server: the whole contract in memory, on Fastify 5 with @fastify/rate-limit and
 * @fastify/cors. Routes, parameters, bodies and security come from the spec model; requests are
 * validated by the project's precompiled validators; nothing of the contract is restated here.
 *
 * Order of a request: rate limit (429) → CORS headers → authentication (401) → body parsing →
 * validation (422) → the operation. The `configure` hook lets tests switch faults on (see
 * test/faulty/); the shipped server has no fault code.
 */
import { timingSafeEqual } from 'node:crypto';
import { METHODS, type IncomingHttpHeaders } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import cors from '@fastify/cors';
import rateLimit from '@fastify/rate-limit';
import { loadSpec } from '../spec/load.js';
import type { HttpMethod, Operation, SpecModel } from '../spec/model.js';
import { validateRequest, type RequestParts, type ValidatedRequest, type ValidationResult } from '../validators/index.js';
import { providerIdFields } from '../generators/schema.js';
import { RATE_LIMITED_DETAIL, UNAUTHORIZED_DETAIL, validationBody, validationItem, type IssueLike, type ValidationErrorItem } from './errors.js';
import { handlers, type OperationResult } from './handlers.js';
import { clientErrorHandler, clip, frameworkErrorDetail, refuseConnect } from './http-errors.js';
import { decodeJsonBody } from './json-body.js';
import { ReferenceStore, newApiKey } from './store.js';

export { ReferenceStore, propertyNames, snakeCase } from './store.js';
export { SEEDED_CALLS } from './seed.js';
export { jsonErrorPosition, pointerSegments, validationItem, RATE_LIMITED_DETAIL, UNAUTHORIZED_DETAIL } from './errors.js';

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

let sharedSpec: Promise<SpecModel> | undefined;
/** The spec model, loaded once per process (loading validates and dereferences the document). */
export function referenceSpec(): Promise<SpecModel> {
  sharedSpec ??= loadSpec().catch((error: unknown) => {
    sharedSpec = undefined;
    throw error;
  });
  return sharedSpec;
}

/** The operationId a route serves (set in its config), for hooks. */
export function operationIdOf(request: FastifyRequest): string | undefined {
  const id = request.routeOptions?.config?.operationId;
  return typeof id === 'string' ? id : undefined;
}

/** `/campaign/{campaign_id}` → `/campaign/:campaign_id`. */
const fastifyPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer value of an Authorization header (scheme case-insensitive), if it has one. */
export function bearerOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['authorization'];
  if (typeof value !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
  return match ? match[1] : undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation of the contract a route serves. */
    operationId?: string;
  }
}

type BodyProblem = { kind: 'json_invalid'; position: number; msg: string } | { kind: 'content_type'; contentType: string };

/** Builds the Fastify app (not listening). `startReferenceServer` listens; benches and tests may inject. */
export async function buildReferenceApp(options: ReferenceServerOptions = {}): Promise<{ app: FastifyInstance; internals: ReferenceInternals }> {
  const spec = options.spec ?? (await referenceSpec());
  const channels: [string, string] = options.channels ?? [...DEFAULT_CHANNELS];
  // Top-level provider-id fields (campaign `channel`) per operation, read from the spec once.
  const providerFieldsOf = new Map(spec.operations.map((op) => [op.id, providerIdFields(op).filter((f) => f.depth === 0).map((f) => f.field)]));
  const store = new ReferenceStore({ spec, apiKey: options.apiKey ?? newApiKey(), userId: options.userId ?? DEFAULT_USER_ID, channels });
  const fixtures: ReferenceFixtures = {
    get api_key() {
      return store.apiKey;
    },
    user_id: store.userId,
    org_id: store.data.orgs[0]!.id,
    recipient_list_id: store.data.recipientLists[0]!.id,
    api_key_id: store.data.apiKey.id,
    channels: [channels[0], channels[1]],
  };
  const internals: ReferenceInternals = {
    spec,
    store,
    fixtures,
    rateLimit: { max: options.rateLimit ?? DEFAULT_RATE_LIMIT, windowMs: options.rateWindowMs ?? DEFAULT_RATE_WINDOW_MS },
    validateRequest: (operationId, parts) => {
      const result = validateRequest(operationId, parts);
      if (!result.ok) return result;
      // `channel` is one of the two provider identifiers (4.2): a closed set the spec cannot list,
      // since the contract does not name them; the server knows its own.
      const body = result.value.body as Record<string, unknown> | undefined;
      for (const field of providerFieldsOf.get(operationId) ?? []) {
        const value = body && typeof body === 'object' ? body[field] : undefined;
        if (typeof value === 'string' && !channels.includes(value)) {
          return { ok: false, issues: [{ pointer: `/${field}`, location: 'body', rule: 'enum', expected: [...channels], actual: value, message: `body /${field} must be one of ${channels.join(', ')}` }] };
        }
      }
      return result;
    },
    authenticate(op, headers) {
      if (!op.requiresCredentials) return true;
      for (const credential of op.credentials) {
        if (credential === 'bearer') {
          const bearer = bearerOf(headers);
          if (bearer === undefined || !sameSecret(bearer, store.apiKey)) return false;
        } else {
          const userId = headers['x-user-id'];
          if (typeof userId !== 'string' || !sameSecret(userId, store.userId)) return false;
        }
      }
      return true;
    },
    rateLimitKey(request) {
      const bearer = bearerOf(request.headers);
      return bearer !== undefined && sameSecret(bearer, store.apiKey) ? `key:${bearer}` : `ip:${request.ip}`;
    },
  };

  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const maxParamLength = 8192;
  const app = Fastify({
    logger: options.logger ? { level: 'info' } : false,
    bodyLimit,
    routerOptions: { maxParamLength },
    requestTimeout: 30_000,
    forceCloseConnections: true,
    // The URL is not quoted back: it may be kilobytes long.
    frameworkErrors: (error, _request, reply) => {
      void (reply as FastifyReply).code(400).send({ detail: frameworkErrorDetail(error.code, maxParamLength) });
    },
    clientErrorHandler,
  });
  // CONNECT never reaches a route in Node: answer it as any other undocumented method.
  app.server.on('connect', refuseConnect);
  // Every method Node's parser accepts can be routed, so each one gets its 405 on a known path.
  for (const method of METHODS) if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });

  // ---- errors: every failure is a JSON body, never a stack trace ------------------------------
  app.setErrorHandler((error: { statusCode?: number; code?: string; message?: string }, _request, reply) => {
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 429) return reply.code(429).send({ detail: `${RATE_LIMITED_DETAIL}; retry after the window resets` });
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply.code(413).send({ detail: `Request body larger than ${bodyLimit} bytes` });
    if (status >= 400 && status < 500) return reply.code(status).send({ detail: clip(error.message ?? 'Bad request') });
    return reply.code(500).send({ detail: 'Internal Server Error' });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));

  // ---- rate limit: per valid API key, else per client address ---------------------------------
  await app.register(rateLimit, {
    max: (_request, _key) => internals.rateLimit.max,
    timeWindow: (_request, _key) => internals.rateLimit.windowMs,
    keyGenerator: (request) => internals.rateLimitKey(request),
    errorResponseBuilder: (_request, context) => Object.assign(new Error(RATE_LIMITED_DETAIL), { statusCode: context.statusCode }),
  });

  // ---- CORS: headers on every response; preflights of the documented paths reach their routes --
  const methods = [...new Set(spec.operations.map((o) => o.method))];
  await app.register(cors, {
    origin: '*',
    methods,
    allowedHeaders: ['Authorization', 'X-User-ID', 'Content-Type'],
    exposedHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
    maxAge: 600,
    preflightContinue: true,
    strictPreflight: false,
  });

  // ---- bodies: JSON parsed here so a syntax error becomes a 422 with its position --------------
  const problems = new WeakMap<FastifyRequest, BodyProblem>();
  app.removeAllContentTypeParsers();
  // Bodies are read as bytes: malformed UTF-8 is refused, never replaced with U+FFFD.
  const parseJson = (request: FastifyRequest, bytes: Buffer): unknown => {
    const decoded = decodeJsonBody(bytes);
    if (decoded.ok) return decoded.value;
    problems.set(request, { kind: 'json_invalid', position: decoded.position, msg: decoded.msg });
    return undefined;
  };
  for (const type of ['application/json', /^application\/[\w.+-]+\+json$/]) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (request, body, done) => {
      done(null, parseJson(request, body as Buffer));
    });
  }
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    const contentType = request.headers['content-type'];
    // No content type at all: read the body as JSON, as FastAPI does.
    if (contentType === undefined || contentType.trim() === '') return done(null, parseJson(request, bytes));
    if (bytes.length > 0) problems.set(request, { kind: 'content_type', contentType });
    return done(null, undefined);
  });

  // ---- authentication: after the rate limit, before parsing and validation (401 before 422) ----
  // A route-level onRequest hook appended after the rate-limit plugin's own, so an unauthenticated
  // request is still counted (in its client address's bucket) and its 401 carries the headers.
  const byId = new Map(spec.operations.map((o) => [o.id, o]));
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
    route.onRequest = hooks === undefined ? [authenticate] : Array.isArray(hooks) ? [...hooks, authenticate] : [hooks, authenticate];
  });

  await options.configure?.(app, internals);

  // ---- the operations of the contract ----------------------------------------------------------
  const served = new Map<string, Set<HttpMethod>>();
  for (const op of spec.operations) {
    const handle = handlers[op.id];
    if (!handle) throw new Error(`the reference server has no handler for operation ${op.id}`);
    const url = fastifyPath(op.path);
    if (!served.has(url)) served.set(url, new Set());
    served.get(url)!.add(op.method);
    app.route({
      method: op.method,
      url,
      config: { operationId: op.id },
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const problem = problems.get(request);
        const parts: RequestParts = {
          path: request.params as Record<string, string>,
          query: request.query as Record<string, string | string[]>,
          headers: request.headers as Record<string, string>,
          body: op.requestBody && !problem ? request.body : undefined,
        };
        const result = internals.validateRequest(op.id, parts);
        const items: ValidationErrorItem[] = [];
        if (op.requestBody && problem) items.push(problemItem(problem));
        if (!result.ok) {
          for (const issue of result.issues) {
            if (problem && issue.location === 'body') continue;
            items.push(issueItem(issue));
          }
        }
        if (items.length > 0) return reply.code(422).send(validationBody(items));
        if (!result.ok) return reply.code(500).send({ detail: 'Internal Server Error' });
        const outcome: OperationResult = handle({ value: result.value, store, op, headers: request.headers });
        reply.code(outcome.status);
        if (outcome.raw !== undefined) return reply.type('application/json; charset=utf-8').send(outcome.raw);
        return outcome.body === undefined ? reply.send() : reply.send(outcome.body);
      },
    });
  }

  // Known paths, undocumented methods: 405 with Allow (as FastAPI answers).
  for (const [url, methodsServed] of served) {
    const allow = [...methodsServed].join(', ');
    // OPTIONS stays with CORS (preflights of any known path are answered there).
    const others = app.supportedMethods.filter(
      (m) => m !== 'OPTIONS' && !methodsServed.has(m as HttpMethod) && !(m === 'HEAD' && methodsServed.has('GET')),
    );
    if (others.length > 0) {
      const refuse = async (_request: FastifyRequest, reply: FastifyReply) => reply.code(405).header('Allow', allow).send({ detail: 'Method Not Allowed' });
      // Refused before the body is read: no parsing cost, and QUERY's Content-Type rule never applies.
      app.route({ method: [...others], url, preParsing: refuse, handler: refuse });
    }
  }
  return { app, internals };
}

function problemItem(problem: BodyProblem): ValidationErrorItem {
  if (problem.kind === 'json_invalid') return { loc: ['body', problem.position], msg: problem.msg, type: 'json_invalid' };
  return {
    loc: ['body'],
    msg: `Expected a JSON body (Content-Type: application/json), got ${clip(problem.contentType) || 'no content type'}`,
    type: 'model_attributes_type',
  };
}

/** A validator issue as a loc item; a missing required property is named at the end of loc. */
function issueItem(issue: { pointer: string; location?: IssueLike['location']; rule: string; expected?: unknown; message: string }): ValidationErrorItem {
  const item = validationItem({ pointer: issue.pointer, location: issue.location ?? 'body', rule: issue.rule, message: issue.message });
  if (issue.rule === 'required' && typeof issue.expected === 'string' && !issue.expected.includes('/')) item.loc.push(issue.expected);
  return item;
}

/** Starts the reference server and resolves when it listens. Port 0 picks a free port. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const { app, internals } = await buildReferenceApp(options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 4010 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port ?? 4010;
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
