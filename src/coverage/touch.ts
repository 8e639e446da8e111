/**
 * Which cells one exchange touches: the operation it targets (method and path template), the
 * documented status it was answered with, the parameters and body fields it carried, the keyword
 * cells it probed (a value at or beyond a bound, a string off the pattern, a value outside the
 * enum or of the wrong type, a required input left out), the enum values it sent, and the
 * credentials it left out or replaced. Reads the request as it went over the wire; keeps no value.
 */
import { parsePathTemplate, pathPattern } from '../spec/path-template.js';
import { jsonTypeOf, type JsonType } from '../spec/schema.js';
import type { CellDef, InputSlot, OperationUniverse, Universe } from './universe.js';

/** The parts of an exchange coverage reads (src/transport's Exchange fits). */
/** The run's own credentials at the time of the exchange (a rotated key included). */
export interface CoverageCredentials {
  apiKey?: string;
  userId?: string;
}

export interface ExchangeFacts {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  /** Header names lower-cased, as the transport gives them. */
  response?: { status: number; json?: unknown; headers?: Record<string, string> };
}

/** An input's values in one request: `present` false when it was left out. */
interface Values {
  present: boolean;
  values: unknown[];
  /** No JSON object body to look in (none, malformed, an array): a body field's absence says nothing. */
  unknown?: boolean;
}

const ABSENT: Values = { present: false, values: [] };

export function operationMatcher(
  universe: Universe,
): (method: string, pathname: string) => OperationUniverse | undefined {
  // Per method, the most literal template first (`/campaign/new` before `/campaign/{id}`); a stable
  // sort keeps the universe's order among equally literal ones, so the first match is the one wanted.
  const byMethod = new Map<string, Array<{ o: OperationUniverse; re: RegExp; literal: number }>>();
  for (const o of universe.operations) {
    const list = byMethod.get(o.operation.method) ?? [];
    const literal = parsePathTemplate(o.operation.path).literals.join('').length;
    list.push({ o, re: pathPattern(o.operation.path, { anchored: false, emptyParams: false }), literal });
    byMethod.set(o.operation.method, list);
  }
  for (const list of byMethod.values()) list.sort((a, b) => b.literal - a.literal);
  return (method, pathname) => byMethod.get(method.toUpperCase())?.find((c) => c.re.test(pathname))?.o;
}

/** The documented status key an answer falls under: the exact code, else its `4XX` range, else `default`. */
export function documentedStatus(statuses: readonly string[], status: number): string | undefined {
  const exact = String(status);
  return [exact, `${exact.charAt(0)}XX`, `${exact.charAt(0)}xx`, 'default'].find((k) => statuses.includes(k));
}

/** Values at `loc` in a JSON body (a number segment walks every item of the array). */
function bodyValues(body: unknown, loc: ReadonlyArray<string | number>): Values {
  let level: unknown[] = [body];
  for (const segment of loc) {
    const next: unknown[] = [];
    for (const v of level) {
      if (typeof segment === 'number') {
        if (Array.isArray(v)) next.push(...v);
      } else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, segment)) {
        next.push((v as Record<string, unknown>)[segment]);
      }
    }
    if (next.length === 0) return ABSENT;
    level = next;
  }
  return { present: true, values: level };
}

interface ParsedRequest {
  url: URL;
  pathValues: Map<string, string>;
  headers: Record<string, string>;
  /** The JSON body, parsed when a body slot is first read (undefined: none, or not JSON). */
  body: () => { value: unknown; isObject: boolean };
}

function valuesOf(slot: InputSlot, req: ParsedRequest): Values {
  const name = String(slot.loc[0]);
  switch (slot.location) {
    case 'query': {
      const all = req.url.searchParams.getAll(name);
      return all.length > 0 ? { present: true, values: all } : ABSENT;
    }
    case 'path': {
      const v = req.pathValues.get(name);
      return v === undefined ? ABSENT : { present: true, values: [v] };
    }
    case 'header': {
      const v = req.headers[name.toLowerCase()];
      return v === undefined ? ABSENT : { present: true, values: [v] };
    }
    case 'body': {
      const body = req.body();
      return body.isObject ? bodyValues(body.value, slot.loc) : { ...ABSENT, unknown: true };
    }
    default:
      return ABSENT;
  }
}

/** A text value as the type it stands for (query, path and header values arrive as text). */
function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

function textTypeMatches(text: string, types: readonly JsonType[]): boolean {
  if (types.includes('string')) return true;
  if ((types.includes('integer') && /^-?\d+$/.test(text)) || (types.includes('number') && asNumber(text) !== undefined))
    return true;
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return true;
  return types.includes('null') && (text === '' || text === 'null');
}

function typeMatches(slot: InputSlot, value: unknown): boolean {
  if (slot.location !== 'body') return textTypeMatches(String(value), slot.types);
  const t = jsonTypeOf(value);
  return slot.types.includes(t) || (t === 'integer' && slot.types.includes('number'));
}

function lengthOf(value: unknown): number | undefined {
  if (typeof value === 'string') return [...value].length;
  return Array.isArray(value) ? value.length : undefined;
}

/** Compiled cell patterns (null: not a valid expression), compiled once per process. */
const compiledPatterns = new Map<string, RegExp | null>();

