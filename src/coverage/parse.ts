/**
 * report.json's `coverage` block read back (vapc report, vapc report merge): checked against the
 * fixed shape, so a hand-edited or foreign file is refused with what is wrong, never rendered half.
 */
import {
  COVERAGE_DIMENSIONS,
  COVERAGE_STATES,
  type Coverage,
  type CoverageCell,
  type UndocumentedStatus,
} from '../results/coverage.js';
import { summarizeCoverage } from './compute.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

function parseCell(c: unknown, i: number, bad: (what: string) => never): CoverageCell {
  if (!isObject(c)) return bad(`coverage.cells[${i}] is not an object`);
  for (const field of ['operation', 'item'] as const)
    if (typeof c[field] !== 'string') bad(`coverage.cells[${i}].${field} (string) is missing`);
  if (!COVERAGE_DIMENSIONS.includes(c.dimension as never))
    bad(`coverage.cells[${i}].dimension must be one of ${COVERAGE_DIMENSIONS.join(', ')}`);
  if (!COVERAGE_STATES.includes(c.state as never))
    bad(`coverage.cells[${i}].state must be one of ${COVERAGE_STATES.join(', ')}`);
  if (!Array.isArray(c.checks) || !c.checks.every((x) => typeof x === 'string'))
    bad(`coverage.cells[${i}].checks must be an array of strings`);
  if (!isCount(c.requests)) bad(`coverage.cells[${i}].requests must be a count`);
  if (c.spec_line !== null && !isCount(c.spec_line))
    bad(`coverage.cells[${i}].spec_line must be a line number or null`);
  const cell: CoverageCell = {
    operation: c.operation as string,
    dimension: c.dimension as CoverageCell['dimension'],
    item: c.item as string,
    state: c.state as CoverageCell['state'],
    checks: [...(c.checks as string[])],
    requests: c.requests as number,
    spec_line: (c.spec_line as number | null) ?? null,
  };
  if (typeof c.spec_file === 'string') cell.spec_file = c.spec_file;
  if (typeof c.reason === 'string') cell.reason = c.reason;
  return cell;
}

function parseUndocumented(u: unknown, i: number, bad: (what: string) => never): UndocumentedStatus {
  if (
    !isObject(u) ||
    typeof u.operation !== 'string' ||
    !isCount(u.status) ||
    !isCount(u.requests) ||
    !Array.isArray(u.checks)
  ) {
    return bad(`coverage.undocumented_statuses[${i}] must be {operation, status, requests, checks}`);
  }
  const out: UndocumentedStatus = {
    operation: u.operation,
    status: u.status,
    requests: u.requests,
    checks: u.checks.filter((x): x is string => typeof x === 'string'),
  };
  if (u.unknown_id_requests !== undefined) {
    if (!isCount(u.unknown_id_requests) || u.unknown_id_requests > u.requests)
      return bad(`coverage.undocumented_statuses[${i}].unknown_id_requests must be a count no larger than requests`);
    if (u.unknown_id_requests > 0) out.unknown_id_requests = u.unknown_id_requests;
  }
  if (u.left_open !== undefined) {
    if (typeof u.left_open !== 'string') return bad(`coverage.undocumented_statuses[${i}].left_open must be a string`);
    out.left_open = u.left_open;
  }
  return out;
}

/** The coverage block of a parsed report.json; `bad` throws the loader's error. The summary is recomputed from the cells. */
export function parseCoverage(value: unknown, bad: (what: string) => never): Coverage {
  if (!isObject(value) || !Array.isArray(value.cells)) return bad('"coverage" must be {summary, cells: [...]}');
  const cells = value.cells.map((c, i) => parseCell(c, i, bad));
  const out: Coverage = { summary: summarizeCoverage(cells), cells };
  if (value.undocumented_statuses !== undefined) {
    if (!Array.isArray(value.undocumented_statuses)) bad('coverage.undocumented_statuses must be an array');
    out.undocumented_statuses = (value.undocumented_statuses as unknown[]).map((u, i) => parseUndocumented(u, i, bad));
  }
  return out;
}
