/**
 * The rules of src/secrets/index.ts that learn nothing (each hides a value where it stands: a
 * secret-named JSON field in its four quotings, a header line, a cookie, a query parameter, a bare
 * bearer token), the names and placeholders they go by, the entropy that decides whether a
 * credential is hunted piece by piece, and the bookkeeping of `Secrets` (what it knows, which
 * credentials view it hands out, the clip window).
 */
import { describe, expect, it } from 'vitest';
import {
  entropyBits,
  hideLocalSecrets,
  isPlaceholder,
  isSecretName,
  MAX_LEARNED,
  PIECE_ENTROPY_BITS,
  REDACTED,
  Secrets,
  valuesAt,
} from '../../../src/secrets/index.js';

describe('names, placeholders and entropy', () => {
  it('secret names: whole names in any case, with a prefix joined by _ or -', () => {
    for (const n of [
      'token',
      'KEY',
      'secret',
      'Password',
      'apikey',
      'api_key',
      'x-api-key',
      'access-token',
      'my_client_secret',
      'Authorization',
      'proxy-authorization',
      'cookie',
      'Set-Cookie',
      'X-User-ID',
    ]) {
      expect(isSecretName(n), n).toBe(true);
    }
    for (const n of [
      'monkey',
      'key_id',
      'tokens',
      'passwords',
      'xcookie',
      'authorization2',
      'user_id',
      'x-user',
      'keyboard',
      '',
    ])
      expect(isSecretName(n), n).toBe(false);
  });

  it('placeholders: env variables in their spellings, after a scheme word, [redacted] and three stars or more', () => {
    for (const v of [
      '$VAPC_API_KEY',
      '${VAPC_API_KEY}',
      '$A',
      '"$VAPC_USER_ID"',
      'Basic $X1',
      'bearer\t${T}',
      '****',
      ' [redacted] ',
      '[redacted]...',
      'TOKEN',
    ]) {
      expect(isPlaceholder(v), JSON.stringify(v)).toBe(true);
    }
    for (const v of ['$1A', 'x$A', '$A b', 'Bearer x', '*', '**', 'basically', 'redacted', '"$A', 'x[redacted]']) {
      expect(isPlaceholder(v), JSON.stringify(v)).toBe(false);
    }
  });

  it('entropy: length times the Shannon entropy of the characters', () => {
    expect(entropyBits('aaaa')).toBe(0);
    expect(entropyBits('ab')).toBe(2);
    expect(entropyBits('abcd')).toBe(8);
    expect(entropyBits('aabb')).toBe(4);
    expect(entropyBits('abcdefgh')).toBe(24);
  });

  it(`a credential just under ${PIECE_ENTROPY_BITS} bits is redacted whole only; at ${PIECE_ENTROPY_BITS} bits, piece by piece`, () => {
    // 16 distinct characters: 16 × 4 = 64 bits; two characters eight times each: 16 bits.
    const rich = 'abcdefghijklmnop';
    expect(entropyBits(rich)).toBeGreaterThanOrEqual(PIECE_ENTROPY_BITS);
    expect(new Secrets({ userIds: [rich] }).evidence(`id ${rich.slice(0, 8)}`)).toBe('id $VAPC_USER_ID');
    const poor = 'aaaaaaaabbbbbbbb';
    expect(entropyBits(poor)).toBeLessThan(PIECE_ENTROPY_BITS);
    expect(new Secrets({ apiKeys: [poor] }).evidence(`id ${poor.slice(0, 8)}`)).toBe(`id ${poor.slice(0, 8)}`);
    // Exactly 48 bits: 16 characters, 8 symbols twice each (16 × 3).
    const edge = 'abcdefghabcdefgh';
    expect(entropyBits(edge)).toBe(48);
    expect(new Secrets({ apiKeys: [edge] }).evidence('x abcdefgh y')).toBe('x $VAPC_API_KEY y');
  });
});

