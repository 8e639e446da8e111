/**
 * Passive judging: a check with `judgeExchange` judges every answer the run gets on its operation,
 * whoever sent the request, from the first pair of the run until its own check × operation result
 * is reported. Each judgement lands in that pair's Findings (the failure carries the request and
 * its curl line, made by the pair's own scoped context, so attribution stays exact); the runner
 * reports a pair at once when it fails (`failedNow`) and otherwise at its own turn (`finish`),
 * which `passiveLast` puts after every other pair outside the ratelimit suite. ARCHITECTURE.md
 * ("Passive checks") says why.
 */
import type { CheckContext, CheckOutcome, SharedTally } from '../checks/check.js';
import { Findings } from '../checks/outcomes.js';
import type { Operation } from '../spec/model.js';
import type { Exchange } from '../transport/types.js';
import type { RunContext } from './context.js';
import type { PlannedCheck } from './planned.js';

/** A check × operation that judges others' exchanges. */
interface PassivePair {
  item: PlannedCheck;
  ctx: CheckContext;
  findings: Findings;
  /** Checks whose requests it judged, for the message. */
  senders: Set<string>;
  /** Reported (failed early, or at its own turn): it judges nothing more. */
  done: boolean;
  /** The exchanges it judged (for coverage, told when the result is recorded). */
  judged: Exchange[];
  /** A judge that threw: the tool's fault, reported as the pair's error at its turn. */
  error?: unknown;
}

export const isPassive = (item: PlannedCheck): boolean => typeof item.check.judgeExchange === 'function' && item.skip === undefined;

/**
 * The run order with the passive pairs' own turns after every other pair outside the ratelimit
 * suite (whose order stays: its checks read the window the ones before left), each group in the
 * order it had: a passive check's own requests then fill only what nothing else covered.
 */
export function passiveLast(plan: readonly PlannedCheck[]): PlannedCheck[] {
  const rate = plan.filter((p) => p.check.suite === 'ratelimit');
  const rest = plan.filter((p) => p.check.suite !== 'ratelimit');
  return [...rest.filter((p) => !isPassive(p)), ...rest.filter(isPassive), ...rate];
}

/**
 * Marks the passive pairs whose operation another pair sends on before their own turn (a pair that
 * is not passive, or a passive one before it in `plan`): their `plannedRequests` is told `covered`.
 */
export function markCovered(plan: readonly PlannedCheck[]): void {
  const active = new Set<Operation>();
  const passiveSeen = new Set<Operation>();
  for (const item of plan) if (!item.skip && !isPassive(item)) active.add(item.operation);
  for (const item of plan) {
    if (!isPassive(item)) continue;
    if (active.has(item.operation) || passiveSeen.has(item.operation)) item.covered = true;
    else delete item.covered;
    passiveSeen.add(item.operation);
  }
}

export class PassiveJudges {
  private readonly byOperation = new Map<Operation, PassivePair[]>();
  private readonly byItem = new Map<PlannedCheck, PassivePair>();

  constructor(plan: readonly PlannedCheck[], run: RunContext) {
    for (const item of plan.filter(isPassive)) {
      const pair: PassivePair = { item, ctx: run.scope(item.check.id, item.check.suite, item.operation), findings: new Findings(), senders: new Set(), done: false, judged: [] };
      this.byItem.set(item, pair);
      this.byOperation.set(item.operation, [...(this.byOperation.get(item.operation) ?? []), pair]);
    }
  }

  get size(): number {
    return this.byItem.size;
  }

  /** The runner's answer listener: every open pair of the operation judges the exchange (not its own). */
  judge(exchange: Exchange, op: Operation, senderId: string | undefined): void {
    for (const pair of this.byOperation.get(op) ?? []) {
      if (pair.done || pair.error !== undefined || senderId === pair.item.check.id) continue;
      let judgement: ReturnType<NonNullable<PlannedCheck['check']['judgeExchange']>>;
      try {
        judgement = pair.item.check.judgeExchange!(pair.ctx, op, exchange);
      } catch (error) {
        pair.error = error;
        continue;
      }
      if (judgement === undefined) continue;
      pair.findings.add(judgement);
      pair.judged.push(exchange);
      if (!judgement.ok) pair.senders.add(senderId ?? 'discovery');
    }
  }

  has(item: PlannedCheck): boolean {
    return this.byItem.has(item);
  }

  /** Whether the pair was reported already (it failed before its turn). */
  reported(item: PlannedCheck): boolean {
    return this.byItem.get(item)?.done ?? false;
  }

  /** What the pair judged so far of others' exchanges (the check's `ctx.judgedElsewhere`). */
  tally(item: PlannedCheck): () => SharedTally {
    const pair = this.byItem.get(item);
    return () => ({ judged: pair?.findings.judged ?? 0, unjudged: [...(pair?.findings.unjudged ?? [])] });
  }

  /** The exchanges of others the pair judged (none for a pair that judges nothing passively). */
  judgedBy(item: PlannedCheck): readonly Exchange[] {
    return this.byItem.get(item)?.judged ?? [];
  }

  /** The pairs that failed and were not yet reported, each with its outcome; they are final from now on. */
  failedNow(): Array<{ item: PlannedCheck; outcome: CheckOutcome }> {
    const out: Array<{ item: PlannedCheck; outcome: CheckOutcome }> = [];
    for (const pair of this.byItem.values()) {
      if (pair.done || pair.findings.failures.length === 0) continue;
      pair.done = true;
      out.push({ item: pair.item, outcome: this.withSenders(pair.findings.outcome(''), pair) });
    }
    return out;
  }

  /**
   * The pair's result at its own turn: its own outcome with what it judged of others' answers. A
   * skip of its own (it sent nothing: covered) is a pass when others' answers were judged.
   */
  finish(item: PlannedCheck, own: CheckOutcome): CheckOutcome {
    const pair = this.byItem.get(item);
    if (!pair) return own;
    pair.done = true;
    if (pair.error !== undefined) throw pair.error;
    const { findings } = pair;
    if (findings.failures.length > 0) return this.withSenders(findings.outcome(''), pair);
    if (own.status === 'failed' || findings.judged === 0) return own;
    const shared = `${findings.judged} answer(s) to other checks' requests judged`;
    if (own.status === 'passed') return { status: 'passed', message: `${own.message} (and ${shared})` };
    return { status: 'passed', message: `${shared}; ${own.message}` };
  }

  private withSenders(outcome: CheckOutcome, pair: PassivePair): CheckOutcome {
    if (outcome.status !== 'failed') return outcome;
    return { ...outcome, message: `${outcome.message} (judged on the answer to a request of ${[...pair.senders].slice(0, 3).join(', ')})` };
  }
}
