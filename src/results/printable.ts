/**
 * Text from the server under test is data, never control. Everything vapc prints or writes that
 * quotes a server (messages, expected/actual, bodies, headers, discovered ids) goes through
 * `printable` first: control characters (C0, DEL, C1), Unicode line and paragraph separators and
 * bidirectional overrides become visible escapes (`\x1b`, `\u202e`), so no quoted text can move
 * the cursor, recolour a terminal, set a window title, reorder what a reader sees, or start a new
 * line that a CI runner would read as a workflow command. The result holds no such character, so
 * escaping twice changes nothing.
 */

// C0 except TAB/LF/CR, DEL, C1, ALM, LRM/RLM, LS/PS, bidi embeddings, overrides and isolates, BOM.
const CONTROLS_KEEP_LINES =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;
const CONTROLS_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Control characters as visible escapes. One line by default (LF, CR and TAB escaped too); with
 * `multiline`, LF, CR and TAB are kept (bodies shown in a `<pre>` or a JUnit text node) and CR LF
 * pairs are kept as line ends.
 */
export function printable(text: string, options: { multiline?: boolean } = {}): string {
  const pattern = options.multiline ? CONTROLS_KEEP_LINES : CONTROLS_ONE_LINE;
  pattern.lastIndex = 0;
  return pattern.test(text) ? text.replace(pattern, escapeOne) : text;
}

/** True when `text` holds a character `printable` would escape (one-line rules). */
export function hasControls(text: string): boolean {
  CONTROLS_ONE_LINE.lastIndex = 0;
  return CONTROLS_ONE_LINE.test(text);
}

/** Cuts `text` to at most `max` characters, marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * Text of a file the checkout controls as a message may quote it (a key or value a refusal must
 * name): at most `max` characters (default 40), one line, every control character escaped, in quotes.
 */
export function excerpt(text: string, max = 40): string {
  return `"${clip(printable(text), max)}"`;
}

/**
 * What a CI runner may skip before a workflow command: blanks of any kind (GitHub's runner trims
 * Unicode white space, U+00A0 and U+3000 included), control characters and invisible format
 * characters (zero-width spaces and joiners, the BOM).
 */
const BEFORE_COMMAND =
  /^([\u0000-\u0009\u000b\u000c\u000e-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u200f\u202f\u205f\u2060-\u2064\u3000\ufeff]*)::/gm;

/**
 * A line vapc did not author must never be read as a GitHub workflow command: `::name ...::` at
 * the start of a stdout or stderr line (after any blanks, controls or invisible characters), or
 * the legacy `##[name]` form. Such text gets a visible mark (`[::]`), and what stood before it other
 * than a plain space or tab is escaped; vapc's own annotations bypass this on a trusted path.
 */
export function neutralizeCommands(text: string): string {
  return text
    .replace(BEFORE_COMMAND, (_m, lead: string) => `${lead.replace(/[^ \t]/g, escapeOne)}[::]`)
    .replace(/##\[/g, '#\\x23[');
}

/**
 * Bare URLs that GitHub's Markdown would turn into links (`https://...`, `www.`) broken so they
 * render as the text they are: the colon of `://` and the dot of `www.` become character references.
 * For Markdown outside code spans and fences, where the references render as `:` and `.`.
 */
export function breakAutolinks(text: string): string {
  return text.replace(/:\/\//g, '&#58;//').replace(/\b(www)\./gi, '$1&#46;');
}

/**
 * The project's one Markdown escaper, for a table cell or a list item of text vapc did not author
 * (server text, spec names, report artefacts): control characters made visible (`printable`), no
 * HTML, no pipes, one line, and every Markdown punctuation character backslash-escaped, so the text
 * renders as the text it is (no link, image, emphasis, heading or HTML of its making, and no bare
 * URL that GitHub would autolink).
 */
export function mdCell(s: string): string {
  return breakAutolinks(
    printable(s)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/[\\`*_{}[\]()#+!|~]/g, '\\$&'),
  );
}

/** Text inside a Markdown code span (nothing renders there): no backtick to close it, one line, no table pipe. */
export function mdCode(s: string): string {
  return printable(s).replace(/`/g, "'").replace(/\|/g, '\\|');
}

/** A Markdown code fence longer than any backtick run inside `s`, so the content cannot close it. */
export function mdFence(s: string, lang = ''): string {
  const longest = Math.max(2, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${printable(s, { multiline: true })}\n${f}`;
}
