/**
 * No pass without evidence: a check passes only when at least one request it sent was judged on
 * the property it names. Answers that judge nothing (a 429, a rule the contract leaves to the
 * server, a valid body refused for another reason) are counted apart with their reasons; a check
 * whose every answer was of that kind is skipped, naming them, and its `notJudged` is the cause
 * most of them had (data: the verdict and coverage read it, never the words).
 */
import type { NotJudged } from '../results/model.js';
import type { CheckOutcome } from './check.js';

export interface EvidenceTally {
  /** Requests judged on the check's property (whatever the verdict). */
  judged: number;
  /** Why the other answers judged nothing, one entry per answer. */
  unjudged: string[];
  /** The same, as data, one entry per answer. */
  why: NotJudged[];
}

/** The reasons of a tally, each once, at most three. */
export function unjudgedReasons(unjudged: readonly string[]): string {
  const unique = [...new Set(unjudged)];
  const more = unique.length > 3 ? ` (and ${unique.length - 3} more)` : '';
  return `${unique.slice(0, 3).join('; ')}${more}`;
}

/** The cause most answers had (the first of those tied), or undefined for none. */
export function dominantCause(why: readonly NotJudged[]): NotJudged | undefined {
  const counts = new Map<string, { n: number; first: NotJudged }>();
  for (const w of why) {
    const key = `${w.cause}\u0000${w.status ?? ''}\u0000${w.loc ?? ''}`;
    const seen = counts.get(key);
    if (seen) seen.n++;
    else counts.set(key, { n: 1, first: w });
  }
  let best: { n: number; first: NotJudged } | undefined;
  for (const c of counts.values()) if (!best || c.n > best.n) best = c;
  return best?.first;
}

/** Why a check that recorded no probe at all is skipped: it has no evidence to pass on. */
export const NO_PROBE_REASON = 'not judged: the check recorded no judged answer';

/**
 * The outcome of a check that found no failure: passed with `message` when something was judged,
 * else skipped with what every answer was instead, or, when it recorded no probe at all, with
 * NO_PROBE_REASON (a `runner` cause: the check had nothing to send). A check that judges an answer
 * inline records it (`findings.add(OK)`).
 */
export function passWithEvidence(tally: EvidenceTally, message: string): CheckOutcome {
  if (tally.judged > 0) return { status: 'passed', message };
  const why = dominantCause(tally.why);
  if (tally.unjudged.length === 0 || !why)
    return { status: 'skipped', message: NO_PROBE_REASON, notJudged: { cause: 'runner' } };
  return { status: 'skipped', message: `not judged: ${unjudgedReasons(tally.unjudged)}`, notJudged: why };
}
