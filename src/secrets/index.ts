/**
 * The one secrets module of vapc: what counts as a secret, how it is learned, and how it is kept
 * out of everything the runner and the reporters write.
 *
 * Policy (issue 11: the server under test must not be able to teach vapc what to hide):
 * - the credentials given to vapc (API key, user id, and a key vapc rotated to) are always
 *   redacted, to `$VAPC_API_KEY` / `$VAPC_USER_ID` so curl lines still work with the env set; so
 *   is every piece of 8 or more characters of a credential with enough entropy to be guessed from
 *   such a piece (PIECE_ENTROPY_BITS), wherever a cut or an echo left it. A low-entropy credential
 *   (a user id like `user_ref_001`) shares its pieces with ids vapc itself sends (`asst_ref_001`):
 *   only its whole value is redacted, so fixture ids and repro lines stay as sent;
 * - other values are learned only from the x-secret fields of successful responses to operations
 *   vapc itself invoked (the invite it created, the key it regenerated), never from error bodies;
 *   only distinctive values (8+ characters, not a plain word), at most a few dozen;
 * - locally, without learning anything, the value of a secret-named header, cookie, query
 *   parameter or JSON field is hidden where it stands;
 * - redaction applies to evidence text (requests, responses, messages, repro lines), never to
 *   structured fields (status, ids, counts, check ids, rules): see `sanitizeReport`;
 * - redaction happens before any cut, and a cut never leaves the start of a secret behind.
 */

import { decodeView, escapedForms } from './forms.js';

export const REDACTED = '[redacted]';
export const API_KEY_PLACEHOLDER = '$VAPC_API_KEY';
export const USER_ID_PLACEHOLDER = '$VAPC_USER_ID';

/** Credentials shorter than this are left alone: redacting "u1" everywhere would garble reports. */
const MIN_CREDENTIAL = 4;
/** Learned values must be at least this long (and not a plain word) to be scrubbed everywhere. */
export const MIN_LEARNED = 8;
/** At most this many learned values: a server cannot make redaction cost secrets × strings. */
export const MAX_LEARNED = 32;
/** At most this many values of the environment (credentials by name or by shape: `environmentSecrets`). */
export const MAX_ENVIRONMENT = 256;
/** At most this many values of a recording (`vapc drift`, `vapc proxy`); past it the recording is refused. */
export const MAX_RECORDED = 4096;
/** Longer values are not secrets vapc learns (nobody's token is a paragraph). */
const MAX_SECRET_LENGTH = 512;
/** No piece of a credential this long may appear in any output. */
export const FRAGMENT = 8;
/** Credentials estimated below this many bits are redacted as whole values only, not piece by piece. */
export const PIECE_ENTROPY_BITS = 48;

/**
 * A credential's estimated entropy in bits: its length times the Shannon entropy of its own
 * characters. `user_ref_001` ≈ 35, `user_123` = 24, a 28-character random key ≈ 115.
 */
export function entropyBits(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / value.length) * Math.log2(n / value.length);
  return perChar * value.length;
}

/** Field, header and parameter names whose values are hidden where they stand (whole name, any case). */
const SECRET_NAME_SRC =
  '(?:[\\w-]*[_-])?(?:token|key|secret|password|apikey)|authorization|proxy-authorization|cookie|set-cookie|x-user-id|x-api-key';
const SECRET_NAME = new RegExp(`^(?:${SECRET_NAME_SRC})$`, 'i');

/** Values that are already placeholders and must stay readable. */
const PLACEHOLDER = /^(?:(?:bearer|basic)\s+)?(?:\$\{?[A-Z][A-Z0-9_]*\}?|"\$[A-Z][A-Z0-9_]*"|\[redacted\]|\*{3,})$/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function isPlaceholder(value: string): boolean {
  const v = value.trim();
  return v === '' || PLACEHOLDER.test(v) || /^(?:bearer|basic|token)$/i.test(v) || v.startsWith(REDACTED);
}

/** A value worth scrubbing everywhere: long enough, one token, not a plain word or a placeholder. */
export function isDistinctive(value: string): boolean {
  return (
    value.length >= MIN_LEARNED &&
    value.length <= MAX_SECRET_LENGTH &&
    !/\s/.test(value) &&
    !/^(?:[a-z]+|[A-Z][a-z]*|[A-Z]+)$/.test(value) &&
    !isPlaceholder(value)
  );
}

/** Keeps an auth scheme word (Bearer/Basic) readable and hides the credential after it. */
function hideCredential(value: string): string {
  if (isPlaceholder(value)) return value;
  const scheme = /^(\s*(?:bearer|basic|token)\s+)/i.exec(value);
  return scheme ? `${scheme[1]}${REDACTED}` : REDACTED;
}

