/**
 * No pass without evidence: a check passes only when at least one request it sent was judged on
 * the property it names. Answers that judge nothing (a 429, a rule the contract leaves to the
 * server, a valid body refused for another reason) are counted apart with their reasons; a check
 * whose every answer was of that kind is skipped, naming them.
 */
import type { CheckOutcome } from './check.js';

export interface EvidenceTally {
  /** Requests judged on the check's property (whatever the verdict). */
  judged: number;
  /** Why the other answers judged nothing, one entry per answer. */
  unjudged: string[];
}

/** The reasons of a tally, each once, at most three. */
export function unjudgedReasons(unjudged: readonly string[]): string {
  const unique = [...new Set(unjudged)];
  const more = unique.length > 3 ? ` (and ${unique.length - 3} more)` : '';
  return `${unique.slice(0, 3).join('; ')}${more}`;
}

/**
 * The outcome of a check that found no failure: passed with `message` when something was judged
 * (or when it recorded no probe: it judged inline), else skipped with what every answer was instead.
 */
export function passWithEvidence(tally: EvidenceTally, message: string): CheckOutcome {
  // No probe recorded at all: the check judged inline (it fails through its own findings).
  if (tally.judged > 0 || tally.unjudged.length === 0) return { status: 'passed', message };
  return { status: 'skipped', message: `not judged: ${unjudgedReasons(tally.unjudged)}` };
}
