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
  {
    name: 'a type replaced by another',
    base: { type: 'string' },
    head: { type: 'boolean' },
    request: ['request-type-changed breaking'],
    response: ['response-type-changed breaking'],
  },
  {
    name: 'a type dropped from a list',
    base: { type: ['string', 'integer'] },
    head: { type: 'string' },
    request: ['request-type-narrowed breaking'],
    response: ['response-type-narrowed warning'],
  },
  {
    name: 'a type added to a list',
    base: { type: 'string' },
    head: { type: ['string', 'boolean'] },
    request: ['request-type-widened warning'],
    response: ['response-type-widened breaking'],
  },
  {
    name: 'integer to number (number covers integer)',
    base: { type: 'integer' },
    head: { type: 'number' },
    request: ['request-type-widened warning'],
    response: ['response-type-widened breaking'],
  },
  {
    name: 'number to integer',
    base: { type: 'number' },
    head: { type: 'integer' },
    request: ['request-type-narrowed breaking'],
    response: ['response-type-narrowed warning'],
  },
  {
    name: 'the type restriction removed',
    base: { type: 'string' },
    head: {},
    request: ['request-type-widened warning'],
    response: ['response-type-widened breaking'],
  },
  {
    name: 'a type restriction added to a free value',
    base: {},
    head: { type: 'string' },
    request: ['request-type-narrowed breaking'],
    response: ['response-type-narrowed warning'],
  },
  {
    name: 'null added to the types',
    base: { type: 'string' },
    head: { type: ['string', 'null'] },
    request: ['request-became-nullable warning'],
    response: ['response-became-nullable breaking'],
  },
  {
    name: 'null removed from the types',
    base: { type: ['string', 'null'] },
    head: { type: 'string' },
    request: ['request-became-not-nullable breaking'],
    response: ['response-became-not-nullable warning'],
  },
  {
    name: 'nullable: true (3.0 spelling) added',
    base: { type: 'string' },
    head: { type: 'string', nullable: true },
    request: ['request-became-nullable warning'],
    response: ['response-became-nullable breaking'],
  },
  {
    name: 'a union with null is the schema, nullable',
    base: { type: 'string' },
    head: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    request: ['request-became-nullable warning'],
    response: ['response-became-nullable breaking'],
  },
  {
    name: 'types unchanged, order differs',
    base: { type: ['string', 'integer'] },
    head: { type: ['integer', 'string'] },
    request: [],
    response: [],
  },
  // compareEnums
  {
    name: 'an enum added to a free value',
    base: { type: 'string' },
    head: { type: 'string', enum: ['a', 'b'] },
    request: ['request-enum-value-removed breaking'],
    response: ['response-enum-value-removed warning'],
  },
  {
    name: 'the enum removed',
    base: { type: 'string', enum: ['a', 'b'] },
    head: { type: 'string' },
    request: ['request-enum-value-added warning'],
    response: ['response-enum-value-added breaking'],
  },
  {
    name: 'an enum value removed',
    base: { enum: ['a', 'b'] },
    head: { enum: ['a'] },
    request: ['request-enum-value-removed breaking'],
    response: ['response-enum-value-removed warning'],
  },
  {
    name: 'an enum value added',
    base: { enum: ['a'] },
    head: { enum: ['a', 'b'] },
    request: ['request-enum-value-added warning'],
    response: ['response-enum-value-added breaking'],
  },
  {
    name: 'an enum value replaced',
    base: { enum: ['a', 'b'] },
    head: { enum: ['a', 'c'] },
    request: ['request-enum-value-added warning', 'request-enum-value-removed breaking'],
    response: ['response-enum-value-added breaking', 'response-enum-value-removed warning'],
  },
  {
    name: 'a const changed (a one-value enum)',
    base: { const: 'a' },
    head: { const: 'b' },
    request: ['request-enum-value-added warning', 'request-enum-value-removed breaking'],
    response: ['response-enum-value-added breaking', 'response-enum-value-removed warning'],
  },
  { name: 'enum values reordered', base: { enum: ['a', 'b'] }, head: { enum: ['b', 'a'] }, request: [], response: [] },
  // compareBounds: numbers
  {
    name: 'a maximum lowered',
    base: { maximum: 10 },
    head: { maximum: 5 },
    request: ['request-max-decreased breaking'],
    response: ['response-max-decreased warning'],
  },
  {
    name: 'a maximum raised',
    base: { maximum: 5 },
    head: { maximum: 10 },
    request: ['request-max-increased warning'],
    response: ['response-max-increased breaking'],
  },
  {
    name: 'a maximum added',
    base: {},
    head: { maximum: 5 },
    request: ['request-max-decreased breaking'],
    response: ['response-max-decreased warning'],
  },
  {
    name: 'a maximum removed',
    base: { maximum: 5 },
    head: {},
    request: ['request-max-increased warning'],
    response: ['response-max-increased breaking'],
  },
  {
    name: 'a minimum raised',
    base: { minimum: 1 },
    head: { minimum: 2 },
    request: ['request-min-increased breaking'],
    response: ['response-min-increased warning'],
  },
  {
    name: 'a minimum lowered',
    base: { minimum: 2 },
    head: { minimum: 1 },
    request: ['request-min-decreased warning'],
    response: ['response-min-decreased breaking'],
  },
  {
    name: 'a minimum added',
    base: {},
    head: { minimum: 1 },
    request: ['request-min-increased breaking'],
    response: ['response-min-increased warning'],
  },
  {
    name: 'a minimum removed',
    base: { minimum: 1 },
    head: {},
    request: ['request-min-decreased warning'],
    response: ['response-min-decreased breaking'],
  },
  {
    name: 'an exclusiveMaximum lowered',
    base: { exclusiveMaximum: 10 },
    head: { exclusiveMaximum: 9 },
    request: ['request-max-decreased breaking'],
    response: ['response-max-decreased warning'],
  },
  {
    name: 'a minLength added',
    base: { type: 'string' },
    head: { type: 'string', minLength: 1 },
    request: ['request-min-increased breaking'],
    response: ['response-min-increased warning'],
  },
  {
    name: 'a maxItems raised',
    base: { type: 'array', maxItems: 2 },
    head: { type: 'array', maxItems: 3 },
    request: ['request-max-increased warning'],
    response: ['response-max-increased breaking'],
  },
  {
    name: 'a minProperties removed',
    base: { type: 'object', minProperties: 1 },
    head: { type: 'object' },
    request: ['request-min-decreased warning'],
    response: ['response-min-decreased breaking'],
  },
  {
    name: 'two bounds moved at once',
    base: { minimum: 1, maximum: 10 },
    head: { minimum: 0, maximum: 20 },
    request: ['request-max-increased warning', 'request-min-decreased warning'],
    response: ['response-max-increased breaking', 'response-min-decreased breaking'],
  },
  // compareBounds: pattern, format, default
  {
    name: 'a pattern added',
    base: { type: 'string' },
    head: { type: 'string', pattern: '^a' },
    request: ['request-pattern-changed breaking'],
    response: ['response-pattern-changed warning'],
  },
  {
    name: 'a pattern changed',
    base: { type: 'string', pattern: '^a' },
    head: { type: 'string', pattern: '^b' },
    request: ['request-pattern-changed breaking'],
    response: ['response-pattern-changed warning'],
  },
  {
    name: 'a pattern removed',
    base: { type: 'string', pattern: '^a' },
    head: { type: 'string' },
    request: ['request-pattern-removed warning'],
    response: ['response-pattern-removed warning'],
  },
  {
    name: 'a format changed',
    base: { type: 'string', format: 'date' },
    head: { type: 'string', format: 'date-time' },
    request: ['request-format-changed breaking'],
    response: ['response-format-changed breaking'],
  },
  {
    name: 'a format added',
    base: { type: 'string' },
    head: { type: 'string', format: 'uuid' },
    request: ['request-format-changed breaking'],
    response: ['response-format-changed breaking'],
  },
  {
    name: 'a default changed',
    base: { type: 'integer', default: 1 },
    head: { type: 'integer', default: 2 },
    request: ['request-default-changed warning'],
    response: ['response-default-changed info'],
  },
  // compareDocs
  {
    name: 'a description changed',
    base: { type: 'string', description: 'a' },
    head: { type: 'string', description: 'b' },
    request: ['description-changed info'],
    response: ['description-changed info'],
  },
  {
    name: 'a title and an example changed (one each)',
    base: { title: 'a', example: 1 },
    head: { title: 'b', example: 2 },
    request: ['description-changed info', 'description-changed info'],
    response: ['description-changed info', 'description-changed info'],
  },
  {
    name: 'x-unspecified changed',
    base: { 'x-unspecified': ['a'] },
    head: { 'x-unspecified': ['a', 'b'] },
    request: ['x-unspecified-changed info'],
    response: ['x-unspecified-changed info'],
  },
  // compareOtherKeywords
  {
    name: 'additionalProperties changed',
    base: { type: 'object' },
    head: { type: 'object', additionalProperties: false },
    request: ['unclassified-change info'],
    response: ['unclassified-change info'],
  },
  {
    name: 'multipleOf added',
    base: { type: 'integer' },
    head: { type: 'integer', multipleOf: 5 },
    request: ['unclassified-change info'],
    response: ['unclassified-change info'],
  },
  // comparePropertySets
  {
    name: 'a property removed',
    base: obj({ a: { type: 'string' }, b: { type: 'string' } }),
    head: obj({ a: { type: 'string' } }),
    request: ['request-property-removed warning'],
    response: ['response-property-removed breaking'],
  },
  {
    name: 'a required property became optional',
    base: obj({ a: { type: 'string' } }, ['a']),
    head: obj({ a: { type: 'string' } }),
    request: ['request-property-became-optional warning'],
    response: ['response-property-became-optional breaking'],
  },
  {
    name: 'an optional property became required',
    base: obj({ a: { type: 'string' } }),
    head: obj({ a: { type: 'string' } }, ['a']),
    request: ['request-property-became-required breaking'],
    response: ['response-property-became-required warning'],
  },
  {
    name: 'a required property added',
    base: obj({}),
    head: obj({ a: { type: 'string' } }, ['a']),
    request: ['request-property-added-required breaking'],
    response: ['response-property-added-required warning'],
  },
  {
    name: 'an optional property added',
    base: obj({}),
    head: obj({ a: { type: 'string' } }),
    request: ['request-property-added info'],
    response: ['response-property-added info'],
  },
  {
    name: 'a change inside a property (walked)',
    base: obj({ a: obj({ b: { type: 'integer', maximum: 10 } }) }),
    head: obj({ a: obj({ b: { type: 'integer', maximum: 5 } }) }),
    request: ['request-max-decreased breaking'],
    response: ['response-max-decreased warning'],
  },
  {
    name: 'a change inside array items (walked)',
    base: { type: 'array', items: { type: 'string' } },
    head: { type: 'array', items: { type: 'integer' } },
    request: ['request-type-changed breaking'],
    response: ['response-type-changed breaking'],
  },
  {
    name: 'properties from allOf members are merged',
    base: { allOf: [obj({ a: { type: 'string' } }), obj({ b: { type: 'string' } })] },
    head: { allOf: [obj({ a: { type: 'string' } })] },
    request: ['request-property-removed warning'],
    response: ['response-property-removed breaking'],
  },
  // compareUnions
  {
    name: 'a union branch removed',
    base: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] },
    head: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    request: ['request-union-branch-removed breaking'],
    response: ['response-union-branch-removed warning'],
  },
  {
    name: 'a union branch added',
    base: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    head: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'boolean' }] },
    request: ['request-union-branch-added warning'],
    response: ['response-union-branch-added breaking'],
  },
  {
    name: 'union branches reordered',
    base: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    head: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    request: [],
    response: [],
  },
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
    const pick = (id: keyof typeof RULES) => ({
      level: RULES[id].level,
      breaks: [...RULES[id].breaks],
      bump: RULES[id].bump,
    });
    expect(pick('operation-removed')).toEqual({ level: 'breaking', breaks: ['clients'], bump: 'major' });
    expect(pick('request-type-changed')).toEqual({
      level: 'breaking',
      breaks: ['clients', 'implementations'],
      bump: 'major',
    });
    expect(pick('request-enum-value-added')).toEqual({ level: 'warning', breaks: ['implementations'], bump: 'minor' });
    expect(pick('operation-added')).toEqual({ level: 'info', breaks: [], bump: 'minor' });
    expect(pick('request-parameter-added')).toEqual({ level: 'info', breaks: ['implementations'], bump: 'minor' });
    expect(pick('description-changed')).toEqual({ level: 'info', breaks: [], bump: 'patch' });
    for (const rule of Object.values(RULES)) expect(rule.summary.length).toBeGreaterThan(10);
  });
});

