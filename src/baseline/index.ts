/**
 * Baseline of known findings (`vapc run --baseline FILE`, `--write-baseline FILE`,
 * `--prune-baseline`): a pure module, from a RunReport and a parsed file to an annotated report
 * and to the entries to write. The CLI reads and writes the file and sets the exit status.
 */
export { kindOfIssue, kindsOfFailure, kindsOfResult, type FindingKind } from './kind.js';
export {
  BASELINE_VERSION,
  TODO_REASON,
  compareEntries,
  isIsoDate,
  parseBaseline,
  serializeBaseline,
  signatureOf,
  type Baseline,
  type BaselineEntry,
} from './file.js';
export {
  applyBaseline,
  causesOfFindings,
  entriesToWrite,
  findingsOf,
  isExpired,
  markResult,
  prunable,
  prunedEntries,
  type ApplyOptions,
} from './apply.js';
export {
  MAX_EXPIRY_DAYS,
  addDays,
  baselineHygiene,
  hygieneLine,
  isPlaceholderReason,
  type HygieneProblem,
} from './hygiene.js';
