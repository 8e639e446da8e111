/**
 * What a run's coverage says on the console and at the gate: the one-line summary, the two
 * status findings ("documented status never observed", "undocumented status observed"), and the
 * verdict of `--min-coverage N`, `--fail-on-unseen-status` and `--fail-on-undocumented-status`.
 * Returns text and a verdict; the CLI prints and sets the exit status.
 */
import {
  COVERAGE_DIMENSIONS,
  type Coverage,
  type CoverageCell,
  type CoverageDimension,
  type UndocumentedStatus,
} from '../results/coverage.js';

export interface CoverageGateOptions {
  /** Percent of cells that must be judged (0..100). */
  minCoverage?: number;
  failOnUnseenStatus?: boolean;
  failOnUndocumentedStatus?: boolean;
}

export interface CoverageGate {
  failed: boolean;
  /** Lines to print (no trailing newline): why the gate failed, with what is missing. */
  lines: string[];
}

const isJudged = (c: CoverageCell): boolean => c.state === 'judged-pass' || c.state === 'judged-fail';

/** Documented statuses no check's exchange was answered with. */
export const unseenStatuses = (coverage: Coverage): CoverageCell[] =>
  coverage.cells.filter((c) => c.dimension === 'status' && c.requests === 0);

const where = (c: CoverageCell): string => (c.spec_line === null ? '' : ` (${c.spec_file ?? 'spec'}:${c.spec_line})`);

/** `coverage: 212/240 cells judged (88%), 4 documented statuses never seen[, 2 undocumented statuses observed[ (1 left open by the contract)]]`. */
export function coverageLine(coverage: Coverage): string {
  const s = coverage.summary;
  const unseen = unseenStatuses(coverage).length;
  const undocumented = coverage.undocumented_statuses?.length ?? 0;
  const open = undocumented - gatedUndocumented(coverage).length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 'es'}`;
  return (
    `coverage: ${s.judged}/${s.cells} cells judged (${Math.floor(s.percent)}%), ${plural(unseen, 'documented status')} never seen` +
    (undocumented > 0 ? `, ${plural(undocumented, 'undocumented status')} observed` : '') +
    (open > 0 ? ` (${open} left open by the contract)` : '')
  );
}

/** Judged/total per dimension, in the fixed dimension order. */
export function coverageByDimension(
  coverage: Coverage,
): Array<{ dimension: CoverageDimension; judged: number; sent: number; cells: number }> {
  return COVERAGE_DIMENSIONS.map((dimension) => {
    const cells = coverage.cells.filter((c) => c.dimension === dimension);
    return {
      dimension,
      judged: cells.filter(isJudged).length,
      sent: cells.filter((c) => c.state === 'sent').length,
      cells: cells.length,
    };
  }).filter((d) => d.cells > 0);
}

export function coverageGate(coverage: Coverage | undefined, options: CoverageGateOptions): CoverageGate {
  const lines: string[] = [];
  let failed = false;
  if (!coverage)
    return {
      failed: options.minCoverage !== undefined && options.minCoverage > 0,
      lines: options.minCoverage ? ['coverage: the report has no coverage block; --min-coverage cannot be met'] : [],
    };
  const s = coverage.summary;
  if (options.minCoverage !== undefined && s.judged * 100 < options.minCoverage * s.cells) {
    failed = true;
    const missing = coverage.cells.filter((c) => !isJudged(c));
    lines.push(
      `coverage: ${s.percent}% of cells judged, below --min-coverage ${options.minCoverage}; ${missing.length} cell(s) not judged:`,
    );
    for (const c of missing)
      lines.push(
        `  ${c.operation} · ${c.dimension} · ${c.item} · ${c.state}${where(c)}${c.reason ? `: ${c.reason}` : ''}`,
      );
  }
  if (options.failOnUnseenStatus) {
    const unseen = unseenStatuses(coverage);
    if (unseen.length > 0) {
      failed = true;
      lines.push(`coverage: ${unseen.length} documented status(es) never observed (--fail-on-unseen-status):`);
      for (const c of unseen) lines.push(`  ${c.operation} ${c.item}${where(c)}`);
    }
  }
  if (options.failOnUndocumentedStatus) {
    const gated = gatedUndocumented(coverage);
    if (gated.length > 0) {
      failed = true;
      lines.push(`coverage: ${gated.length} undocumented status(es) observed (--fail-on-undocumented-status):`);
      for (const { u, requests } of gated)
        lines.push(`  ${u.operation} answered ${u.status} (${requests} request(s); ${u.checks.join(', ')})`);
      const open = (coverage.undocumented_statuses ?? []).length - gated.length;
      if (open > 0)
        lines.push(
          `  (${open} more left open by the contract: answered only to ids the run made up, or a status it leaves open; not counted)`,
        );
    }
  }
  return { failed, lines };
}

/**
 * The undocumented statuses `--fail-on-undocumented-status` counts, with the requests it counts.
 * Left out, as the contract leaves them open: the answers to a path naming an id the run made up
 * ("Errors for missing resources: not shown": a 404, or a 400, to it is no breach), and a status
 * the contract's profile leaves open whatever the request (`left_open`: a 409 conflict, a 413).
 */
export function gatedUndocumented(coverage: Coverage): Array<{ u: UndocumentedStatus; requests: number }> {
  return (coverage.undocumented_statuses ?? [])
    .filter((u) => u.left_open === undefined)
    .map((u) => ({ u, requests: u.requests - (u.unknown_id_requests ?? 0) }))
    .filter((g) => g.requests > 0);
}

/** The gate's settings (parsed by src/config's table) as coverageGate takes them. */
export function coverageGateOf(settings: {
  minCoverage?: number;
  failOnUnseenStatus?: boolean;
  failOnUndocumentedStatus?: boolean;
}): CoverageGateOptions {
  const out: CoverageGateOptions = {};
  if (settings.minCoverage !== undefined) out.minCoverage = settings.minCoverage;
  if (settings.failOnUnseenStatus) out.failOnUnseenStatus = true;
  if (settings.failOnUndocumentedStatus) out.failOnUndocumentedStatus = true;
  return out;
}

/**
 * What `vapc run` and `vapc report merge` print of coverage: the summary line (`say`), and the
 * gate's lines when it fails (`shout`, --min-coverage, --fail-on-*-status). True when it fails.
 */
export function announceCoverage(
  coverage: Coverage | undefined,
  options: CoverageGateOptions,
  say: (text: string) => void,
  shout: (text: string) => void,
): boolean {
  if (coverage) say(`${coverageLine(coverage)}\n`);
  const gate = coverageGate(coverage, options);
  for (const line of gate.lines) shout(`${line}\n`);
  return gate.failed;
}
