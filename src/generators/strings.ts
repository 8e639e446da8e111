/**
 * The edges of every free string the contract has, and of its arrays and objects: each string
 * query, path and body parameter (nested fields included) is read from the spec, and given the
 * values where implementations classically break: empty, whitespace only, non-ASCII from the Basic
 * Multilingual Plane, astral characters (a surrogate pair in UTF-16), combining marks, right-to-left
 * text, a NUL (escaped `\u0000` in JSON), and a long value (10,000 characters) where no maxLength
 * is stated, or the longest allowed and one past it where one is. The five character classes go in
 * one mixed value (one request), narrowed down to the class only when a server breaks on it.
 * Containers: empty arrays and objects, and open objects one level deeper than the examples.
 *
 * A string field is a target when the contract leaves its text free: not an enum or a const, not a
 * closed set it names only through fixtures (the provider ids), not a reference to test data (an
 * id the run got from its fixtures). Each edge says whether the contract allows it, so a check
 * judges it by the existing rules.
 */
import type { JsonSchema, Operation } from '../spec/model.js';
import {
  enumOf,
  fieldsOf,
  isProviderId,
  itemsOf,
  nonNull,
  operationTargets,
  propertiesOf,
  toPointer,
  typesOf,
} from './schema.js';
import type { FixtureSpec } from '../results/fixtures.js';
import { bodyFixtureFields } from './valid.js';

export interface StringTarget {
  location: 'query' | 'path' | 'body';
  /** The parameter or member name. */
  name: string;
  /** The member as a validation error names it after the location: `['name']`, `['recipients', 0, 'phone_number']`. */
  loc: Array<string | number>;
  /** JSON Pointer into the body (array items at index 0); body targets only. */
  pointer?: string;
  minLength?: number;
  maxLength?: number;
}

export type StringEdgeLabel =
  | 'empty'
  | 'whitespace'
  | 'bmp'
  | 'astral'
  | 'combining'
  | 'rtl'
  | 'nul'
  | 'mixed'
  | 'mixed without nul'
  | 'long'
  | 'longest'
  | 'past-longest';

export interface StringEdge {
  label: StringEdgeLabel;
  value: string;
}

/** Length of the long value tried where no maxLength is stated. */
export const LONG_STRING_LENGTH = 10_000;

/**
 * The characters where text handling classically breaks, each a class of its own: accents and CJK
 * from the Basic Multilingual Plane, astral characters (two UTF-16 units each), combining marks,
 * right-to-left text (with a direction override), and a NUL (escaped `\u0000` in JSON; a C string
 * or a Postgres text column ends or refuses there).
 */
export const TEXT_CLASSES: ReadonlyArray<StringEdge> = [
  { label: 'bmp', value: 'Crème brûlée 東京' },
  { label: 'astral', value: 'party 🎉 𝄞 😀' },
  { label: 'combining', value: 'Cafe\u0301 n\u0303 a\u0308\u0323' },
  { label: 'rtl', value: 'مرحبا שלום \u202Eabc' },
  { label: 'nul', value: 'before\u0000after' },
];

const joinClasses = (classes: ReadonlyArray<StringEdge>): string => classes.map((c) => c.value).join(' | ');

/** Every class in one value, sent first; a 5xx is then narrowed down to the class (TEXT_CLASSES). */
export const MIXED_EDGE: StringEdge = { label: 'mixed', value: joinClasses(TEXT_CLASSES) };

/** The mixed value without its NUL: sent again when a server refuses the mixed one (refusing a NUL is common and fair). */
export const MIXED_WITHOUT_NUL: StringEdge = {
  label: 'mixed without nul',
  value: joinClasses(TEXT_CLASSES.filter((c) => c.label !== 'nul')),
};

/** Every text edge as its own value: empty, whitespace only, and each class. */
export const TEXT_EDGES: ReadonlyArray<StringEdge> = [
  { label: 'empty', value: '' },
  { label: 'whitespace', value: ' \t\n ' },
  ...TEXT_CLASSES,
];

/** The long edges of a target: 10,000 characters without a maxLength, the longest and one past it with one. */
export function lengthEdges(target: Pick<StringTarget, 'maxLength'>): StringEdge[] {
  if (target.maxLength === undefined) return [{ label: 'long', value: 'x'.repeat(LONG_STRING_LENGTH) }];
  return [
    { label: 'longest', value: 'x'.repeat(target.maxLength) },
    { label: 'past-longest', value: 'x'.repeat(target.maxLength + 1) },
  ];
}

/** Whether the contract allows `value` for the target: its stated lengths (in code points, as JSON Schema counts). */
export function stringAllowed(target: Pick<StringTarget, 'minLength' | 'maxLength'>, value: string): boolean {
  const length = [...value].length;
  return (
    (target.minLength === undefined || length >= target.minLength) &&
    (target.maxLength === undefined || length <= target.maxLength)
  );
}