describe('hideLocalSecrets, rule by rule', () => {
  it('a secret-named JSON field in each quoting: plain, JSON in a string, and both HTML spellings', () => {
    expect(hideLocalSecrets('{"token": "abc+/="}')).toBe(`{"token": "${REDACTED}"}`);
    expect(hideLocalSecrets('{\\"Api_Key\\":\\"abc\\"}')).toBe(`{\\"Api_Key\\":\\"${REDACTED}\\"}`);
    expect(hideLocalSecrets('&quot;password&quot; : &quot;abc&quot;')).toBe(
      `&quot;password&quot; : &quot;${REDACTED}&quot;`,
    );
    expect(hideLocalSecrets('&#34;secret&#34;:&#34;abc&#34;')).toBe(`&#34;secret&#34;:&#34;${REDACTED}&#34;`);
    expect(hideLocalSecrets('{"token":"a","x-api-key":"b","name":"c"}')).toBe(
      `{"token":"${REDACTED}","x-api-key":"${REDACTED}","name":"c"}`,
    );
  });

  it('a scheme word is kept only at the start of a value, with the blanks after it', () => {
    expect(hideLocalSecrets('{"token":"abc bearer xyz"}')).toBe(`{"token":"${REDACTED}"}`);
    expect(hideLocalSecrets('{"token":"xbearer abc"}')).toBe(`{"token":"${REDACTED}"}`);
    expect(hideLocalSecrets('{"authorization":"Bearer  abc1"}')).toBe(`{"authorization":"Bearer  ${REDACTED}"}`);
    expect(isPlaceholder('mytoken')).toBe(false);
    expect(isPlaceholder('basic')).toBe(true);
  });

  it('a field keeps a placeholder, an empty value and a scheme word; a value never spans lines', () => {
    expect(hideLocalSecrets('{"token":"$VAPC_API_KEY","key":""}')).toBe('{"token":"$VAPC_API_KEY","key":""}');
    expect(hideLocalSecrets('{"authorization":"Bearer abc123"}')).toBe(`{"authorization":"Bearer ${REDACTED}"}`);
    expect(hideLocalSecrets('{"authorization":"token abc123"}')).toBe(`{"authorization":"token ${REDACTED}"}`);
    expect(hideLocalSecrets('{"token":"a\nb"}')).toBe('{"token":"a\nb"}');
    expect(hideLocalSecrets('{"monkey":"banana"}')).toBe('{"monkey":"banana"}');
  });

  it('header lines: the credential after an optional scheme, up to a blank, a quote, an escape or a separator', () => {
    expect(hideLocalSecrets('Authorization: Bearer abc.def')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(hideLocalSecrets('x-api-key:abc123 next')).toBe(`x-api-key:${REDACTED} next`);
    expect(hideLocalSecrets('Proxy-Authorization:\tBasic dXNlcjpw')).toBe(`Proxy-Authorization:\tBasic ${REDACTED}`);
    expect(hideLocalSecrets("-H 'X-User-ID: u-998877'")).toBe(`-H 'X-User-ID: ${REDACTED}'`);
    expect(hideLocalSecrets('x-user-id: u-1,x')).toBe(`x-user-id: ${REDACTED},x`);
    expect(hideLocalSecrets('x-user-id: u-1;x')).toBe(`x-user-id: ${REDACTED};x`);
    expect(hideLocalSecrets('x-user-id: u-1&quot;')).toBe(`x-user-id: ${REDACTED}&quot;`);
    expect(hideLocalSecrets('x-user-id: u-1<b>')).toBe(`x-user-id: ${REDACTED}<b>`);
    expect(hideLocalSecrets('authorization: $VAPC_API_KEY')).toBe('authorization: $VAPC_API_KEY');
    expect(hideLocalSecrets('authorization: Bearer $VAPC_API_KEY')).toBe('authorization: Bearer $VAPC_API_KEY');
    // A word that merely ends in a header name is not a header.
    expect(hideLocalSecrets('preauthorization: abc')).toBe('preauthorization: abc');
  });

  it('cookies: the whole value up to the end of the line or a quote, trailing blanks kept', () => {
    expect(hideLocalSecrets('Cookie: sid=abc; theme=dark  \nnext')).toBe(`Cookie: ${REDACTED}  \nnext`);
    expect(hideLocalSecrets("set-cookie: a=b; Path=/'")).toBe(`set-cookie: ${REDACTED}'`);
    expect(hideLocalSecrets('cookie: [redacted]')).toBe('cookie: [redacted]');
  });

  it('query parameters with a secret name, after ? or & (also &amp;), up to the next separator', () => {
    expect(hideLocalSecrets('/x?token=abc&limit=5')).toBe(`/x?token=${REDACTED}&limit=5`);
    expect(hideLocalSecrets('/x?a=1&amp;api_key=abc#f')).toBe(`/x?a=1&amp;api_key=${REDACTED}#f`);
    expect(hideLocalSecrets('/x?Access-Token=abc def')).toBe(`/x?Access-Token=${REDACTED} def`);
    expect(hideLocalSecrets('/x?key=$VAPC_API_KEY')).toBe('/x?key=$VAPC_API_KEY');
    expect(hideLocalSecrets('/x?monkey=abc&keys=abc')).toBe('/x?monkey=abc&keys=abc');
  });

  it('a bare bearer token: hidden when it looks like a credential (a digit or symbol, or 16+ letters)', () => {
    for (const token of ['abc1', 'a-b', 'a.b', 'a_b', 'a~b', 'a+b', 'a/b', 'abc==', 'abcdefghijklmnop']) {
      expect(hideLocalSecrets(`sent bearer ${token} ok`), token).toBe(`sent bearer ${REDACTED} ok`);
    }
    for (const prose of ['Bearer tokens are fine', 'a bearer abcdefghijklmno', 'Bearer redacted'])
      expect(hideLocalSecrets(prose), prose).toBe(prose);
  });
});

describe('Secrets bookkeeping', () => {
  it('known(): learned values, then API keys, then user ids', () => {
    const s = new Secrets({ userIds: ['usr_0001'], apiKeys: ['key_0001'], learned: ['tok+0001'] });
    expect(s.known()).toEqual(['tok+0001', 'key_0001', 'usr_0001']);
  });

  it('credentials(): the given ones without the learned, the same view until a credential is added', () => {
    const s = new Secrets({ apiKeys: ['key_0001'], learned: ['tok+0001'] });
    const view = s.credentials();
    expect(view.known()).toEqual(['key_0001']);
    expect(s.credentials()).toBe(view);
    s.learn('tok+0002');
    expect(s.credentials()).toBe(view);
    s.addApiKey('key_0002');
    expect(s.credentials().known().sort()).toEqual(['key_0001', 'key_0002']);
    const afterKey = s.credentials();
    s.addUserId('usr_0002');
    expect(s.credentials()).not.toBe(afterKey);
    expect(s.credentials().known()).toContain('usr_0002');
    expect(s.credentials().text('tok+0001')).toBe('tok+0001');
  });

  it('learns no plain word or placeholder, from the constructor either; a credential of 512 characters is kept, 513 not', () => {
    const s = new Secrets({ learned: ['password', 'Passwords', '$VAPC_API_KEY', '[redacted]abc'] });
    expect(s.known()).toEqual([]);
    expect(s.learn('PASSWORDS')).toBe(false);
    const k = new Secrets({ apiKeys: [`k${'x'.repeat(511)}`, `k${'y'.repeat(512)}`] });
    expect(k.known()).toEqual([`k${'x'.repeat(511)}`]);
  });

  it(`learns at most ${MAX_LEARNED} values; undefined and short credentials are not added`, () => {
    const s = new Secrets();
    s.addApiKey(undefined);
    s.addUserId('abc');
    expect(s.known()).toEqual([]);
    s.addUserId('abcd');
    expect(s.text('id abcd')).toBe('id $VAPC_USER_ID');
  });

  it('clip: text just over the window is cut even when redaction shrinks it under the cap', () => {
    const tok = 'tok+Zz99/Yy88=Xx77';
    const s = new Secrets({ learned: [tok] });
    // The window is 1000 + 512 characters: 84 copies, which redact to 840 characters, under the cap;
    // the input went on past the window, so the text is still cut.
    expect(s.clip(tok.repeat(100), 1000)).toEqual({ text: REDACTED.repeat(84), cut: true });
    expect(s.clip(tok.repeat(84), 1000)).toEqual({ text: REDACTED.repeat(84), cut: false });
    const within = `${tok}${'a'.repeat(20)}`;
    expect(s.clip(within, within.length)).toEqual({ text: `${REDACTED}${'a'.repeat(20)}`, cut: false });
  });

  it('trimPartial: a start of a secret at the very end, at least 4 characters, the longest one', () => {
    const s = new Secrets({ apiKeys: ['KEYabcdefgh'], learned: ['tok+Zz99/Yy88'] });
    expect(s.trimPartial('x KEYa')).toBe(`x ${REDACTED}`);
    expect(s.trimPartial('x KEY')).toBe('x KEY');
    expect(s.trimPartial('x tok+Zz99/Yy8')).toBe(`x ${REDACTED}`);
    expect(s.trimPartial('tok+')).toBe(REDACTED);
    expect(s.trimPartial('x KEYabcdefgh')).toBe('x KEYabcdefgh');
    expect(s.trimPartial('x KEYa y')).toBe('x KEYa y');
  });

  it('pieces of a user id are replaced by its placeholder, and pieces are searched from every position', () => {
    const id = 'usr9F3kQ7zLm2Xp';
    const s = new Secrets({ userIds: [id] });
    expect(s.evidence(`a ${id.slice(7)} b ${id.slice(2, 10)}`)).toBe('a $VAPC_USER_ID b $VAPC_USER_ID');
    // Pieces that touch or overlap are one placeholder; apart, one each.
    expect(s.evidence(`${id.slice(0, 8)}${id.slice(0, 8)}`)).toBe('$VAPC_USER_ID');
    expect(s.evidence(`${id.slice(0, 8)}-${id.slice(0, 8)}`)).toBe('$VAPC_USER_ID-$VAPC_USER_ID');
    expect(s.evidence('short')).toBe('short');
  });
});

describe('valuesAt', () => {
  it('reads array items only through *, and at most 100 values at each step across all nodes', () => {
    expect(valuesAt({ a: ['x'] }, '/a/0')).toEqual([]);
    const twoLists = {
      a: [{ l: Array.from({ length: 100 }, (_, i) => i) }, { l: Array.from({ length: 100 }, (_, i) => 100 + i) }],
    };
    const read = valuesAt(twoLists, '/a/*/l/*');
    expect(read).toHaveLength(100);
    expect(read[99]).toBe(99);
  });
});
