/**
 * The Node adapter (a plain `http` handler, and the connect-style middleware Express uses): reads
 * a request's body when its operation documents one, answers a request that breaks the contract
 * itself, and watches the response through its own `writeHead`/`write`/`end`: held until complete
 * and judged in test mode, copied and judged once sent in a production sample. Nothing from Node
 * is imported; the request and response are whatever the server passes.
 */
import { ContractEngine, ENTITY_HEADERS, type Answer, type RequestBody, type Route } from './core.js';
import type { ContractMiddlewareOptions } from './types.js';

/** The members of Node's `IncomingMessage` (or Express's `Request`) the adapter uses. */
export interface NodeRequest {
  method?: string | undefined;
  url?: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  on(event: string, listener: (...args: any[]) => void): unknown;
}

/** The members of Node's `ServerResponse` (or Express's `Response`) the adapter uses. */
export interface NodeResponse {
  statusCode: number;
  statusMessage: string;
  writeHead(...args: any[]): unknown;
  write(...args: any[]): boolean;
  end(...args: any[]): unknown;
  setHeader(name: string, value: number | string | readonly string[]): unknown;
  getHeaders(): Record<string, number | string | string[] | undefined>;
  removeHeader(name: string): void;
  once(event: string, listener: (...args: any[]) => void): unknown;
}

/** A connect-style middleware: Express, connect, polka and the like. */
export type NodeMiddleware<Req extends NodeRequest = NodeRequest, Res extends NodeResponse = NodeResponse> = (
  req: Req,
  res: Res,
  next: (error?: unknown) => void,
) => void;

/** A request a body parser has already read (Express's express.json(), express.raw(), express.text()). */
interface ParsedRequest {
  body?: unknown;
  _body?: boolean;
}

type Chunk = string | Uint8Array;

function bytesOf(chunk: unknown, encoding?: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string')
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as 'utf8') : 'utf8');
  return new Uint8Array(0);
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function send(res: NodeResponse, answer: Answer): void {
  res.statusCode = answer.status;
  res.setHeader('content-type', answer.contentType);
  res.setHeader('content-length', String(Buffer.byteLength(answer.text)));
  res.end(answer.text);
}

/** Reads the body to its end; `undefined` when it is longer than `limit` (the rest is drained, not kept). */
function readBody(req: NodeRequest, limit: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    req.on('data', (chunk: Chunk) => {
      const bytes = bytesOf(chunk);
      size += bytes.length;
      if (size <= limit) chunks.push(bytes);
    });
    req.on('end', () => resolve(size > limit ? undefined : concat(chunks, size)));
    req.on('error', reject);
  });
}

/** The body as the adapter passes it to the engine: what a body parser made, or the bytes read here. */
async function requestBody(
  engine: ContractEngine,
  req: NodeRequest & ParsedRequest,
): Promise<RequestBody | 'too-large'> {
  const contentType = typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : undefined;
  if (req._body === true || req.body !== undefined) {
    const parsed = req.body;
    if (parsed instanceof Uint8Array) return { bytes: parsed, contentType };
    if (typeof parsed === 'string') return { bytes: Buffer.from(parsed), contentType };
    return { parsed };
  }
  const bytes = await readBody(req, engine.options.maxBodyBytes);
  return bytes === undefined ? 'too-large' : { bytes, contentType };
}

/** The middleware over one engine: judge the request, then let the response be watched and go on. */
export function nodeMiddleware(engine: ContractEngine): NodeMiddleware {
  return (req, res, next) => {
    const route = engine.match(req.method, req.url);
    if (!route) return next();
    if (!engine.readsBody(route)) return proceed(engine, route, req, res, undefined, next);
    requestBody(engine, req).then(
      (body) => {
        if (body === 'too-large') return send(res, engine.tooLarge());
        proceed(engine, route, req, res, body, next);
      },
      // The client went away while sending: there is no one to answer.
      () => undefined,
    );
  };
}

function proceed(
  engine: ContractEngine,
  route: Route,
  req: NodeRequest & ParsedRequest,
  res: NodeResponse,
  body: RequestBody,
  next: (error?: unknown) => void,
): void {
  const verdict = engine.checkRequest(route, req.headers, body);
  if (!verdict.ok) return send(res, verdict.answer);
  if (body !== undefined) {
    // As a body parser leaves it: parsed, and marked read so a later parser does not wait for it.
    req.body = verdict.body;
    req._body = true;
  }
  const plan = engine.responsePlan();
  if (plan === 'hold') holdResponse(engine, route, res);
  else if (plan === 'copy') copyResponse(engine, route, res);
  next();
}

/** The headers `writeHead` was given (a record, or Node's flat or paired raw arrays), names lower-cased. */
function writeHeadHeaders(args: readonly unknown[]): Record<string, string | string[]> {
  const given = typeof args[1] === 'string' ? args[2] : args[1];
  const out: Record<string, string | string[]> = {};
  const add = (name: unknown, value: unknown): void => {
    const key = String(name).toLowerCase();
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    const prev = out[key];
    out[key] = prev === undefined ? (values.length === 1 ? values[0]! : values) : [prev, ...values].flat();
  };
  if (Array.isArray(given)) {
    if (given.every((e) => Array.isArray(e))) for (const [k, v] of given as unknown[][]) add(k, v);
    else for (let i = 0; i + 1 < given.length; i += 2) add(given[i], given[i + 1]);
  } else if (given && typeof given === 'object') {
    for (const [k, v] of Object.entries(given)) if (v !== undefined) add(k, v);
  }
  return out;
}

