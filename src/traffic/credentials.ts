/**
 * The credentials a recording carries, fed to the run's `Secrets` before its exchange is judged, so
 * that nothing rendered later (a failure's request, a curl line, a message, a report file, a line of
 * the console) holds one: the bearer value and the user id of the spec's security schemes (as
 * $VAPC_API_KEY / $VAPC_USER_ID, as `vapc run` shows its own), any other Authorization or API key
 * header, every cookie, the values of secret-named fields in either body (token, key, secret,
 * password) and the contract's x-secret fields of a success answer. The recording is the user's own
 * traffic, so its values are trusted as secrets (unlike a server's lesson: src/secrets); they are
 * capped, and a recording past the cap is refused rather than shown half-scrubbed.
 */
import { isSecretName, MAX_RECORDED, valuesAt, type Secrets } from '../secrets/index.js';
import { secretResponsePointers, type Operation, type SpecModel } from '../spec/model.js';
import type { Exchange } from '../transport/types.js';
import { RecordingError } from './exchange.js';

/** How deep and wide a body is walked for secret-named fields. */
const BODY_DEPTH = 8;
const BODY_NODES = 2_000;

/** A secret-named JSON member in a body's text (the same names as src/secrets): the body is parsed only then. */
const SECRET_MEMBER =
  /"(?:[\w-]*[_-])?(?:token|key|secret|password|apikey|authorization|cookie|x-user-id|x-api-key)"\s*:/i;

/** Secret-named fields of a JSON body, bounded: their string values. */
function secretFields(text: string | undefined, json?: unknown): string[] {
  if (text === undefined || !SECRET_MEMBER.test(text)) return [];
  let value = json;
  if (value === undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      return [];
    }
  }
  const out: string[] = [];
  let level: unknown[] = [value];
  let nodes = 0;
  for (let depth = 0; depth < BODY_DEPTH && level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const node of level) {
      if (++nodes > BODY_NODES) return out;
      if (Array.isArray(node)) next.push(...node.slice(0, BODY_NODES));
      else if (node !== null && typeof node === 'object') {
        for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
          if (typeof v === 'string' && isSecretName(k)) out.push(v);
          else if (v !== null && typeof v === 'object') next.push(v);
        }
      }
    }
    level = next;
  }
  return out;
}

/** The values of a Cookie or Set-Cookie header. */
function cookieValues(header: string | undefined, set: boolean): string[] {
  if (header === undefined) return [];
  const pairs = set ? header.split(/,(?=\s*[^;,=\s]+=)/).map((c) => c.split(';')[0]!) : header.split(';');
  return pairs.map((p) => p.slice(p.indexOf('=') + 1).trim()).filter((v) => v !== '');
}

const afterScheme = (value: string): string => value.replace(/^\s*(?:bearer|basic|token|digest)\s+/i, '').trim();

/** Learns the credentials of each exchange of a recording into one `Secrets`. */
export class CredentialLearner {
  private readonly seen = new Set<string>();
  private readonly bearerHeaders: string[];
  private readonly userIdHeaders: string[];

  constructor(
    private readonly secrets: Secrets,
    spec: Pick<SpecModel, 'securitySchemes'>,
    private readonly max = MAX_RECORDED,
  ) {
    this.bearerHeaders = spec.securitySchemes
      .filter((s) => s.credential === 'bearer')
      .map((s) => s.header.toLowerCase());
    this.userIdHeaders = spec.securitySchemes
      .filter((s) => s.credential === 'userId')
      .map((s) => s.header.toLowerCase());
  }

  private readonly pointers = new Map<Operation, string[]>();

  private pointersOf(op: Operation): string[] {
    let found = this.pointers.get(op);
    if (!found) this.pointers.set(op, (found = secretResponsePointers(op)));
    return found;
  }

  private add(value: string, kind: 'apiKey' | 'userId' | 'other', where: string): void {
    if (value === '' || this.seen.has(value)) return;
    this.seen.add(value);
    if (this.seen.size > this.max)
      throw new RecordingError(
        where,
        `more than ${this.max} distinct credentials in the recording: too many to keep out of the reports (split the recording)`,
      );
    if (kind === 'apiKey') this.secrets.addApiKey(value);
    else if (kind === 'userId') this.secrets.addUserId(value);
    else this.secrets.addRecorded(value);
  }

  /** The credentials of the contract's security schemes the exchange was sent with: the ones "in use" for its judges. */
  credentialsOf(exchange: Exchange): { apiKey?: string; userId?: string } {
    const headers = exchange.request.headers;
    const out: { apiKey?: string; userId?: string } = {};
    const bearer = this.bearerHeaders.map((h) => headers[h]).find((v) => v !== undefined);
    const userId = this.userIdHeaders.map((h) => headers[h]).find((v) => v !== undefined);
    if (bearer !== undefined && /^\s*bearer\s+/i.test(bearer)) out.apiKey = afterScheme(bearer);
    if (userId !== undefined) out.userId = userId.trim();
    return out;
  }

  /** Learns what one exchange carries; `op` (when it is one of the contract's) names its x-secret fields. */
  learn(exchange: Exchange, op: Operation | undefined, where: string): void {
    const headers = exchange.request.headers;
    for (const name of this.bearerHeaders)
      if (headers[name] !== undefined) this.add(afterScheme(headers[name]), 'apiKey', where);
    for (const name of this.userIdHeaders)
      if (headers[name] !== undefined) this.add(headers[name].trim(), 'userId', where);
    for (const [name, value] of Object.entries(headers)) {
      if (name === 'cookie') for (const v of cookieValues(value, false)) this.add(v, 'other', where);
      else if (isSecretName(name) && !this.bearerHeaders.includes(name) && !this.userIdHeaders.includes(name))
        this.add(afterScheme(value), 'other', where);
    }
    for (const v of secretFields(exchange.request.body)) this.add(v, 'other', where);
    const res = exchange.response;
    if (!res) return;
    for (const v of cookieValues(res.headers['set-cookie'], true)) this.add(v, 'other', where);
    if (res.truncated) return;
    const pointers = op && res.status >= 200 && res.status < 300 ? this.pointersOf(op) : [];
    if (pointers.length === 0 && !SECRET_MEMBER.test(res.text)) return;
    const json = res.json;
    if (json === undefined) return;
    for (const v of secretFields(res.text, json)) this.add(v, 'other', where);
    for (const pointer of pointers)
      for (const v of valuesAt(json, pointer)) if (typeof v === 'string') this.add(v, 'other', where);
  }
}
