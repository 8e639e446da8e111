/**
 * One case per branch of each rule function of src/diff/schema.ts, on both sides of the exchange,
 * with the rule id AND its level written out here (never read back from the rule table): the
 * catalogue proves a rule fires on the real contract, this proves each branch picks the right rule.
 * A branch that picks the wrong one ("an enum added to a free request field is a warning") would
 * let `vapc diff` exit 0 on a breaking change.
 */
import { describe, expect, it } from 'vitest';
import { compareSchemas, type Direction } from '../../../src/diff/schema.js';
import { RULES } from '../../../src/diff/rules.js';
import { ChangeSink, type JsonObject } from '../../../src/diff/types.js';

/** The changes between two schemas as `id level`, sorted. */
function diff(dir: Direction, base: JsonObject, head: JsonObject): string[] {
  const sink = new ChangeSink();
  compareSchemas(base, head, '/s', { sink, dir, operation: 'POST /x', place: 'the request body' });
  return sink.changes.map((c) => `${c.id} ${c.level}`).sort();
}

const obj = (properties: JsonObject, required: string[] = []): JsonObject => ({ type: 'object', properties, required });

interface Case {
  name: string;
  base: JsonObject;
  head: JsonObject;
  request: string[];
  response: string[];
}

const CASES: Case[] = [
  // compareTypes
  { name: 'a type replaced by another', base: { type: 'string' }, head: { type: 'boolean' }, request: ['request-type-changed breaking'], response: ['response-type-changed breaking'] },
  { name: 'a type dropped from a list', base: { type: ['string', 'integer'] }, head: { type: 'string' }, request: ['request-type-narrowed breaking'], response: ['response-type-narrowed warning'] },
  { name: 'a type added to a list', base: { type: 'string' }, head: { type: ['string', 'boolean'] }, request: ['request-type-widened warning'], response: ['response-type-widened breaking'] },
  { name: 'integer to number (number covers integer)', base: { type: 'integer' }, head: { type: 'number' }, request: ['request-type-widened warning'], response: ['response-type-widened breaking'] },
  { name: 'number to integer', base: { type: 'number' }, head: { type: 'integer' }, request: ['request-type-narrowed breaking'], response: ['response-type-narrowed warning'] },
  { name: 'the type restriction removed', base: { type: 'string' }, head: {}, request: ['request-type-widened warning'], response: ['response-type-widened breaking'] },
  { name: 'a type restriction added to a free value', base: {}, head: { type: 'string' }, request: ['request-type-narrowed breaking'], response: ['response-type-narrowed warning'] },
  { name: 'null added to the types', base: { type: 'string' }, head: { type: ['string', 'null'] }, request: ['request-became-nullable warning'], response: ['response-became-nullable breaking'] },
  { name: 'null removed from the types', base: { type: ['string', 'null'] }, head: { type: 'string' }, request: ['request-became-not-nullable breaking'], response: ['response-became-not-nullable warning'] },
  { name: 'nullable: true (3.0 spelling) added', base: { type: 'string' }, head: { type: 'string', nullable: true }, request: ['request-became-nullable warning'], response: ['response-became-nullable breaking'] },
  { name: 'a union with null is the schema, nullable', base: { type: 'string' }, head: { anyOf: [{ type: 'string' }, { type: 'null' }] }, request: ['request-became-nullable warning'], response: ['response-became-nullable breaking'] },
  { name: 'types unchanged, order differs', base: { type: ['string', 'integer'] }, head: { type: ['integer', 'string'] }, request: [], response: [] },
  // compareEnums
  { name: 'an enum added to a free value', base: { type: 'string' }, head: { type: 'string', enum: ['a', 'b'] }, request: ['request-enum-value-removed breaking'], response: ['response-enum-value-removed warning'] },
  { name: 'the enum removed', base: { type: 'string', enum: ['a', 'b'] }, head: { type: 'string' }, request: ['request-enum-value-added warning'], response: ['response-enum-value-added breaking'] },
  { name: 'an enum value removed', base: { enum: ['a', 'b'] }, head: { enum: ['a'] }, request: ['request-enum-value-removed breaking'], response: ['response-enum-value-removed warning'] },
  { name: 'an enum value added', base: { enum: ['a'] }, head: { enum: ['a', 'b'] }, request: ['request-enum-value-added warning'], response: ['response-enum-value-added breaking'] },
  {
    name: 'an enum value replaced',
    base: { enum: ['a', 'b'] },
    head: { enum: ['a', 'c'] },
    request: ['request-enum-value-added warning', 'request-enum-value-removed breaking'],
    response: ['response-enum-value-added breaking', 'response-enum-value-removed warning'],
  },
  { name: 'a const changed (a one-value enum)', base: { const: 'a' }, head: { const: 'b' }, request: ['request-enum-value-added warning', 'request-enum-value-removed breaking'], response: ['response-enum-value-added breaking', 'response-enum-value-removed warning'] },
  { name: 'enum values reordered', base: { enum: ['a', 'b'] }, head: { enum: ['b', 'a'] }, request: [], response: [] },
  // compareBounds: numbers
  { name: 'a maximum lowered', base: { maximum: 10 }, head: { maximum: 5 }, request: ['request-max-decreased breaking'], response: ['response-max-decreased warning'] },
  { name: 'a maximum raised', base: { maximum: 5 }, head: { maximum: 10 }, request: ['request-max-increased warning'], response: ['response-max-increased breaking'] },
  { name: 'a maximum added', base: {}, head: { maximum: 5 }, request: ['request-max-decreased breaking'], response: ['response-max-decreased warning'] },
  { name: 'a maximum removed', base: { maximum: 5 }, head: {}, request: ['request-max-increased warning'], response: ['response-max-increased breaking'] },
  { name: 'a minimum raised', base: { minimum: 1 }, head: { minimum: 2 }, request: ['request-min-increased breaking'], response: ['response-min-increased warning'] },
  { name: 'a minimum lowered', base: { minimum: 2 }, head: { minimum: 1 }, request: ['request-min-decreased warning'], response: ['response-min-decreased breaking'] },
  { name: 'a minimum added', base: {}, head: { minimum: 1 }, request: ['request-min-increased breaking'], response: ['response-min-increased warning'] },
  { name: 'a minimum removed', base: { minimum: 1 }, head: {}, request: ['request-min-decreased warning'], response: ['response-min-decreased breaking'] },
  { name: 'an exclusiveMaximum lowered', base: { exclusiveMaximum: 10 }, head: { exclusiveMaximum: 9 }, request: ['request-max-decreased breaking'], response: ['response-max-decreased warning'] },
  { name: 'a minLength added', base: { type: 'string' }, head: { type: 'string', minLength: 1 }, request: ['request-min-increased breaking'], response: ['response-min-increased warning'] },
  { name: 'a maxItems raised', base: { type: 'array', maxItems: 2 }, head: { type: 'array', maxItems: 3 }, request: ['request-max-increased warning'], response: ['response-max-increased breaking'] },
  { name: 'a minProperties removed', base: { type: 'object', minProperties: 1 }, head: { type: 'object' }, request: ['request-min-decreased warning'], response: ['response-min-decreased breaking'] },
  { name: 'two bounds moved at once', base: { minimum: 1, maximum: 10 }, head: { minimum: 0, maximum: 20 }, request: ['request-max-increased warning', 'request-min-decreased warning'], response: ['response-max-increased breaking', 'response-min-decreased breaking'] },
  // compareBounds: pattern, format, default
  { name: 'a pattern added', base: { type: 'string' }, head: { type: 'string', pattern: '^a' }, request: ['request-pattern-changed breaking'], response: ['response-pattern-changed warning'] },
  { name: 'a pattern changed', base: { type: 'string', pattern: '^a' }, head: { type: 'string', pattern: '^b' }, request: ['request-pattern-changed breaking'], response: ['response-pattern-changed warning'] },
  { name: 'a pattern removed', base: { type: 'string', pattern: '^a' }, head: { type: 'string' }, request: ['request-pattern-removed warning'], response: ['response-pattern-removed warning'] },
  { name: 'a format changed', base: { type: 'string', format: 'date' }, head: { type: 'string', format: 'date-time' }, request: ['request-format-changed breaking'], response: ['response-format-changed breaking'] },
  { name: 'a format added', base: { type: 'string' }, head: { type: 'string', format: 'uuid' }, request: ['request-format-changed breaking'], response: ['response-format-changed breaking'] },
  { name: 'a default changed', base: { type: 'integer', default: 1 }, head: { type: 'integer', default: 2 }, request: ['request-default-changed warning'], response: ['response-default-changed info'] },
  // compareDocs
  { name: 'a description changed', base: { type: 'string', description: 'a' }, head: { type: 'string', description: 'b' }, request: ['description-changed info'], response: ['description-changed info'] },
  { name: 'a title and an example changed (one each)', base: { title: 'a', example: 1 }, head: { title: 'b', example: 2 }, request: ['description-changed info', 'description-changed info'], response: ['description-changed info', 'description-changed info'] },
  { name: 'x-unspecified changed', base: { 'x-unspecified': ['a'] }, head: { 'x-unspecified': ['a', 'b'] }, request: ['x-unspecified-changed info'], response: ['x-unspecified-changed info'] },
  // compareOtherKeywords
  { name: 'additionalProperties changed', base: { type: 'object' }, head: { type: 'object', additionalProperties: false }, request: ['unclassified-change info'], response: ['unclassified-change info'] },
  { name: 'multipleOf added', base: { type: 'integer' }, head: { type: 'integer', multipleOf: 5 }, request: ['unclassified-change info'], response: ['unclassified-change info'] },
  // comparePropertySets
  { name: 'a property removed', base: obj({ a: { type: 'string' }, b: { type: 'string' } }), head: obj({ a: { type: 'string' } }), request: ['request-property-removed warning'], response: ['response-property-removed breaking'] },
  { name: 'a required property became optional', base: obj({ a: { type: 'string' } }, ['a']), head: obj({ a: { type: 'string' } }), request: ['request-property-became-optional warning'], response: ['response-property-became-optional breaking'] },
  { name: 'an optional property became required', base: obj({ a: { type: 'string' } }), head: obj({ a: { type: 'string' } }, ['a']), request: ['request-property-became-required breaking'], response: ['response-property-became-required warning'] },
  { name: 'a required property added', base: obj({}), head: obj({ a: { type: 'string' } }, ['a']), request: ['request-property-added-required breaking'], response: ['response-property-added-required warning'] },
  { name: 'an optional property added', base: obj({}), head: obj({ a: { type: 'string' } }), request: ['request-property-added info'], response: ['response-property-added info'] },
  {
    name: 'a change inside a property (walked)',
    base: obj({ a: obj({ b: { type: 'integer', maximum: 10 } }) }),
    head: obj({ a: obj({ b: { type: 'integer', maximum: 5 } }) }),
    request: ['request-max-decreased breaking'],
    response: ['response-max-decreased warning'],
  },
  { name: 'a change inside array items (walked)', base: { type: 'array', items: { type: 'string' } }, head: { type: 'array', items: { type: 'integer' } }, request: ['request-type-changed breaking'], response: ['response-type-changed breaking'] },
  {
    name: 'properties from allOf members are merged',
    base: { allOf: [obj({ a: { type: 'string' } }), obj({ b: { type: 'string' } })] },
    head: { allOf: [obj({ a: { type: 'string' } })] },
    request: ['request-property-removed warning'],
    response: ['response-property-removed breaking'],
  },
  // compareUnions
  { name: 'a union branch removed', base: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] }, head: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, request: ['request-union-branch-removed breaking'], response: ['response-union-branch-removed warning'] },
  { name: 'a union branch added', base: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, head: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] }, request: ['request-union-branch-added warning'], response: ['response-union-branch-added breaking'] },
  { name: 'union branches reordered', base: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, head: { anyOf: [{ type: 'integer' }, { type: 'string' }] }, request: [], response: [] },
  {
    name: 'a union branch changed in place (walked)',
    base: { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'integer' }] },
    head: { anyOf: [{ type: 'string', maxLength: 3 }, { type: 'integer' }] },
    request: ['request-max-decreased breaking'],
    response: ['response-max-decreased warning'],
  },
];

