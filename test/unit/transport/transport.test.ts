import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTarget,
  classifyError,
  createUndiciTransport,
  nestingDepth,
  parseBaseUrl,
} from '../../../src/transport/undici.js';
import { Secrets } from '../../../src/secrets/index.js';
import { recordRequest, recordResponse, redactValue, toCurl } from '../../../src/secrets/record.js';
import { createRecordingTransport } from '../../../src/transport/recording.js';
import { isVapcError } from '../../../src/errors.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let base = '';
const routes = new Map<string, Handler>();
let hangSeen: () => void = () => undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const handler = routes.get(path);
      if (handler) handler(req, res, body);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  routes.set('/echo', (req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '100' });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
  });
  routes.set('/api/echo', routes.get('/echo')!);
  routes.set('/notjson', (_req, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<html>oops</html>'));
  routes.set('/huge', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`[${'1,'.repeat(50_000)}1]`);
  });
  routes.set('/hang', () => undefined);
  routes.set('/hang-seen', () => hangSeen());
  routes.set('/reset', (req) => req.socket.destroy());
  routes.set('/redirect', (_req, res) => res.writeHead(302, { location: '/redirect' }).end());
  routes.set('/drip', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const t = setInterval(() => res.write(' '), 20);
    res.on('close', () => clearInterval(t));
  });
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('parseBaseUrl', () => {
  it('refuses what is not an absolute http(s) URL, with a usage error', () => {
    for (const bad of ['not a url', 'ftp://x', 'http://u:p@host', 'http://h/?q=1', '']) {
      let caught: unknown;
      try {
        parseBaseUrl(bad);
      } catch (e) {
        caught = e;
      }
      expect(isVapcError(caught) && caught.code).toBe('E_USAGE');
    }
    expect(parseBaseUrl('http://127.0.0.1:4010/api').pathname).toBe('/api');
  });
  it('serialises the query in order, encoded, under a path prefix', () => {
    expect(
      buildTarget('/api/', {
        path: '/calls',
        query: [
          ['limit', '5'],
          ['provider', 'a b&c'],
        ],
      }),
    ).toBe('/api/calls?limit=5&provider=a%20b%26c');
    expect(buildTarget('', { path: '/calls' })).toBe('/calls');
  });
});

