/** Property helpers of the suites: generation options from the run's fixtures, and seeded samples (checkProperty itself is in src/checks/property.ts). */
import fc from 'fast-check';
import type { CheckContext } from '../../src/checks/check.js';
import type { Operation } from '../../src/spec/model.js';
import { cloneJson, validBody, type GenOptions } from '../../src/generators/index.js';
import { learnedFixtures } from './learned.js';
import { FIXTURES } from '../fixtures.js';

export { checkProperty, type PropertyOptions } from '../../src/checks/property.js';

/**
 * Generation options of the run: its fixtures, with the pairing the server was seen to require
 * (learned.ts), and what they are to a body (the contract's declared fixtures).
 */
export const genOptions = (ctx: CheckContext, extra: Partial<GenOptions> = {}): GenOptions => ({
  fixtures: learnedFixtures(ctx),
  fixtureSpecs: FIXTURES,
  ...extra,
});

/**
 * Samples of body arbitraries by arbitrary and seed. `validBody` hands out one arbitrary per
 * schema and generation options, and a sample is a pure function of the arbitrary and the seed,
 * so the auth probes (one valid body per request, same salt) need not regenerate it each time.
 * Every caller gets its own deep copy.
 */
const bodySamples = new WeakMap<fc.Arbitrary<unknown>, Map<number, unknown>>();

export function sampleBodyOf<T>(ctx: CheckContext, arb: fc.Arbitrary<T>, salt: number): T {
  const seed = ctx.seed + salt;
  let bySeed = bodySamples.get(arb);
  if (!bySeed) {
    bySeed = new Map();
    bodySamples.set(arb, bySeed);
  }
  if (!bySeed.has(seed)) {
    if (bySeed.size > 256) bySeed.clear();
    bySeed.set(seed, fc.sample(arb, { seed, numRuns: 1 })[0]!);
  }
  return cloneJson(bySeed.get(seed) as T);
}

/** A valid body for an operation (one sample, fixed by the seed), or undefined when it has none. */
export function sampleBody(ctx: CheckContext, op: Operation, salt = 0): Record<string, unknown> | undefined {
  return op.requestBody ? sampleBodyOf(ctx, validBody(op, genOptions(ctx)), salt) : undefined;
}
