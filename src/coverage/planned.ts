/**
 * The planned coverage a dry run prints: the cells the plan's checks are expected to judge,
 * without sending a request. A cell is planned when a pair of the plan that will run (not
 * skipped) is on its operation and belongs to a suite that judges cells of its kind (the table
 * below, read off what each suite's checks send and judge in a default run). An estimate by
 * design: the run's own coverage block is the measure.
 */
import type { CellDef, Universe } from './universe.js';

/** A line of the dry-run plan (src/runner/budget.ts's DryRunLine fits). */
export interface PlannedLine {
  suite: string;
  operation: string;
  checks: number;
  skipped: number;
}

const status = (def: CellDef, test: RegExp): boolean =>
  (def.dimension === 'status' || def.dimension === 'response' || def.dimension === 'header') &&
  test.test(def.status ?? '');
const SUCCESS = /^(2|default)/i;

/** Which cells a suite's checks judge on an operation they run on. */
const SUITE_JUDGES: Record<string, (def: CellDef) => boolean> = {
  auth: (d) => d.dimension === 'security' || status(d, /^(401|403|4XX)$/i),
  validation: (d) =>
    d.dimension === 'parameter' ||
    d.dimension === 'enum' ||
    (d.dimension === 'keyword' && !/imum$/.test(d.keyword ?? '')) ||
    status(d, /^(400|404|413|415|422|4XX)$/i) ||
    status(d, SUCCESS),
  ranges: (d) =>
    d.dimension === 'parameter' ||
    (d.dimension === 'keyword' && /imum$/.test(d.keyword ?? '')) ||
    status(d, /^(400|422|4XX)$/i) ||
    status(d, SUCCESS),
  schema: (d) => d.dimension === 'parameter' || d.dimension === 'enum' || status(d, SUCCESS),
  stateful: (d) => d.dimension === 'parameter' || d.dimension === 'enum' || status(d, SUCCESS),
  cors: (d) => status(d, SUCCESS),
  robustness: (d) => status(d, /^(400|413|415|422|4XX)$/i) || (d.dimension === 'keyword' && d.keyword === 'type'),
  ratelimit: (d) => status(d, /^429$/) || (d.dimension === 'header' && /x-ratelimit/i.test(d.item)),
};

/** The cells of the universe the plan is expected to judge, in universe order. */
export function plannedCoverage(
  universe: Universe,
  lines: readonly PlannedLine[],
): { planned: CellDef[]; left: CellDef[] } {
  const running = lines.filter((l) => l.checks > l.skipped);
  const planned: CellDef[] = [];
  const left: CellDef[] = [];
  for (const def of universe.cells) {
    const hit = running.some(
      (l) => (l.operation === def.operation || l.operation === '*') && (SUITE_JUDGES[l.suite]?.(def) ?? false),
    );
    (hit ? planned : left).push(def);
  }
  return { planned, left };
}

/** The dry run's coverage section: the planned share per dimension and per operation. */
export function renderPlannedCoverage(universe: Universe, lines: readonly PlannedLine[]): string {
  const { planned, left } = plannedCoverage(universe, lines);
  const total = universe.cells.length;
  const pct = total === 0 ? 100 : Math.floor((planned.length * 1000) / total) / 10;
  const out = [
    `planned coverage: ${planned.length}/${total} cells the plan is expected to judge (${pct}%); an estimate, the run's report measures it`,
  ];
  const dims = [...new Set(universe.cells.map((c) => c.dimension))];
  out.push(
    `  by dimension: ${dims.map((d) => `${d} ${planned.filter((c) => c.dimension === d).length}/${universe.cells.filter((c) => c.dimension === d).length}`).join(', ')}`,
  );
  for (const op of universe.operations) {
    const missing = left.filter((c) => c.operation === op.label);
    if (missing.length === 0) continue;
    const shown = missing.slice(0, 6).map((c) => `${c.dimension} ${c.item}`);
    out.push(
      `  ${op.label}: ${missing.length} cell(s) left out: ${shown.join('; ')}${missing.length > shown.length ? `; and ${missing.length - shown.length} more` : ''}`,
    );
  }
  return `${out.join('\n')}\n`;
}
