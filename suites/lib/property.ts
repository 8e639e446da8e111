/** Property helpers: a fast-check property over HTTP with a request budget for shrinking, and seeded samples. */
import fc from 'fast-check';
import type { Failure } from '../../src/results/model.js';
import type { CheckContext } from '../../src/checks/check.js';
import type { Operation } from '../../src/spec/model.js';
import { cloneJson, validBody, type GenOptions } from '../../src/generators/index.js';
import { OK, unjudged, type Judgement } from './outcomes.js';
import { unjudgedReasons } from '../../src/checks/evidence.js';
import { learnedFixtures } from './learned.js';

export interface PropertyOptions<T> {
  /** Cases tried before the random ones (boundaries, one per field). */
  examples?: T[];
  /** Random cases after the examples. */
  numRuns: number;
  /** Requests the shrinking may spend; past it, shrinking stops at the smallest failure so far. */
  shrinkBudget?: number;
}

/**
 * Runs `probe` over `arb` with the run's seed: the examples first, then `numRuns` random cases.
 * On failure, fast-check shrinks (within the budget) and the failure of the smallest counterexample
 * is returned with its input, seed and path filled in. A probe that throws is the tool's fault
 * and is rethrown (an error verdict, never a failed check).
 */
export async function checkProperty<T>(
  ctx: CheckContext,
  arb: fc.Arbitrary<T>,
  probe: (value: T) => Promise<Judgement>,
  options: PropertyOptions<T>,
): Promise<Judgement> {
  let last: Judgement | undefined;
  let toolError: unknown;
  let shrinkSpent = 0;
  let failedOnce = false;
  let lastFailed: { value: T } | undefined;
  let judged = 0;
  const unjudgedWhy: string[] = [];
  const budget = options.shrinkBudget ?? 6;
  const property = fc.asyncProperty(arb, async (value) => {
    if (toolError !== undefined) return true;
    if (failedOnce) {
      // Budget spent: end the shrinking at once. Answering "passes" would make fast-check walk the
      // whole shrink stream of a large value (minutes of CPU, no request sent); answering "fails"
      // without a request makes it descend greedily and stop; the reported input is the last one
      // that really failed (lastFailed), never an unverified candidate.
      if (shrinkSpent >= budget) return false;
      shrinkSpent++;
    }
    let j: Judgement;
    try {
      j = await probe(value);
    } catch (error) {
      toolError = error;
      return true;
    }
    if (j.ok && j.unjudged !== undefined) unjudgedWhy.push(j.unjudged);
    else judged++;
    if (!j.ok) {
      failedOnce = true;
      last = j;
      lastFailed = { value };
      return false;
    }
    return true;
  });
  const examples = options.examples ?? [];
  const details = await fc.check(property, {
    seed: ctx.seed,
    numRuns: examples.length + options.numRuns,
    examples: examples.map((e) => [e] as [T]),
  });
  if (toolError !== undefined) throw toolError;
  if (!details.failed || !last || last.ok) return judged === 0 && unjudgedWhy.length ? unjudged(unjudgedReasons(unjudgedWhy)) : OK;
  const counterexample = lastFailed ? lastFailed.value : details.counterexample?.[0];
  const failure: Failure = { ...last.failure, seed: ctx.seed };
  if (counterexample !== undefined) failure.input = ctx.redact(counterexample);
  // The path replays fast-check's final counterexample: only that one really failed when the budget held.
  if (details.counterexamplePath && shrinkSpent < budget) failure.path = details.counterexamplePath;
  return { ok: false, failure, summary: last.summary };
}

/** Generation options of the run: its fixtures, with the pairing the server was seen to require (learned.ts). */
export const genOptions = (ctx: CheckContext, extra: Partial<GenOptions> = {}): GenOptions => ({ fixtures: learnedFixtures(ctx), ...extra });

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
