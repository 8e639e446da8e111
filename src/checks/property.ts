/**
 * The property helper every property check uses: a fast-check property over HTTP with a request
 * budget for shrinking. Generic: it knows judgements and the run's seed, nothing of a contract.
 */
import fc from 'fast-check';
import type { Failure } from '../results/model.js';
import type { CheckContext } from './check.js';
import { OK, unjudged, type Judgement } from './outcomes.js';
import { dominantCause, unjudgedReasons } from './evidence.js';
import type { NotJudged } from '../results/model.js';

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
  const causes: NotJudged[] = [];
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
    if (j.ok && j.unjudged !== undefined) {
      unjudgedWhy.push(j.unjudged);
      causes.push(j.why);
    } else judged++;
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
  // No case tried, or none judged: no evidence (a check that judged nothing does not pass).
  if (!details.failed || !last || last.ok)
    return judged === 0
      ? unjudged(
          unjudgedWhy.length ? unjudgedReasons(unjudgedWhy) : 'no case was tried',
          dominantCause(causes) ?? { cause: 'runner' },
        )
      : OK;
  const counterexample = lastFailed ? lastFailed.value : details.counterexample?.[0];
  const failure: Failure = { ...last.failure, seed: ctx.seed };
  if (counterexample !== undefined) failure.input = ctx.redact(counterexample);
  // The path replays fast-check's final counterexample: only that one really failed when the budget held.
  if (details.counterexamplePath && shrinkSpent < budget) failure.path = details.counterexamplePath;
  return { ok: false, failure, summary: last.summary };
}
