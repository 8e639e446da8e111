/**
 * Invalid inputs that break exactly one stated constraint of the spec at a time: a wrong JSON type
 * for one field, a value outside an enum, a number below a minimum or above a maximum, malformed
 * JSON text, a non-integer string for an integer query parameter. Everything is read from the
 * schemas and `spec.bounds()`.
 *
 * Framework leniency is respected: outside strict-types mode no wrong value is one that mainstream
 * frameworks coerce by design: "5" for an integer, "true" for a boolean, null for an optional field
 * read as absent (the issue's list; pydantic v2's lax mode, zod and Joi with conversion agree).
 * None of them takes 5 for a string, 2.5 for an integer or [] for an object, so those are tried.
 */
import fc from 'fast-check';
import type { JsonSchema, NumericBound, Operation } from '../spec/model.js';
import { enumOf, fieldsOf, nonNull, setPointer, typesOf, type FieldInfo, type JsonType } from './schema.js';

export type InvalidKind =
  | 'wrong-type'
  | 'enum'
  | 'below-minimum'
  | 'above-maximum'
  | 'malformed-json'
  | 'non-integer-query'
  | 'numeric-edge'
  | 'string-edge';

export interface InvalidCase {
  kind: InvalidKind;
  /** Where the fault is: the first item of a FastAPI-style `loc`. */
  location: 'body' | 'query' | 'path';
  /** The faulty member, as a validation error names it after the location: `['speech_settings', 'style']`. */
  loc: Array<string | number>;
  field: string;
  /** The invalid value put at `loc` (absent for malformed JSON). */
  value?: unknown;
  /** The JSON body to send (absent for malformed JSON and query cases). */
  body?: unknown;
  /** Body text for malformed JSON. */
  rawBody?: string;
  /** Query to send, for query cases. */
  query?: Array<[string, string]>;
  /** One line for people: `max_concurrency=201 (maximum 200)`. */
  description: string;
}

/** Words no framework reads as a number or a boolean (never yes/no/on/off/true/false/inf/nan). */
export const nonsenseWord = fc.stringMatching(/^[qxz][a-z]{2,8}$/);

/**
 * Values whose JSON type the schema does not allow. Outside `strictTypes`, only values no
 * mainstream framework coerces (objects, arrays and non-numeric words in place of scalars; numbers
 * in place of strings; non-integral numbers in place of integers; words, numbers and arrays in
 * place of objects).
 */
export function wrongTypeValue(schema: JsonSchema, strictTypes = false): fc.Arbitrary<unknown> | undefined {
  const allowed = allowedTypes(schema);
  if (!allowed) return undefined;
  const options: fc.Arbitrary<unknown>[] = [];
  const scalar = allowed.has('string') || allowed.has('integer') || allowed.has('number') || allowed.has('boolean');
  const container = allowed.has('object') || allowed.has('array');
  if (!allowed.has('object') && scalar) options.push(fc.constant({}), fc.record({ value: nonsenseWord }));
  if (!allowed.has('array') && !allowed.has('object') && scalar)
    options.push(fc.constant([]), fc.array(nonsenseWord, { minLength: 1, maxLength: 2 }));
  if (!allowed.has('string')) options.push(nonsenseWord);
  if (container && !allowed.has('integer')) options.push(fc.integer({ min: 2, max: 1000 }));
  if (allowed.has('object') && !allowed.has('array') && !scalar) options.push(fc.boolean(), fc.constant([]));
  if (allowed.has('array') && !allowed.has('object') && !scalar) options.push(fc.constant({}));
  if (allowed.has('string') && !allowed.has('integer')) options.push(fc.integer({ min: 1, max: 99 }));
  if (allowed.has('integer') && !allowed.has('number'))
    options.push(fc.integer({ min: 1, max: 99 }).map((n) => n + 0.5));
  if (strictTypes) {
    if (!allowed.has('string') && (allowed.has('integer') || allowed.has('number')))
      options.push(fc.integer({ min: 1, max: 99 }).map(String));
    if (!allowed.has('string') && allowed.has('boolean')) options.push(fc.constantFrom('true', 'false'));
    if (!allowed.has('boolean')) options.push(fc.boolean());
    if (!allowed.has('null')) options.push(fc.constant(null));
  }
  return options.length ? fc.oneof(...options) : undefined;
}

function allowedTypes(schema: JsonSchema): Set<JsonType> | undefined {
  const allowed = new Set<JsonType>(typesOf(schema));
  if (allowed.size === 0) return undefined;
  if (allowed.has('number')) allowed.add('integer');
  return allowed;
}

/**
 * The wrong value tried first for a field: the one a hand-written check most often lets through
 * (a number for a string, 2.5 for an integer, an array for an object, a word for a boolean).
 * Undefined when the type has no such near miss.
 */