function patternMisses(pattern: string, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  let re = compiledPatterns.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    compiledPatterns.set(pattern, re);
  }
  return re !== null && !re.test(value);
}

/** Whether the values probe the keyword: at or beyond a bound, off the pattern, outside the enum, of another type. */
function probes(def: CellDef, slot: InputSlot, v: Values): boolean {
  const bound = def.bound as number;
  const some = (test: (x: unknown) => boolean) => v.values.some(test);
  switch (def.keyword) {
    case 'required':
      return !v.present && !v.unknown;
    case 'minimum':
    case 'exclusiveMinimum':
      return some((x) => (asNumber(x) ?? Infinity) <= bound);
    case 'maximum':
    case 'exclusiveMaximum':
      return some((x) => (asNumber(x) ?? -Infinity) >= bound);
    case 'minLength':
    case 'minItems':
      return some((x) => (lengthOf(x) ?? Infinity) <= bound);
    case 'maxLength':
    case 'maxItems':
      return some((x) => (lengthOf(x) ?? -Infinity) >= bound);
    case 'pattern':
      return some((x) => patternMisses(String(def.bound), x));
    case 'enum': {
      const allowed = (slot.schema['enum'] as unknown[] | undefined) ?? [];
      return some((x) => !allowed.some((a) => a === x || (slot.location !== 'body' && String(a) === x)));
    }
    case 'type':
      return some((x) => !typeMatches(slot, x));
    default:
      return false;
  }
}

function parseRequest(ex: ExchangeFacts, op: OperationUniverse, url: URL): ParsedRequest {
  const pathname = url.pathname;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(ex.request.headers)) headers[k.toLowerCase()] = v;
  const pathValues = new Map<string, string>();
  const { names } = parsePathTemplate(op.operation.path);
  const m = pathPattern(op.operation.path, { anchored: false, emptyParams: false }).exec(pathname);
  names.forEach((n, i) => {
    const raw = m?.[i + 1];
    if (raw !== undefined) pathValues.set(n, safeDecode(raw));
  });
  let parsed: { value: unknown; isObject: boolean } | undefined;
  const body = () => (parsed ??= parseBody(ex.request.body));
  return { url, pathValues, headers, body };
}

function parseBody(text: string | undefined): { value: unknown; isObject: boolean } {
  let value: unknown;
  try {
    value = text !== undefined && text !== '' ? JSON.parse(text) : undefined;
  } catch {
    value = undefined;
  }
  return { value, isObject: value !== null && typeof value === 'object' && !Array.isArray(value) };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The credential a request sent in place of the run's own (or left out): what the auth suite probes. */
function securityProbed(
  def: CellDef,
  headers: Record<string, string>,
  credentials: CoverageCredentials | undefined,
): boolean {
  const sent = headers[(def.header ?? '').toLowerCase()];
  if (sent === undefined) return true;
  if (!credentials) return false;
  if (def.credential === 'bearer') return credentials.apiKey !== undefined && sent !== `Bearer ${credentials.apiKey}`;
  return credentials.userId !== undefined && sent !== credentials.userId;
}

export interface Touch {
  operation: string;
  status?: number;
  /** The documented status key it fell under; undefined with a status: undocumented. */
  documented?: string;
  cells: string[];
  /** The path parameter values as sent (decoded): the log asks whether the server ever handed them out. Never logged. */
  pathValues: string[];
}

/** The cells one exchange touches, or undefined when it targets no operation of the spec. */
export function touchedCells(
  universe: Universe,
  ex: ExchangeFacts,
  credentials?: CoverageCredentials,
  match = operationMatcher(universe),
): Touch | undefined {
  const url = new URL(ex.request.url, 'http://coverage.invalid');
  const op = match(ex.request.method, url.pathname);
  if (!op) return undefined;
  const req = parseRequest(ex, op, url);
  const status = ex.response?.status;
  const documented = status === undefined ? undefined : documentedStatus(op.statuses, status);
  const cells: string[] = [];
  const valuesBySlot = new Map<InputSlot, Values>();
  for (const def of op.cells) {
    let hit = false;
    // A header cell only through an answer that carries the header (an absent one that failed is
    // credited from the failure's own field: compute.ts).
    if (def.status !== undefined)
      hit =
        documented === def.status &&
        (def.responseHeader === undefined || ex.response?.headers?.[def.responseHeader] !== undefined);
    else if (def.credential !== undefined) hit = securityProbed(def, req.headers, credentials);
    else if (def.slot) {
      let v = valuesBySlot.get(def.slot);
      if (!v) valuesBySlot.set(def.slot, (v = valuesOf(def.slot, req)));
      if (def.dimension === 'parameter') hit = v.present;
      else if (def.dimension === 'enum')
        hit = v.values.some((x) => x === def.bound || (def.slot!.location !== 'body' && x === String(def.bound)));
      else hit = probes(def, def.slot, v);
    }
    if (hit) cells.push(def.key);
  }
  const touch: Touch = { operation: op.label, cells, pathValues: [...req.pathValues.values()] };
  if (status !== undefined) touch.status = status;
  if (documented !== undefined) touch.documented = documented;
  return touch;
}
