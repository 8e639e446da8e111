/**
 * The value parsers of `vapc run`'s settings (src/config/values.ts): for each kind, what it accepts
 * (from a flag or variable's text, and from YAML) and what it refuses, with the one-line message
 * docs/running.md promises: where the value came from (the flag, the variable, the file and key),
 * what was expected, and the value as a type and a short escaped excerpt.
 */
import { describe, expect, it } from 'vitest';
import {
  atLine,
  coerce,
  describeValue,
  parseFixtures,
  parsePercent,
  parseShard,
  parseSuites,
  snakeOf,
  type Kind,
} from '../../../src/config/values.js';
import { VapcError } from '../../../src/errors.js';
import type { FixtureSpec } from '../../../src/results/fixtures.js';
import { outcome } from './helpers.js';
import { FIXTURES } from '../../../suites/fixtures.js';

const KNOWN = ['auth', 'validation', 'ranges', 'schema', 'cors'];

describe('snakeOf: how a key is compared', () => {
  it('reads snake_case, camelCase and kebab-case alike', () => {
    expect(['base_url', 'baseUrl', 'base-url'].map(snakeOf)).toEqual(['base_url', 'base_url', 'base_url']);
    expect(snakeOf('phoneNumber-id')).toBe('phone_number_id');
  });
});

describe('describeValue: a refused value as the message names it', () => {
  it('names the type, and quotes a string only as a short escaped excerpt', () => {
    expect(describeValue(null)).toBe('null');
    expect(describeValue([1, 2])).toBe('a list');
    expect(describeValue({ a: 1 })).toBe('a mapping');
    expect(describeValue(5)).toBe('number 5');
    expect(describeValue(true)).toBe('boolean true');
    expect(describeValue('x\u001b[31m')).toBe('string "x\\x1b[31m"');
    expect(describeValue('a'.repeat(100))).toMatch(/^string "a{30,40}…"$/);
  });
});

describe('parseSuites', () => {
  it('reads a comma-separated list or a YAML list, trimmed, empty items and repeats dropped, in the order given', () => {
    expect(parseSuites('cors, auth,,cors', '--suite', KNOWN)).toEqual(['cors', 'auth']);
    expect(parseSuites([' ranges ', 'auth'], 'vapc.yaml: suite', KNOWN)).toEqual(['ranges', 'auth']);
    expect(parseSuites('auth', '--suite', KNOWN)).toEqual(['auth']);
  });

  it('refuses what is not a list of names', () => {
    const expected = (got: string) =>
      `E_CONFIG --suite: expected a comma-separated list of suites (auth, validation, ranges, schema, cors), got ${got}`;
    expect(outcome(() => parseSuites(5, '--suite', KNOWN))).toBe(expected('number 5'));
    expect(outcome(() => parseSuites({ auth: true }, '--suite', KNOWN))).toBe(expected('a mapping'));
    expect(outcome(() => parseSuites(['auth', 3], '--suite', KNOWN))).toBe(expected('a list'));
    expect(outcome(() => parseSuites([3, 'auth'], '--suite', KNOWN))).toBe(expected('a list'));
  });

  it('refuses an empty list, naming the suites it knows', () => {
    for (const empty of ['', ' , ,', []])
      expect(outcome(() => parseSuites(empty, '--suite', KNOWN))).toBe(
        'E_CONFIG --suite: the suite list is empty; known suites: auth, validation, ranges, schema, cors',
      );
  });

  it('refuses unknown names: the first three, escaped, and how many more', () => {
    expect(outcome(() => parseSuites('auth,nope', '--suite', KNOWN))).toBe(
      'E_CONFIG --suite: unknown suite "nope"; known suites: auth, validation, ranges, schema, cors',
    );
    expect(outcome(() => parseSuites('a,b,c', '--suite', KNOWN))).toBe(
      'E_CONFIG --suite: unknown suite "a", "b", "c"; known suites: auth, validation, ranges, schema, cors',
    );
    expect(outcome(() => parseSuites('a,b,c,d,e\u0007', 's', KNOWN))).toBe(
      'E_CONFIG s: unknown suite "a", "b", "c" and 2 more; known suites: auth, validation, ranges, schema, cors',
    );
  });
});