export function nearMissWrongValue(schema: JsonSchema): unknown {
  const allowed = allowedTypes(schema);
  if (!allowed) return undefined;
  if (allowed.has('string') && !allowed.has('integer')) return 7;
  if (allowed.has('integer') && !allowed.has('number') && !allowed.has('string')) return 2.5;
  if (allowed.has('object') && !allowed.has('array') && !allowed.has('string')) return [];
  if (allowed.has('array') && !allowed.has('object') && !allowed.has('string')) return {};
  if (allowed.has('boolean') && !allowed.has('string')) return 'qxyes';
  return undefined;
}

/** In strict-types mode, also first: what frameworks coerce ("5" for a number, "true" for a boolean, else null). */
export function strictNearMissWrongValue(schema: JsonSchema): unknown {
  const allowed = allowedTypes(schema);
  if (!allowed || allowed.has('string')) return allowed && !allowed.has('null') ? null : undefined;
  if (allowed.has('integer')) return '5';
  if (allowed.has('boolean')) return 'true';
  return allowed.has('null') ? undefined : null;
}

/** A string outside the schema's enum, or undefined when the schema has no enum. */
export function enumViolation(schema: JsonSchema): fc.Arbitrary<string> | undefined {
  const values = enumOf(schema);
  if (!values?.length) return undefined;
  return nonsenseWord.filter((w) => !values.includes(w));
}

/** Fields of the body whose type can be broken (every documented field, nested ones included). */
export function typedFields(op: Operation): FieldInfo[] {
  if (!op.requestBody) return [];
  return fieldsOf(op.requestBody.schema).filter((f) => typesOf(f.schema).length > 0);
}

/** One wrong-type case per field: `base` with one field's value replaced. */
export function wrongTypeCase(
  base: unknown,
  field: FieldInfo,
  strictTypes = false,
): fc.Arbitrary<InvalidCase> | undefined {
  const wrong = wrongTypeValue(field.schema, strictTypes);
  if (!wrong) return undefined;
  return wrong.map((value) => wrongTypeOf(base, field, value));
}

/** The case of `base` with the field given `value`. */
export function wrongTypeOf(base: unknown, field: FieldInfo, value: unknown): InvalidCase {
  return {
    kind: 'wrong-type' as const,
    location: 'body' as const,
    loc: field.loc,
    field: field.field,
    value,
    body: setPointer(base, field.pointer, value),
    description: `${field.loc.join('.')}=${JSON.stringify(value)} (expected ${typesOf(nonNull(field.schema)).join(' or ')})`,
  };
}

export function enumCase(base: unknown, field: FieldInfo): fc.Arbitrary<InvalidCase> | undefined {
  const values = enumOf(field.schema);
  const outside = enumViolation(field.schema);
  if (!outside || !values) return undefined;
  return outside.map((value) => enumCaseOf(base, field, value, values));
}

/** The near miss of an enum: its first value in upper case (a comparison ignoring case lets it in). */
export function enumNearMiss(base: unknown, field: FieldInfo): InvalidCase | undefined {
  const values = enumOf(field.schema)?.filter((v): v is string => typeof v === 'string');
  const first = values?.find((v) => v.toUpperCase() !== v && !values.includes(v.toUpperCase()));
  return values && first !== undefined ? enumCaseOf(base, field, first.toUpperCase(), values) : undefined;
}

function enumCaseOf(base: unknown, field: FieldInfo, value: string, values: unknown[]): InvalidCase {
  return {
    kind: 'enum' as const,
    location: 'body' as const,
    loc: field.loc,
    field: field.field,
    value,
    body: setPointer(base, field.pointer, value),
    description: `${field.loc.join('.')}=${JSON.stringify(value)} (one of ${values.map((v) => JSON.stringify(v)).join(', ')})`,
  };
}

/** Fields with an enum (the contract's closed value lists). */
export function enumFields(op: Operation): FieldInfo[] {
  return typedFields(op).filter((f) => enumOf(f.schema)?.length);
}

export type BoundSide = 'below-minimum' | 'above-maximum';

/** Out-of-range values of a bound: the boundary (min-1 / max+1) first, then random values further out. */
export function outOfRange(bound: NumericBound, side: BoundSide): fc.Arbitrary<number> | undefined {
  const step = bound.type === 'integer' ? 1 : 0.001;
  if (side === 'below-minimum') {
    if (bound.minimum === undefined) return undefined;
    const edge = bound.minimum - step;
    return bound.type === 'integer'
      ? fc.integer({ min: edge - 1_000_000, max: edge }).map((v) => v)
      : fc.double({ min: edge - 1_000_000, max: edge, noNaN: true });
  }
  if (bound.maximum === undefined) return undefined;
  const edge = bound.maximum + step;
  return bound.type === 'integer'
    ? fc.integer({ min: edge, max: edge + 1_000_000 })
    : fc.double({ min: edge, max: edge + 1_000_000, noNaN: true });
}

