/**
 * The reference server's edges (issue 11): a deep body is refused before it is parsed, Node's own
 * 400/431 answers are `{detail}` bodies, no error quotes kilobytes of the request back, malformed
 * UTF-8 is refused rather than stored as U+FFFD, and TRACE (as every undocumented method) gets 405.
 * Each edge is asserted on status and body shape, next to a normal request that still works.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceSpec, startReferenceServer, type ReferenceServer } from '../../../src/server/index.js';
import { MAX_JSON_DEPTH, depthOverflow, firstInvalidUtf8 } from '../../../src/http/json-body.js';
import { authed, send } from '../../helpers/client.js';

let server: ReferenceServer;

beforeAll(async () => {
  server = await startReferenceServer({
    port: 0,
    spec: await referenceSpec(),
    apiKey: 'edge-key',
    userId: 'edge-user',
    rateLimit: 100_000,
  });
});
afterAll(async () => {
  await server.close();
});

/** Writes raw bytes on a fresh connection and reads until the server closes it (or 3 s pass). */
function raw(text: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (out += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = out.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head.toLowerCase(), body });
    });
    socket.write(text);
    setTimeout(() => socket.end(), 3000).unref();
  });
}

/** POSTs raw bytes as an application/json body. */
async function postBytes(path: string, bytes: Uint8Array): Promise<{ status: number; json: any }> {
  const response = await undiciRequest(`${server.url}${path}`, {
    method: 'POST',
    headers: authed(server.fixtures, { 'content-type': 'application/json' }),
    body: Buffer.from(bytes),
  });
  return { status: response.statusCode, json: await response.body.json() };
}

const recipientsPath = () => `/recipient-lists/${server.fixtures.recipient_list_id}/recipients`;
const jsonInvalid = (position: number, msg: string | RegExp) => ({
  detail: [
    { loc: ['body', position], msg: typeof msg === 'string' ? msg : expect.stringMatching(msg), type: 'json_invalid' },
  ],
});

async function stillServes(): Promise<void> {
  const created = await send(server.url, '/campaign', {
    method: 'POST',
    headers: authed(server.fixtures),
    json: { name: 'still here' },
  });
  expect(created.status).toBe(201);
  expect(created.json.name).toBe('still here');
  expect((await send(server.url, '/calls?limit=1', { headers: authed(server.fixtures) })).status).toBe(200);
}

