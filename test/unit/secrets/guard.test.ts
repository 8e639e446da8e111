/**
 * The one output guard (src/secrets/guard.ts) and its primitives in src/results/printable.ts
 * (neutralizeCommands, breakAutolinks), clause by clause: what each mode escapes, breaks and
 * redacts, and which values of the environment count as secrets.
 */
import { describe, expect, it } from 'vitest';
import { breakAutolinks, neutralizeCommands } from '../../../src/results/printable.js';
import { Secrets } from '../../../src/secrets/index.js';
import {
  environmentGuard,
  environmentSecrets,
  looksLikeCredential,
  OutputGuard,
  sarifText,
} from '../../../src/secrets/guard.js';

const KEY = 'sk_live_Gu4rd9Q2w8E7r6T5y4U3i2O1';
const guard = new OutputGuard(new Secrets({ apiKeys: [KEY] }));

describe('neutralizeCommands: no line starts a workflow command, whatever comes before the ::', () => {
  it('plain spaces and tabs are kept, the :: marked', () => {
    expect(neutralizeCommands('::error::x')).toBe('[::]error::x');
    expect(neutralizeCommands(' \t::warning::x')).toBe(' \t[::]warning::x');
    expect(neutralizeCommands('a\n::x\n  ::y')).toBe('a\n[::]x\n  [::]y');
  });
  it('Unicode blanks, controls and invisible characters before it are escaped', () => {
    const cases: Array<[string, string]> = [
      ['\u00a0', '\\xa0'],
      ['\u3000', '\\u3000'],
      ['\u2007', '\\u2007'],
      ['\u200b', '\\u200b'],
      ['\u2060', '\\u2060'],
      ['\u180e', '\\u180e'],
      ['\u202f', '\\u202f'],
      ['\u205f', '\\u205f'],
      ['\u1680', '\\u1680'],
      ['\ufeff', '\\ufeff'],
      ['\u001b', '\\x1b'],
      ['\u0085', '\\x85'],
      ['\u000b', '\\x0b'],
      ['\u000c', '\\x0c'],
    ];
    for (const [blank, shown] of cases)
      expect(neutralizeCommands(`${blank}::warning::x`), JSON.stringify(blank)).toBe(`${shown}[::]warning::x`);
    expect(neutralizeCommands(' \u00a0 ::x')).toBe(' \\xa0 [::]x');
  });
  it('a line break is not a blank before the command: each line keeps its own', () => {
    expect(neutralizeCommands('a\n\n::x')).toBe('a\n\n[::]x');
    expect(neutralizeCommands('a\r\n::x')).toBe('a\r\n[::]x');
  });
  it(':: after text, and the legacy ##[ form anywhere', () => {
    expect(neutralizeCommands('a ::x')).toBe('a ::x');
    expect(neutralizeCommands('x ##[group] y')).toBe('x #\\x23[group] y');
  });
});

describe('breakAutolinks: no bare URL GitHub would link', () => {
  it('breaks :// and www.', () => {
    expect(breakAutolinks('see https://e.x/p and http://f and ftp://g')).toBe(
      'see https&#58;//e.x/p and http&#58;//f and ftp&#58;//g',
    );
    expect(breakAutolinks('www.evil.example WWW.x')).toBe('www&#46;evil.example WWW&#46;x');
  });
  it('leaves words that only contain www, and text without URLs', () => {
    expect(breakAutolinks('awww.x')).toBe('awww.x');
    expect(breakAutolinks('a: b / c')).toBe('a: b / c');
  });
});