describe('parseShard (--shard I/N)', () => {
  it('accepts 1 <= I <= N, blanks around the numbers allowed', () => {
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(parseShard(' 2 / 3 ')).toEqual({ index: 2, count: 3 });
    expect(parseShard('3/3')).toEqual({ index: 3, count: 3 });
    expect(parseShard('12/34')).toEqual({ index: 12, count: 34 });
    expect(parseShard('999999/999999')).toEqual({ index: 999999, count: 999999 });
  });

  it('refuses anything else as a usage error quoting the text', () => {
    for (const text of ['0/3', '4/3', '1/0', '0/0', 'x1/3', '1/3x', '1 3', '1/', '-1/3', '1234567/1234567', 'a1/3'])
      expect(outcome(() => parseShard(text))).toBe(
        `E_USAGE --shard takes I/N with 1 <= I <= N (e.g. --shard 2/3), not "${text}"`,
      );
  });
});

describe('parsePercent (--min-coverage, --coverage-floor)', () => {
  it('accepts 0 to 100, a decimal fraction and blanks allowed', () => {
    expect(['0', '100', '50', ' 7 ', '12.25', '99.5'].map((t) => parsePercent(t, '--min-coverage'))).toEqual([
      0, 100, 50, 7, 12.25, 99.5,
    ]);
  });

  it('refuses anything else as a usage error naming the flag, the note after the range', () => {
    for (const text of ['101', '100.5', '-1', 'x5', '5x', '5.', '.5', '', 'NaN', '1e2'])
      expect(outcome(() => parsePercent(text, '--min-coverage'))).toBe(
        `E_USAGE --min-coverage takes a percentage from 0 to 100, not "${text}"`,
      );
    expect(outcome(() => parsePercent('200', '--coverage-floor', ' (0 turns the floor off)'))).toBe(
      'E_USAGE --coverage-floor takes a percentage from 0 to 100 (0 turns the floor off), not "200"',
    );
  });
});