describe('createUndiciTransport', () => {
  it('sends JSON with a content type and returns the parsed body and the wire request', async () => {
    const t = createUndiciTransport({ baseUrl: base });
    const ex = await t.send({
      method: 'post',
      path: '/echo',
      query: [['a', '1']],
      headers: { 'X-Test': 'v' },
      json: { n: 1 },
    });
    await t.close();
    expect(ex.error).toBeUndefined();
    expect(ex.request).toEqual({
      method: 'POST',
      url: `${base}/echo?a=1`,
      headers: { 'x-test': 'v', 'content-type': 'application/json' },
      body: '{"n":1}',
    });
    const echoed = ex.response!.json as { url: string; body: string; headers: Record<string, string> };
    expect(echoed.url).toBe('/echo?a=1');
    expect(echoed.body).toBe('{"n":1}');
    expect(echoed.headers['x-test']).toBe('v');
    expect(ex.response!.headers['x-ratelimit-limit']).toBe('100');
  });

  it('keeps a base path prefix and sends raw bodies as they are', async () => {
    const t = createUndiciTransport({ baseUrl: `${base}/api/` });
    const ex = await t.send({ method: 'POST', path: '/echo', rawBody: '{"broken' });
    await t.close();
    expect((ex.response!.json as { url: string; body: string }).body).toBe('{"broken');
    expect((ex.response!.json as { url: string }).url).toBe('/api/echo');
  });

  it('reports a body that is not JSON with jsonError, not a throw', async () => {
    const t = createUndiciTransport({ baseUrl: base });
    const ex = await t.send({ method: 'GET', path: '/notjson' });
    await t.close();
    expect(ex.response!.status).toBe(500);
    expect(ex.response!.json).toBeUndefined();
    expect(ex.response!.jsonError).toBeTruthy();
  });

  it('cuts a body at the cap and says so', async () => {
    const t = createUndiciTransport({ baseUrl: base, maxBodyBytes: 1000 });
    const ex = await t.send({ method: 'GET', path: '/huge' });
    await t.close();
    expect(ex.response!.truncated).toBe(true);
    expect(ex.response!.text.length).toBe(1000);
    expect(ex.error?.code).toBe('body_too_large');
  });

  it('ends a hanging request at the deadline with code timeout', async () => {
    const t = createUndiciTransport({ baseUrl: base, timeoutMs: 200 });
    const ex = await t.send({ method: 'GET', path: '/hang' });
    await t.close();
    expect(ex.error?.code).toBe('timeout');
    expect(ex.response).toBeUndefined();
  });

  it(
    "ends a request still waiting for headers when its own deadline passes, not when undici's timers do",
    { timeout: 10_000 },
    async () => {
      // undici's headers timeout is a minute away here: only vapc's deadline can end the request.
      let passDeadline: () => void = () => undefined;
      const t = createUndiciTransport({
        baseUrl: base,
        timeoutMs: 60_000,
        startDeadline: (onDeadline) => ((passDeadline = onDeadline), () => undefined),
      });
      const seen = new Promise<void>((resolve) => (hangSeen = resolve));
      const sent = t.send({ method: 'GET', path: '/hang-seen' });
      await seen;
      passDeadline();
      const ex = await sent;
      await t.close();
      expect(ex.error).toEqual({ code: 'timeout', message: 'no complete response within 60000 ms' });
      expect(ex.response).toBeUndefined();
    },
  );

  it('ends a dripping body at the whole-request deadline', async () => {
    const t = createUndiciTransport({ baseUrl: base, timeoutMs: 300 });
    const ex = await t.send({ method: 'GET', path: '/drip' });
    await t.close();
    expect(ex.error?.code).toBe('timeout');
  });

  it('reports a reset connection with code connection_reset', async () => {
    const t = createUndiciTransport({ baseUrl: base });
    const ex = await t.send({ method: 'GET', path: '/reset' });
    await t.close();
    expect(ex.error?.code).toBe('connection_reset');
  });

  it('does not follow redirects', async () => {
    const t = createUndiciTransport({ baseUrl: base });
    const ex = await t.send({ method: 'GET', path: '/redirect' });
    await t.close();
    expect(ex.response!.status).toBe(302);
  });

  it('reports a refused connection with code connection_refused', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const t = createUndiciTransport({ baseUrl: `http://127.0.0.1:${port}` });
    const ex = await t.send({ method: 'GET', path: '/x' });
    await t.close();
    expect(ex.error?.code).toBe('connection_refused');
  });

  it('classifies nested undici error codes', () => {
    expect(classifyError({ code: 'UND_ERR_HEADERS_TIMEOUT' }, false)).toBe('timeout');
    expect(classifyError({ cause: { code: 'ECONNRESET' } }, false)).toBe('connection_reset');
    expect(classifyError({ code: 'HPE_INVALID_CONSTANT' }, false)).toBe('protocol');
    expect(classifyError(new Error('x'), true)).toBe('timeout');
  });

  it('records wire requests in order through the recording transport', async () => {
    const t = createRecordingTransport(createUndiciTransport({ baseUrl: base }));
    await t.send({ method: 'GET', path: '/echo', query: [['b', '2']] });
    await t.send({ method: 'DELETE', path: '/echo' });
    await t.close();
    expect(t.wire().map((w) => `${w.method} ${w.url}`)).toEqual([`GET ${base}/echo?b=2`, `DELETE ${base}/echo`]);
  });
});