describe('OutputGuard', () => {
  it('line: one message, one line, ending in one newline', () => {
    expect(guard.line('vapc: a\n\u00a0::warning::b')).toBe('vapc: a\\n\u00a0::warning::b\n');
    expect(guard.line('x\n')).toBe('x\n');
    expect(guard.line('x\r\n')).toBe('x\n');
    expect(guard.line('::error::y')).toBe('[::]error::y\n');
    expect(guard.line(`key ${KEY}`)).toBe('key $VAPC_API_KEY\n');
    expect(guard.line('a\u001b[2Jb')).toBe('a\\x1b[2Jb\n');
  });
  it('block: lines kept, each made printable, no forged command, redacted', () => {
    expect(guard.block('a\n\u00a0::warning::b\r\nc\u001b')).toBe('a\n\\xa0[::]warning::b\\r\nc\\x1b');
    expect(guard.block(`${Buffer.from(KEY).toString('base64')}`)).toBe('$VAPC_API_KEY');
  });
  it('stream: the console keeps its colours; commands and secrets are still guarded', () => {
    expect(guard.stream('\u001b[31mred\u001b[0m\n::x')).toBe('\u001b[31mred\u001b[0m\n[::]x');
    expect(guard.stream(`k=${KEY.slice(2, 14)}`)).toBe('k=$VAPC_API_KEY');
  });
  it('markdown: bare URLs outside code broken, code spans and fences kept', () => {
    const md = [
      'see https://e.x and `https://in.code` and \\`https://escaped\\`',
      '```sh',
      'curl https://in.fence',
      '```',
      '~~~',
      'www.in.tilde.fence',
      '~~~',
      '````',
      '```',
      'https://still.fenced',
      '````',
      'after https://a.x',
      '``a `https://double` b``',
    ].join('\n');
    expect(guard.markdown(md).split('\n')).toEqual([
      'see https&#58;//e.x and `https://in.code` and \\`https&#58;//escaped\\`',
      '```sh',
      'curl https://in.fence',
      '```',
      '~~~',
      'www.in.tilde.fence',
      '~~~',
      '````',
      '```',
      'https://still.fenced',
      '````',
      'after https&#58;//a.x',
      '``a `https://double` b``',
    ]);
  });
  it('markdown: a fence closes only with its own character and at least its length; an opener may be indented three spaces', () => {
    expect(guard.markdown('   ```\nhttps://a\n~~~\nhttps://b\n```\nhttps://c')).toBe(
      '   ```\nhttps://a\n~~~\nhttps://b\n```\nhttps&#58;//c',
    );
    expect(guard.markdown('    ```\nhttps://d')).toBe('    ```\nhttps&#58;//d');
  });
  it('markdown: a single tilde opens no fence; code spans of two backticks and with blanks are code', () => {
    expect(guard.markdown('~ not a fence\nhttps://x')).toBe('~ not a fence\nhttps&#58;//x');
    expect(guard.markdown('``https://x`` and `a https://b` but https://c')).toBe(
      '``https://x`` and `a https://b` but https&#58;//c',
    );
  });
  it('json: redacted only', () => {
    expect(guard.json(`{"a":"${KEY}","b":"::x\\n"}`)).toBe('{"a":"$VAPC_API_KEY","b":"::x\\n"}');
  });
  it('environmentGuard: the environment secrets', () => {
    expect(environmentGuard({ MY_TOKEN: 'tok-12345678' }).line('t tok-12345678')).toBe('t [redacted]\n');
  });
});

describe('sarifText: no embedded link of another making', () => {
  it('escapes square brackets and a backslash before one', () => {
    expect(sarifText('[text](https://x)')).toBe('\\[text\\](https://x)');
    expect(sarifText('a\\[b] c\\d')).toBe('a\\\\\\[b\\] c\\d');
    expect(sarifText('no brackets')).toBe('no brackets');
  });
});

