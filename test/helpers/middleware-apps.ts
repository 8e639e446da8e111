// One small service written four times, on Express, Fastify, Hono and a plain Node `http` handler,
// each with the contract middleware in front and listening on a loopback port of its own (port 0).
// Every version serves the same operations with the same answers (`answerFor`), records what its
// handler was given (`seen`), and breaks the contract in its response when asked by the request's
// `x-breach` header (a header the contract does not document, so the middleware lets it through):
// `header` leaves X-RateLimit-Remaining out, `body` answers a wrong type, `content-type` answers
// text. GET /elsewhere and DELETE /calls are routes the contract does not have. With `catchAll`,
// one handler answers every method and path instead (200 `reached`): the oracle's judges.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { Hono } from 'hono';
import { request } from 'undici';
import {
  contractHandler,
  expressContract,
  fastifyContract,
  honoContract,
  type ContractFinding,
  type ContractMiddlewareOptions,
} from '../../src/middleware/index.js';
import type { Loc, RequestJudge } from './oracle.js';

export const FRAMEWORKS = ['express', 'fastify', 'hono', 'node'] as const;
export type Framework = (typeof FRAMEWORKS)[number];

export interface Seen {
  method: string;
  path: string;
  body: unknown;
}

export interface MiddlewareApp {
  url: string;
  /** What the handlers were given, in order. */
  seen: Seen[];
  close(): Promise<void>;
}

export interface Answered {
  status: number;
  headers: Record<string, string>;
  text: string;
}

const RATE = { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '99', 'X-RateLimit-Reset': '60' };

/** The one answer every version gives; `breach` is the request's x-breach header. */
export function answerFor(method: string, path: string, body: unknown, breach: string | undefined): Answered {
  const headers: Record<string, string> = { ...RATE, 'content-type': 'application/json' };
  if (breach === 'header') delete headers['X-RateLimit-Remaining'];
  let status = 200;
  let value: unknown;
  if (path === '/elsewhere')
    return { status: 200, headers: { 'content-type': 'text/plain' }, text: 'not the contract' };
  if (method === 'DELETE') return { status: 418, headers: { 'content-type': 'text/plain' }, text: 'no such operation' };
  if (path === '/calls')
    value = breach === 'body' ? [{ id: 7, to_number: '+15550100', provider: 'p', status: 'done' }] : [];
  else if (method === 'POST') {
    status = 201;
    const name = (body as { name?: unknown } | undefined)?.name;
    value = breach === 'body' ? { id: 'cmp-1', max_concurrency: 'many' } : { id: 'cmp-1', name, status: 'draft' };
  } else {
    const id = path.split('/').pop();
    value = { id, status: (body as { status?: unknown } | undefined)?.status ?? 'draft' };
  }
  if (breach === 'content-type') return { status, headers: { ...RATE, 'content-type': 'text/plain' }, text: 'ok' };
  return { status, headers, text: JSON.stringify(value) };
}

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

async function listening(server: Server): Promise<string> {
  if (!server.listening) await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** The catch-all answer: the request reached the handler. */
const REACHED = 'reached';

async function startExpress(options: ContractMiddlewareOptions, catchAll: boolean): Promise<MiddlewareApp> {
  const seen: Seen[] = [];
  const app = express();
  app.use(expressContract(options));
  // After the middleware, which has read and parsed the body already: body-parser leaves it be.
  app.use(express.json());
  const handle = (req: express.Request, res: express.Response): void => {
    seen.push({ method: req.method, path: req.path, body: req.body });
    const a = answerFor(req.method, req.path, req.body, header(req.headers['x-breach']));
    res.status(a.status).set(a.headers).send(a.text);
  };
  if (catchAll) app.use((_req, res) => res.send(REACHED));
  app.get('/calls', handle);
  app.delete('/calls', handle);
  app.post('/campaign', handle);
  app.patch('/campaign/:id', handle);
  app.get('/elsewhere', handle);
  const server = app.listen(0, '127.0.0.1');
  return { url: await listening(server), seen, close: closer(server) };
}

async function startFastify(options: ContractMiddlewareOptions, catchAll: boolean): Promise<MiddlewareApp> {
  const seen: Seen[] = [];
  const app = Fastify({ logger: false });
  await app.register(fastifyContract, options);
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    seen.push({ method: request.method, path, body: request.body });
    const a = answerFor(request.method, path, request.body, header(request.headers['x-breach']));
    return reply.code(a.status).headers(a.headers).send(a.text);
  };
  if (catchAll) app.all('*', async (_request, reply) => reply.send(REACHED));
  else {
    app.get('/calls', handle);
    app.delete('/calls', handle);
    app.post('/campaign', handle);
    app.patch('/campaign/:id', handle);
    app.get('/elsewhere', handle);
  }
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: await listening(app.server), seen, close: () => app.close() };
}

