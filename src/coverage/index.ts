/**
 * Coverage of the contract by a run (docs/coverage.md): the universe of cells read from the spec,
 * the exchange log the runner feeds, the pure computation, the shard merge, the planned coverage
 * of a dry run, and the gate. Imports only the model and the spec.
 */
import type { CheckResult } from '../results/model.js';
import type { Coverage } from '../results/coverage.js';
import { operationLabel, type Operation, type SpecModel } from '../spec/model.js';
import { computeCoverage, type CoverageInput, type PlanPair } from './compute.js';
import { ExchangeLog } from './log.js';
import type { CoverageCredentials, ExchangeFacts } from './touch.js';
import { buildUniverse, type Universe } from './universe.js';

export {
  buildUniverse,
  specCellLocator,
  cellKey,
  type Universe,
  type CellDef,
  type InputSlot,
  type CellLocator,
} from './universe.js';
export { touchedCells, documentedStatus, type ExchangeFacts, type CoverageCredentials } from './touch.js';
export { ExchangeLog, HandedOutIds, type ExchangeRecord } from './log.js';
export {
  computeCoverage,
  summarizeCoverage,
  REASONS,
  STATE_RANK,
  type PlanPair,
  type CoverageInput,
} from './compute.js';
export { mergeCoverage } from './merge.js';
export {
  announceCoverage,
  coverageGate,
  coverageGateOf,
  coverageLine,
  coverageByDimension,
  unseenStatuses,
  gatedUndocumented,
  type CoverageGate,
  type CoverageGateOptions,
} from './gate.js';
export { plannedCoverage, renderPlannedCoverage, type PlannedLine } from './planned.js';

/** A plan pair as the runner holds it (src/runner's PlannedCheck fits). */
export interface PlannedPairLike {
  check: { suite: string; destructive?: boolean };
  operation: Operation;
  skip?: string;
}

export const planPairs = (plan: readonly PlannedPairLike[]): PlanPair[] =>
  plan.map((p) => {
    const pair: PlanPair = { suite: p.check.suite, operation: operationLabel(p.operation) };
    if (p.skip !== undefined) pair.skip = p.skip;
    if (p.check.destructive || p.operation.sideEffects) pair.destructive = true;
    return pair;
  });

/**
 * The runner's hook: `onExchange` (chains to `next`) and `events.onCheckDone` feed the log;
 * `compute` turns it into report.json's coverage block once the results are in. `run` reads the
 * run's credentials and fixtures as they stand, and names the statuses the contract leaves open.
 */
export function coverageTap<E extends ExchangeFacts>(
  spec: Pick<SpecModel, 'operations'>,
  run: {
    credentials: () => CoverageCredentials | undefined;
    fixtures?: () => unknown;
    leftOpen?: ReadonlyArray<{ status: number; rule: string }>;
    burstSuites?: ReadonlySet<string>;
  },
  next?: (exchange: E, checkId: string | undefined) => void,
  universe: Universe = buildUniverse(spec),
) {
  const log = new ExchangeLog(universe, run.credentials, run.fixtures);
  return {
    log,
    onExchange(exchange: E, checkId: string | undefined): void {
      log.exchange(exchange, checkId);
      next?.(exchange, checkId);
    },
    /** An exchange another check sent, judged passively by `checkId`, whose result is the next one done. */
    onJudged(exchange: E, checkId: string): void {
      log.exchange(exchange, checkId, true);
    },
    /** The one verdict path's note: `checkId` judged the answer of its own exchange. */
    noteJudged(exchange: E, checkId: string | undefined): void {
      log.judged(exchange, checkId);
    },
    events: log.events,
    compute(
      results: ReadonlyArray<Pick<CheckResult, 'id' | 'status' | 'suite'>>,
      wholePlan: readonly PlannedPairLike[],
    ): Coverage {
      const input: CoverageInput = { universe, records: log.records, results, plan: planPairs(wholePlan) };
      if (run.leftOpen) input.leftOpen = run.leftOpen;
      if (run.burstSuites) input.burstSuites = run.burstSuites;
      return computeCoverage(input);
    },
  };
}
export { parseCoverage } from './parse.js';
