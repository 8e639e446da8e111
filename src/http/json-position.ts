/**
 * Where a malformed JSON text breaks: the position FastAPI puts in `loc` of a json_invalid item.
 * Node's JSON.parse messages do not always carry a position (it varies by V8 version), so the
 * scanner finds it itself; it is iterative, so any nesting depth is safe.
 */

/** What the grammar wants next. */
type Want = 'value' | 'key' | 'colon' | 'after';

const LITERALS: Record<string, string> = { t: 'true', f: 'false', n: 'null' };

/** One pass over a text, RFC 8259's grammar as a small state machine: `scan()` is the break offset. */
class JsonScanner {
  private i = 0;
  private want: Want = 'value';
  /** Open containers, '[' or '{'. */
  private readonly stack: string[] = [];

  constructor(private readonly text: string) {}

  scan(): number {
    const n = this.text.length;
    for (;;) {
      this.ws();
      if (this.i >= n) return n;
      const broken = this.step(this.text[this.i]!);
      if (broken !== undefined) return broken;
      if (this.want === 'after' && this.stack.length === 0) {
        this.ws();
        // A complete document (JSON.parse would not have failed), or trailing content after it.
        return Math.min(this.i, n);
      }
    }
  }

  /** Consumes one token at the current offset; the break offset when it does not fit the grammar. */
  private step(c: string): number | undefined {
    if (this.want === 'value') return this.value(c);
    if (this.want === 'key') {
      if (c !== '"' || !this.string()) return this.i;
      this.want = 'colon';
    } else if (this.want === 'colon') {
      if (c !== ':') return this.i;
      this.i++;
      this.want = 'value';
    } else return this.after(c);
    return undefined;
  }

  private value(c: string): number | undefined {
    if (c === '{' || c === '[') this.open(c);
    else if (c === '"') {
      if (!this.string()) return this.i;
      this.want = 'after';
    } else if (LITERALS[c] !== undefined) return this.literal(LITERALS[c]!);
    else if (c === '-' || (c >= '0' && c <= '9')) {
      if (!this.number()) return Math.min(this.i, this.text.length);
      this.want = 'after';
    } else return this.i;
    return undefined;
  }

  /** After a value: a comma, the close of the open container, or (at top level) the end. */
  private after(c: string): number | undefined {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined) return this.i;
    if (c === ',') {
      this.i++;
      this.want = top === '{' ? 'key' : 'value';
    } else if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
      this.stack.pop();
      this.i++;
      this.want = 'after';
    } else return this.i;
    return undefined;
  }

  private open(c: '{' | '['): void {
    const close = c === '{' ? '}' : ']';
    this.stack.push(c);
    this.i++;
    this.ws();
    if (this.text[this.i] === close) {
      this.stack.pop();
      this.i++;
      this.want = 'after';
    } else this.want = c === '{' ? 'key' : 'value';
  }

  private literal(word: string): number | undefined {
    const n = this.text.length;
    for (let k = 0; k < word.length; k++, this.i++) if (this.text[this.i] !== word[k]) return this.i >= n ? n : this.i;
    this.want = 'after';
    return undefined;
  }

  private ws(): void {
    const t = this.text;
    while (this.i < t.length && (t[this.i] === ' ' || t[this.i] === '\t' || t[this.i] === '\n' || t[this.i] === '\r'))
      this.i++;
  }

  /** Scans a string from its opening quote; on failure `i` is where it breaks. */
  private string(): boolean {
    const t = this.text;
    const n = t.length;
    this.i++;
    while (this.i < n) {
      const c = t.charCodeAt(this.i);
      if (c === 0x22) {
        this.i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        if (!this.escape()) return false;
      } else this.i++;
    }
    return false;
  }

  /** A bad escape is reported where it starts (the backslash), as Python's json does. */
  private escape(): boolean {
    const t = this.text;
    const e = t[this.i + 1];
    if (e === undefined) {
      this.i = t.length;
      return false;
    }
    if (e === 'u') {
      const hex = t.slice(this.i + 2, this.i + 6);
      if (!/^[0-9a-fA-F]*$/.test(hex)) return false;
      if (hex.length < 4) {
        this.i = t.length;
        return false;
      }
      this.i += 6;
      return true;
    }
    if (!'"\\/bfnrt'.includes(e)) return false;
    this.i += 2;
    return true;
  }

  private digits(): number {
    const from = this.i;
    while (this.i < this.text.length && this.text[this.i]! >= '0' && this.text[this.i]! <= '9') this.i++;
    return this.i - from;
  }

  /** Scans a number; on failure `i` is where it stops being a number prefix. */
  private number(): boolean {
    const t = this.text;
    if (t[this.i] === '-') this.i++;
    if (t[this.i] === '0') this.i++;
    else if (this.digits() === 0) return false;
    if (t[this.i] === '.') {
      this.i++;
      if (this.digits() === 0) return false;
    }
    if (t[this.i] === 'e' || t[this.i] === 'E') {
      this.i++;
      if (t[this.i] === '+' || t[this.i] === '-') this.i++;
      if (this.digits() === 0) return false;
    }
    return true;
  }
}

/**
 * The offset of the first character at which `text` stops being JSON (RFC 8259), or `text.length`
 * when it ends too early.
 */
export function jsonErrorPosition(text: string): number {
  return new JsonScanner(text).scan();
}
