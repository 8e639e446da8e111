import type { RuleId } from './rules.js';
import { isObject, same, seg, type ChangeSink, type Json, type JsonObject } from './types.js';

/** Which side of the exchange a schema describes: it decides whom a narrowing or a widening breaks. */
export type Direction = 'request' | 'response';

export interface SchemaScope {
  sink: ChangeSink;
  dir: Direction;
  operation: string;
  /** Where the value lives, for messages: "the request body", "query parameter `limit`". */
  place: string;
}

interface Located {
  schema: JsonObject;
  ptr: string;
}

/** A schema with allOf merged and null split out of its types: what the comparison reads. */
interface Flat {
  /** Non-null types; undefined when the schema does not restrict the type. */
  types?: Set<string>;
  nullable: boolean;
  props: Map<string, Located>;
  required: Set<string>;
  enumValues?: Json[];
  keywords: JsonObject;
  items?: Located;
  union?: Located[];
}

const BOUND_KEYWORDS = {
  max: ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'],
  min: ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'],
} as const;

const isNullSchema = (s: Json | undefined): boolean =>
  isObject(s) &&
  (s['type'] === 'null' || (Array.isArray(s['type']) && s['type'].length === 1 && s['type'][0] === 'null'));

function flatten(schema: JsonObject, ptr: string, into?: Flat): Flat {
  const flat: Flat = into ?? { nullable: false, props: new Map(), required: new Set(), keywords: {} };
  const type = schema['type'];
  if (type !== undefined) {
    const list = (Array.isArray(type) ? type : [type]).map(String);
    if (list.includes('null')) flat.nullable = true;
    const nonNull = list.filter((t) => t !== 'null');
    flat.types = flat.types ? new Set(nonNull.filter((t) => flat.types!.has(t))) : new Set(nonNull);
  }
  if (schema['nullable'] === true) flat.nullable = true;
  const properties = schema['properties'];
  if (isObject(properties)) {
    for (const [name, sub] of Object.entries(properties)) {
      if (isObject(sub) && !flat.props.has(name))
        flat.props.set(name, { schema: sub, ptr: `${ptr}/properties/${seg(name)}` });
    }
  }
  if (Array.isArray(schema['required'])) for (const name of schema['required']) flat.required.add(String(name));
  if (Array.isArray(schema['enum'])) flat.enumValues = schema['enum'];
  else if ('const' in schema) flat.enumValues = [schema['const'] as Json];
  for (const [key, value] of Object.entries(schema)) {
    if (!(key in flat.keywords)) flat.keywords[key] = value;
  }
  if (isObject(schema['items'])) flat.items = { schema: schema['items'], ptr: `${ptr}/items` };
  for (const kind of ['anyOf', 'oneOf'] as const) {
    const branches = schema[kind];
    if (!Array.isArray(branches)) continue;
    const located = branches.flatMap((b, i) => (isObject(b) ? [{ schema: b, ptr: `${ptr}/${kind}/${i}` }] : []));
    if (located.some((b) => isNullSchema(b.schema))) flat.nullable = true;
    const rest = located.filter((b) => !isNullSchema(b.schema));
    // A union of one schema and null is that schema, nullable (the 3.1 spelling of `nullable: true`).
    if (rest.length === 1 && rest[0]) flatten(rest[0].schema, rest[0].ptr, flat);
    else flat.union = rest;
  }
  if (Array.isArray(schema['allOf'])) {
    schema['allOf'].forEach((member, i) => {
      if (isObject(member)) flatten(member, `${ptr}/allOf/${i}`, flat);
    });
  }
  return flat;
}

const rid = (dir: Direction, suffix: string): RuleId => `${dir}-${suffix}` as RuleId;
const show = (v: Json | undefined): string => (v === undefined ? 'none' : JSON.stringify(v));

/** Types of one side that the other side does not cover (an integer is covered by number). */
function uncovered(from: Set<string>, by: Set<string>): string[] {
  return [...from].filter((t) => !by.has(t) && !(t === 'integer' && by.has('number')));
}

function compareTypes(b: Flat, h: Flat, at: Ctx): void {
  const { dir } = at.scope;
  if (b.types && h.types) {
    const removed = uncovered(b.types, h.types);
    const added = uncovered(h.types, b.types);
    const from = [...b.types].join('|');
    const to = [...h.types].join('|');
    if (removed.length > 0 && added.length > 0)
      say(at, rid(dir, 'type-changed'), at.ptr, `type changed from ${from} to ${to}`);
    else if (removed.length > 0) say(at, rid(dir, 'type-narrowed'), at.ptr, `type narrowed from ${from} to ${to}`);
    else if (added.length > 0) say(at, rid(dir, 'type-widened'), at.ptr, `type widened from ${from} to ${to}`);
  } else if (b.types && !h.types) {
    say(at, rid(dir, 'type-widened'), at.ptr, `type no longer restricted (was ${[...b.types].join('|')})`);
  } else if (!b.types && h.types) {
    say(at, rid(dir, 'type-narrowed'), at.ptr, `type now restricted to ${[...h.types].join('|')}`);
  }
  if (b.nullable !== h.nullable && (b.types || b.nullable) && (h.types || h.nullable)) {
    if (h.nullable) say(at, rid(dir, 'became-nullable'), at.ptr, 'may now be null');
    else say(at, rid(dir, 'became-not-nullable'), at.ptr, 'may no longer be null');
  }
}

