/**
 * The forms of a secret (src/secrets/forms.ts) and the decoded view of a text, clause by clause:
 * base64 in each alignment (standard and URL-safe) and hex, only for values of 8 characters or
 * more; every escape the view decodes (JSON, \x, %XX of ASCII, numeric and named HTML entities)
 * and where each decoded unit starts.
 */
import { describe, expect, it } from 'vitest';
import { decodeView, escapedForms } from '../../../src/secrets/forms.js';
import { REDACTED, Secrets } from '../../../src/secrets/index.js';

const SECRET = 'tk+A/b=c?d>e~f';

describe('escapedForms: base64 and hex', () => {
  const forms = escapedForms(SECRET);
  const b64 = (prefix: string) => Buffer.from(prefix + SECRET).toString('base64');
  it('the whole base64, padded, and the core of each alignment', () => {
    expect(forms).toContain(Buffer.from(SECRET).toString('base64'));
    // 14 bytes: offset 0 keeps all but the last partial character (and the padding).
    expect(forms).toContain(b64('').slice(0, 18));
    // offset 1: the first two characters mix with the byte before; 15 bytes end on a boundary.
    expect(forms).toContain(b64('x').slice(2));
    // offset 2: the first three mix; 16 bytes leave one byte (two characters and ==).
    expect(forms).toContain(b64('xy').slice(3, -3));
  });
  it('each core is found inside any longer base64 text with that alignment', () => {
    const s = new Secrets({ learned: [SECRET] });
    for (const prefix of ['', 'q', 'qr', 'qrs', 'user:'])
      for (const suffix of ['', 'z', 'zz', 'zzz']) {
        const encoded = Buffer.from(`${prefix}${SECRET}${suffix}`).toString('base64');
        expect(s.text(encoded), `${prefix}|${suffix}`).toContain(REDACTED);
        expect(s.text(encoded.replace(/\+/g, '-').replace(/\//g, '_')), `url-safe ${prefix}|${suffix}`).toContain(
          REDACTED,
        );
      }
  });
  it('URL-safe variants and hex in either case', () => {
    const hex = Buffer.from(SECRET).toString('hex');
    expect(forms).toContain(hex);
    expect(forms).toContain(hex.toUpperCase());
    expect(forms).toContain(Buffer.from(SECRET).toString('base64').replace(/\+/g, '-').replace(/\//g, '_'));
  });
  it('no encoded forms under 8 characters', () => {
    const short = escapedForms('abc1234');
    expect(short).not.toContain(Buffer.from('abc1234').toString('hex'));
    expect(short).not.toContain(Buffer.from('abc1234').toString('base64'));
    expect(escapedForms('abcd1234')).toContain(Buffer.from('abcd1234').toString('hex'));
  });
  it('exactly these forms, each alignment cut where its neighbours stop mattering', () => {
    const url = (t: string) => t.replace(/\+/g, '-').replace(/\//g, '_');
    for (const secret of [SECRET, `${SECRET}x`, `${SECRET}xy`]) {
      const n = Buffer.byteLength(secret);
      const b64 = [Buffer.from(secret).toString('base64')];
      for (const [offset, head] of [
        [0, 0],
        [1, 2],
        [2, 3],
      ] as const) {
        const encoded = Buffer.from('\0'.repeat(offset) + secret).toString('base64');
        const tail = (offset + n) % 3 === 0 ? 0 : 4 - ((offset + n) % 3);
        b64.push(encoded.slice(head, encoded.length - tail));
      }
      const hex = Buffer.from(secret).toString('hex');
      const expected = [secret, encodeURIComponent(secret), ...b64, ...b64.map(url), hex, hex.toUpperCase()];
      expect(escapedForms(secret).sort(), secret).toEqual([...new Set(expected)].sort());
    }
  });
  it('the whole padded base64 is replaced, padding and all', () => {
    const s = new Secrets({ learned: [SECRET] });
    expect(s.text(`[${Buffer.from(SECRET).toString('base64')}]`)).toBe(`[${REDACTED}]`);
  });
  it('the forms are distinct', () => expect(new Set(forms).size).toBe(forms.length));
});

describe('decodeView', () => {
  it('undefined for text without an escape character, or with one that escapes nothing', () => {
    expect(decodeView('plain text')).toBeUndefined();
    expect(decodeView('50% & \\q')).toBeUndefined();
  });
  it('JSON escapes, \\x, ASCII percent escapes and HTML entities', () => {
    const cases: Array<[string, string]> = [
      ['\\u0073\\u006B', 'sk'],
      ['\\x41\\x7a', 'Az'],
      ['\\"\\\\\\/\\b\\f\\n\\r\\t', '"\\/\b\f\n\r\t'],
      ['%41%7e%2F', 'A~/'],
      ['&#115;&#x6B;&#X6b;', 'skk'],
      ['&quot;&amp;&lt;&gt;&apos;', '"&<>\''],
      ['&#x1F600;', '\u{1F600}'],
    ];
    for (const [text, decoded] of cases) expect(decodeView(text)?.decoded, text).toBe(decoded);
  });
  it('an escape counts only where it starts, not later in the characters after a lone \\, % or &', () => {
    expect(decodeView('\\q\\u0041')?.decoded).toBe('\\qA');
    expect(decodeView('\\q\\x41')?.decoded).toBe('\\qA');
    expect(decodeView('&z&#65;')?.decoded).toBe('&zA');
    expect(decodeView('&z&amp;')?.decoded).toBe('&z&');
    expect(decodeView('%z%41')?.decoded).toBe('%zA');
    expect(decodeView('&#x10FFFF;')?.decoded).toBe('\u{10FFFF}');
  });
  it('leaves what is not an escape: %80 and above, too many digits, an unknown entity, a code point past U+10FFFF', () => {
    expect(decodeView('%80%41')?.decoded).toBe('%80A');
    expect(decodeView('&#99999999;%41')?.decoded).toBe('&#99999999;A');
    expect(decodeView('&#x110000;%41')?.decoded).toBe('&#x110000;A');
    expect(decodeView('&nbsp;%41')?.decoded).toBe('&nbsp;A');
    expect(decodeView('\\u12\\x4%41')?.decoded).toBe('\\u12\\x4A');
  });
  it('starts: where each decoded unit begins in the text, the end last', () => {
    const view = decodeView('a\\u0062c%64&#x1F600;e')!;
    expect(view.decoded).toBe('abcd\u{1F600}e');
    expect([...view.starts.slice(0, view.decoded.length + 1)]).toEqual([0, 1, 7, 8, 11, 11, 20, 21]);
  });
});

describe('Secrets.text over the decoded view', () => {
  it('a value spelled escape by escape is replaced, escapes and all, with what surrounds it kept', () => {
    const s = new Secrets({ apiKeys: ['sk_live_ab12'] });
    const spelled = [...'sk_live_ab12'].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    expect(s.text(`{"d":"x ${spelled} y"}`)).toBe('{"d":"x $VAPC_API_KEY y"}');
    expect(s.text(`%73%6b_live_ab12 and &#115;k_live_ab12`)).toBe('$VAPC_API_KEY and $VAPC_API_KEY');
    expect(s.text('\\u0073k_live_ab1 stays')).toBe('\\u0073k_live_ab1 stays');
  });
  it('a value that ends the text, behind a single two-character escape', () => {
    const s = new Secrets({ learned: ['a"bcdefgh1'] });
    expect(s.text('x a\\"bcdefgh1')).toBe(`x ${REDACTED}`);
  });
  it('both passes in one text: a raw value and an escaped one', () => {
    const s = new Secrets({ learned: ['tok-0001-xyz'] });
    expect(s.text('tok-0001-xyz \\u0074ok-0001-xyz')).toBe(`${REDACTED} ${REDACTED}`);
  });
});