describe('coerce: one converter per kind', () => {
  /** From text (a flag or a variable): fromText true. */
  const text = (kind: Kind, value: unknown) => outcome(() => coerce(kind, value, '--flag', true));
  /** From YAML (a config file): fromText false. */
  const yaml = (kind: Kind, value: unknown) => outcome(() => coerce(kind, value, 'vapc.yaml: key', false));

  it('string: a non-empty string, kept as given', () => {
    expect(yaml('string', ' a b ')).toBe(' a b ');
    for (const [bad, got] of [
      ['', 'string ""'],
      ['   ', 'string "   "'],
      [5, 'number 5'],
      [null, 'null'],
      [['a'], 'a list'],
    ] as const)
      expect(yaml('string', bad)).toBe(`E_CONFIG vapc.yaml: key: expected a non-empty string, got ${got}`);
  });

  it('boolean: YAML true or false; from text also 1/0, yes/no in any case', () => {
    expect([yaml('boolean', true), yaml('boolean', false)]).toEqual([true, false]);
    expect(['true', 'TRUE', ' 1 ', 'yes', 'Yes'].map((t) => text('boolean', t))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['false', 'False', '0', 'no', ' NO '].map((t) => text('boolean', t))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(text('boolean', 'maybe')).toBe('E_CONFIG --flag: expected true or false, got string "maybe"');
    expect(text('boolean', 'truee')).toBe('E_CONFIG --flag: expected true or false, got string "truee"');
    expect(text('boolean', 'xtrue')).toBe('E_CONFIG --flag: expected true or false, got string "xtrue"');
    expect(text('boolean', 'yesno')).toBe('E_CONFIG --flag: expected true or false, got string "yesno"');
    expect(text('boolean', 1)).toBe('E_CONFIG --flag: expected true or false, got number 1');
    expect(yaml('boolean', 'true')).toBe('E_CONFIG vapc.yaml: key: expected true or false, got string "true"');
  });

  it('int: 0 to 4294967295 (a fast-check seed), from text with blanks and a sign', () => {
    expect([yaml('int', 0), yaml('int', 4294967295), text('int', ' 42 '), text('int', '7')]).toEqual([
      0, 4294967295, 42, 7,
    ]);
    const range = 'expected an integer from 0 to 4294967295';
    expect(text('int', '-1')).toBe(`E_CONFIG --flag: ${range}, got string "-1"`);
    expect(yaml('int', -1)).toBe(`E_CONFIG vapc.yaml: key: ${range}, got number -1`);
    expect(yaml('int', 4294967296)).toBe(`E_CONFIG vapc.yaml: key: ${range}, got number 4294967296`);
    for (const [bad, got] of [
      [1.5, 'number 1.5'],
      ['5', 'string "5"'],
      [true, 'boolean true'],
      [2 ** 53, 'number 9007199254740992'],
    ] as const)
      expect(yaml('int', bad)).toBe(`E_CONFIG vapc.yaml: key: expected an integer, got ${got}`);
    for (const bad of ['x5', '5x', '5.0', '', '1e3', '0x10'])
      expect(text('int', bad)).toBe(`E_CONFIG --flag: expected an integer, got string "${bad}"`);
  });

  it('from text, only a string is read as text (a list holding a number is not a number)', () => {
    expect(text('int', ['5'])).toBe('E_CONFIG --flag: expected an integer, got a list');
    expect(text('positiveInt', ['5'])).toBe('E_CONFIG --flag: expected a positive integer, got a list');
    expect(text('positiveNumber', ['5'])).toBe('E_CONFIG --flag: expected a positive number, got a list');
  });

  it('positiveInt: 1 and more', () => {
    expect([yaml('positiveInt', 1), text('positiveInt', ' 30 ')]).toEqual([1, 30]);
    for (const [bad, got] of [
      [0, 'number 0'],
      [-3, 'number -3'],
      [1.5, 'number 1.5'],
      ['5', 'string "5"'],
    ] as const)
      expect(yaml('positiveInt', bad)).toBe(`E_CONFIG vapc.yaml: key: expected a positive integer, got ${got}`);
    for (const bad of ['0', '-2', 'x5', '5x', '2.5'])
      expect(text('positiveInt', bad)).toBe(`E_CONFIG --flag: expected a positive integer, got string "${bad}"`);
  });

  it('positiveNumber: more than 0 and finite, a decimal fraction allowed', () => {
    expect([yaml('positiveNumber', 0.5), text('positiveNumber', '2.5'), text('positiveNumber', ' 12.75 ')]).toEqual([
      0.5, 2.5, 12.75,
    ]);
    expect(text('positiveNumber', '3')).toBe(3);
    for (const [bad, got] of [
      [0, 'number 0'],
      [-1, 'number -1'],
      [Infinity, 'number Infinity'],
      [NaN, 'number NaN'],
      ['5', 'string "5"'],
    ] as const)
      expect(yaml('positiveNumber', bad)).toBe(`E_CONFIG vapc.yaml: key: expected a positive number, got ${got}`);
    for (const bad of ['0', 'x5', '5x', '5.', '-1', '2.5x', 'Infinity', '0x10', '1e3'])
      expect(text('positiveNumber', bad)).toBe(`E_CONFIG --flag: expected a positive number, got string "${bad}"`);
  });

  it('suites and fixtures: their own parsers, with the same place named', () => {
    expect(outcome(() => coerce('suites', 'auth,cors', '--suite', true, KNOWN))).toEqual(['auth', 'cors']);
    expect(outcome(() => coerce('suites', 'auth', '--suite', true))).toBe(
      'E_CONFIG --suite: unknown suite "auth"; known suites: ',
    );
    expect(outcome(() => coerce('fixtures', { orgId: 'o' }, 'VAPC_FIXTURES', true, [], FIXTURES))).toEqual({
      org_id: 'o',
    });
    expect(outcome(() => coerce('fixtures', [], 'VAPC_FIXTURES', true, [], FIXTURES))).toMatch(
      /^E_CONFIG VAPC_FIXTURES: expected a mapping of fixture ids \(org_id, .*\), got a list$/,
    );
  });
});

describe('atLine: the line of a config file key, once, at the end of its refusal', () => {
  const refuse = (message: string) => () => {
    throw new VapcError('E_CONFIG', message);
  };

  it('returns what the read returns', () => {
    expect(atLine(3, () => 'read')).toBe('read');
  });

  it('appends the line to a config error, once, with lines of several digits', () => {
    expect(outcome(() => atLine(12, refuse('vapc.yaml: bad')))).toBe('E_CONFIG vapc.yaml: bad (line 12)');
    expect(outcome(() => atLine(3, () => atLine(12, refuse('vapc.yaml: bad'))))).toBe(
      'E_CONFIG vapc.yaml: bad (line 12)',
    );
    expect(outcome(() => atLine(4, refuse('vapc.yaml: "a (line 9) b" is bad')))).toBe(
      'E_CONFIG vapc.yaml: "a (line 9) b" is bad (line 4)',
    );
    expect(outcome(() => atLine(4, refuse('vapc.yaml: bad (line x)')))).toBe(
      'E_CONFIG vapc.yaml: bad (line x) (line 4)',
    );
  });

  it('keeps the code, and leaves an error without a line or of another kind as it is', () => {
    const usage = () => {
      throw new VapcError('E_USAGE', 'u');
    };
    expect(outcome(() => atLine(2, usage))).toBe('E_USAGE u (line 2)');
    expect(outcome(() => atLine(undefined, refuse('vapc.yaml: bad')))).toBe('E_CONFIG vapc.yaml: bad');
    const plain = new Error('plain');
    let thrown: unknown;
    try {
      atLine(5, () => {
        throw plain;
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(plain);
    expect(plain.message).toBe('plain');
  });
});

describe('parseFixtures: the ids the checks need', () => {
  const parse = (value: unknown, lines: ReadonlyMap<string, number> = new Map()) =>
    outcome(() => parseFixtures(value, 'vapc.yaml: fixtures', lines, FIXTURES));

  it('reads each known key (camelCase too), numbers as their text', () => {
    expect(
      parse({
        org_id: 'org_1',
        recipientListId: 'rl_1',
        api_key_id: 42,
        assistant_id: 'as_1',
        phone_number_id: 'pn_1',
        channels: ['twilio', 'telnyx'],
        phone_numbers: [{ id: 'pn_1', channel: 'twilio' }, { id: 'pn_2' }, { id: 'pn_3', channel: '' }],
      }),
    ).toStrictEqual({
      org_id: 'org_1',
      recipient_list_id: 'rl_1',
      api_key_id: '42',
      assistant_id: 'as_1',
      phone_number_id: 'pn_1',
      channels: ['twilio', 'telnyx'],
      phone_numbers: [{ id: 'pn_1', channel: 'twilio' }, { id: 'pn_2' }, { id: 'pn_3' }],
    });
    expect(parse({})).toStrictEqual({});
  });

  it('refuses what is not a mapping, naming the keys it knows', () => {
    const keys = 'org_id, recipient_list_id, api_key_id, assistant_id, phone_number_id, channels, phone_numbers';
    for (const [bad, got] of [
      [null, 'null'],
      [['org_id'], 'a list'],
      ['org_id', 'string "org_id"'],
      [7, 'number 7'],
    ] as const)
      expect(parse(bad)).toBe(`E_CONFIG vapc.yaml: fixtures: expected a mapping of fixture ids (${keys}), got ${got}`);
    expect(parse({ org: 'x' })).toBe(`E_CONFIG vapc.yaml: fixtures: unknown fixture "org"; known fixtures: ${keys}`);
  });

  it('refuses an id that is not a non-empty string or a finite number, naming the key as written', () => {
    for (const [bad, got] of [
      ['', 'string ""'],
      [true, 'boolean true'],
      [NaN, 'number NaN'],
      [Infinity, 'number Infinity'],
      [null, 'null'],
      [{}, 'a mapping'],
    ] as const)
      expect(parse({ orgId: bad })).toBe(
        `E_CONFIG vapc.yaml: fixtures.orgId: expected an id (a non-empty string), got ${got}`,
      );
  });

  it('channels: a non-empty list of non-empty strings', () => {
    for (const [bad, got] of [
      [[], 'a list'],
      ['twilio', 'string "twilio"'],
      [['twilio', ''], 'a list'],
      [['twilio', 5], 'a list'],
      [[5, 'twilio'], 'a list'],
    ] as const)
      expect(parse({ channels: bad })).toBe(
        `E_CONFIG vapc.yaml: fixtures.channels: expected a list of the provider identifiers (strings), got ${got}`,
      );
  });

  it('phone_numbers: a non-empty list of {id, channel}, the id a non-empty string, the channel a string when given', () => {
    const refused = (got: string) =>
      `E_CONFIG vapc.yaml: fixtures.phoneNumbers: expected a list of {id, channel} (channel optional), got ${got}`;
    expect(parse({ phoneNumbers: [{ id: 'p' }] })).toStrictEqual({ phone_numbers: [{ id: 'p' }] });
    for (const [bad, got] of [
      [[], 'a list'],
      [{ id: 'p' }, 'a mapping'],
      ['p', 'string "p"'],
      [[null], 'a list'],
      [['p'], 'a list'],
      [[{ id: 5 }], 'a list'],
      [[{ id: '' }], 'a list'],
      [[{ channel: 'twilio' }], 'a list'],
      [[{ id: 'p', channel: 5 }], 'a list'],
      [[{ id: 'p' }, { id: '' }], 'a list'],
      [[{ id: '' }, { id: 'p' }], 'a list'],
    ] as const)
      expect(parse({ phoneNumbers: bad })).toBe(refused(got));
  });

  it('puts the line of the fixture key in its refusal', () => {
    expect(parse({ org_id: '', assistant_id: 'a' }, new Map([['fixtures.org_id', 7]]))).toBe(
      'E_CONFIG vapc.yaml: fixtures.org_id: expected an id (a non-empty string), got string "" (line 7)',
    );
  });
});

describe("parseFixtures: another contract's declaration", () => {
  const DECLARED: readonly FixtureSpec[] = [
    { key: 'notebook_id', kind: 'id' },
    { key: 'tags', kind: 'list', items: 'the tag names' },
    { key: 'shelves', kind: 'tagged-ids', tag: 'room' },
  ];
  const parse = (value: unknown, declared: readonly FixtureSpec[] = DECLARED) =>
    outcome(() => parseFixtures(value, 'vapc.yaml: fixtures', new Map(), declared));

  it('reads the keys it declares, each of its kind, and names its own tag', () => {
    expect(
      parse({
        notebookId: 7,
        tags: ['a'],
        shelves: [
          { id: 's1', room: 'r1', other: 'x' },
          { id: 's2', room: '' },
        ],
      }),
    ).toStrictEqual({ notebook_id: '7', tags: ['a'], shelves: [{ id: 's1', room: 'r1' }, { id: 's2' }] });
    expect(parse({ tags: 'a' })).toBe(
      'E_CONFIG vapc.yaml: fixtures.tags: expected a list of the tag names (strings), got string "a"',
    );
    expect(parse({ shelves: [{ id: 's1', room: 5 }] })).toBe(
      'E_CONFIG vapc.yaml: fixtures.shelves: expected a list of {id, room} (room optional), got a list',
    );
    // The tag it declares, not another contract's: a `channel` beside the id is not read.
    expect(parse({ shelves: [{ id: 's1', channel: 5 }] })).toStrictEqual({ shelves: [{ id: 's1' }] });
  });

  it("refuses another contract's keys, naming its own; a contract that declares none refuses every key", () => {
    expect(parse({ org_id: 'o' })).toBe(
      'E_CONFIG vapc.yaml: fixtures: unknown fixture "org_id"; known fixtures: notebook_id, tags, shelves',
    );
    expect(parse({ org_id: 'o' }, [])).toBe(
      'E_CONFIG vapc.yaml: fixtures: unknown fixture "org_id"; known fixtures: none declared',
    );
    // No declaration given is none declared.
    expect(outcome(() => parseFixtures({ org_id: 'o' }, 'w', new Map()))).toBe(
      'E_CONFIG w: unknown fixture "org_id"; known fixtures: none declared',
    );
    expect(outcome(() => coerce('fixtures', { org_id: 'o' }, 'w', true))).toBe(
      'E_CONFIG w: unknown fixture "org_id"; known fixtures: none declared',
    );
    expect(parse([], [])).toBe(
      'E_CONFIG vapc.yaml: fixtures: expected a mapping of fixture ids (none declared), got a list',
    );
    expect(parse({}, [])).toStrictEqual({});
  });
});