/** In-range values of a bound: random values between minimum and maximum. */
export function inRange(bound: NumericBound): fc.Arbitrary<number> {
  const min = bound.minimum ?? (bound.maximum !== undefined ? bound.maximum - 1000 : 0);
  const max = bound.maximum ?? min + 1000;
  return bound.type === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
}

export interface BoundaryValue {
  value: number;
  inRange: boolean;
  label: 'min-1' | 'min' | 'max' | 'max+1';
}

/** The four boundary values min-1, min, max, max+1 (those the bound defines). */
export function boundaryValues(bound: NumericBound): BoundaryValue[] {
  const step = bound.type === 'integer' ? 1 : 0.001;
  const out: BoundaryValue[] = [];
  if (bound.minimum !== undefined) {
    out.push(
      { value: bound.minimum - step, inRange: false, label: 'min-1' },
      { value: bound.minimum, inRange: true, label: 'min' },
    );
  }
  if (bound.maximum !== undefined) {
    out.push(
      { value: bound.maximum, inRange: true, label: 'max' },
      { value: bound.maximum + step, inRange: false, label: 'max+1' },
    );
  }
  return out;
}

export function boundCase(base: unknown, bound: NumericBound, value: number): InvalidCase & { inRange: boolean } {
  const loc = bound.pointer
    .slice(1)
    .split('/')
    .map((p) => (p === '*' ? 0 : p));
  const pointer = '/' + loc.join('/');
  const ok =
    (bound.minimum === undefined || value >= bound.minimum) && (bound.maximum === undefined || value <= bound.maximum);
  const range = `${bound.minimum ?? '-inf'}..${bound.maximum ?? 'inf'}`;
  return {
    kind: value < (bound.minimum ?? -Infinity) ? 'below-minimum' : 'above-maximum',
    location: 'body',
    loc,
    field: bound.field,
    value,
    body: setPointer(base, pointer, value),
    description: `${bound.field}=${value} (the contract allows ${range})`,
    inRange: ok,
  };
}

const MALFORMERS: Array<[string, (text: string) => string]> = [
  ['truncated', (t) => t.slice(0, Math.max(1, t.length - 1))],
  ['trailing comma', (t) => (t.endsWith('}') ? `${t.slice(0, -1)}${t.length > 2 ? ',' : '"a":1,'}}` : `${t},`)],
  ['single quotes', (t) => (t.includes('"') ? t.replace(/"/g, "'") : "{'a': 1}")],
  ['unquoted key', (t) => `{vapc: 1${t.length > 2 ? ', ' + t.slice(1) : '}'}`],
  ['not JSON', () => 'name=vapc&x=1'],
];

const malformedCase = (text: string, [name, breakIt]: (typeof MALFORMERS)[number]): InvalidCase => ({
  kind: 'malformed-json',
  location: 'body',
  loc: [],
  field: '',
  rawBody: breakIt(text),
  description: `malformed JSON (${name})`,
});

/** Malformed JSON text derived from a valid body, one way of breaking the syntax at a time. */
export function malformedJson(base: unknown): fc.Arbitrary<InvalidCase> {
  const text = JSON.stringify(base ?? {});
  return fc.constantFrom(...MALFORMERS).map((m) => malformedCase(text, m));
}

/**
 * Every way of breaking the syntax, in a fixed order: the examples tried before any random draw,
 * so whether a server is sent a truncated body never depends on the seed.
 */
export function malformedJsonExamples(base: unknown): InvalidCase[] {
  const text = JSON.stringify(base ?? {});
  return MALFORMERS.map((m) => malformedCase(text, m));
}

/** Query parameters of integer type. */
export function integerQueryParams(op: Operation) {
  return op.parameters.filter(
    (p) => p.in === 'query' && typesOf(p.schema).includes('integer') && !typesOf(p.schema).includes('string'),
  );
}

/** The case of an integer query parameter sent `value`, which is not an integer. */
function nonIntegerCase(p: { name: string }, value: string): InvalidCase {
  return {
    kind: 'non-integer-query',
    location: 'query',
    loc: [p.name],
    field: p.name,
    value,
    query: [[p.name, value]],
    description: `${p.name}=${value} (expected an integer)`,
  };
}

/**
 * The non-integer values tried first on each integer query parameter: a word (a bare int() fails on
 * it) and a fraction (parseInt reads "2.5" as 2).
 */
export function nonIntegerQueryExamples(op: Operation): InvalidCase[] {
  return integerQueryParams(op).flatMap((p) => ['xyz', '2.5'].map((value) => nonIntegerCase(p, value)));
}

/** Non-integer strings for an integer query parameter: words and decimals. */
export function nonIntegerQuery(op: Operation): fc.Arbitrary<InvalidCase> | undefined {
  const params = integerQueryParams(op);
  if (!params.length) return undefined;
  const bad = fc.oneof(
    nonsenseWord,
    fc.integer({ min: 0, max: 99 }).map((n) => `${n}.5`),
  );
  return fc.tuple(fc.constantFrom(...params), bad).map(([p, value]) => nonIntegerCase(p, value));
}
