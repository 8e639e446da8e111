import { printable } from '../results/printable.js';
import type { Baseline, BaselineEntry } from './file.js';

/**
 * Baseline hygiene: an entry is accepted debt, so it must say why (a reason that is not a
 * placeholder) and until when (an `expires` at most MAX_EXPIRY_DAYS ahead). A pull request can
 * edit the baseline file it is judged with; these rules make an entry added to hide a failure
 * visible in review (and, with --strict-baseline, fail the run). Pure: no file, no clock.
 */

/** The furthest an entry's `expires` may lie ahead of today, in days (docs/baseline.md). */
export const MAX_EXPIRY_DAYS = 90;

/** A reason that starts with one of these is still to be written: `TODO: ...` (what --write-baseline writes), `FIXME`, `tbd`. */
const PLACEHOLDER_START = /^(?:todo|fixme|tbd|tbc|xxx+)\b/i;
/** A reason that is only one of these says nothing. */
const PLACEHOLDER_WHOLE = new Set([
  'wip',
  'na',
  'n a',
  'none',
  'nothing',
  'later',
  'temp',
  'temporary',
  'placeholder',
  'reason',
  'ignore',
  'ok',
  'known',
  'accepted',
  'fix later',
  'unknown',
]);

/** True when `reason` gives no reason: empty, fewer than 3 letters or digits, a placeholder word, or starting TODO/FIXME/tbd. */
export function isPlaceholderReason(reason: string): boolean {
  const words = reason
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return words.replace(/ /g, '').length < 3 || PLACEHOLDER_WHOLE.has(words) || PLACEHOLDER_START.test(words);
}

/** The day `days` after `today` (both YYYY-MM-DD, UTC). */
export function addDays(today: string, days: number): string {
  const d = new Date(`${today}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export interface HygieneProblem {
  entry: BaselineEntry;
  /** What is wrong, in words: "the reason is a placeholder", "no expires", "expires ... is more than 90 days away". */
  problems: string[];
}

/** The entries that break the hygiene rules, in file order, each with what is wrong. */
export function baselineHygiene(baseline: Baseline, today: string, maxDays = MAX_EXPIRY_DAYS): HygieneProblem[] {
  const latest = addDays(today, maxDays);
  const out: HygieneProblem[] = [];
  for (const entry of baseline.findings) {
    const problems: string[] = [];
    if (isPlaceholderReason(entry.reason))
      problems.push(`the reason "${printable(entry.reason).slice(0, 60)}" is a placeholder`);
    if (entry.expires === undefined) problems.push(`no expires (give one within ${maxDays} days, by ${latest})`);
    else if (entry.expires > latest)
      problems.push(`expires ${entry.expires} is more than ${maxDays} days away (latest ${latest})`);
    if (problems.length > 0) out.push({ entry, problems });
  }
  return out;
}

/** One line per entry: `check operation kind: problem; problem`, printable. */
export function hygieneLine(p: HygieneProblem): string {
  return `${printable(p.entry.check)} ${printable(p.entry.operation)} ${printable(p.entry.kind)}: ${p.problems.join('; ')}`;
}
