/**
 * The reporters' second line of defence against leaked secrets. The runner already replaces
 * credentials with placeholders when it records an exchange; this pass runs again over the model
 * and over every rendered output (JSON, JUnit, HTML, console, GitHub summary), so a secret that
 * slipped through (an echoed Authorization header, a regenerated `key`, an invite `token`) is
 * never written anywhere.
 */

export const REDACTED = '[REDACTED]';

/** Field and header names whose string values are secrets (case-insensitive, whole name). */
const SECRET_NAME = /^(?:(?:[\w-]*[_-])?(?:token|key|secret|password|apikey)|authorization|proxy-authorization|cookie|set-cookie|x-user-id|x-api-key|user_?id)$/i;
const SECRET_NAME_SRC = '(?:[\\w-]*[_-])?(?:token|key|secret|password|apikey)|authorization|proxy-authorization|cookie|set-cookie|x-user-id|x-api-key|user_?id';

/** Values that are already placeholders and must stay readable: $VAPC_API_KEY, ${VAPC_USER_ID}, [REDACTED], <redacted>, ***. */
const PLACEHOLDER = /^(?:(?:bearer|basic)\s+)?(?:\$\{?[A-Z][A-Z0-9_]*\}?|\[REDACTED\]|<redacted>|&lt;redacted&gt;|\*{3,})$/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

function isPlaceholder(value: string): boolean {
  const v = value.trim();
  // A scheme word alone is no credential: curl lines quote it apart from the placeholder,
  // as in -H 'authorization: Bearer '"$VAPC_API_KEY".
  return PLACEHOLDER.test(v) || /^(?:bearer|basic|token)$/i.test(v);
}

/** Keeps an auth scheme word (Bearer/Basic) readable and hides the credential after it. */
function hideCredential(value: string): string {
  if (isPlaceholder(value)) return value;
  const scheme = /^(\s*(?:bearer|basic|token)\s+)/i.exec(value);
  return scheme ? `${scheme[1]}${REDACTED}` : REDACTED;
}

/** A bare `Bearer xyz` counts as a secret when xyz looks like a credential rather than a word. */
function looksLikeCredential(token: string): boolean {
  return /[0-9\-._~+/=]/.test(token) || token.length >= 16;
}