describe('looksLikeCredential: a secret by its value', () => {
  it('known token shapes', () => {
    for (const value of [
      'AKIAQWERTYUIOP123456',
      'ASIAQWERTYUIOP123456',
      `ghp_${'a'.repeat(36)}`,
      `github_pat_${'a1'.repeat(20)}`,
      `glpat-${'x'.repeat(20)}`,
      'xoxb-1234567890-abc',
      'sk_live_abcdefghij',
      'rk_test_abcdefghij',
      `sk-${'a'.repeat(20)}`,
      `AIza${'b'.repeat(35)}`,
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig',
      `npm_${'c'.repeat(36)}`,
      'postgres://app:pw@db/app',
      '  AKIAQWERTYUIOP123456  ',
    ])
      expect(looksLikeCredential(value), value).toBe(true);
  });
  it('an opaque token: 20 to 512 characters, letters and digits, 80 bits', () => {
    expect(looksLikeCredential('Zx81Lm27Qp93Vb46Nc05')).toBe(true);
    expect(looksLikeCredential('Zx81Lm27Qp93Vb46Nc0')).toBe(false);
    expect(looksLikeCredential(`A1${'x'.repeat(509)}`)).toBe(false);
    expect(looksLikeCredential('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1')).toBe(false);
    expect(looksLikeCredential('Zx81Lm27Qp93Vb46Nc05Rt+/=_-.~')).toBe(true);
  });
  it('the bounds: 512 characters but not 513; a git id only when the whole value is one; exactly 80 bits', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const token = (n: number) => Array.from({ length: n }, (_, i) => alphabet[(i * 7919 + 13) % 62]).join('');
    expect(looksLikeCredential(token(512))).toBe(true);
    expect(looksLikeCredential(token(513))).toBe(false);
    const sha = '3f786850e387550fdab836ed7e6dc881de23001b';
    expect(looksLikeCredential(`z${sha}`)).toBe(true);
    expect(looksLikeCredential(`${sha}z`)).toBe(true);
    // Four symbols, ten times each: 40 characters of exactly 2 bits.
    expect(looksLikeCredential('gh12'.repeat(10))).toBe(true);
    expect(looksLikeCredential('3141592653589793238462643383279')).toBe(false);
  });
  it('not: paths, git object ids, words, values with blanks or other characters, all letters or all digits', () => {
    for (const value of [
      '/tmp/vapc-hostile-AbC123xyz987',
      './rel/AbC123xyz987Qw45Er',
      '~/AbC123xyz987Qw45Er678',
      '3f786850e387550fdab836ed7e6dc881de23001b',
      '3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed',
      'hello world 12345678901234',
      'abc!def#1234567890xyz$',
      'abcdefghijklmnopqrstuvwxyz',
      '12345678901234567890123',
      '',
    ])
      expect(looksLikeCredential(value), value).toBe(false);
    expect(looksLikeCredential('3F786850E387550FDAB836ED7E6DC881DE23001B')).toBe(false);
  });
});

describe('environmentSecrets', () => {
  it("vapc's credentials keep their placeholders; secret names and credential-shaped values are redacted", () => {
    const s = environmentSecrets({
      VAPC_API_KEY: KEY,
      VAPC_USER_ID: 'user_1234',
      DEPLOY_TOKEN: 'short-tok1',
      SOME_ID: 'AKIAQWERTYUIOP123456',
      DATABASE_URL: 'postgres://app:p%40ss-w0rd!@db/app',
      HOME: '/root',
      EMPTY: '',
    });
    expect(s.text(`${KEY} user_1234 short-tok1 AKIAQWERTYUIOP123456`)).toBe(
      '$VAPC_API_KEY $VAPC_USER_ID [redacted] [redacted]',
    );
    // The password of a URL, decoded, and the whole URL.
    expect(s.text('pw p@ss-w0rd! url postgres://app:p%40ss-w0rd!@db/app')).toBe('pw [redacted] url [redacted]');
    expect(s.text('/root')).toBe('/root');
  });
  it('only what is secret: a path, a plain value and the word "undefined" stay; a URL behind blanks still gives its password', () => {
    const s = environmentSecrets({ HOME: '/home/runner', LANG: 'en_US.UTF-8', DB: '  postgres://u:pw-secret9@h/db' });
    expect(s.text('/home/runner en_US.UTF-8 undefined')).toBe('/home/runner en_US.UTF-8 undefined');
    expect(s.text('the pw-secret9')).toBe('the [redacted]');
  });
  it('a password that is not valid percent-encoding is kept as written', () => {
    const s = environmentSecrets({ X: 'https://u:bad%zz-secret@h/' });
    expect(s.text('bad%zz-secret')).toBe('[redacted]');
  });
  it('nothing without a value', () => {
    expect(environmentSecrets({ A_TOKEN: undefined, B_KEY: '' }).known()).toEqual([]);
  });
});
