/**
 * The Fastify adapter, a plugin: `await app.register(fastifyContract, options)`. Its hooks apply to
 * every route of the instance (it is not encapsulated, as fastify-plugin would mark it, without
 * needing fastify-plugin): onRequest routes the request to its operation and judges one without a
 * body; preValidation judges one with a body; onSend holds a response in test mode and judges it
 * (a breach is replaced by the 500), and in a production sample the response is judged in
 * onResponse, once sent. The JSON parser is replaced by one that reads bytes, so malformed JSON,
 * bad UTF-8 and an empty body get the contract's 422 on the contract's routes; the value itself is
 * still made by Fastify's own parser (its prototype-poisoning guard kept), and other routes get
 * Fastify's answers as before. A body of another type that one of Fastify's parsers read
 * (text/plain) is refused with the contract's 422; a type no parser takes stays Fastify's 415.
 */
import { isJsonContentType, readJsonRequestBody } from '../http/json-body.js';
import type { BodyProblem } from '../http/validation-error.js';
import {
  ContractEngine,
  ENTITY_HEADERS,
  type Answer,
  type ResponseBody,
  type ResponsePlan,
  type Route,
} from './core.js';
import type { ContractMiddlewareOptions } from './types.js';

/** The members of a Fastify request the adapter uses. */
export interface FastifyRequestLike {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
}

/** The members of a Fastify reply the adapter uses. */
export interface FastifyReplyLike {
  statusCode: number;
  code(status: number): unknown;
  header(name: string, value: string): unknown;
  getHeaders(): Record<string, unknown>;
  removeHeader(name: string): unknown;
  send(payload?: unknown): unknown;
}

type Done = (error: Error | null, value?: unknown) => void;
type JsonParser = (request: any, body: string, done: Done) => void;

/** The members of a Fastify instance the plugin uses. */
export interface FastifyLike {
  addHook(name: string, hook: (...args: any[]) => unknown): unknown;
  addContentTypeParser(...args: any[]): unknown;
  hasContentTypeParser(contentType: string): boolean;
  removeContentTypeParser(contentType: string): unknown;
  getDefaultJsonParser(onProtoPoisoning: any, onConstructorPoisoning: any): JsonParser;
  initialConfig: { onProtoPoisoning?: unknown; onConstructorPoisoning?: unknown };
}

interface State {
  route: Route;
  plan: ResponsePlan;
  problem?: BodyProblem;
  copied?: { status: number; headers: Record<string, unknown>; body: ResponseBody };
}

function payloadBody(payload: unknown): ResponseBody {
  if (typeof payload === 'string') return { text: payload };
  if (payload instanceof Uint8Array) return { bytes: payload };
  return undefined;
}

function refuse(reply: FastifyReplyLike, answer: Answer): FastifyReplyLike {
  reply.code(answer.status);
  reply.header('content-type', answer.contentType);
  reply.send(answer.text);
  return reply;
}

/** The JSON parser: bytes decoded and judged for the contract's routes, Fastify's own parser for the value. */
function jsonParser(app: FastifyLike, states: WeakMap<object, State>) {
  const fastifyParser = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  return (request: FastifyRequestLike, bytes: Uint8Array, done: Done): void => {
    const state = states.get(request);
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
    if (!state) return fastifyParser(request, text, done);
    const contentType = typeof request.headers['content-type'] === 'string' ? request.headers['content-type'] : '';
    const read = readJsonRequestBody(contentType, bytes);
    if (read.problem) state.problem = read.problem;
    if (read.problem || read.value === undefined) return done(null, undefined);
    return fastifyParser(request, text, done);
  };
}

/**
 * Why the body is not the operation's JSON: what the JSON parser found, or a body another of
 * Fastify's parsers read (text/plain has one by default), which the reference server refuses too.
 */
function bodyProblem(request: FastifyRequestLike, state: State): BodyProblem | undefined {
  if (state.problem) return state.problem;
  const contentType = request.headers['content-type'];
  if (typeof contentType !== 'string' || contentType.trim() === '' || request.body === undefined) return undefined;
  return isJsonContentType(contentType) ? undefined : { kind: 'content_type', contentType };
}

function judgeSent(engine: ContractEngine, state: State): void {
  const sent = state.copied;
  if (sent) engine.judgeResponse(state.route, sent.status, sent.headers, sent.body);
}

function hooks(engine: ContractEngine, states: WeakMap<object, State>) {
  const judgeRequest = (request: FastifyRequestLike, reply: FastifyReplyLike, state: State) => {
    const body = state.route.hasBody ? { parsed: request.body, problem: bodyProblem(request, state) } : undefined;
    const verdict = engine.checkRequest(state.route, request.headers, body);
    if (verdict.ok) return undefined;
    state.plan = undefined;
    return refuse(reply, verdict.answer);
  };
  return {
    onRequest: async (request: FastifyRequestLike, reply: FastifyReplyLike) => {
      const route = engine.match(request.method, request.url);
      if (!route) return undefined;
      const state: State = { route, plan: undefined };
      states.set(request, state);
      if (!engine.readsBody(route)) {
        const refused = judgeRequest(request, reply, state);
        if (refused) return refused;
      }
      state.plan = engine.responsePlan();
      return undefined;
    },
    preValidation: async (request: FastifyRequestLike, reply: FastifyReplyLike) => {
      const state = states.get(request);
      return state && engine.readsBody(state.route) ? judgeRequest(request, reply, state) : undefined;
    },
    onSend: async (request: FastifyRequestLike, reply: FastifyReplyLike, payload: unknown) => {
      const state = states.get(request);
      if (!state?.plan) return payload;
      const headers = reply.getHeaders();
      if (state.plan === 'copy') {
        state.copied = { status: reply.statusCode, headers, body: payloadBody(payload) };
        return payload;
      }
      const finding = engine.judgeResponse(state.route, reply.statusCode, headers, payloadBody(payload));
      if (!finding) return payload;
      const answer = engine.breachAnswer(finding);
      for (const name of ENTITY_HEADERS) reply.removeHeader(name);
      reply.code(answer.status);
      reply.header('content-type', answer.contentType);
      return answer.text;
    },
    onResponse: async (request: FastifyRequestLike) => {
      const state = states.get(request);
      if (state?.plan === 'copy') judgeSent(engine, state);
    },
  };
}

/**
 * The plugin: `await app.register(fastifyContract, { responses: 'test' })`. Register it before the
 * routes; a JSON parser of one's own registered earlier is replaced.
 */
export async function fastifyContract(app: FastifyLike, options?: ContractMiddlewareOptions): Promise<void> {
  const engine = new ContractEngine(options);
  const states = new WeakMap<object, State>();
  if (engine.options.requests) {
    if (app.hasContentTypeParser('application/json')) app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, jsonParser(app, states));
  }
  const h = hooks(engine, states);
  app.addHook('onRequest', h.onRequest);
  app.addHook('preValidation', h.preValidation);
  app.addHook('onSend', h.onSend);
  app.addHook('onResponse', h.onResponse);
}

// What fastify-plugin sets: the hooks and the parser belong to the instance that registers the
// plugin, not to a child context of their own.
Object.assign(fastifyContract, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'voice-agent-contract',
});
