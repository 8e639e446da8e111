/**
 * JSON Pointer access and deep copies of the JSON values the generators build. The schema helpers
 * live in src/spec/schema.ts (the reference server reads them too) and are re-exported here for the
 * generators' callers.
 */

export {
  JSON_TYPES,
  enumOf,
  fieldsOf,
  flatten,
  isProviderId,
  itemsOf,
  jsonTypeOf,
  nonNull,
  propertiesOf,
  providerIdFields,
  toPointer,
  typesOf,
  unspecifiedOf,
  type FieldInfo,
  type JsonType,
} from '../spec/schema.js';

import type { JsonSchema, Operation } from '../spec/model.js';
import { fieldsOf } from '../spec/schema.js';

/** Where a value is sent: a query or path parameter, or a body field (nested ones by their `loc`). */
export type ValueLocation = 'query' | 'path' | 'body';

/**
 * Every query and path parameter and body field (nested ones included) of an operation, in that
 * order, each offered to `pick`, which returns the target it makes of it or undefined to leave it
 * out. The numeric and the string edges walk an operation the same way.
 */
export function operationTargets<T>(
  op: Operation,
  pick: (location: ValueLocation, name: string, loc: Array<string | number>, schema: JsonSchema) => T | undefined,
): T[] {
  const out: T[] = [];
  for (const p of op.parameters) {
    if (p.in !== 'query' && p.in !== 'path') continue;
    const t = pick(p.in, p.name, [p.name], p.schema);
    if (t !== undefined) out.push(t);
  }
  for (const f of op.requestBody ? fieldsOf(op.requestBody.schema) : []) {
    const t = pick('body', f.field, f.loc, f.schema);
    if (t !== undefined) out.push(t);
  }
  return out;
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function getPointer(value: unknown, pointer: string): unknown {
  let current = value;
  for (const part of parsePointer(pointer)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * A deep copy, as `structuredClone` makes it, of the JSON-shaped values generators and parsed
 * bodies are made of: plain objects and arrays are copied member by member (an own `__proto__` key
 * stays an own key), primitives are shared, anything else (a Date, a Map, a class instance) goes
 * through `structuredClone`. structuredClone's serialise/deserialise round trip cost more than the
 * rest of an invalid case's construction, once per generated case.
 */
export function cloneJson<T>(value: T, depth = 0): T {
  if (value === null || typeof value !== 'object') {
    // Primitives are immutable; what structuredClone refuses (functions, symbols) it still refuses.
    return typeof value === 'function' || typeof value === 'symbol' ? structuredClone(value) : value;
  }
  // Past any depth a body has, let structuredClone take the rest (it also copes with cycles).
  if (depth > 200) return structuredClone(value);
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return structuredClone(value);
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = cloneJson(value[i], depth + 1);
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = cloneJson((value as Record<string, unknown>)[key], depth + 1);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: member, enumerable: true, writable: true, configurable: true });
    else out[key] = member;
  }
  return out as T;
}

/** A deep copy of `value` with the member at `pointer` set (parents created as needed). */
export function setPointer<T>(value: T, pointer: string, replacement: unknown): T {
  const copy = cloneJson(value) as unknown;
  const parts = parsePointer(pointer);
  if (parts.length === 0) return replacement as T;
  let current = copy as Record<string, unknown>;
  parts.slice(0, -1).forEach((part, i) => {
    const next = current[part];
    if (next === null || typeof next !== 'object') {
      current[part] = /^\d+$/.test(parts[i + 1] ?? '') ? [] : {};
    }
    current = current[part] as Record<string, unknown>;
  });
  current[parts[parts.length - 1]!] = replacement;
  return copy as T;
}