describe('nestingDepth', () => {
  it('counts bracket depth in one pass, skipping strings and escapes, and stops past the limit', () => {
    expect(nestingDepth('{"a":[1,{"b":"[[[[\\"]]"}]}', 64)).toBe(3);
    expect(nestingDepth('[]', 64)).toBe(1);
    expect(nestingDepth('"[[["', 64)).toBe(0);
    expect(nestingDepth('['.repeat(100_000), 64)).toBe(65);
  });
});

describe('Secrets and recorded exchanges', () => {
  const r = new Secrets({ apiKeys: ['sk_live_abcdef123'], userIds: ['user_42x'] });

  it('replaces credentials with placeholders in headers, URLs and bodies', () => {
    const rec = recordRequest(r, {
      method: 'GET',
      url: 'http://h/x?k=sk_live_abcdef123',
      headers: { authorization: 'Bearer sk_live_abcdef123', 'x-user-id': 'user_42x' },
      body: '{"note":"user_42x"}',
    });
    expect(rec).toEqual({
      method: 'GET',
      url: 'http://h/x?k=$VAPC_API_KEY',
      headers: { authorization: 'Bearer $VAPC_API_KEY', 'x-user-id': '$VAPC_USER_ID' },
      body: '{"note":"$VAPC_USER_ID"}',
    });
  });

  it('hides secret-named fields where they stand and remembers only what it is taught', () => {
    const s = new Secrets();
    const body = recordResponse(
      s,
      { status: 201, headers: {}, text: '{"id":"inv_1","token":"tok_SECRET_999"}', truncated: false },
      1,
    ).body!;
    expect(body).toBe('{"id":"inv_1","token":"[redacted]"}');
    // Seeing a secret-named field teaches nothing: only `learn` does (the runner calls it for x-secret fields of its own successful calls).
    expect(s.text('later: tok_SECRET_999')).toBe('later: tok_SECRET_999');
    expect(s.learn('tok_SECRET_999')).toBe(true);
    expect(s.text('later: tok_SECRET_999')).toBe('later: [redacted]');
    expect(JSON.stringify(redactValue(s, { nested: [{ key: 'k_new_12345' }] }))).not.toContain('k_new_12345');
  });

  it('renders a curl line with expandable placeholders', () => {
    const line = toCurl(
      recordRequest(r, {
        method: 'POST',
        url: 'http://h/campaign',
        headers: { authorization: 'Bearer sk_live_abcdef123' },
        body: '{"a":"it\'s"}',
      }),
    );
    expect(line).toBe(
      `curl -sS -i -X POST http://h/campaign -H 'authorization: Bearer '"$VAPC_API_KEY" --data-raw '{"a":"it'\\''s"}'`,
    );
    expect(line).not.toContain('sk_live');
  });

  it('writes a body with control characters in ANSI-C quoting: one line, the same bytes', () => {
    const line = toCurl({ method: 'POST', url: 'http://h/x', headers: {}, body: "a\nb\x1b[2J'c" });
    expect(line).toBe(`curl -sS -i -X POST http://h/x --data-raw $'a\\nb\\x1b[2J\\'c'`);
    expect(line).not.toMatch(/[\n\x1b]/);
  });
});

describe('TLS errors are one readable sentence', () => {
  it('https on a port that speaks plain HTTP names the http:// URL to use, not OpenSSL text', async () => {
    const port = new URL(base).port;
    const transport = createUndiciTransport({ baseUrl: `https://127.0.0.1:${port}/api`, timeoutMs: 5_000 });
    try {
      const exchange = await transport.send({ method: 'GET', path: '/health', headers: {} });
      expect(exchange.response).toBeUndefined();
      expect(exchange.error?.message).toBe(`the server answered plain HTTP, not TLS; use http://127.0.0.1:${port}/api`);
      expect(exchange.error?.message).not.toMatch(/SSL routines|\n|openssl/i);
    } finally {
      await transport.close();
    }
  });
});