/** A bare `Bearer xyz` is hidden when xyz looks like a credential rather than a word. */
function looksLikeCredential(token: string): boolean {
  return /[0-9\-._~+/=]/.test(token) || token.length >= 16;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Local rules: each hides the value it matches and nothing else; none learns anything.
// "name": "value" in JSON, JSON inside a JSON string (\"), and HTML-escaped JSON.
const FIELD_FORMS = ['\\\\"', '&quot;', '&#34;', '"'].map(
  (q) => new RegExp(`(${q})(${SECRET_NAME_SRC})${q}(\\s*:\\s*)${q}((?:(?!${q})[^\\r\\n])*?)${q}`, 'gi'),
);
// A secret-named JSON field whose value a cut left open: `"token":"abc` at the very end.
const OPEN_FIELD = new RegExp(`("(?:${SECRET_NAME_SRC})"\\s*:\\s*")([^"]*)$`, 'i');
// Header lines as in curl -H 'Authorization: Bearer x' or raw HTTP: an optional scheme and one token.
const HEADER_LINE =
  /\b(authorization|proxy-authorization|x-user-id|x-api-key)(\s*:[ \t]*)((?:(?:bearer|basic|token)[ \t]+)?(?:(?!&quot;|&#34;|&#39;|&lt;|&gt;|&amp;|\\")[^\s'"<>`,;])+)/gi;
const COOKIE_LINE = /\b(cookie|set-cookie)(\s*:[ \t]*)((?:(?!&quot;|&#34;|&#39;|&lt;|\\")[^\r\n'"<`])+)/gi;
const QUERY_PARAM = /([?&](?:amp;)?)((?:[\w-]*[_-])?(?:token|key|secret|password|apikey))=([^&#\s'"<>]+)/gi;
const BEARER = /\b(bearer)(\s+)([A-Za-z0-9\-._~+/]+=*)/gi;

/** Hides secret-named values where they stand (JSON fields, header lines, cookies, query parameters, bearer tokens). */
export function hideLocalSecrets(text: string): string {
  let out = text;
  for (const form of FIELD_FORMS) {
    form.lastIndex = 0;
    if (!form.test(out)) continue;
    out = out.replace(form, (m, q: string, name: string, colon: string, value: string) =>
      isPlaceholder(value) ? m : `${q}${name}${q}${colon}${q}${hideCredential(value)}${q}`,
    );
  }
  const header = (m: string, name: string, colon: string, value: string) => {
    const trimmed = value.replace(/\s+$/, '');
    return isPlaceholder(trimmed) ? m : `${name}${colon}${hideCredential(trimmed)}${value.slice(trimmed.length)}`;
  };
  out = out.replace(HEADER_LINE, header).replace(COOKIE_LINE, header);
  out = out.replace(QUERY_PARAM, (m, sep: string, name: string, value: string) =>
    isPlaceholder(value) ? m : `${sep}${name}=${REDACTED}`,
  );
  out = out.replace(BEARER, (m, word: string, space: string, token: string) =>
    token === 'redacted' || !looksLikeCredential(token) ? m : `${word}${space}${REDACTED}`,
  );
  return out;
}

export interface SecretsOptions {
  /** The bearer value in use (and any earlier one): replaced by $VAPC_API_KEY. */
  apiKeys?: readonly string[];
  /** The X-User-ID value: replaced by $VAPC_USER_ID. */
  userIds?: readonly string[];
  /** Values already known to be secret (learned earlier): replaced by [redacted]. */
  learned?: readonly string[];
  /** Secret values of the environment (src/secrets/guard.ts `environmentSecrets`): replaced by [redacted]. */
  environment?: readonly string[];
}

interface Rule {
  form: string;
  replacement: string;
}

/**
 * The secrets one run knows, and the redaction of text with them: one pass over the text with a
 * single pattern of every known value (longest first) in each of its forms (src/secrets/forms.ts:
 * raw, URL-encoded, base64, hex), and one over the text's decoded view (JSON, HTML and percent
 * escapes undone); then every 8-character piece of a credential.
 */
export class Secrets {
  private readonly apiKeys: string[] = [];
  private readonly userIds: string[] = [];
  private readonly learnedValues: string[] = [];
  private readonly environmentValues: string[] = [];
  private readonly recordedValues: string[] = [];
  private compiled: { pattern: RegExp | undefined; byForm: Map<string, string>; pieces: Rule[] } | undefined;
  private credentialsOnly: Secrets | undefined;

  constructor(options: SecretsOptions = {}) {
    for (const k of options.apiKeys ?? []) this.addApiKey(k);
    for (const u of options.userIds ?? []) this.addUserId(u);
    for (const s of options.learned ?? []) this.learn(s);
    for (const e of options.environment ?? []) this.addEnvironmentValue(e);
  }

  /**
   * A secret value of the environment (trusted, not learned from a server): kept apart from the
   * learned ones and their cap; refused (false) when shorter than 8 characters or past MAX_ENVIRONMENT.
   */
  addEnvironmentValue(value: string | undefined): boolean {
    if (this.environmentValues.length >= MAX_ENVIRONMENT) return false;
    return this.addTo(this.environmentValues, value, MIN_LEARNED);
  }

  /**
   * A credential found in a recording vapc judges (a cookie, a token in a body: the traffic's own,
   * not a server's lesson): replaced by [redacted], like an environment value. False when it is not
   * distinctive (a plain word, under 8 characters), already known, or past MAX_RECORDED (the caller
   * refuses such a recording rather than leave a credential unscrubbed).
   */
  addRecorded(value: string | undefined): boolean {
    if (typeof value !== 'string' || !isDistinctive(value) || this.recordedValues.length >= MAX_RECORDED) return false;
    return this.addTo(this.recordedValues, value, MIN_LEARNED);
  }

  /** How many credentials of every kind it holds (a recording's learner caps them). */
  get size(): number {
    return this.apiKeys.length + this.userIds.length + this.learnedValues.length + this.recordedValues.length;
  }

  addApiKey(value: string | undefined): void {
    this.addTo(this.apiKeys, value, MIN_CREDENTIAL);
  }

  addUserId(value: string | undefined): void {
    this.addTo(this.userIds, value, MIN_CREDENTIAL);
  }

  /** Learns a value from an x-secret field vapc was given; refused (false) unless distinctive and under the cap. */
  learn(value: unknown): boolean {
    if (typeof value !== 'string' || !isDistinctive(value) || this.learnedValues.length >= MAX_LEARNED) return false;
    return this.addTo(this.learnedValues, value, MIN_LEARNED);
  }

  /**
   * The credentials alone (the API keys and user ids given, or rotated to), without the values
   * learned from the server: what may be redacted from vapc's own structured fields (ids, rules),
   * which a server must not be able to rewrite by teaching a value equal to one.
   */
  credentials(): Secrets {
    const cached = this.credentialsOnly;
    if (cached && cached.apiKeys.length === this.apiKeys.length && cached.userIds.length === this.userIds.length)
      return cached;
    return (this.credentialsOnly = new Secrets({ apiKeys: this.apiKeys, userIds: this.userIds }));
  }

  /** Every literal secret known (credentials and learned values), to hand to the reporters. */
  known(): string[] {
    return [...this.learnedValues, ...this.environmentValues, ...this.recordedValues, ...this.apiKeys, ...this.userIds];
  }

  private addTo(list: string[], value: string | undefined, min: number): boolean {
    if (typeof value !== 'string' || value.length < min || value.length > MAX_SECRET_LENGTH || list.includes(value))
      return false;
    list.push(value);
    this.compiled = undefined;
    return true;
  }

  private compile(): NonNullable<Secrets['compiled']> {
    if (this.compiled) return this.compiled;
    const byForm = new Map<string, string>();
    const add = (secret: string, replacement: string) => {
      for (const form of escapedForms(secret)) if (!byForm.has(form)) byForm.set(form, replacement);
    };
    // Credentials before learned values: a key vapc was given keeps its placeholder.
    for (const k of this.apiKeys) add(k, API_KEY_PLACEHOLDER);
    for (const u of this.userIds) add(u, USER_ID_PLACEHOLDER);
    for (const s of [...this.learnedValues, ...this.environmentValues, ...this.recordedValues]) add(s, REDACTED);
    const forms = [...byForm.keys()].sort((a, b) => b.length - a.length);
    const pattern = forms.length > 0 ? new RegExp(forms.map(escapeRegExp).join('|'), 'g') : undefined;
    const pieces: Rule[] = [];
    for (const [list, replacement] of [
      [this.apiKeys, API_KEY_PLACEHOLDER],
      [this.userIds, USER_ID_PLACEHOLDER],
    ] as const) {
      for (const secret of list) {
        if (entropyBits(secret) < PIECE_ENTROPY_BITS) continue;
        for (let i = 0; i + FRAGMENT <= secret.length; i++)
          pieces.push({ form: secret.slice(i, i + FRAGMENT), replacement });
      }
    }
    this.compiled = { pattern, byForm, pieces };
    return this.compiled;
  }

  /**
   * Replaces every known secret (whole values) in a string: one pass over the text for every form
   * of every value (escapedForms), then one over its decoded view (decodeView), so that a value
   * spelled escape by escape (`\u0073\u006b...`) is replaced too, escapes and all.
   */
  text(input: string): string {
    const { pattern, byForm } = this.compile();
    if (!pattern || input.length < MIN_CREDENTIAL) return input;
    pattern.lastIndex = 0;
    const once = input.replace(pattern, (m) => byForm.get(m) ?? REDACTED);
    const view = decodeView(once);
    if (!view) return once;
    let out = '';
    let pos = 0;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(view.decoded); m; m = pattern.exec(view.decoded)) {
      const start = view.starts[m.index]!;
      out += `${once.slice(pos, start)}${byForm.get(m[0]) ?? REDACTED}`;
      pos = view.starts[m.index + m[0].length]!;
    }
    return out + once.slice(pos);
  }

  /**
   * Text as an output guard writes it (src/secrets/guard.ts): every known secret in any of its
   * forms, and every 8-character piece of a high-entropy credential, replaced. Unlike `evidence`,
   * values are not hidden by their field's name: that was done where the evidence was recorded.
   */
  scrub(input: string): string {
    return this.hidePieces(this.text(input));
  }

  /**
   * Text fit to be written: whole secrets replaced, every 8-character piece of a high-entropy
   * credential too (an echo cut by the server, or a slice taken by a check), and secret-named
   * values hidden.
   */
  evidence(input: string): string {
    // Whole values first (credentials keep their placeholders), then values hidden where they
    // stand, then whatever piece of a credential is left.
    return this.hidePieces(hideLocalSecrets(this.text(input)));
  }

  private hidePieces(input: string): string {
    const { pieces } = this.compile();
    if (pieces.length === 0 || input.length < FRAGMENT) return input;
    let marks: Array<[number, number, string]> | undefined;
    for (const { form, replacement } of pieces) {
      for (let at = input.indexOf(form); at >= 0; at = input.indexOf(form, at + 1))
        (marks ??= []).push([at, at + FRAGMENT, replacement]);
    }
    if (!marks) return input;
    marks.sort((a, b) => a[0] - b[0]);
    let out = '';
    let pos = 0;
    for (let i = 0; i < marks.length;) {
      const [start, , replacement] = marks[i]!;
      let end = marks[i]![1];
      for (i++; i < marks.length && marks[i]![0] <= end; i++) end = Math.max(end, marks[i]![1]);
      out += `${input.slice(pos, start)}${replacement}`;
      pos = end;
    }
    return out + input.slice(pos);
  }

  /**
   * Redacts, then cuts to `max` characters: a secret is replaced before the cut, and whatever the
   * cut leaves at the end that could begin a secret (a piece of a credential, an open secret field)
   * is hidden too. Returns the text and whether it was cut.
   */
  clip(input: string, max: number): { text: string; cut: boolean } {
    // A window a little longer than `max` is enough: every secret is shorter than the margin.
    const window = input.length > max + MAX_SECRET_LENGTH ? input.slice(0, max + MAX_SECRET_LENGTH) : input;
    const redacted = this.evidence(window);
    if (redacted.length <= max && window.length === input.length) return { text: redacted, cut: false };
    return { text: this.trimPartial(redacted.slice(0, max)), cut: true };
  }

  /** Hides a trailing start of a known secret or of a secret-named field's value left by a cut. */
  trimPartial(text: string): string {
    let out = text.replace(OPEN_FIELD, (m, head: string, value: string) =>
      isPlaceholder(value) ? m : `${head}${REDACTED}`,
    );
    for (const secret of this.known()) {
      for (let n = Math.min(secret.length - 1, out.length); n >= MIN_CREDENTIAL; n--) {
        if (out.endsWith(secret.slice(0, n))) {
          out = `${out.slice(0, out.length - n)}${REDACTED}`;
          break;
        }
      }
    }
    return out;
  }
}

/** The values at a JSON Pointer with `*` for every array item (at most 100 at each step). */
export function valuesAt(json: unknown, pointer: string): unknown[] {
  let nodes: unknown[] = [json];
  for (const part of pointer.split('/').slice(1)) {
    const next: unknown[] = [];
    for (const node of nodes) {
      if (part === '*' && Array.isArray(node)) next.push(...node.slice(0, 100));
      else if (node && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, part))
        next.push((node as Record<string, unknown>)[part]);
    }
    nodes = next.slice(0, 100);
  }
  return nodes;
}