describe('deep JSON bodies are refused before they are parsed', () => {
  it('a 1 MiB run of "[" → 422 json_invalid at the first bracket past the depth limit, not at the end', async () => {
    const r = await postBytes('/campaign', Buffer.from('['.repeat(1024 * 1024 - 16)));
    expect(r.status).toBe(422);
    // Without the pre-scan the position would be the end of the body (where JSON.parse gave up).
    expect(r.json).toEqual(jsonInvalid(MAX_JSON_DEPTH, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`)));
    await stillServes();
  });

  it('a closed deep document, objects or arrays, is refused the same way', async () => {
    const objects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const r = await postBytes('/campaign', Buffer.from(objects));
    expect(r.status).toBe(422);
    expect(r.json).toEqual(jsonInvalid(5 * MAX_JSON_DEPTH, /deeper than/));
  });

  it('a syntax error before the deep part is the one named', async () => {
    const r = await postBytes('/campaign', Buffer.from(`{"a" ${'['.repeat(10_000)}`));
    expect(r).toEqual({ status: 422, json: jsonInvalid(5, 'JSON decode error') });
  });

  it('nesting up to the limit is parsed and validated as before', async () => {
    // The body is level 1; metadata holding `levels` objects ends at level 1 + levels.
    const inner = (levels: number) => `${'{"d":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    const atLimit = `{"phone_number":"+15550123456","metadata":${inner(MAX_JSON_DEPTH - 1)}}`;
    expect(depthOverflow(atLimit)).toBe(-1);
    const ok = await postBytes(recipientsPath(), Buffer.from(atLimit));
    expect(ok.status).not.toBe(422);
    expect(ok.status).toBeLessThan(300);
    const over = `{"phone_number":"+15550123456","metadata":${inner(MAX_JSON_DEPTH)}}`;
    const refused = await postBytes(recipientsPath(), Buffer.from(over));
    expect(refused).toEqual({ status: 422, json: jsonInvalid(depthOverflow(over), /deeper than/) });
  });

  it('brackets inside strings do not count', () => {
    expect(depthOverflow(JSON.stringify({ name: '['.repeat(5000), q: '\\"[[[' }))).toBe(-1);
    expect(depthOverflow('['.repeat(MAX_JSON_DEPTH))).toBe(-1);
    expect(depthOverflow('['.repeat(MAX_JSON_DEPTH + 1))).toBe(MAX_JSON_DEPTH);
  });
});

describe("Node's own refusals are {detail} bodies", () => {
  it('a request line that is not HTTP → 400 {detail: string} as JSON', async () => {
    const r = await raw('NOT AN HTTP REQUEST\r\n\r\n');
    expect(r.status).toBe(400);
    expect(r.headers).toContain('content-type: application/json');
    expect(JSON.parse(r.body)).toEqual({ detail: expect.any(String) });
  });

  it('headers over the limit → 431 {detail: string} as JSON, without echoing them', async () => {
    const r = await raw(`GET /calls HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.headers).toContain('content-type: application/json');
    expect(JSON.parse(r.body)).toEqual({ detail: expect.stringMatching(/too large/i) });
    expect(r.body).not.toContain('hhhh');
    await stillServes();
  });
});

describe('no error quotes kilobytes of the request back', () => {
  const ten = 10 * 1024;
  it('a 10 KB path parameter → 400 {detail} that does not quote the URL', async () => {
    const r = await send(server.url, `/campaign/${'a'.repeat(ten)}`, { headers: authed(server.fixtures) });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ detail: expect.any(String) });
    expect(r.json.detail).not.toContain('aaaa');
    expect(r.text.length).toBeLessThan(300);
  });

  it('a malformed percent-encoding in a 10 KB URL → 400 {detail} that does not quote the URL', async () => {
    const r = await send(server.url, `/campaign/%ff${'b'.repeat(ten)}`, { headers: authed(server.fixtures) });
    expect(r.status).toBe(400);
    expect(r.json.detail).not.toContain('bbbb');
    expect(r.text.length).toBeLessThan(300);
  });

  it('10 KB query values and content types are quoted at most in part', async () => {
    const query = await send(server.url, `/calls?limit=${'9x'.repeat(ten / 2)}`, { headers: authed(server.fixtures) });
    expect(query.status).toBe(422);
    expect(query.text.length).toBeLessThan(1000);
    const type = await send(server.url, '/campaign', {
      method: 'POST',
      headers: authed(server.fixtures, { 'content-type': `text/${'t'.repeat(ten)}` }),
      body: 'x',
    });
    expect(type.status).toBe(422);
    expect(type.json.detail[0].loc).toEqual(['body']);
    expect(type.text.length).toBeLessThan(1000);
    await stillServes();
  });
});

describe('malformed UTF-8 is refused, never stored as U+FFFD', () => {
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

  it('a stray byte, an overlong form, a surrogate and a cut sequence → 422 json_invalid at the character offset', async () => {
    for (const bad of [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]]) {
      const r = await postBytes('/campaign', bytes('{"name":"café ', bad, ' x"}'));
      expect(r.status, JSON.stringify(bad)).toBe(422);
      expect(r.json).toEqual(jsonInvalid('{"name":"café '.length, /UTF-8/));
    }
  });

  it('well-formed multi-byte text is stored as sent', async () => {
    const name = 'Café ☕ 日本語 🚀 \ufffd';
    const r = await postBytes('/campaign', Buffer.from(JSON.stringify({ name })));
    expect(r.status).toBe(201);
    expect(r.json.name).toBe(name);
  });

  it('firstInvalidUtf8 agrees with a fatal TextDecoder (property, fixed seed)', () => {
    const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xff })), { maxLength: 24 }),
        (list) => {
          const data = Uint8Array.from(list);
          const at = firstInvalidUtf8(data);
          let valid = true;
          try {
            fatal.decode(data);
          } catch {
            valid = false;
          }
          expect(at === -1).toBe(valid);
          if (at >= 0) {
            const prefix = fatal.decode(data.subarray(0, at));
            expect(lenient.decode(data).startsWith(`${prefix}\ufffd`)).toBe(true);
          }
        },
      ),
      { seed: 1111, numRuns: 2000 },
    );
  });
});

describe('every undocumented method on a known path → 405', () => {
  it('TRACE, QUERY, PROPFIND and DELETE on /calls → 405 {detail} with Allow: GET', async () => {
    for (const method of ['TRACE', 'QUERY', 'PROPFIND', 'DELETE']) {
      const r = await raw(`${method} /calls HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(r.status, method).toBe(405);
      expect(r.headers, method).toContain('allow: get');
      expect(JSON.parse(r.body), method).toEqual({ detail: 'Method Not Allowed' });
    }
  });

  it('TRACE on an unknown path → 404, as GET there', async () => {
    const r = await raw('TRACE /no/such/route HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toEqual({ detail: 'Not Found' });
  });

  it('CONNECT → 405 {detail} instead of a dropped connection', async () => {
    const r = await raw('CONNECT /calls HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(r.status).toBe(405);
    expect(JSON.parse(r.body)).toEqual({ detail: 'Method Not Allowed' });
  });

  it('documented methods and preflights are unaffected', async () => {
    await stillServes();
    const preflight = await send(server.url, '/calls', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.invalid', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('the 413 of an oversized body drains a bounded amount, then closes (nginx lingering close)', () => {
  it('a client that never stops sending gets the 413, and the connection closes after 64 times the body limit', async () => {
    const small = await startReferenceServer({ port: 0, apiKey: 'k', userId: 'u', bodyLimit: 1024 });
    try {
      const socket = connect(Number(new URL(small.url).port), '127.0.0.1');
      let answer = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (answer += chunk));
      socket.on('error', () => undefined); // the reset past the bound
      const closed = new Promise<void>((done) => socket.on('close', () => done()));
      const declared = 512 * 1024 * 1024;
      socket.write(
        `POST /campaign HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer k\r\nX-User-ID: u\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      // Sends until the server closes: at most the declared length, in 64 KiB writes.
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      let open = true;
      void closed.then(() => (open = false));
      while (open && sent < declared) {
        if (!socket.write(chunk)) await new Promise((done) => socket.once('drain', done).once('close', done));
        sent += chunk.length;
      }
      await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('"detail":"Request body larger than 1024 bytes"');
      // 64 KiB read after the answer; what the kernel's buffers took besides stays far below what was declared.
      expect(sent).toBeLessThan(declared / 8);
    } finally {
      await small.close();
    }
  }, 60_000);
});
