// The field-type criterion of the exported workflows (src/arazzo/types.ts), judged by the same
// RFC 9535 engine the criteria are checked with, and the nesting that keeps `&&` chains right.
import { describe, expect, it } from 'vitest';
import { query } from 'jsonpath-rfc9535';
import { allOf, typeCriterion } from '../../../src/arazzo/types.js';

const schema = {
  type: 'object',
  properties: {
    id: { type: ['string', 'null'] },
    max: { type: ['integer', 'null'] },
    on: { type: ['boolean', 'null'] },
    counts: { type: ['object', 'null'], properties: { total: { type: 'integer' } } },
    calls: { type: ['array', 'null'] },
    either: { type: ['string', 'integer'] },
  },
};
const good = { id: 'c1', max: 3, on: false, counts: { total: 1 }, calls: [{}], either: 'x' };
const holds = (condition: string, body: unknown) => query([body] as never, condition).length === 1;

describe('typeCriterion', () => {
  const c = typeCriterion(good, schema)!;

  it('holds on the verified answer, and on nulls and absent fields the contract allows', () => {
    expect(c).toMatchObject({ context: '$response.body', type: 'jsonpath' });
    expect(holds(c.condition, good)).toBe(true);
    const { calls: _absent, ...withoutCalls } = good;
    expect(holds(c.condition, { ...withoutCalls, id: null, counts: null })).toBe(true);
  });

  it('fails when a field comes back with another JSON type, at either level', () => {
    expect(holds(c.condition, { ...good, counts: 1 })).toBe(false);
    expect(holds(c.condition, { ...good, on: 'false' })).toBe(false);
    expect(holds(c.condition, { ...good, max: '3' })).toBe(false);
    expect(holds(c.condition, { ...good, id: 7 })).toBe(false);
    expect(holds(c.condition, { ...good, calls: {}, counts: { total: 'one' } })).toBe(false);
  });

  it('says nothing of a field with two types besides null, nor of an answer without typed fields', () => {
    expect(holds(c.condition, { ...good, either: 7 })).toBe(true);
    expect(typeCriterion({ other: 1 }, schema)).toBeUndefined();
    expect(typeCriterion(good, undefined)).toBeUndefined();
  });
});

describe('allOf', () => {
  const T = '@.t == 1';
  const F = '@.t == 2';
  it('nests to the right, so every operand counts (a flat chain reads a && b && c as a && (b || c))', () => {
    expect(allOf([T, F, T])).toBe(`${T} && (${F} && (${T}))`);
    for (const combo of [
      [T, F, T],
      [T, T, F],
      [F, T, T],
    ])
      expect(holds(`$[?${allOf(combo)}]`, { t: 1 })).toBe(false);
    expect(holds(`$[?${allOf([T, T, T])}]`, { t: 1 })).toBe(true);
    // The engine's reading of the flat chain, which the nesting exists for: if this starts failing, the library is fixed.
    expect(holds(`$[?${T} && ${F} && ${T}]`, { t: 1 })).toBe(true);
  });
});