describe('vapc diff: every branch of the schema rules, with its level written out', () => {
  for (const c of CASES) {
    it(`${c.name}: request ${c.request.join(', ') || 'nothing'}`, () => {
      expect(diff('request', c.base, c.head)).toEqual([...c.request].sort());
    });
    it(`${c.name}: response ${c.response.join(', ') || 'nothing'}`, () => {
      expect(diff('response', c.base, c.head)).toEqual([...c.response].sort());
    });
  }

  it('a readOnly property is not part of a request, a writeOnly one not part of a response', () => {
    const withHidden = (key: string) => obj({ a: { type: 'string' }, b: { type: 'string', [key]: true } });
    expect(diff('request', withHidden('readOnly'), obj({ a: { type: 'string' } }))).toEqual([]);
    expect(diff('response', withHidden('writeOnly'), obj({ a: { type: 'string' } }))).toEqual([]);
    expect(diff('request', obj({ a: { type: 'string' } }), withHidden('readOnly'))).toEqual([]);
    expect(diff('response', obj({ a: { type: 'string' } }), withHidden('writeOnly'))).toEqual([]);
    // Hidden on both sides: changes inside it are not reported either.
    const hidden = (max: number) => obj({ b: { type: 'integer', readOnly: true, maximum: max } });
    expect(diff('request', hidden(10), hidden(5))).toEqual([]);
    expect(diff('response', hidden(10), hidden(5))).toEqual(['response-max-decreased warning']);
  });

  it('a change says where it is: the pointer of the keyword and the field in the message', () => {
    const sink = new ChangeSink();
    const base = obj({ speech: obj({ style: { type: 'string', maxLength: 10 } }) });
    const head = obj({ speech: obj({ style: { type: 'string', maxLength: 5 } }) });
    compareSchemas(base, head, '/s', { sink, dir: 'request', operation: 'POST /x', place: 'the request body' });
    expect(sink.changes).toEqual([
      {
        id: 'request-max-decreased',
        level: 'breaking',
        breaks: ['clients'],
        operation: 'POST /x',
        pointer: '/s/properties/speech/properties/style/maxLength',
        message: 'the request body, `speech.style`: maxLength changed from 10 to 5',
      },
    ]);
  });

  it('a recursive schema is compared once per pair (no endless walk)', () => {
    const node = (): JsonObject => {
      const n: JsonObject = { type: 'object', properties: {} };
      (n['properties'] as JsonObject)['child'] = n;
      return n;
    };
    expect(diff('request', node(), node())).toEqual([]);
  });
});

describe('vapc diff: the rule table, each kind of rule written out', () => {
  it('a breaking rule is a major bump, a warning a minor one, an addition minor and info, documentation a patch', () => {
    const pick = (id: keyof typeof RULES) => ({ level: RULES[id].level, breaks: [...RULES[id].breaks], bump: RULES[id].bump });
    expect(pick('operation-removed')).toEqual({ level: 'breaking', breaks: ['clients'], bump: 'major' });
    expect(pick('request-type-changed')).toEqual({ level: 'breaking', breaks: ['clients', 'implementations'], bump: 'major' });
    expect(pick('request-enum-value-added')).toEqual({ level: 'warning', breaks: ['implementations'], bump: 'minor' });
    expect(pick('operation-added')).toEqual({ level: 'info', breaks: [], bump: 'minor' });
    expect(pick('request-parameter-added')).toEqual({ level: 'info', breaks: ['implementations'], bump: 'minor' });
    expect(pick('description-changed')).toEqual({ level: 'info', breaks: [], bump: 'patch' });
    for (const rule of Object.values(RULES)) expect(rule.summary.length).toBeGreaterThan(10);
  });
});
