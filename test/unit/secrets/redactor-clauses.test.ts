/**
 * The redactor of src/secrets clause by clause, with values whose every escaped form differs from
 * the raw one (the mutation run of src/secrets showed which clauses no test asserted): each form of
 * a learned value, the bounds of what is learned and kept, pieces of credentials that overlap,
 * cuts, and the values at a pointer.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { CheckResult, Failure, RunReport } from '../../../src/results/model.js';
import {
  FRAGMENT,
  isDistinctive,
  isPlaceholder,
  MAX_LEARNED,
  MIN_LEARNED,
  REDACTED,
  Secrets,
  valuesAt,
} from '../../../src/secrets/index.js';
import { learnFromReport, sanitizeResult } from '../../../src/secrets/report.js';

const TOKEN = 'tk+A/b=c&d"e<f\'g>h-é中';
const html = (s: string, quot: string, apos: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, quot).replace(/'/g, apos);

describe('every form of a learned value is replaced, and only it', () => {
  // A fresh Secrets in each test: its compiled pattern is cached, and a mutation run must see each change.
  const fresh = () => new Secrets({ learned: [TOKEN] });
  const json = JSON.stringify(TOKEN).slice(1, -1);
  const forms: Record<string, string> = {
    raw: TOKEN,
    json,
    'json with \\u escapes': json.replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
    'url-encoded': encodeURIComponent(TOKEN),
  };
  for (const quot of ['&quot;', '&#34;', '&#x22;'])
    for (const apos of ['&#39;', '&#x27;', '&apos;']) forms[`html ${quot} ${apos}`] = html(TOKEN, quot, apos);

  for (const [name, form] of Object.entries(forms)) {
    it(`${name}: ${form}`, () => {
      expect(fresh().text(`before ${form} after`)).toBe(`before ${REDACTED} after`);
    });
  }

  it('the \\u form in either case: the decoded view finds what no fixed form spells', () => {
    const s = fresh();
    expect(s.text('x tk+A/b=c&d\\"e<f\'g>h-\\u00e9\\u4e2d y')).toBe(`x ${REDACTED} y`);
    expect(s.text('x tk+A/b=c&d\\"e<f\'g>h-\\u00E9\\u4E2D y')).toBe(`x ${REDACTED} y`);
  });

  it('the longest form wins where forms overlap (no half-replaced value)', () => {
    const short = new Secrets({ learned: ['abcd1234', 'abcd1234efgh5678'] });
    expect(short.text('abcd1234efgh5678')).toBe(REDACTED);
    expect(short.text('abcd1234 and abcd1234efgh5678')).toBe(`${REDACTED} and ${REDACTED}`);
  });

  it('leaves text without the value alone, and a text shorter than any credential', () => {
    expect(fresh().text('nothing to see')).toBe('nothing to see');
    const k = new Secrets({ apiKeys: ['abcd'] });
    expect(k.text('abc')).toBe('abc');
    expect(k.text('abcd')).toBe('$VAPC_API_KEY');
  });
});

describe('what is learned and kept', () => {
  it('isDistinctive: 8 to 512 characters, one token, not a plain word or a placeholder', () => {
    expect(isDistinctive('a1b2c3d4')).toBe(true);
    expect(isDistinctive('a1b2c3d')).toBe(false);
    expect(isDistinctive(`a${'1'.repeat(511)}`)).toBe(true);
    expect(isDistinctive(`a${'1'.repeat(512)}`)).toBe(false);
    expect(isDistinctive('a1b2 c3d4')).toBe(false);
    for (const word of ['password', 'Password', 'PASSWORD']) expect(isDistinctive(word), word).toBe(false);
    expect(isDistinctive('passWord')).toBe(true);
    expect(isDistinctive('$VAPC_API_KEY')).toBe(false);
    expect(isDistinctive('[redacted]x')).toBe(false);
    expect(MIN_LEARNED).toBe(8);
  });

  it('isPlaceholder: empty, the env placeholders, a bare scheme word, [redacted] and ***', () => {
    for (const v of [
      '',
      '  ',
      '$VAPC_API_KEY',
      '${TOKEN}',
      '"$X"',
      'Bearer $VAPC_API_KEY',
      'bearer',
      'Token',
      '[redacted]',
      '[redacted] more',
      '***',
    ]) {
      expect(isPlaceholder(v), JSON.stringify(v)).toBe(true);
    }
    for (const v of ['abc', '**', 'Bearer abc123', '$1abc']) expect(isPlaceholder(v), v).toBe(false);
  });

  it('learn refuses what is not a string, not distinctive, or past the cap; a repeat is not learned twice', () => {
    const s = new Secrets();
    expect(s.learn(12345678)).toBe(false);
    expect(s.learn('short1')).toBe(false);
    expect(s.learn('tok_12345678')).toBe(true);
    expect(s.learn('tok_12345678')).toBe(false);
    for (let i = 1; i < MAX_LEARNED; i++) expect(s.learn(`tok_${i}_abcdefgh`)).toBe(true);
    expect(s.learn('tok_one_too_many')).toBe(false);
    expect(s.known()).toHaveLength(MAX_LEARNED);
  });

  it('credentials: at least 4 characters, at most 512, each once; the given ones keep their placeholders', () => {
    const s = new Secrets({
      apiKeys: ['abc', 'key_12345678', 'key_12345678'],
      userIds: ['usr_1', `u${'x'.repeat(512)}`],
    });
    expect(s.known()).toEqual(['key_12345678', 'usr_1']);
    expect(s.text('key_12345678 usr_1')).toBe('$VAPC_API_KEY $VAPC_USER_ID');
    // A learned value equal to a credential keeps the credential's placeholder.
    const both = new Secrets({ apiKeys: ['key_12345678'], learned: ['key_12345678'] });
    expect(both.text('key_12345678')).toBe('$VAPC_API_KEY');
  });

  it('a secret added later is used at once (nothing stale is kept)', () => {
    const s = new Secrets();
    expect(s.text('tok_12345678')).toBe('tok_12345678');
    s.learn('tok_12345678');
    expect(s.text('tok_12345678')).toBe(REDACTED);
    s.addApiKey('key_abcdefgh');
    expect(s.text('key_abcdefgh')).toBe('$VAPC_API_KEY');
  });
});

describe('pieces of a credential', () => {
  const key = 'KEY0123456789abcdef';

  it(`hides every ${FRAGMENT}-character piece, and runs of overlapping pieces as one placeholder`, () => {
    const s = new Secrets({ apiKeys: [key] });
    expect(s.evidence(`cut: ${key.slice(0, FRAGMENT)}|`)).toBe('cut: $VAPC_API_KEY|');
    expect(s.evidence(`mid: ${key.slice(3, 15)}.`)).toBe('mid: $VAPC_API_KEY.');
    expect(s.evidence(`two: ${key.slice(0, 9)} and ${key.slice(10, 19)}`)).toBe('two: $VAPC_API_KEY and $VAPC_API_KEY');
    expect(s.evidence(`short: ${key.slice(0, FRAGMENT - 1)}`)).toBe(`short: ${key.slice(0, FRAGMENT - 1)}`);
  });

  it('learned values are not cut into pieces (only credentials are)', () => {
    const l = new Secrets({ learned: ['tok_ABCDEFGHIJKL'] });
    expect(l.evidence('tok_ABCDEFGH')).toBe('tok_ABCDEFGH');
  });
});

describe('clip: redact, then cut, leaving no start of a secret', () => {
  let s: Secrets;
  beforeEach(() => {
    s = new Secrets({ apiKeys: ['KEY0123456789abcdef'], learned: ['tok_ABCDEFGHIJKL'] });
  });

  it('a text within the cap is redacted and not cut', () => {
    expect(s.clip('a KEY0123456789abcdef b', 100)).toEqual({ text: 'a $VAPC_API_KEY b', cut: false });
  });

  it('a secret across the cut is replaced before the cut, so no start of it is left', () => {
    const out = s.clip(`${'x'.repeat(10)}tok_ABCDEFGHIJKL${'y'.repeat(600)}`, 18);
    expect(out).toEqual({ text: `${'x'.repeat(10)}${REDACTED.slice(0, 8)}`, cut: true });
    expect(s.clip('{"token":"abcdefghijklmnop"}', 14)).toEqual({ text: `{"token":"${REDACTED}`, cut: true });
  });

  it('a value that shrinks under redaction is still cut when the input was longer than the window', () => {
    const long = `${'z'.repeat(700)}`;
    const out = s.clip(long, 100);
    expect(out).toEqual({ text: 'z'.repeat(100), cut: true });
  });

  it('trimPartial: the longest start of a secret at the end, from 4 characters up', () => {
    expect(s.trimPartial('abc tok_ABCDEFGHIJK')).toBe(`abc ${REDACTED}`);
    expect(s.trimPartial('abc tok_')).toBe(`abc ${REDACTED}`);
    expect(s.trimPartial('abc tok')).toBe('abc tok');
    expect(s.trimPartial('{"token":"abc')).toBe(`{"token":"${REDACTED}`);
    expect(s.trimPartial('{"token":"$VAPC_API_KEY')).toBe('{"token":"$VAPC_API_KEY');
  });
});

describe('valuesAt', () => {
  const doc = { a: [{ t: 'x1' }, { t: 'x2' }, { u: 'no' }], b: { t: 'y' }, n: null };
  it('follows members and * over arrays; misses give nothing', () => {
    expect(valuesAt(doc, '/a/*/t')).toEqual(['x1', 'x2']);
    expect(valuesAt(doc, '/b/t')).toEqual(['y']);
    expect(valuesAt(doc, '/b/*')).toEqual([]);
    expect(valuesAt(doc, '/a/t')).toEqual([]);
    expect(valuesAt(doc, '/n/t')).toEqual([]);
    expect(valuesAt(doc, '/missing')).toEqual([]);
    expect(valuesAt({ toString: 'inherited?' }, '/toString')).toEqual(['inherited?']);
    expect(valuesAt({}, '/toString')).toEqual([]);
  });
  it('reads at most 100 items at each step', () => {
    const many = { list: Array.from({ length: 150 }, (_, i) => ({ t: `v${i}` })) };
    expect(valuesAt(many, '/list/*/t')).toHaveLength(100);
  });
});

