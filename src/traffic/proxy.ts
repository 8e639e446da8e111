/**
 * The core of `vapc proxy`: a reverse proxy that forwards every request to the target and every
 * answer back byte for byte (streamed as they come: bodies untouched, content codings included;
 * only the hop-by-hop headers of each connection and the Host are the proxy's own), and hands
 * each exchange to `onExchange` only once its answer has been sent in full. Nothing a judge says
 * can block, delay or alter traffic: judging happens after forwarding, on a copy of the bytes
 * (capped for judging only; what is forwarded is never capped).
 */
import {
  createServer,
  request as httpRequest,
  Agent as HttpAgent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { decodeBody } from '../transport/content-coding.js';
import { toHttpResponse } from '../transport/undici.js';
import type { Exchange } from '../transport/types.js';
import { MAX_JUDGED_BODY } from './exchange.js';

/** Headers of one connection (RFC 9110 7.6.1), never forwarded: each side has its own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export interface ProxyOptions {
  /** The server the traffic goes to (its path is prefixed to every request's). */
  target: URL;
  host: string;
  port: number;
  /** Each exchange once its answer was sent in full (never called on the path of the traffic itself). */
  onExchange(exchange: Exchange, index: number): void;
  /** Bytes of each body kept for judging (default the runner's 1 MiB); forwarding is never capped. */
  maxCapture?: number;
}

