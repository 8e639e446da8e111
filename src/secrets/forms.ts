/**
 * The forms a secret takes in text, for `Secrets` to find it in any of them: as written, URL-encoded,
 * encoded in base64 (each of the three alignments a value can have inside a longer base64 text,
 * standard and URL-safe) and in hex; and a decoded view of a text, so that a value escaped the ways
 * JSON, URLs and HTML escape it, even character by character (`\u0073\u006b...`, `%73%6b`,
 * `&#115;&#107;`), is found where it stands although no fixed form spells it.
 */

/** Values shorter than this get no base64 or hex forms: a short core would match unrelated encoded text. */
const MIN_ENCODED = 8;

/**
 * The base64 text that encodes `bytes` wherever they fall in a longer encoded stream: for an
 * offset of 0, 1 or 2 bytes, the characters that depend on `bytes` alone (the first one or two and
 * the last partial one mix with their neighbours). Offset 0 also gives the whole padded text.
 */
function base64Forms(bytes: Buffer): string[] {
  const out: string[] = [bytes.toString('base64')];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const n = offset + bytes.length;
    const head = [0, 2, 3][offset]!;
    const tail = n % 3 === 0 ? 0 : 4 - (n % 3);
    out.push(encoded.slice(head, encoded.length - tail));
  }
  return [...out, ...out.map((b) => b.replace(/\+/g, '-').replace(/\//g, '_'))];
}

/**
 * Every fixed form of `secret` to replace: raw, URL-encoded (its non-ASCII bytes as %XX, which the
 * decoded view leaves alone), and, for a value of 8 or more characters, base64 (standard and
 * URL-safe, each alignment) and hex (either case). JSON, HTML and ASCII percent escapes need no
 * form of their own: `Secrets.text` finds them in the decoded view of the text (`decodeView`).
 */
export function escapedForms(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret)];
  if (secret.length >= MIN_ENCODED) {
    const bytes = Buffer.from(secret, 'utf8');
    const hex = bytes.toString('hex');
    forms.push(...base64Forms(bytes), hex, hex.toUpperCase());
  }
  return [...new Set(forms)];
}

const JSON_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };

/**
 * One escape at `text[at]` (which is `\`, `%` or `&`): the character it stands for and its length
 * in `text`, or undefined when none starts there.
 */
function escapeAt(text: string, at: number): { char: string; length: number } | undefined {
  const rest = text.slice(at, at + 12);
  let m: RegExpExecArray | null;
  if ((m = /^\\u([0-9a-fA-F]{4})/.exec(rest))) return { char: String.fromCharCode(parseInt(m[1]!, 16)), length: 6 };
  if ((m = /^\\x([0-9a-fA-F]{2})/.exec(rest))) return { char: String.fromCharCode(parseInt(m[1]!, 16)), length: 4 };
  if ((m = /^\\(["\\/bfnrt])/.exec(rest))) return { char: JSON_ESCAPES[m[1]!]!, length: 2 };
  // Percent escapes of ASCII only: a byte of a multi-byte UTF-8 sequence is not a character alone.
  if ((m = /^%([0-7][0-9a-fA-F])/.exec(rest))) return { char: String.fromCharCode(parseInt(m[1]!, 16)), length: 3 };
  if ((m = /^&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));/.exec(rest))) {
    const code = m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2]);
    return code <= 0x10ffff ? { char: String.fromCodePoint(code), length: m[0].length } : undefined;
  }
  if ((m = /^&(quot|amp|lt|gt|apos);/.exec(rest))) return { char: ENTITIES[m[1]!]!, length: m[0].length };
  return undefined;
}

/**
 * `text` with every escape decoded, and where each of its UTF-16 units starts in `text`
 * (`starts[i]`; `starts[decoded.length]` is `text.length`), so that a match in the decoded view is
 * a span of the original. Undefined when `text` holds no escape.
 */
export function decodeView(text: string): { decoded: string; starts: Uint32Array } | undefined {
  if (!/[\\%&]/.test(text)) return undefined;
  // Decoding never lengthens the text: every escape is at least as long as what it stands for.
  const starts = new Uint32Array(text.length + 1);
  const parts: string[] = [];
  let length = 0;
  let plain = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    const escape = c === 0x5c || c === 0x25 || c === 0x26 ? escapeAt(text, i) : undefined;
    if (escape === undefined) {
      starts[length++] = i++;
      continue;
    }
    parts.push(text.slice(plain, i), escape.char);
    for (let unit = 0; unit < escape.char.length; unit++) starts[length++] = i;
    i += escape.length;
    plain = i;
  }
  if (parts.length === 0) return undefined;
  parts.push(text.slice(plain));
  starts[length] = text.length;
  return { decoded: parts.join(''), starts };
}
