/**
 * The JSON types of an answer's fields as one success criterion. Redocly respect checks an answer
 * against its schema only when the description lists that very status (2.77 matches no `2XX`
 * range), and an Arazzo criterion has no schema type; a JSONPath (RFC 9535) filter can still tell
 * the JSON types apart: a string compares with `''`, a number with `0`, a boolean equals `true` or
 * `false`, an object has members and no `[0]`, an array has a `[0]`. Each field the schema gives a
 * single type besides null, present with that type in the answer that was verified, is held to
 * have no other type: absent or null passes (the contract's nulls are judged elsewhere), an empty
 * object or array passes for either.
 */
import type { JsonSchema } from '../spec/model.js';
import { jsonTypeOf, propertiesOf, typesOf, type JsonType } from '../spec/schema.js';
import type { Criterion } from './document.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Filter tests that hold when `at` (`@.a.b`) has one JSON type (absent or null: none holds). */
const ATOMS: Record<'string' | 'number' | 'boolean' | 'array' | 'object', (at: string) => string> = {
  string: (at) => `${at} >= ''`,
  number: (at) => `${at} >= 0 || ${at} < 0`,
  boolean: (at) => `${at} == true || ${at} == false`,
  array: (at) => `${at}[0]`,
  object: (at) => `${at}.* && !${at}[0]`,
};

/** The test that `at` has no JSON type but `type` (absent and null pass: the contract's nulls are judged elsewhere). */
function typeTest(at: string, type: JsonType): string | undefined {
  const own = type === 'integer' ? 'number' : type;
  if (!(own in ATOMS)) return undefined;
  const others = Object.entries(ATOMS).filter(([t]) => t !== own);
  return `!(${others.map(([, atom]) => atom(at)).join(' || ')})`;
}

/** The tests of the fields of `value` under `schema`, two levels deep (objects only). */
function fieldTests(value: unknown, schema: JsonSchema, at: string, depth: number): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  const props = propertiesOf(schema);
  const out: string[] = [];
  for (const [name, v] of Object.entries(value)) {
    const declared = props[name];
    if (!declared || !NAME.test(name)) continue;
    const types = typesOf(declared).filter((t) => t !== 'null');
    const actual = jsonTypeOf(v);
    const fits = types.length === 1 && (types[0] === actual || (types[0] === 'number' && actual === 'integer'));
    if (!fits) continue;
    const test = typeTest(`${at}.${name}`, actual);
    if (test) out.push(test);
    if (actual === 'object' && depth < 2) out.push(...fieldTests(v, declared, `${at}.${name}`, depth + 1));
  }
  return out;
}

/**
 * Tests joined with `&&`, nested to the right (`a && (b && (c))`): jsonpath-rfc9535 1.3.0, and the
 * engine Redocly respect 2.77 bundles, read a flat chain `a && b && c` as `a && (b || c)`.
 */
export function allOf(tests: readonly string[]): string {
  return tests.length <= 1 ? (tests[0] ?? '') : `${tests[0]} && (${allOf(tests.slice(1))})`;
}

/** One JSONPath criterion on the answer's field types (see the module comment); none when nothing is typed. */
export function typeCriterion(body: unknown, schema: JsonSchema | undefined): Criterion | undefined {
  if (!schema) return undefined;
  const tests = fieldTests(body, schema, '@', 1);
  if (!tests.length) return undefined;
  return { context: '$response.body', type: 'jsonpath', condition: `$[?${allOf(tests)}]` };
}
