/**
 * Routes plugin: one route per operation of the spec, each validating its request with the
 * internals and handing the validated value to its handler (handlers.ts); and on every documented
 * path, a 405 with Allow for every method Node parses that the path does not serve.
 */
import { METHODS } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { HttpMethod, Operation } from '../../spec/model.js';
import { parsePathTemplate } from '../../spec/path-template.js';
import type { RequestParts } from '../../validators/index.js';
import { requestErrorItems, validationBody } from '../../http/validation-error.js';
import { handlers, type OperationHandler } from '../handlers.js';
import type { ReferenceInternals } from '../types.js';
import { bodyProblemOf } from './bodies.js';

/** `/campaign/{campaign_id}` → `/campaign/:campaign_id`. */
/** The template in Fastify's syntax (`/campaign/:campaign_id`), from the spec's one path-template parser. */
const fastifyPath = (path: string): string => {
  const { literals, names } = parsePathTemplate(path);
  return literals.reduce((out, literal, i) => out + (i > 0 ? `:${names[i - 1]}` : '') + literal, '');
};

/** The route handler of one operation: validate (422 with every item), then run its handler. */
function operationHandler(op: Operation, handle: OperationHandler, internals: ReferenceInternals) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const problem = bodyProblemOf(request);
    const parts: RequestParts = {
      path: request.params as Record<string, string>,
      query: request.query as Record<string, string | string[]>,
      headers: request.headers as Record<string, string>,
      body: op.requestBody && !problem ? request.body : undefined,
    };
    const result = internals.validateRequest(op.id, parts);
    const items = requestErrorItems(op.requestBody ? problem : undefined, result.ok ? [] : result.issues);
    if (items.length > 0) return reply.code(422).send(validationBody(items));
    if (!result.ok) return reply.code(500).send({ detail: 'Internal Server Error' });
    const outcome = handle({ value: result.value, store: internals.store, op, headers: request.headers });
    reply.code(outcome.status);
    if (outcome.raw !== undefined) return reply.type('application/json; charset=utf-8').send(outcome.raw);
    return outcome.body === undefined ? reply.send() : reply.send(outcome.body);
  };
}

/**
 * Known paths, undocumented methods: 405 with Allow (as FastAPI answers), for every method Node's
 * parser accepts (CONNECT, which Node never routes, is answered by the errors plugin).
 */
function methodNotAllowed(app: FastifyInstance, served: Map<string, Set<HttpMethod>>): void {
  for (const method of METHODS)
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  for (const [url, methodsServed] of served) {
    const allow = [...methodsServed].join(', ');
    // OPTIONS stays with CORS (preflights of any known path are answered there).
    const others = app.supportedMethods.filter(
      (m) => m !== 'OPTIONS' && !methodsServed.has(m as HttpMethod) && !(m === 'HEAD' && methodsServed.has('GET')),
    );
    if (others.length === 0) continue;
    const refuse = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.code(405).header('Allow', allow).send({ detail: 'Method Not Allowed' });
    // Refused before the body is read: no parsing cost, and QUERY's Content-Type rule never applies.
    app.route({ method: [...others], url, preParsing: refuse, handler: refuse });
  }
}

export const routesPlugin = fp<{ internals: ReferenceInternals }>(
  async (app, { internals }) => {
    const served = new Map<string, Set<HttpMethod>>();
    for (const op of internals.spec.operations) {
      const handle = handlers[op.id];
      if (!handle) throw new Error(`the reference server has no handler for operation ${op.id}`);
      const url = fastifyPath(op.path);
      if (!served.has(url)) served.set(url, new Set());
      served.get(url)!.add(op.method);
      app.route({
        method: op.method,
        url,
        config: { operationId: op.id },
        handler: operationHandler(op, handle, internals),
      });
    }
    methodNotAllowed(app, served);
  },
  { name: 'vapc-routes' },
);
