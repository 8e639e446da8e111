import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A misbehaving HTTP server on 127.0.0.1:0 (test/hostile): each proves the runner stays bounded. */
export interface HostileServer {
  url: string;
  /** Requests it has seen. */
  requests(): number;
  close(): Promise<void>;
}

export type Behaviour =
  | 'hang'
  | 'reset'
  | 'invalid-json'
  | 'huge-body'
  | 'drip'
  | 'html-500'
  | 'redirect-loop'
  | 'stall-after-discovery'
  | 'deep-json';

const HUGE_CHUNK = Buffer.alloc(64 * 1024, 'a');
const DEEP_JSON = `${'['.repeat(400_000)}${']'.repeat(400_000)}`;

const behaviours: Record<Behaviour, (req: IncomingMessage, res: ServerResponse, n: number) => void> = {
  // Answers the three discovery requests with empty lists, then never answers again.
  'stall-after-discovery': (_req, res, n) => {
    if (n <= 3) res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  },
  // Accepts the request and never answers.
  hang: () => undefined,
  // Drops the connection without a response.
  reset: (req) => req.socket.destroy(),
  // 200 with a JSON content type and a body that is not JSON.
  'invalid-json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "x", oops'),
  // 200 with a 64 MiB body streamed as fast as the socket takes it.
  'huge-body': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    let sent = 0;
    const pump = () => {
      while (sent < 1024 && !res.destroyed) {
        sent++;
        if (!res.write(HUGE_CHUNK)) return void res.once('drain', pump);
      }
      res.end(']');
    };
    pump();
  },
  // Headers at once, then one byte every 50 ms, forever.
  drip: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(timer));
  },
  // Every request: an HTML error page.
  'html-500': (_req, res) =>
    res.writeHead(500, { 'content-type': 'text/html' }).end('<html><body><h1>Internal Server Error</h1></body></html>'),
  // Every request: 200 with 800 KB of JSON nested 400,000 levels deep.
  'deep-json': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(DEEP_JSON),
  // Every request: a redirect to itself.
  'redirect-loop': (req, res) => res.writeHead(302, { location: req.url ?? '/' }).end(),
};

/**
 * A loopback server on 127.0.0.1:0 that reads each request whole, then lets `answer` respond; it
 * counts requests and closes its open connections on `close()`.
 */
export async function startLoopbackServer(
  answer: (req: IncomingMessage, res: ServerResponse, n: number) => void,
): Promise<HostileServer> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    const n = ++count;
    req.resume();
    req.on('end', () => answer(req, res, n));
    req.on('error', () => undefined);
  });
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export function startHostileServer(behaviour: Behaviour): Promise<HostileServer> {
  return startLoopbackServer(behaviours[behaviour]);
}
