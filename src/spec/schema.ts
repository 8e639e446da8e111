/**
 * Helpers over the dereferenced JSON schemas of the spec: which JSON types a schema allows, its
 * fields, and the fields holding a telephony provider identifier. The generators, the suites and
 * the reference server all read the schemas through these.
 */
import { asRecord, type JsonSchema, type Operation } from './model.js';

export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';
export const JSON_TYPES: readonly JsonType[] = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];

/** Merges allOf members into one schema (properties and required lists joined). */
export function flatten(schema: JsonSchema): JsonSchema {
  const all = schema['allOf'] as JsonSchema[] | undefined;
  if (!all) return schema;
  const out: JsonSchema = { ...schema };
  delete out['allOf'];
  const properties: Record<string, unknown> = { ...asRecord(schema['properties']) };
  const required = new Set<string>((schema['required'] as string[] | undefined) ?? []);
  for (const member of all) {
    const flat = flatten(member);
    Object.assign(properties, asRecord(flat['properties']));
    for (const r of (flat['required'] as string[] | undefined) ?? []) required.add(r);
    if (flat['type'] && !out['type']) out['type'] = flat['type'];
  }
  out['properties'] = properties;
  if (required.size) out['required'] = [...required];
  return out;
}

/** The JSON types a schema allows (from `type`, `anyOf`/`oneOf` members, `enum`, `const`). */
export function typesOf(schema: JsonSchema): JsonType[] {
  const s = flatten(schema);
  const type = s['type'];
  if (typeof type === 'string') return [type as JsonType];
  if (Array.isArray(type)) return type as JsonType[];
  const alternatives = (s['anyOf'] ?? s['oneOf']) as JsonSchema[] | undefined;
  if (alternatives) return [...new Set(alternatives.flatMap(typesOf))];
  if (Array.isArray(s['enum'])) return [...new Set((s['enum'] as unknown[]).map(jsonTypeOf))];
  if (s['properties']) return ['object'];
  return [];
}

/** The schema without its `null` alternative (what a client sends for a present value). */
export function nonNull(schema: JsonSchema): JsonSchema {
  const s = flatten(schema);
  const alternatives = (s['anyOf'] ?? s['oneOf']) as JsonSchema[] | undefined;
  if (alternatives) {
    const kept = alternatives.filter((a) => !(typesOf(a).length === 1 && typesOf(a)[0] === 'null'));
    if (kept.length === 1) return nonNull(kept[0]!);
  }
  if (Array.isArray(s['type'])) {
    const kept = (s['type'] as string[]).filter((t) => t !== 'null');
    const out: JsonSchema = { ...s, type: kept.length === 1 ? kept[0] : kept };
    if (Array.isArray(s['enum'])) out['enum'] = (s['enum'] as unknown[]).filter((v) => v !== null);
    return out;
  }
  return s;
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

export function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  return asRecord(flatten(nonNull(schema))['properties']) as Record<string, JsonSchema>;
}

export function itemsOf(schema: JsonSchema): JsonSchema | undefined {
  const items = nonNull(schema)['items'];
  return items && typeof items === 'object' ? (items as JsonSchema) : undefined;
}

export function enumOf(schema: JsonSchema): unknown[] | undefined {
  const e = nonNull(schema)['enum'];
  return Array.isArray(e) ? e : undefined;
}

export function unspecifiedOf(schema: JsonSchema): string[] {
  return (schema['x-unspecified'] as string[] | undefined) ?? [];
}

/** A field of a request body: its JSON Pointer (array items as index 0) and schema. */
export interface FieldInfo {
  /** JSON Pointer into the body, e.g. `/speech_settings/style` or `/recipients/0/phone_number`. */
  pointer: string;
  /** The path as validation errors name it: `['speech_settings', 'style']`, `['recipients', 0, 'phone_number']`. */
  loc: Array<string | number>;
  field: string;
  schema: JsonSchema;
  /** Depth below the body's top level (0 = top-level field). */
  depth: number;
}

/** Every named field of an object schema, depth first, array items entered at index 0. */
export function fieldsOf(schema: JsonSchema, maxDepth = 3): FieldInfo[] {
  const out: FieldInfo[] = [];
  const walk = (s: JsonSchema, loc: Array<string | number>, depth: number): void => {
    if (depth > maxDepth) return;
    for (const [field, child] of Object.entries(propertiesOf(s))) {
      const childLoc = [...loc, field];
      out.push({ pointer: toPointer(childLoc), loc: childLoc, field, schema: child, depth });
      const types = typesOf(child);
      if (types.includes('object')) walk(child, childLoc, depth + 1);
      if (types.includes('array')) {
        const items = itemsOf(child);
        if (items && Object.keys(propertiesOf(items)).length) walk(items, [...childLoc, 0], depth + 1);
      }
    }
  };
  walk(schema, [], 0);
  return out;
}

export function toPointer(loc: Array<string | number>): string {
  return loc.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** A string schema holding one of the telephony provider identifiers (the contract does not name them). */
export function isProviderId(schema: JsonSchema): boolean {
  return unspecifiedOf(schema).some((u) => /provider identifiers/i.test(u));
}

/**
 * Body fields whose value is one of the two telephony provider identifiers (campaign `channel`):
 * a closed set the contract states but does not name, known to a run only through its fixtures.
 */
export function providerIdFields(op: Operation): FieldInfo[] {
  if (!op.requestBody) return [];
  return fieldsOf(op.requestBody.schema).filter(
    (f) => typesOf(f.schema).includes('string') && isProviderId(nonNull(f.schema)),
  );
}
