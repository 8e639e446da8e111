/**
 * The `coverage` block of report.json (shared/runner-interface.md, 2026-11-25): which cells of
 * the contract a run sent and judged. Computed by src/coverage/ from the spec, the plan and the
 * run's exchanges; merged across shards there too. Plain data, no secret in it: every item is
 * spec text (operation, parameter, keyword, status, header, scheme names) and counts.
 */

export type CoverageDimension = 'status' | 'parameter' | 'keyword' | 'enum' | 'response' | 'header' | 'security';
export const COVERAGE_DIMENSIONS: readonly CoverageDimension[] = [
  'status',
  'parameter',
  'keyword',
  'enum',
  'response',
  'header',
  'security',
];

export type CoverageState = 'not-sent' | 'sent' | 'judged-pass' | 'judged-fail';
export const COVERAGE_STATES: readonly CoverageState[] = ['not-sent', 'sent', 'judged-pass', 'judged-fail'];

export interface CoverageCell {
  /** `METHOD /path`. */
  operation: string;
  dimension: CoverageDimension;
  /** What the cell is, stable across runs: `422`, `body max_concurrency`, `body max_concurrency maximum`, `query provider = null`. */
  item: string;
  state: CoverageState;
  /** Ids of the checks that judged it (passed or failed on an exchange touching it), sorted. */
  checks: string[];
  /** Requests that touched it, judged or not. */
  requests: number;
  /** The line of the authored spec the cell stands on (1-based), null when not found. */
  spec_line: number | null;
  /** The file of `spec_line`, relative to the package root (`spec/openapi.yaml`, a split component file). */
  spec_file?: string;
  /** With not-sent or sent: why the run did not judge it, when the run knows (destructive not enabled, only an unpaced retry ...). */
  reason?: string;
}

/** A status of an operation seen without a documented response (exact, `4XX` range or `default`). */
export interface UndocumentedStatus {
  operation: string;
  status: number;
  requests: number;
  checks: string[];
  /**
   * How many of `requests` named, in their path, an id the run never got from the server nor its
   * fixtures (one the runner made up): the contract documents no answer to them, so they are an
   * observation and `--fail-on-undocumented-status` does not count them. Absent when none.
   */
  unknown_id_requests?: number;
  /**
   * The rule of the contract's profile that leaves this status open (a 409 for a conflict, a 413
   * past a payload limit): listed, never counted by `--fail-on-undocumented-status`.
   */
  left_open?: string;
}

export interface CoverageSummary {
  cells: number;
  judged: number;
  sent: number;
  not_sent: number;
  /** judged / cells × 100, one decimal. */
  percent: number;
}

export interface Coverage {
  summary: CoverageSummary;
  cells: CoverageCell[];
  /** Statuses answered that the operation does not document (an addition to the fixed shape). */
  undocumented_statuses?: UndocumentedStatus[];
}