describe('sanitizeResult and learnFromReport, field by field', () => {
  const KEY = 'key_0123456789abcdef';
  const TOK = 'tok_ABCDEFGHIJKL';
  const s = () => new Secrets({ apiKeys: [KEY], learned: [TOK] });
  const failure: Failure = {
    kind: 'schema',
    field: { location: 'response', pointer: `/a/${TOK}`, status: '200' },
    expected: `no ${TOK}`,
    actual: `got ${KEY}`,
    input: { token: 'tok_local_secret1', note: `x ${TOK}` },
    request: {
      method: 'POST',
      url: `http://h/x?q=${TOK}`,
      headers: { authorization: `Bearer ${KEY}`, 'set-cookie': 'a=b' },
      body: `{"v":"${TOK}"}`,
    },
    response: { status: 200, headers: { 'x-echo': TOK }, body: `{"v":"${TOK}"}`, duration_ms: 1 },
    repro: `curl -H 'Authorization: Bearer ${KEY}' http://h/x`,
    path: '0:1',
  };
  const result = {
    id: 'a.b',
    suite: 'auth',
    operation: 'POST /x',
    status: 'failed',
    message: `m ${TOK}`,
    repro: `r ${KEY}`,
    failures: [failure],
  } as unknown as CheckResult;

  it('every text of a failure and of its result is redacted; kind, status and path kept', () => {
    const out = sanitizeResult(result, s());
    const text = JSON.stringify(out);
    expect(text).not.toContain(TOK);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('tok_local_secret1');
    const f = out.failures![0]!;
    expect(f.kind).toBe('schema');
    expect(f.field).toEqual({ location: 'response', pointer: `/a/${REDACTED}`, status: '200' });
    expect([f.expected, f.actual, f.path, out.message, out.repro]).toEqual([
      `no ${REDACTED}`,
      'got $VAPC_API_KEY',
      '0:1',
      `m ${REDACTED}`,
      'r $VAPC_API_KEY',
    ]);
    expect(f.request!.headers).toEqual({ authorization: 'Bearer $VAPC_API_KEY', 'set-cookie': REDACTED });
    expect(f.response!.headers['x-echo']).toBe(REDACTED);
    expect(f.response!.status).toBe(200);
    expect(sanitizeResult(out, s())).toEqual(out);
  });

  it('a field without a status, and a failure without the optional parts, stay as they are', () => {
    const bare = {
      ...result,
      repro: undefined,
      failures: [{ expected: 'e', actual: 'a', field: { location: 'body', pointer: '/x' } }],
    } as unknown as CheckResult;
    const out = sanitizeResult(bare, s());
    expect(out.failures).toEqual([{ expected: 'e', actual: 'a', field: { location: 'body', pointer: '/x' } }]);
    expect(out.repro).toBeUndefined();
  });

  it('learns the credentials it sent and x-secret values of successful answers only', () => {
    const learner = new Secrets();
    const f = (status: number, body: string, headers: Record<string, string>): Failure => ({
      expected: 'e',
      actual: 'a',
      request: { method: 'POST', url: 'http://h', headers },
      response: { status, headers: {}, body, duration_ms: 1 },
    });
    const report = {
      results: [
        {
          id: 'a',
          operation: 'POST /invites',
          failures: [
            f(201, '{"token":"tok_fromOk_123"}', {
              Authorization: 'Bearer key_sent_12345',
              'X-User-ID': 'usr_sent_1234',
            }),
          ],
        },
        {
          id: 'b',
          operation: 'POST /invites',
          failures: [f(422, '{"token":"tok_fromErr_123"}', { Authorization: 'Bearer $VAPC_API_KEY' })],
        },
        { id: 'c', operation: 'GET /other', failures: [f(200, '{"token":"tok_notDoc_123"}', {})] },
        {
          id: 'd',
          operation: 'POST /invites',
          failures: [
            f(200, 'not json', {}),
            f(199, '{"token":"tok_info_1234"}', {}),
            f(300, '{"token":"tok_redir_123"}', {}),
          ],
        },
      ],
    } as unknown as RunReport;
    learnFromReport(report, learner, (op) => (op === 'POST /invites' ? ['/token'] : []), [
      { header: 'Authorization', bearer: true },
      { header: 'x-user-id', bearer: false },
    ]);
    expect(learner.known().sort()).toEqual(['key_sent_12345', 'tok_fromOk_123', 'usr_sent_1234']);
  });
});