/** Is this schema a string whose text the contract leaves free? (`fixtureFields`: the body fields that carry a fixture id.) */
function freeString(
  schema: JsonSchema,
  name: string,
  location: StringTarget['location'],
  fixtureFields: readonly string[],
): boolean {
  const s = nonNull(schema);
  const types = typesOf(s);
  if (!types.includes('string') || types.some((t) => t === 'integer' || t === 'number' || t === 'boolean'))
    return false;
  if (enumOf(s)?.length || 'const' in s || isProviderId(s)) return false;
  // A path id is looked up as sent, so its edges are tried; a body reference to test data is not free text.
  return location !== 'body' || !fixtureFields.includes(name);
}

function targetOf(
  location: StringTarget['location'],
  name: string,
  loc: Array<string | number>,
  schema: JsonSchema,
  fixtureFields: readonly string[],
): StringTarget | undefined {
  if (!freeString(schema, name, location, fixtureFields)) return undefined;
  const s = nonNull(schema);
  const target: StringTarget = { location, name, loc };
  if (location === 'body') target.pointer = toPointer(loc);
  if (typeof s['minLength'] === 'number') target.minLength = s['minLength'];
  if (typeof s['maxLength'] === 'number') target.maxLength = s['maxLength'];
  return target;
}

/**
 * Every free string query and path parameter and body field (nested ones included) of an
 * operation; a body field that carries a fixture id (`fixtureSpecs`, the profile's fixtures) is
 * not free text.
 */
export function stringTargets(op: Operation, fixtureSpecs?: readonly FixtureSpec[]): StringTarget[] {
  const fields = bodyFixtureFields(fixtureSpecs);
  return operationTargets(op, (location, name, loc, schema) => targetOf(location, name, loc, schema, fields));
}

/**
 * The edges every target of a group gets at once: in a body, empty, whitespace only, the mixed
 * value and the long one; in a path or query, the mixed value and the long one (an empty path
 * segment changes which route a request reaches, and the mixed value has its spaces).
 */
export function groupEdges(location: 'body' | 'where'): StringEdge[] {
  const text = location === 'where' ? [MIXED_EDGE] : [TEXT_EDGES[0]!, TEXT_EDGES[1]!, MIXED_EDGE];
  return [...text, ...lengthEdges({})];
}

/** A container member of a body: an array, or an object (open, or with members of its own). */
export interface ContainerTarget {
  loc: Array<string | number>;
  pointer: string;
  kind: 'array' | 'object';
  /** An object whose members the contract leaves open (metadata, retry_policy). */
  open: boolean;
  /** The empty value is allowed: no minItems / minProperties / required members. */
  emptyAllowed: boolean;
}

/** Every array and object member of an operation's body (nested ones included). */
export function containerTargets(op: Operation): ContainerTarget[] {
  if (!op.requestBody) return [];
  const out: ContainerTarget[] = [];
  for (const f of fieldsOf(op.requestBody.schema)) {
    const s = nonNull(f.schema);
    const types = typesOf(s);
    if (types.includes('array')) {
      out.push({
        loc: f.loc,
        pointer: f.pointer,
        kind: 'array',
        open: !itemsOf(s),
        emptyAllowed: !(typeof s['minItems'] === 'number' && s['minItems'] > 0),
      });
    } else if (types.includes('object')) {
      const required = Array.isArray(s['required']) && s['required'].length > 0;
      const min = typeof s['minProperties'] === 'number' && s['minProperties'] > 0;
      out.push({
        loc: f.loc,
        pointer: f.pointer,
        kind: 'object',
        open: Object.keys(propertiesOf(s)).length === 0,
        emptyAllowed: !required && !min,
      });
    }
  }
  return out;
}

/** An open object one level deeper than `value`: its members kept, one member nesting the example again. */
export function deeper(value: unknown): Record<string, unknown> {
  const base =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return { ...base, vapc_nested: { level: 2, inner: { ...base, level: 3 } } };
}

/** One line for people: `name, campaign_context="" (empty)`. */
export function describeStringEdge(targets: ReadonlyArray<Pick<StringTarget, 'loc'>>, edge: StringEdge): string {
  const where = targets.map((t) => t.loc.join('.')).join(', ');
  const repeated = edge.value.length > 40 && edge.value === edge.value[0]!.repeat(edge.value.length);
  const shown = repeated
    ? `${edge.value.length} × "${edge.value[0]}"`
    : edge.value.length > 40
      ? `${JSON.stringify(edge.value.slice(0, 24)).slice(0, -1)}..."`
      : JSON.stringify(edge.value);
  return `${where}=${shown} (${edge.label})`;
}
