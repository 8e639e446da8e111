// Bodies in a content coding: a request without Accept-Encoding (the runner sends none) allows any
// coding (RFC 9110 12.5.3), so a correct server may answer gzip, deflate or br; the transport decodes
// them before judging, never past the body cap. Before this, every compressed answer of the "wire"
// implementation (test/catalog/independent/wire/) was "a body that is not JSON".
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codingsOf, decodeBody } from '../../../src/transport/content-coding.js';
import { createUndiciTransport } from '../../../src/transport/undici.js';

const JSON_BODY = { name: 'Amélie', items: Array.from({ length: 50 }, (_, i) => i) };
const TEXT = JSON.stringify(JSON_BODY);
const ENCODED: Record<string, Buffer> = {
  gzip: gzipSync(TEXT),
  deflate: deflateSync(TEXT),
  'raw-deflate': deflateRawSync(TEXT),
  br: brotliCompressSync(TEXT),
  'gzip-then-br': brotliCompressSync(gzipSync(TEXT)),
  bomb: gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)),
  corrupt: Buffer.from('not gzip at all'),
};
const CODING: Record<string, string> = {
  gzip: 'gzip',
  deflate: 'deflate',
  'raw-deflate': 'deflate',
  br: 'br',
  'gzip-then-br': 'gzip, br',
  bomb: 'gzip',
  corrupt: 'gzip',
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1);
    const chunked = name.startsWith('chunked-');
    const key = chunked ? name.slice('chunked-'.length) : name;
    const body = ENCODED[key]!;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-encoding': CODING[key]! };
    if (!chunked) headers['content-length'] = String(body.length);
    res.writeHead(200, headers);
    if (chunked) res.write(body.subarray(0, 5));
    res.end(chunked ? body.subarray(5) : body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('the transport decodes content codings', () => {
  it('gzip, deflate (zlib or raw), br and stacked codings, with or without Content-Length', async () => {
    const t = createUndiciTransport({ baseUrl: base });
    try {
      for (const name of ['gzip', 'deflate', 'raw-deflate', 'br', 'gzip-then-br']) {
        for (const path of [`/${name}`, `/chunked-${name}`]) {
          const ex = await t.send({ method: 'GET', path });
          expect([path, ex.error, ex.response?.json]).toEqual([path, undefined, JSON_BODY]);
          expect(ex.response?.text).toBe(TEXT);
        }
      }
    } finally {
      await t.close();
    }
  });

  it('cuts a body that inflates past the cap, and names a corrupt one', async () => {
    const t = createUndiciTransport({ baseUrl: base, maxBodyBytes: 1024 * 1024 });
    try {
      const bomb = await t.send({ method: 'GET', path: '/bomb' });
      expect(bomb.error?.code).toBe('body_too_large');
      expect(bomb.response?.truncated).toBe(true);
      expect(bomb.response?.text.length).toBeLessThanOrEqual(1024 * 1024);
      const corrupt = await t.send({ method: 'GET', path: '/corrupt' });
      expect(corrupt.error).toBeUndefined();
      expect(corrupt.response?.json).toBeUndefined();
      expect(corrupt.response?.jsonError).toBe('the gzip body could not be decoded');
    } finally {
      await t.close();
    }
  });

  it('keeps what decodes of a compressed body cut at the cap; leaves identity and unknown codings as they are', () => {
    const cut = ENCODED['gzip']!.subarray(0, ENCODED['gzip']!.length - 12);
    const partial = decodeBody(cut, 'gzip', 1024, true);
    expect(partial.truncated).toBe(true);
    expect(TEXT.startsWith(partial.text)).toBe(true);
    expect(decodeBody(Buffer.from(TEXT), 'identity', 1024, false)).toEqual({ text: TEXT, truncated: false });
    expect(decodeBody(Buffer.from('x'), 'compress', 1024, false).error).toBe('unknown content coding "compress"');
    expect(codingsOf(' GZIP , identity, br')).toEqual(['gzip', 'br']);
  });
});