// "name": "value" in JSON, JSON inside a JSON string (\"), and HTML-escaped JSON (&quot; / &#34;).
const FIELD_FORMS = ['\\\\"', '&quot;', '&#34;', '&#x22;', '"'].map(
  (q) => new RegExp(`(${q})(${SECRET_NAME_SRC})${q}(\\s*:\\s*)${q}((?:(?!${q})[^\\r\\n])*?)${q}`, 'gi'),
);
// Header lines as in curl -H 'Authorization: Bearer x', raw HTTP, or console output: the value is
// an optional auth scheme and one token (quotes, entities and whitespace end it).
const HEADER_LINE = /\b(authorization|proxy-authorization|x-user-id|x-api-key)(\s*:[ \t]*)((?:(?:bearer|basic|token)[ \t]+)?(?:(?!&quot;|&#34;|&#39;|&apos;|&lt;|&gt;|&amp;|\\")[^\s'"<>`,;])+)/gi;
// Cookies: everything up to the end of the line or a quote.
const COOKIE_LINE = /\b(cookie|set-cookie)(\s*:[ \t]*)((?:(?!&quot;|&#34;|&#39;|&apos;|&lt;|\\")[^\r\n'"<`])+)/gi;
// Query parameters such as ?api_key=... or &token=...
const QUERY_PARAM = /([?&](?:amp;)?)((?:[\w-]*[_-])?(?:token|key|secret|password|apikey))=([^&#\s'"<>]+)/gi;
// A bare bearer credential anywhere.
const BEARER = /\b(bearer)(\s+)([A-Za-z0-9\-._~+/]+=*)/gi;

function escapedForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const html = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
  return [...new Set([secret, json, html, encodeURIComponent(secret)])];
}

/**
 * Redacts secret-looking values in any text (JSON, XML, HTML, console, curl lines).
 * `secrets` are literal values known to be secret (the API key, the user id); values shorter
 * than 6 characters are left to the pattern rules, so short ids do not mangle unrelated text.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < 6) continue;
    for (const form of escapedForms(secret)) out = out.split(form).join(REDACTED);
  }
  for (const form of FIELD_FORMS) {
    out = out.replace(form, (m, q: string, name: string, colon: string, value: string) =>
      isPlaceholder(value) || value === '' ? m : `${q}${name}${q}${colon}${q}${hideCredential(value)}${q}`,
    );
  }
  const header = (m: string, name: string, colon: string, value: string) => {
    const trimmed = value.replace(/\s+$/, '');
    const tail = value.slice(trimmed.length);
    return isPlaceholder(trimmed) ? m : `${name}${colon}${hideCredential(trimmed)}${tail}`;
  };
  out = out.replace(HEADER_LINE, header).replace(COOKIE_LINE, header);
  out = out.replace(QUERY_PARAM, (m, sep: string, name: string, value: string) =>
    isPlaceholder(decodeSafe(value)) ? m : `${sep}${name}=${REDACTED}`,
  );
  out = out.replace(BEARER, (m, word: string, space: string, token: string) =>
    token === 'REDACTED' || !looksLikeCredential(token) ? m : `${word}${space}${REDACTED}`,
  );
  return out;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * A deep copy of any JSON-like value with secret fields hidden: string values under secret names
 * (authorization, x-user-id, token, key, api_key, ...) become [REDACTED] unless already a
 * placeholder, and every other string goes through `redactText` (bodies, curl lines, messages).
 */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  const walk = (v: unknown, name?: string): unknown => {
    if (typeof v === 'string') {
      if (name !== undefined && isSecretName(name) && v !== '') return hideCredential(v);
      return redactText(v, secrets);
    }
    if (Array.isArray(v)) return v.map((item) => walk(item));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) out[k] = walk(child, k);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/** A harvested value is scrubbed everywhere only when it cannot be ordinary text. */
function worthScrubbing(value: string): boolean {
  return value.length >= 6 && !/\s/.test(value) && /[A-Za-z0-9]/.test(value) && !isPlaceholder(value);
}

function credentialPart(value: string): string {
  return value.trim().replace(/^(?:bearer|basic|token)\s+/i, '');
}

/**
 * Collects the secret values a report carries in recognisable places (secret-named fields and
 * headers, `"token": ...` inside body text, Authorization lines, bearer credentials, secret query
 * parameters), so that the same values can then be scrubbed wherever else they appear, e.g. a
 * regenerated key quoted in a message.
 */
export function harvestSecrets(value: unknown): string[] {
  const found = new Set<string>();
  const add = (v: string) => {
    const c = credentialPart(v);
    if (worthScrubbing(c)) found.add(c);
  };
  const scanText = (s: string) => {
    for (const form of FIELD_FORMS) for (const m of s.matchAll(form)) add(m[4] ?? '');
    for (const m of s.matchAll(HEADER_LINE)) add(m[3] ?? '');
    for (const m of s.matchAll(QUERY_PARAM)) add(decodeSafe(m[3] ?? ''));
    for (const m of s.matchAll(BEARER)) if (looksLikeCredential(m[3] ?? '')) add(m[3] ?? '');
    const t = s.trim();
    if ((t.startsWith('{') || t.startsWith('[')) && t.length < 1_000_000) {
      try {
        walk(JSON.parse(t));
      } catch {
        // not JSON
      }
    }
  };
  const walk = (v: unknown, name?: string): void => {
    if (typeof v === 'string') {
      if (name !== undefined && isSecretName(name)) add(v);
      else scanText(v);
    } else if (Array.isArray(v)) {
      for (const item of v) walk(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) walk(child, k);
    }
  };
  walk(value);
  return [...found];
}

/**
 * The full second line of defence for a report: harvests the secrets it carries, adds the known
 * ones, and returns a redacted copy plus the secret list to scrub rendered text with.
 */
export function redactReport<T>(report: T, known: readonly string[] = []): { report: T; secrets: string[] } {
  const secrets = [...new Set([...known.filter((s) => typeof s === 'string' && s.length >= 6), ...harvestSecrets(report)])].sort(
    (a, b) => b.length - a.length,
  );
  return { report: redactValue(report, secrets), secrets };
}