export interface ProxyServer {
  url: string;
  /** Exchanges whose answer was sent in full. */
  readonly forwarded: number;
  /** Stops accepting, waits (up to `graceMs`) for the exchanges under way, then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

/** The raw headers without the hop-by-hop ones (and those a Connection header names), Host replaced when given. */
function endToEnd(raw: readonly string[], host?: string): string[] {
  const named = new Set<string>();
  for (let i = 0; i < raw.length; i += 2)
    if (raw[i]!.toLowerCase() === 'connection')
      for (const n of raw[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (host !== undefined && name === 'host') continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  if (host !== undefined) out.unshift('Host', host);
  return out;
}

/** Headers as an Exchange carries them: lower-cased, repeated ones joined with ', '. */
function headerRecord(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    out[name] = out[name] === undefined ? raw[i + 1]! : `${out[name]}, ${raw[i + 1]!}`;
  }
  return out;
}

/** A copy of the bytes that pass, up to a cap. */
class Capture {
  private readonly chunks: Buffer[] = [];
  size = 0;
  cut = false;
  constructor(private readonly max: number) {}
  add(chunk: Buffer): void {
    if (this.cut) return;
    const room = this.max - this.size;
    if (chunk.length > room) {
      this.cut = true;
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.size = this.max;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}

interface Flight {
  req: IncomingMessage;
  url: string;
  /** The request's headers as forwarded (the target's Host, no hop-by-hop ones). */
  headers: string[];
  body: Capture;
  started: number;
}

/**
 * The exchange of a forwarded request and the answer its client got, as the judges read it (the
 * body decoded, as the runner's transport does): the target's, or the proxy's own 502 when the
 * target gave none (`own`).
 */
function exchangeOf(
  flight: Flight,
  answer: Capture,
  from: { status: number; rawHeaders: readonly string[] } | { own: string },
): Exchange {
  const { req } = flight;
  const request: Exchange['request'] = {
    method: req.method ?? 'GET',
    url: flight.url,
    headers: headerRecord(flight.headers),
  };
  if (
    flight.body.size > 0 ||
    (req.method !== 'GET' && req.method !== 'HEAD' && req.headers['content-length'] !== undefined)
  )
    request.body = flight.body.bytes().toString('utf8');
  const durationMs = performance.now() - flight.started;
  if ('own' in from)
    return { request, response: toHttpResponse(502, { 'content-type': OWN_TYPE }, from.own, false), durationMs };
  const headers = headerRecord(from.rawHeaders);
  const decoded = decodeBody(answer.bytes(), headers['content-encoding'], MAX_JUDGED_BODY, answer.cut);
  const response = toHttpResponse(from.status, headers, decoded.text, decoded.truncated);
  if (decoded.error) response.jsonError = decoded.error;
  return { request, response, durationMs };
}

const OWN_TYPE = 'text/plain; charset=utf-8';

/** What forwarding needs: where to, over which agent, and who hears of each exchange. */
interface Route {
  target: URL;
  agent: HttpAgent | HttpsAgent;
  send: typeof httpRequest;
  /** The target's path, prefixed to every request's. */
  prefix: string;
  /** Bytes of each body kept for judging. */
  max: number;
  /** Told once an answer was sent in full (its exchange, made later, goes to `onExchange`). */
  onForwarded(): number;
  onExchange(exchange: Exchange, index: number): void;
}

/**
 * Forwards one request and its answer, streamed both ways; resolves when the exchange is over.
 * The exchange is made and handed on only after the answer was sent in full, in a later turn of
 * the event loop: nothing of judging sits on the path of the traffic.
 */
function forward(route: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return new Promise<void>((done) => {
    res.sendDate = false; // the target's Date goes back, none of the proxy's own
    const { target } = route;
    const path = `${route.prefix}${req.url ?? '/'}`;
    const flight: Flight = {
      req,
      url: `${target.origin}${path}`,
      headers: endToEnd(req.rawHeaders, target.host),
      body: new Capture(route.max),
      started: performance.now(),
    };
    const answer = new Capture(route.max);
    const upstream = route.send({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path,
      headers: flight.headers as unknown as Record<string, string>,
      setHost: false,
      agent: route.agent,
    });
    let settled = false;
    const settle = (from?: Parameters<typeof exchangeOf>[2]) => {
      if (settled) return;
      settled = true;
      done();
      if (!from) return;
      const n = route.onForwarded();
      setImmediate(() => route.onExchange(exchangeOf(flight, answer, from), n));
    };
    req.on('data', (chunk: Buffer) => flight.body.add(chunk));
    req.pipe(upstream);
    req.on('aborted', () => upstream.destroy());
    res.on('close', () => {
      if (!res.writableFinished) {
        upstream.destroy();
        settle();
      }
    });
    upstream.on('response', (from) => {
      res.writeHead(from.statusCode ?? 502, from.statusMessage ?? '', endToEnd(from.rawHeaders));
      from.on('data', (chunk: Buffer) => answer.add(chunk));
      from.pipe(res);
      from.on('error', () => res.destroy());
      res.on('finish', () => settle({ status: from.statusCode ?? 502, rawHeaders: from.rawHeaders }));
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
        settle();
        return;
      }
      const own = `vapc proxy: the target did not answer (${error.code ?? error.message})\n`;
      res.writeHead(502, { 'content-type': OWN_TYPE });
      res.end(own);
      settle({ own });
    });
  });
}

/** Starts the proxy; resolves once it listens. */
export async function startProxy(options: ProxyOptions): Promise<ProxyServer> {
  const { target } = options;
  const secure = target.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  let forwarded = 0;
  const route: Route = {
    target,
    agent,
    send: secure ? (httpsRequest as unknown as typeof httpRequest) : httpRequest,
    prefix: target.pathname.replace(/\/+$/, ''),
    max: options.maxCapture ?? MAX_JUDGED_BODY,
    onForwarded: () => ++forwarded,
    onExchange: options.onExchange,
  };
  const underWay = new Set<Promise<void>>();

  const server: Server = createServer((req, res) => {
    const flight = forward(route, req, res);
    underWay.add(flight);
    void flight.finally(() => underWay.delete(flight));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    get forwarded() {
      return forwarded;
    },
    async close(graceMs = 10_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...underWay]),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
      ]);
      if (timer) clearTimeout(timer);
      server.closeAllConnections();
      agent.destroy();
      await closed;
      // The last exchanges' judging was queued behind their answers: let it run.
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}