function compareEnums(b: Flat, h: Flat, at: Ctx): void {
  const { dir } = at.scope;
  if (!b.enumValues && !h.enumValues) return;
  if (b.enumValues && h.enumValues) {
    const removed = b.enumValues.filter((v) => !h.enumValues!.some((w) => same(v, w)));
    const added = h.enumValues.filter((v) => !b.enumValues!.some((w) => same(v, w)));
    if (removed.length > 0)
      say(
        at,
        rid(dir, 'enum-value-removed'),
        `${at.ptr}/enum`,
        `enum value(s) ${removed.map(show).join(', ')} removed`,
      );
    if (added.length > 0)
      say(at, rid(dir, 'enum-value-added'), `${at.ptr}/enum`, `enum value(s) ${added.map(show).join(', ')} added`);
  } else if (h.enumValues) {
    say(
      at,
      rid(dir, 'enum-value-removed'),
      `${at.ptr}/enum`,
      `now restricted to the values ${h.enumValues.map(show).join(', ')}`,
    );
  } else {
    say(
      at,
      rid(dir, 'enum-value-added'),
      at.ptr,
      `no longer restricted to the values ${b.enumValues!.map(show).join(', ')}`,
    );
  }
}

function compareBounds(b: Flat, h: Flat, at: Ctx): void {
  const { dir } = at.scope;
  for (const side of ['max', 'min'] as const) {
    for (const keyword of BOUND_KEYWORDS[side]) {
      const before = b.keywords[keyword];
      const after = h.keywords[keyword];
      if (same(before, after)) continue;
      const lower =
        typeof before === 'number' && typeof after === 'number'
          ? after < before
          : side === 'max'
            ? before === undefined
            : after === undefined;
      const suffix =
        side === 'max' ? (lower ? 'max-decreased' : 'max-increased') : lower ? 'min-decreased' : 'min-increased';
      say(at, rid(dir, suffix), `${at.ptr}/${keyword}`, `${keyword} changed from ${show(before)} to ${show(after)}`);
    }
  }
  const pattern = [b.keywords['pattern'], h.keywords['pattern']];
  if (!same(pattern[0], pattern[1])) {
    const removed = pattern[1] === undefined;
    say(
      at,
      rid(dir, removed ? 'pattern-removed' : 'pattern-changed'),
      `${at.ptr}/pattern`,
      `pattern changed from ${show(pattern[0])} to ${show(pattern[1])}`,
    );
  }
  if (!same(b.keywords['format'], h.keywords['format'])) {
    say(
      at,
      rid(dir, 'format-changed'),
      `${at.ptr}/format`,
      `format changed from ${show(b.keywords['format'])} to ${show(h.keywords['format'])}`,
    );
  }
  if (!same(b.keywords['default'], h.keywords['default'])) {
    say(
      at,
      rid(dir, 'default-changed'),
      `${at.ptr}/default`,
      `default changed from ${show(b.keywords['default'])} to ${show(h.keywords['default'])}`,
    );
  }
}

/** Description, title, examples and x-unspecified: documentation, reported as info. */
export function compareDocs(
  b: JsonObject,
  h: JsonObject,
  ptr: string,
  sink: ChangeSink,
  operation: string,
  place: string,
): void {
  for (const key of ['summary', 'description', 'title', 'example', 'examples']) {
    if (!same(b[key], h[key])) sink.emit('description-changed', operation, `${ptr}/${key}`, `${place}: ${key} changed`);
  }
  if (!same(b['x-unspecified'], h['x-unspecified'])) {
    sink.emit(
      'x-unspecified-changed',
      operation,
      `${ptr}/x-unspecified`,
      `${place}: what the contract leaves unspecified changed (x-unspecified)`,
    );
  }
}

interface Ctx {
  scope: SchemaScope;
  ptr: string;
  /** The field path inside the schema, e.g. `speech_settings.voice`; empty at the root. */
  field: string;
}

/** Reports one change; the message names the place and, unless told otherwise, the field. */
const sayPlain = (at: Ctx, id: RuleId, ptr: string, what: string): void => say(at, id, ptr, what, false);

function say(at: Ctx, id: RuleId, ptr: string, what: string, withField = true): void {
  const where = withField && at.field ? `${at.scope.place}, \`${at.field}\`` : at.scope.place;
  at.scope.sink.emit(id, at.scope.operation, ptr, `${where}: ${what}`);
}