/** Splits `write`/`end` arguments: (chunk?, encoding?, callback?). */
function chunkArgs(args: readonly unknown[]): { chunk: unknown; encoding: unknown; callback?: () => void } {
  const callback = args.find((a): a is () => void => typeof a === 'function');
  const [chunk, encoding] = args.filter((a) => typeof a !== 'function');
  return callback ? { chunk, encoding, callback } : { chunk, encoding };
}

/**
 * Test mode: nothing reaches the client until `end`; then the response is judged as a whole and
 * sent as it was, or replaced by the 500 of the breach. Past maxResponseBytes it is let through
 * unjudged.
 */
function holdResponse(engine: ContractEngine, route: Route, res: NodeResponse): void {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const restore = (): void => {
    res.writeHead = original.writeHead;
    res.write = original.write;
    res.end = original.end;
  };
  /** Holds a chunk; past the bound, writes out what was held (the result of that write) and stops holding. */
  const keep = (chunk: unknown, encoding: unknown): 'held' | boolean => {
    if (chunk === undefined || chunk === null) return 'held';
    const bytes = bytesOf(chunk, encoding);
    size += bytes.length;
    chunks.push(bytes);
    if (size <= engine.options.maxResponseBytes) return 'held';
    // Too long to hold: what was held goes out unjudged, and the rest passes as it comes.
    restore();
    let flowing = true;
    for (const c of chunks) flowing = original.write.call(res, c);
    return flowing;
  };
  res.writeHead = function (...args: unknown[]) {
    res.statusCode = Number(args[0]);
    if (typeof args[1] === 'string') res.statusMessage = args[1];
    for (const [name, value] of Object.entries(writeHeadHeaders(args))) res.setHeader(name, value);
    return res;
  };
  res.write = function (...args: unknown[]) {
    const { chunk, encoding, callback } = chunkArgs(args);
    const held = keep(chunk, encoding);
    callback?.();
    return held === 'held' ? true : held;
  };
  res.end = function (...args: unknown[]) {
    const { chunk, encoding, callback } = chunkArgs(args);
    if (keep(chunk, encoding) !== 'held') return original.end.call(res, callback);
    restore();
    const body = concat(chunks, size);
    const finding = engine.judgeResponse(route, res.statusCode, res.getHeaders(), { bytes: body });
    if (!finding) return original.end.call(res, body, callback);
    for (const name of ENTITY_HEADERS) res.removeHeader(name);
    const answer = engine.breachAnswer(finding);
    res.statusCode = answer.status;
    res.statusMessage = 'Internal Server Error';
    res.setHeader('content-type', answer.contentType);
    res.setHeader('content-length', String(Buffer.byteLength(answer.text)));
    return original.end.call(res, answer.text, callback);
  };
}

/**
 * A production sample: every call goes through unchanged; a copy of the body (up to
 * maxResponseBytes) and the headers given to writeHead are kept, and judged once the response
 * has been sent.
 */
function copyResponse(engine: ContractEngine, route: Route, res: NodeResponse): void {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let given: Record<string, string | string[]> = {};
  const copy = (args: readonly unknown[]): void => {
    const { chunk, encoding } = chunkArgs(args);
    if (chunk === undefined || chunk === null || size > engine.options.maxResponseBytes) return;
    const bytes = bytesOf(chunk, encoding);
    size += bytes.length;
    chunks.push(Uint8Array.from(bytes));
  };
  res.writeHead = function (...args: unknown[]) {
    given = writeHeadHeaders(args);
    return original.writeHead.apply(res, args);
  };
  // A response whose `end` writes its last chunk through `this.write` (light-my-request's, some
  // wrappers') must not have that chunk copied twice.
  let ending = false;
  res.write = function (...args: unknown[]) {
    if (!ending) copy(args);
    return original.write.apply(res, args);
  };
  res.end = function (...args: unknown[]) {
    copy(args);
    ending = true;
    try {
      return original.end.apply(res, args);
    } finally {
      ending = false;
    }
  };
  res.once('finish', () => {
    res.writeHead = original.writeHead;
    res.write = original.write;
    res.end = original.end;
    const body = size > engine.options.maxResponseBytes ? undefined : { bytes: concat(chunks, size) };
    engine.judgeResponse(route, res.statusCode, { ...res.getHeaders(), ...given }, body);
  });
}

/** Wraps a plain `http` handler: `http.createServer(contractHandler(handler, options))`. */
export function contractHandler<Req extends NodeRequest, Res extends NodeResponse>(
  handler: (req: Req & { body?: unknown }, res: Res) => unknown,
  options?: ContractMiddlewareOptions,
): (req: Req, res: Res) => void {
  const middleware = nodeMiddleware(new ContractEngine(options)) as unknown as NodeMiddleware<Req, Res>;
  return (req, res) =>
    middleware(req, res, () => {
      void handler(req, res);
    });
}