async function startHono(options: ContractMiddlewareOptions, catchAll: boolean): Promise<MiddlewareApp> {
  const seen: Seen[] = [];
  const app = new Hono();
  app.use(honoContract(options));
  const handle = async (c: import('hono').Context) => {
    const body = ['POST', 'PATCH'].includes(c.req.method) ? await c.req.json() : undefined;
    seen.push({ method: c.req.method, path: c.req.path, body });
    const a = answerFor(c.req.method, c.req.path, body, c.req.header('x-breach'));
    return c.body(a.text, a.status as 200, a.headers);
  };
  if (catchAll) app.all('*', (c) => c.text(REACHED));
  app.get('/calls', handle);
  app.delete('/calls', handle);
  app.post('/campaign', handle);
  app.patch('/campaign/:id', handle);
  app.get('/elsewhere', handle);
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  return { url: await listening(server), seen, close: closer(server) };
}

async function startNode(options: ContractMiddlewareOptions, catchAll: boolean): Promise<MiddlewareApp> {
  const seen: Seen[] = [];
  const handler = (req: IncomingMessage & { body?: unknown }, res: ServerResponse): void => {
    if (catchAll) return void res.end(REACHED);
    const path = (req.url ?? '/').split('?')[0]!;
    seen.push({ method: req.method ?? '', path, body: req.body });
    const a = answerFor(req.method ?? '', path, req.body, header(req.headers['x-breach']));
    res.writeHead(a.status, a.headers);
    res.end(a.text);
  };
  const server = createServer(contractHandler(handler, options));
  server.listen(0, '127.0.0.1');
  return { url: await listening(server), seen, close: closer(server) };
}

export function startMiddlewareApp(
  framework: Framework,
  options: ContractMiddlewareOptions,
  catchAll = false,
): Promise<MiddlewareApp> {
  switch (framework) {
    case 'express':
      return startExpress(options, catchAll);
    case 'fastify':
      return startFastify(options, catchAll);
    case 'hono':
      return startHono(options, catchAll);
    case 'node':
      return startNode(options, catchAll);
  }
}

/**
 * The middleware on a framework as a judge of the oracle: a case is valid when it reaches the
 * catch-all handler (200 `reached`), invalid when it is answered 422 (located by its items); any
 * other answer is reported as it is.
 */
export async function middlewareJudge(framework: Framework): Promise<RequestJudge & { close(): Promise<void> }> {
  const app = await startMiddlewareApp(framework, { responses: 'off' }, true);
  return {
    name: `middleware on ${framework}`,
    close: app.close,
    async judge(c) {
      const url = new URL(c.request.url);
      const r = await request(`${app.url}${url.pathname}${url.search}`, {
        method: c.request.method as 'GET',
        headers: c.request.headers,
        ...(c.request.body !== undefined ? { body: c.request.body } : {}),
      });
      const text = await r.body.text();
      if (r.statusCode === 200 && text === REACHED) return { valid: true };
      if (r.statusCode === 422) {
        const detail = (JSON.parse(text) as { detail: { loc: Loc }[] }).detail;
        return { valid: false, locs: detail.map((d) => d.loc) };
      }
      return { valid: false, other: `answered ${r.statusCode} ${text.slice(0, 120)}` };
    },
  };
}

/** A logger that keeps what it is given, by level. */
export function recordingLogger(): {
  warn: (o: { finding: ContractFinding }, m: string) => void;
  error: (o: { finding: ContractFinding }, m: string) => void;
  warned: ContractFinding[];
  errored: ContractFinding[];
  messages: string[];
} {
  const warned: ContractFinding[] = [];
  const errored: ContractFinding[] = [];
  const messages: string[] = [];
  return {
    warned,
    errored,
    messages,
    warn: (o, m) => {
      warned.push(o.finding);
      messages.push(m);
    },
    error: (o, m) => {
      errored.push(o.finding);
      messages.push(m);
    },
  };
}
