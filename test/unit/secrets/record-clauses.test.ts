/**
 * src/secrets/record.ts clause by clause: what a recorded request and response keep (cookies a
 * server sets hidden, header values and bodies cut after redaction), the bounds of the walk over a
 * generated input, and the curl line: which values it leaves bare, how it quotes the rest, and
 * that a value with control characters stays on one line and means the same bytes.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, Secrets } from '../../../src/secrets/index.js';
import {
  curlOf,
  MAX_RECORDED_BODY,
  recordRequest,
  recordResponse,
  redactValue,
  toCurl,
} from '../../../src/secrets/record.js';
import type { HttpResponse } from '../../../src/transport/types.js';

const KEY = 'sk_live_Q9x7Zr2Lm4Np8Vt';
const fresh = () => new Secrets({ apiKeys: [KEY], learned: ['inv+Tok/9=zz'] });
const response = (over: Partial<HttpResponse>): HttpResponse => ({
  status: 200,
  headers: {},
  text: '',
  truncated: false,
  ...over,
});

describe('recordRequest and recordResponse', () => {
  it('a request keeps its method, redacts URL, headers and body, and has no body key when none was sent', () => {
    const s = fresh();
    expect(
      recordRequest(s, { method: 'DELETE', url: `http://h/x?k=${KEY}`, headers: { 'x-note': `a ${KEY} b` } }),
    ).toEqual({
      method: 'DELETE',
      url: 'http://h/x?k=$VAPC_API_KEY',
      headers: { 'x-note': 'a $VAPC_API_KEY b' },
    });
    expect(recordRequest(s, { method: 'POST', url: 'http://h/x', headers: {}, body: '' })).toEqual({
      method: 'POST',
      url: 'http://h/x',
      headers: {},
      body: '',
    });
    expect(
      recordRequest(s, { method: 'POST', url: 'http://h/x', headers: {}, body: '{"t":"inv+Tok/9=zz"}' }).body,
    ).toBe(`{"t":"${REDACTED}"}`);
  });

  it('a cookie the server sets is hidden whatever its case and value; other headers are redacted and cut at 1024', () => {
    const rec = recordResponse(
      fresh(),
      response({
        headers: {
          'Set-Cookie': 'session=plain',
          'set-cookie-note': 'kept',
          'x-long': 'y'.repeat(2000),
          'x-echo': KEY,
        },
      }),
      1,
    );
    expect(rec.headers['Set-Cookie']).toBe(REDACTED);
    expect(rec.headers['set-cookie-note']).toBe('kept');
    expect(recordResponse(fresh(), response({ headers: { 'x-set-cookie': 'kept' } }), 1).headers['x-set-cookie']).toBe(
      'kept',
    );
    expect(rec.headers['x-long']).toBe('y'.repeat(1024));
    expect(rec.headers['x-echo']).toBe('$VAPC_API_KEY');
  });

  it('the status, the duration rounded, and the body redacted then cut', () => {
    const s = fresh();
    expect(recordResponse(s, response({ status: 204 }), 12.6)).toEqual({ status: 204, headers: {}, duration_ms: 13 });
    expect(recordResponse(s, response({ text: 'inv+Tok/9=zz' }), 1)).toEqual({
      status: 200,
      headers: {},
      duration_ms: 1,
      body: REDACTED,
    });
    const full = recordResponse(s, response({ text: 'z'.repeat(MAX_RECORDED_BODY) }), 1);
    expect(full.body).toHaveLength(MAX_RECORDED_BODY);
    expect(full.truncated).toBeUndefined();
    const long = recordResponse(s, response({ text: 'z'.repeat(MAX_RECORDED_BODY + 1) }), 1);
    expect(long.body).toHaveLength(MAX_RECORDED_BODY);
    expect(long.truncated).toBe(true);
    expect(recordResponse(s, response({ text: 'abcdef' }), 1, 4)).toMatchObject({ body: 'abcd', truncated: true });
  });

  it('a body the transport already cut is marked truncated, even when short or empty', () => {
    expect(recordResponse(fresh(), response({ text: 'ab', truncated: true }), 1)).toMatchObject({
      body: 'ab',
      truncated: true,
    });
    expect(recordResponse(fresh(), response({ text: '', truncated: true }), 1)).toEqual({
      status: 200,
      headers: {},
      duration_ms: 1,
      truncated: true,
    });
  });
});

describe('redactValue', () => {
  it('redacts strings, hides secret-named string fields unless a placeholder, keeps the rest as it is', () => {
    const s = fresh();
    const input = {
      api_key: 'plain',
      password: '$VAPC_API_KEY',
      token: 5,
      note: `x ${KEY}`,
      list: ['inv+Tok/9=zz', null, true, 3],
      nested: { secret: 'abc' },
      empty: null,
    };
    expect(redactValue(s, input)).toEqual({
      api_key: REDACTED,
      password: '$VAPC_API_KEY',
      token: 5,
      note: 'x $VAPC_API_KEY',
      list: [REDACTED, null, true, 3],
      nested: { secret: REDACTED },
      empty: null,
    });
    // An array item is not named by the field holding the array.
    expect(redactValue(s, { token: ['abc'] })).toEqual({ token: ['abc'] });
    expect(redactValue(s, 'a string')).toBe('a string');
  });

  it('walks at most 32 levels deep', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 32; i++) deep = [deep];
    expect(JSON.stringify(redactValue(fresh(), deep))).toContain('"leaf"');
    let deeper: unknown = 'leaf';
    for (let i = 0; i < 33; i++) deeper = [deeper];
    expect(JSON.stringify(redactValue(fresh(), deeper))).toBe(`${'['.repeat(33)}"[cut]"${']'.repeat(33)}`);
  });

  it('objects count as levels too', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 33; i++) deep = { a: deep };
    expect(JSON.stringify(redactValue(fresh(), deep))).toBe(`${'{"a":'.repeat(33)}"[cut]"${'}'.repeat(33)}`);
  });

  it('walks at most 5000 values, then cuts', () => {
    const out = redactValue(
      fresh(),
      Array.from({ length: 5000 }, (_, i) => i),
    ) as unknown[];
    expect(out.slice(0, 2)).toEqual([0, 1]);
    expect(out[4998]).toBe(4998);
    expect(out[4999]).toBe('[cut]');
  });
});

describe('the curl line', () => {
  const line = (url: string, headers: Record<string, string> = {}, body?: string) =>
    toCurl({ method: 'POST', url, headers, ...(body !== undefined ? { body } : {}) });

  it('leaves a value of safe characters bare and single-quotes anything else', () => {
    expect(line('https://h:8443/a_b-c.d/e=f@g%20+,h')).toBe('curl -sS -i -X POST https://h:8443/a_b-c.d/e=f@g%20+,h');
    expect(line('http://h/x?a=1&b=2')).toBe(`curl -sS -i -X POST 'http://h/x?a=1&b=2'`);
    expect(line('http://h/x', { accept: 'application/json' })).toBe(
      `curl -sS -i -X POST http://h/x -H 'accept: application/json'`,
    );
    expect(line('http://h/x', {}, 'plain')).toBe('curl -sS -i -X POST http://h/x --data-raw plain');
    expect(line('http://h/x', {}, '')).toBe(`curl -sS -i -X POST http://h/x --data-raw ''`);
    expect(line('http://h/x', {}, 'a$b`c"d')).toBe(`curl -sS -i -X POST http://h/x --data-raw 'a$b\`c"d'`);
  });

  it('a placeholder stays expandable in double quotes, alone or inside a value, each one', () => {
    expect(line('http://h/x', { 'x-user-id': '$VAPC_USER_ID' })).toBe(
      `curl -sS -i -X POST http://h/x -H 'x-user-id: '"$VAPC_USER_ID"`,
    );
    expect(line('http://h/x', {}, '$VAPC_API_KEY')).toBe(`curl -sS -i -X POST http://h/x --data-raw "$VAPC_API_KEY"`);
    expect(line('http://h/x', {}, 'k=$VAPC_API_KEY;u=$VAPC_USER_ID')).toBe(
      `curl -sS -i -X POST http://h/x --data-raw 'k='"$VAPC_API_KEY"';u='"$VAPC_USER_ID"`,
    );
    // Only vapc's own placeholders: another variable is sent as the literal text.
    expect(line('http://h/x', {}, 'a $HOME')).toBe(`curl -sS -i -X POST http://h/x --data-raw 'a $HOME'`);
  });

  it('control characters: ANSI-C quoting with named, \\x and \\u escapes, quotes and backslashes escaped', () => {
    expect(line('http://h/x', {}, 'a\tb\rc\nd')).toBe(`curl -sS -i -X POST http://h/x --data-raw $'a\\tb\\rc\\nd'`);
    expect(line('http://h/x', {}, '\u0000\u001f\u007f\u0085\u009f')).toBe(
      `curl -sS -i -X POST http://h/x --data-raw $'\\x00\\x1f\\x7f\\x85\\x9f'`,
    );
    expect(line('http://h/x', {}, 'x\u2028\u2029\u202a\u202e\u2066\u2069')).toBe(
      `curl -sS -i -X POST http://h/x --data-raw $'x\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069'`,
    );
    expect(line('http://h/x', {}, "back\\slash'\x01")).toBe(
      `curl -sS -i -X POST http://h/x --data-raw $'back\\\\slash\\'\\x01'`,
    );
    // Characters next to the control ranges are not escaped.
    expect(line('http://h/x', {}, ' ~\u00a0\u2027\u202f\u2065\u206a\x01')).toBe(
      `curl -sS -i -X POST http://h/x --data-raw $' ~\u00a0\u2027\u202f\u2065\u206a\\x01'`,
    );
    // A placeholder next to a control character stays expandable; the rest of each part is quoted on its own.
    expect(line('http://h/x', {}, '$VAPC_API_KEY\n')).toBe(
      `curl -sS -i -X POST http://h/x --data-raw "$VAPC_API_KEY"$'\\n'`,
    );
  });

  it('curlOf records (so redacts) before rendering', () => {
    const curl = curlOf(fresh(), {
      request: { method: 'GET', url: 'http://h/x', headers: { authorization: `Bearer ${KEY}` } },
    });
    expect(curl).toBe(`curl -sS -i -X GET http://h/x -H 'authorization: Bearer '"$VAPC_API_KEY"`);
  });

  it('curlOf adds --compressed when the answer came in a content coding, so curl prints it decoded', () => {
    const request = { method: 'GET', url: 'http://h/x', headers: {} };
    const answered = (headers: Record<string, string>) =>
      curlOf(fresh(), { request, response: { status: 200, headers, text: '', truncated: false } });
    expect(answered({ 'content-encoding': 'gzip' })).toBe('curl -sS -i --compressed -X GET http://h/x');
    expect(answered({ 'content-encoding': ' BR ' })).toBe('curl -sS -i --compressed -X GET http://h/x');
    for (const plain of [{}, { 'content-encoding': 'identity' }, { 'content-encoding': '' }] as Record<
      string,
      string
    >[])
      expect(answered(plain)).toBe('curl -sS -i -X GET http://h/x');
  });
});
