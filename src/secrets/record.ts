import type { RecordedRequest, RecordedResponse } from '../results/model.js';
import type { Exchange, HttpResponse, WireRequest } from '../transport/types.js';
import { REDACTED, isPlaceholder, isSecretName, type Secrets } from './index.js';

/** Response bodies kept in a report are cut at this many characters (after redaction). */
export const MAX_RECORDED_BODY = 4096;
/** Header values kept in a report are cut at this many characters. */
const MAX_HEADER_VALUE = 1024;
/** A JSON value shown in a report (a generated input) is walked at most this deep and wide. */
const MAX_DEPTH = 32;
const MAX_NODES = 5000;

function headers(secrets: Secrets, input: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) {
    const text = secrets.clip(value, MAX_HEADER_VALUE).text;
    // Cookies a server sets are its secrets, not evidence vapc needs: hidden where they stand.
    out[name] = /^set-cookie$/i.test(name) ? REDACTED : text;
  }
  return out;
}

/** The request as sent, secrets as placeholders. */
export function recordRequest(secrets: Secrets, wire: WireRequest): RecordedRequest {
  const out: RecordedRequest = {
    method: wire.method,
    url: secrets.evidence(wire.url),
    headers: headers(secrets, wire.headers),
  };
  if (wire.body !== undefined) out.body = secrets.evidence(wire.body);
  return out;
}

/** The response as received: headers and body redacted first, then cut (the body at 4 KiB). */
export function recordResponse(
  secrets: Secrets,
  response: HttpResponse,
  durationMs: number,
  maxChars = MAX_RECORDED_BODY,
): RecordedResponse {
  const out: RecordedResponse = {
    status: response.status,
    headers: headers(secrets, response.headers),
    duration_ms: Math.round(durationMs),
  };
  if (response.text !== '') {
    const body = secrets.clip(response.text, maxChars);
    out.body = body.text;
    if (body.cut) out.truncated = true;
  }
  if (response.truncated) out.truncated = true;
  return out;
}

/**
 * A JSON value fit for a report (a generated input): strings redacted, secret-named fields hidden,
 * and the walk bounded in depth and size so a pathological value costs little.
 */
export function redactValue(secrets: Secrets, input: unknown): unknown {
  let nodes = 0;
  const walk = (v: unknown, depth: number, name?: string): unknown => {
    if (++nodes > MAX_NODES || depth > MAX_DEPTH) return '[cut]';
    if (typeof v === 'string')
      return name !== undefined && isSecretName(name) && !isPlaceholder(v) ? REDACTED : secrets.evidence(v);
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) out[k] = walk(child, depth + 1, k);
      return out;
    }
    return v;
  };
  return walk(input, 0);
}

/**
 * A curl line that reproduces the exchange's request, secrets as placeholders. When the server
 * answered in a content coding (gzip, br...) the line has `--compressed`, so that curl prints the
 * answer decoded rather than as binary (it then also sends an Accept-Encoding header).
 */
export function curlOf(secrets: Secrets, exchange: Pick<Exchange, 'request' | 'response'>): string {
  const coding = exchange.response?.headers['content-encoding']?.trim().toLowerCase();
  return toCurl(recordRequest(secrets, exchange.request), {
    compressed: coding !== undefined && coding !== '' && coding !== 'identity',
  });
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * Shell-quotes a value, keeping $VAPC_* placeholders expandable. A value with control characters
 * is written in ANSI-C quoting ($'...\x1b...'), so the line stays one line and sends exactly
 * the same bytes.
 */
function shellQuote(value: string): string {
  // An empty value is still one argument: `--data-raw` with nothing after it breaks the line.
  if (value === '') return "''";
  if (/^[A-Za-z0-9_\-./:=@%+,]+$/.test(value)) return value;
  const parts = value.split(/(\$VAPC_[A-Z_]+)/);
  return parts
    .filter((p) => p !== '')
    .map((p) => (/^\$VAPC_[A-Z_]+$/.test(p) ? `"${p}"` : CONTROL.test(p) ? ansiC(p) : `'${p.replace(/'/g, `'\\''`)}'`))
    .join('');
}

function ansiC(p: string): string {
  const body = p.replace(/[\\']|[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (ch) => {
    if (ch === '\\' || ch === "'") return `\\${ch}`;
    const code = ch.charCodeAt(0);
    const named: Record<number, string> = { 9: '\\t', 10: '\\n', 13: '\\r' };
    if (named[code]) return named[code]!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return `$'${body}'`;
}

/** Renders a recorded (already redacted) request as one curl line. */
export function toCurl(request: RecordedRequest, options: { compressed?: boolean } = {}): string {
  const parts = ['curl', '-sS', '-i', ...(options.compressed ? ['--compressed'] : []), '-X', request.method];
  parts.push(shellQuote(request.url));
  for (const [k, v] of Object.entries(request.headers)) parts.push('-H', shellQuote(`${k}: ${v}`));
  if (request.body !== undefined) parts.push('--data-raw', shellQuote(request.body));
  return parts.join(' ');
}
