/**
 * Fixed examples come before random draws: every malformation of JSON is tried on every seed, and
 * the random arbitrary draws from the same set (so a seed changes only the extra exploration).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { malformedJson, malformedJsonExamples } from '../../../src/generators/index.js';

describe('malformedJsonExamples', () => {
  const base = { name: 'vapc-test x', max_concurrency: 3 };

  it('every way of breaking the syntax, each text really malformed, in a fixed order', () => {
    const cases = malformedJsonExamples(base);
    expect(cases.map((c) => c.description)).toEqual([
      'malformed JSON (truncated)',
      'malformed JSON (trailing comma)',
      'malformed JSON (single quotes)',
      'malformed JSON (unquoted key)',
      'malformed JSON (not JSON)',
    ]);
    for (const c of cases) expect(() => JSON.parse(c.rawBody!), c.description).toThrow();
    expect(malformedJsonExamples(base)).toEqual(cases);
  });

  it('covers everything the random arbitrary can draw, whatever the seed', () => {
    const fixed = new Set(malformedJsonExamples(base).map((c) => c.rawBody));
    for (const seed of [1, 2, 3, 20260101]) {
      for (const drawn of fc.sample(malformedJson(base), { seed, numRuns: 20 }))
        expect(fixed.has(drawn.rawBody)).toBe(true);
    }
  });
});
