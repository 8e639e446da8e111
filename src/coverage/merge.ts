/**
 * Coverage of shards merged exactly: a cell judged in any shard is judged (failed in any shard:
 * judged-fail), requests are summed, the checks joined; a cell nothing judged keeps the reason of
 * the shard that got furthest with it. The same cells in the same order as one unsharded run.
 */
import type { Coverage, CoverageCell, UndocumentedStatus } from '../results/coverage.js';
import { STATE_RANK, summarizeCoverage } from './compute.js';

const keyOf = (c: Pick<CoverageCell, 'operation' | 'dimension' | 'item'>): string =>
  `${c.operation}\u0000${c.dimension}\u0000${c.item}`;

function mergeCell(a: CoverageCell, b: CoverageCell): CoverageCell {
  const ahead = STATE_RANK[b.state] > STATE_RANK[a.state] ? b : a;
  const out: CoverageCell = {
    ...ahead,
    checks: [...new Set([...a.checks, ...b.checks])].sort(),
    requests: a.requests + b.requests,
  };
  if (STATE_RANK[out.state] >= STATE_RANK['judged-pass']) delete out.reason;
  return out;
}

function mergeUndocumented(a: UndocumentedStatus, b: UndocumentedStatus): UndocumentedStatus {
  const out: UndocumentedStatus = {
    ...a,
    requests: a.requests + b.requests,
    checks: [...new Set([...a.checks, ...b.checks])].sort(),
  };
  const unknownIds = (a.unknown_id_requests ?? 0) + (b.unknown_id_requests ?? 0);
  if (unknownIds > 0) out.unknown_id_requests = unknownIds;
  return out;
}

/** Merges the coverage blocks of shard reports; undefined when none has one. */
export function mergeCoverage(blocks: ReadonlyArray<Coverage | undefined>): Coverage | undefined {
  const present = blocks.filter((b): b is Coverage => b !== undefined);
  if (present.length === 0) return undefined;
  const cells = new Map<string, CoverageCell>();
  const undocumented = new Map<string, UndocumentedStatus>();
  for (const block of present) {
    for (const cell of block.cells) {
      const key = keyOf(cell);
      const seen = cells.get(key);
      cells.set(key, seen ? mergeCell(seen, cell) : { ...cell, checks: [...cell.checks] });
    }
    for (const u of block.undocumented_statuses ?? []) {
      const key = `${u.operation} ${u.status}`;
      const seen = undocumented.get(key);
      undocumented.set(key, seen ? mergeUndocumented(seen, u) : { ...u, checks: [...u.checks] });
    }
  }
  const list = [...cells.values()];
  const out: Coverage = { summary: summarizeCoverage(list), cells: list };
  const statuses = [...undocumented.values()].sort(
    (a, b) => a.operation.localeCompare(b.operation) || a.status - b.status,
  );
  if (statuses.length > 0) out.undocumented_statuses = statuses;
  return out;
}
