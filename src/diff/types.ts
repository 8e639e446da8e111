import { RULES, type Level, type Party, type RuleId } from './rules.js';

/** One classified change between two versions of the contract; plain data, as --format json prints it. */
export interface Change {
  id: RuleId;
  level: Level;
  breaks: Party[];
  /** `METHOD /path` as HEAD spells it (BASE for a removed operation); empty for a document-wide change. */
  operation: string;
  /** JSON Pointer into the dereferenced document (HEAD, or BASE for what HEAD no longer has). */
  pointer: string;
  message: string;
}

export interface DiffSummary {
  breaking: number;
  warning: number;
  info: number;
}

/** A loaded, dereferenced OpenAPI document as plain JSON. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Collects changes; the rule table supplies level and breaks. */
export class ChangeSink {
  readonly changes: Change[] = [];
  emit(id: RuleId, operation: string, pointer: string, message: string): void {
    const rule = RULES[id];
    this.changes.push({ id, level: rule.level, breaks: [...rule.breaks], operation, pointer, message });
  }
}

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why a header name spelt in another case is no change (RFC 9110 §5.1): the end of that change's message. */
export const SAME_ON_THE_WIRE = ' (header names are case-insensitive: the wire is the same)';

/** Escapes one JSON Pointer segment. */
export const seg = (key: string | number): string => String(key).replace(/~/g, '~0').replace(/\//g, '~1');

export interface CanonicalOptions {
  /** Sort array members too (for a catch-all comparison where order carries no meaning). */
  unordered?: boolean;
  /** Members left out wherever they occur (e.g. `schema`, compared by the schema rules). */
  skip?: ReadonlySet<string>;
}

/** JSON with object keys sorted, so that key order never counts as a change; cycles print as "[cycle]". */
export function canonical(value: unknown, options: CanonicalOptions = {}, stack: unknown[] = []): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (stack.includes(value)) return '"[cycle]"';
  stack.push(value);
  let out: string;
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v, options, stack));
    out = `[${(options.unordered ? items.sort() : items).join(',')}]`;
  } else {
    out = `{${Object.keys(value)
      .filter((k) => !options.skip?.has(k))
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], options, stack)}`)
      .join(',')}}`;
  }
  stack.pop();
  return out;
}

export const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);