describe('vapc diff: what each branch says and where it points', () => {
  /** The changes of a request schema as `id pointer message`. */
  const said = (base: JsonObject, head: JsonObject): string[] => {
    const sink = new ChangeSink();
    compareSchemas(base, head, '/s', { sink, dir: 'request', operation: 'POST /x', place: 'the body' });
    return sink.changes.map((c) => `${c.id} ${c.pointer} ${c.message}`);
  };
  const CASES: ReadonlyArray<[string, JsonObject, JsonObject, string[]]> = [
    [
      'type changed',
      { type: 'string' },
      { type: 'boolean' },
      ['request-type-changed /s the body: type changed from string to boolean'],
    ],
    [
      'type narrowed',
      { type: ['string', 'integer'] },
      { type: 'string' },
      ['request-type-narrowed /s the body: type narrowed from string|integer to string'],
    ],
    [
      'type widened',
      { type: 'string' },
      { type: ['string', 'boolean'] },
      ['request-type-widened /s the body: type widened from string to string|boolean'],
    ],
    [
      'type no longer restricted',
      { type: 'string' },
      {},
      ['request-type-widened /s the body: type no longer restricted (was string)'],
    ],
    [
      'type now restricted',
      {},
      { type: 'string' },
      ['request-type-narrowed /s the body: type now restricted to string'],
    ],
    [
      'nullable',
      { type: 'string' },
      { type: ['string', 'null'] },
      ['request-became-nullable /s the body: may now be null'],
    ],
    [
      'not nullable',
      { type: ['string', 'null'] },
      { type: 'string' },
      ['request-became-not-nullable /s the body: may no longer be null'],
    ],
    [
      'enum value replaced',
      { enum: ['a', 'b'] },
      { enum: ['a', 'c'] },
      [
        'request-enum-value-removed /s/enum the body: enum value(s) "b" removed',
        'request-enum-value-added /s/enum the body: enum value(s) "c" added',
      ],
    ],
    [
      'enum added',
      { type: 'string' },
      { type: 'string', enum: ['a', 1] },
      ['request-enum-value-removed /s/enum the body: now restricted to the values "a", 1'],
    ],
    [
      'enum removed',
      { type: 'string', enum: ['a', 1] },
      { type: 'string' },
      ['request-enum-value-added /s the body: no longer restricted to the values "a", 1'],
    ],
    [
      'bounds',
      { minimum: 1, maxLength: 3 },
      { minimum: 0 },
      [
        'request-max-increased /s/maxLength the body: maxLength changed from 3 to none',
        'request-min-decreased /s/minimum the body: minimum changed from 1 to 0',
      ],
    ],
    [
      'pattern changed',
      { pattern: '^a' },
      { pattern: '^b' },
      ['request-pattern-changed /s/pattern the body: pattern changed from "^a" to "^b"'],
    ],
    [
      'pattern removed',
      { pattern: '^a' },
      {},
      ['request-pattern-removed /s/pattern the body: pattern changed from "^a" to none'],
    ],
    [
      'format added',
      {},
      { format: 'uuid' },
      ['request-format-changed /s/format the body: format changed from none to "uuid"'],
    ],
    [
      'default changed',
      { default: 1 },
      { default: 2 },
      ['request-default-changed /s/default the body: default changed from 1 to 2'],
    ],
    [
      'documentation',
      { description: 'a', 'x-unspecified': ['a'] },
      { description: 'b', 'x-unspecified': ['b'] },
      [
        'description-changed /s/description the body: description changed',
        'x-unspecified-changed /s/x-unspecified the body: what the contract leaves unspecified changed (x-unspecified)',
      ],
    ],
    [
      'properties',
      obj({ a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } }, ['a']),
      obj({ a: { type: 'string' }, c: { type: 'string' }, d: { type: 'string' }, e: { type: 'string' } }, ['c', 'e']),
      [
        'request-property-became-optional /s/properties/a the body: property `a` became optional',
        'request-property-removed /s/properties/b the body: property `b` removed',
        'request-property-became-required /s/properties/c the body: property `c` became required',
        'request-property-added /s/properties/d the body: optional property `d` added',
        'request-property-added-required /s/properties/e the body: required property `e` added',
      ],
    ],
    [
      'nested items',
      obj({ s: obj({ t: { type: 'array', items: { type: 'string', maxLength: 5 } } }) }),
      obj({ s: obj({ t: { type: 'array', items: { type: 'string', maxLength: 3 } } }) }),
      [
        'request-max-decreased /s/properties/s/properties/t/items/maxLength the body, `s.t[]`: maxLength changed from 5 to 3',
      ],
    ],
    [
      'union branches',
      { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      { anyOf: [{ type: 'boolean' }, { type: 'string' }, { type: 'object' }] },
      [
        'request-union-branch-removed /s/anyOf/1 the body: a branch of the union was removed',
        'request-union-branch-added /s/anyOf/0 the body: a branch was added to the union',
        'request-union-branch-added /s/anyOf/2 the body: a branch was added to the union',
      ],
    ],
    [
      'another keyword',
      { type: 'object' },
      { type: 'object', additionalProperties: false },
      [
        'unclassified-change /s the body: a schema keyword no rule classifies changed (additionalProperties, multipleOf, ...)',
      ],
    ],
  ];
  for (const [name, base, head, expected] of CASES) {
    it(name, () => {
      expect(said(base, head)).toEqual(expected);
    });
  }
});