function comparePropertySets(b: Flat, h: Flat, at: Ctx, seen: WeakMap<object, WeakSet<object>>): void {
  const { dir } = at.scope;
  const hidden = dir === 'request' ? 'readOnly' : 'writeOnly';
  const child = (name: string) => (at.field ? `${at.field}.${name}` : name);
  for (const [name, before] of b.props) {
    const after = h.props.get(name);
    if (!after) {
      if (before.schema[hidden] !== true)
        sayPlain(at, rid(dir, 'property-removed'), before.ptr, `property \`${child(name)}\` removed`);
      continue;
    }
    if (before.schema[hidden] === true && after.schema[hidden] === true) continue;
    const was = b.required.has(name);
    const is = h.required.has(name);
    if (was && !is)
      sayPlain(at, rid(dir, 'property-became-optional'), after.ptr, `property \`${child(name)}\` became optional`);
    if (!was && is)
      sayPlain(at, rid(dir, 'property-became-required'), after.ptr, `property \`${child(name)}\` became required`);
    walk(before, after, { ...at, ptr: after.ptr, field: child(name) }, seen);
  }
  for (const [name, after] of h.props) {
    if (b.props.has(name) || after.schema[hidden] === true) continue;
    const required = h.required.has(name);
    sayPlain(
      at,
      rid(dir, required ? 'property-added-required' : 'property-added'),
      after.ptr,
      `${required ? 'required' : 'optional'} property \`${child(name)}\` added`,
    );
  }
}

function compareUnions(b: Flat, h: Flat, at: Ctx, seen: WeakMap<object, WeakSet<object>>): void {
  const { dir } = at.scope;
  const before = b.union ?? [];
  const after = h.union ?? [];
  const unmatched = new Set(after.map((_, i) => i));
  before.forEach((branch, i) => {
    const j = after.findIndex((candidate, k) => unmatched.has(k) && same(candidate.schema, branch.schema));
    const k = j >= 0 ? j : unmatched.has(i) && after[i] ? i : -1;
    if (k < 0) {
      sayPlain(at, rid(dir, 'union-branch-removed'), branch.ptr, `a branch of the union was removed`);
      return;
    }
    unmatched.delete(k);
    walk(branch, after[k]!, { ...at, ptr: after[k]!.ptr }, seen);
  });
  for (const k of unmatched)
    sayPlain(at, rid(dir, 'union-branch-added'), after[k]!.ptr, `a branch was added to the union`);
}

/** Keywords the rules above read; any other keyword that differs is reported as unclassified. */
const READ = new Set([
  'type',
  'nullable',
  'properties',
  'required',
  'enum',
  'const',
  'items',
  'anyOf',
  'oneOf',
  'allOf',
  'pattern',
  'format',
  'default',
  'summary',
  'description',
  'title',
  'example',
  'examples',
  'x-unspecified',
  'readOnly',
  'writeOnly',
  ...BOUND_KEYWORDS.max,
  ...BOUND_KEYWORDS.min,
]);

function compareOtherKeywords(b: Flat, h: Flat, at: Ctx): void {
  const other = (f: Flat) => Object.fromEntries(Object.entries(f.keywords).filter(([k]) => !READ.has(k)));
  if (!same(other(b), other(h)))
    say(
      at,
      'unclassified-change',
      at.ptr,
      'a schema keyword no rule classifies changed (additionalProperties, multipleOf, ...)',
    );
}

function walk(base: Located, head: Located, at: Ctx, seen: WeakMap<object, WeakSet<object>>): void {
  const pairs = seen.get(base.schema) ?? new WeakSet<object>();
  if (pairs.has(head.schema)) return;
  pairs.add(head.schema);
  seen.set(base.schema, pairs);
  const b = flatten(base.schema, base.ptr);
  const h = flatten(head.schema, head.ptr);
  compareTypes(b, h, at);
  compareEnums(b, h, at);
  compareBounds(b, h, at);
  compareOtherKeywords(b, h, at);
  compareDocs(
    b.keywords,
    h.keywords,
    at.ptr,
    at.scope.sink,
    at.scope.operation,
    at.field ? `${at.scope.place}, \`${at.field}\`` : at.scope.place,
  );
  comparePropertySets(b, h, at, seen);
  if (b.items && h.items) walk(b.items, h.items, { ...at, ptr: h.items.ptr, field: `${at.field}[]` }, seen);
  if (b.union || h.union) compareUnions(b, h, at, seen);
}

/** Compares two schemas of the same place (a body, a parameter, a header) and reports every change. */
export function compareSchemas(
  base: JsonObject,
  head: JsonObject,
  ptr: string,
  scope: SchemaScope,
  basePtr = ptr,
): void {
  const at: Ctx = { scope, ptr, field: '' };
  walk({ schema: base, ptr: basePtr }, { schema: head, ptr }, at, new WeakMap());
}
