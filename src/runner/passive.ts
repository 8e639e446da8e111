/**
 * Passive judging: a check with `judgeExchange` judges every answer the run gets on its operation,
 * whoever sent the request, from the first pair of the run until its own check × operation result
 * is reported. Each judgement lands in that pair's Findings (the failure carries the request and
 * its curl line, made by the pair's own scoped context, so attribution stays exact). The pair's own
 * `run` keeps its place in the plan and sends only what nothing judged so far covers; its result
 * is held (`hold`) and reported before the ratelimit suite (`settle`), or at once when it fails
 * (`failedNow`). ARCHITECTURE.md ("Passive checks") says why.
 */
import type { CheckContext, CheckOutcome, SharedTally } from '../checks/check.js';
import { isToolFault } from '../errors.js';
import type { CheckResult } from '../results/model.js';
import { Findings, unjudged } from '../checks/outcomes.js';
import { SETUP_TAGS } from '../coverage/log.js';
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
  /** Reported (failed early, or settled before the ratelimit suite): it judges nothing more. */
  done: boolean;
  /** The exchanges it judged (for coverage, told when the result is recorded). */
  judged: Exchange[];
  /** A judge that threw: the tool's fault, reported as the pair's error. */
  error?: unknown;
  /** Its own turn's outcome, held until the pair settles. */
  own?: { outcome: CheckOutcome; durationMs: number; requests: number };
}

/** A passing judgement of a setup answer, as the tally keeps it: no evidence for a pass. */
const SETUP_ANSWER = unjudged("an answer to the run's own setup request (judged for failures only)", {
  cause: 'elsewhere',
});

export const isPassive = (item: PlannedCheck): boolean =>
  typeof item.check.judgeExchange === 'function' && item.skip === undefined;

/**
 * The run order: a passive pair's own turn comes right after the last other pair on its operation
 * outside the ratelimit suite when that pair comes later (so its own requests fill only what the
 * others left), else it keeps its place; everything else keeps its order.
 */
export function passiveTurns(plan: readonly PlannedCheck[]): PlannedCheck[] {
  const last = new Map<Operation, number>();
  plan.forEach((item, i) => {
    if (!isPassive(item) && !item.burst) last.set(item.operation, i);
  });
  const key = (item: PlannedCheck, i: number): number =>
    isPassive(item) && !item.burst ? Math.max(i, (last.get(item.operation) ?? -1) + 0.5) : i;
  return plan
    .map((item, i) => ({ item, k: key(item, i), i }))
    .sort((a, b) => a.k - b.k || a.i - b.i)
    .map((x) => x.item);
}

/**
 * Marks the passive pairs whose operation another pair sends on before their own turn in `plan`
 * (the run order): their `plannedRequests` is told `covered`.
 */
export function markCovered(plan: readonly PlannedCheck[]): void {
  const seen = new Set<Operation>();
  for (const item of plan) {
    if (isPassive(item)) {
      if (seen.has(item.operation)) item.covered = true;
      else delete item.covered;
    }
    if (!item.skip) seen.add(item.operation);
  }
}

/** A result made of a pair, its outcome, its duration and its own requests (run.ts's toResult). */
type ResultOf = (item: PlannedCheck, outcome: CheckOutcome, durationMs: number, requests: number) => CheckResult;

/** A passive pair's result, ready to record. */
export interface Settled {
  item: PlannedCheck;
  result: CheckResult;
}

export class PassiveJudges {
  private readonly byOperation = new Map<Operation, PassivePair[]>();
  private readonly byItem = new Map<PlannedCheck, PassivePair>();

  constructor(
    plan: readonly PlannedCheck[],
    run: RunContext,
    private readonly resultOf: ResultOf,
  ) {
    for (const item of plan.filter(isPassive)) {
      const pair: PassivePair = {
        item,
        ctx: run.scope(item.check.id, item.check.suite, item.operation),
        findings: new Findings(),
        senders: new Set(),
        done: false,
        judged: [],
      };
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
        // A fault of the tool reaches the sender's send(), which stops the run (run.ts).
        if (isToolFault(error)) throw error;
        pair.error = error;
        continue;
      }
      if (judgement === undefined) continue;
      // A setup answer (discovery's reads, a record made once for the run, a control) may fail a
      // pair, but is no evidence for a pass: coverage leaves it out too (SETUP_TAGS).
      if (judgement.ok && judgement.unjudged === undefined && senderId !== undefined && SETUP_TAGS.has(senderId)) {
        pair.findings.add(SETUP_ANSWER);
        continue;
      }
      pair.findings.add(judgement);
      // Coverage counts a cell judged only through an answer that was judged (not a 429, not an open rule).
      if (!judgement.ok || judgement.unjudged === undefined) pair.judged.push(exchange);
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
    return () => ({
      judged: pair?.findings.judged ?? 0,
      unjudged: [...(pair?.findings.unjudged ?? [])],
      why: [...(pair?.findings.why ?? [])],
    });
  }

  /** The exchanges of others the pair judged (none for a pair that judges nothing passively). */
  judgedBy(item: PlannedCheck): readonly Exchange[] {
    return this.byItem.get(item)?.judged ?? [];
  }

  /**
   * After a passive pair's own turn: holds its outcome (it goes on judging others' answers until it
   * settles) and returns true; false for a pair that is not passive or whose own turn failed (then
   * final: recorded at once, and it judges nothing more).
   */
  hold(item: PlannedCheck, outcome: CheckOutcome, durationMs: number, requests: number): boolean {
    const pair = this.byItem.get(item);
    if (!pair) return false;
    if (outcome.status === 'failed') {
      pair.done = true;
      return false;
    }
    pair.own = { outcome, durationMs, requests };
    return true;
  }

  /** Marks a pair final without a result of its own (not run: skipped, aborted, a tool error). */
  close(item: PlannedCheck): void {
    const pair = this.byItem.get(item);
    if (pair) pair.done = true;
  }

  /** The pairs that failed and were not yet reported, each with its result; they are final from now on. */
  failedNow(): Settled[] {
    const out: Settled[] = [];
    for (const pair of this.byItem.values()) {
      if (pair.done || (pair.findings.failures.length === 0 && pair.error === undefined)) continue;
      out.push(this.settlePair(pair));
    }
    return out;
  }

  /** Every held pair, settled: its own outcome with what it judged of others' answers. */
  settle(): Settled[] {
    return [...this.byItem.values()]
      .filter((pair) => !pair.done && pair.own !== undefined)
      .map((pair) => this.settlePair(pair));
  }

  private settlePair(pair: PassivePair): Settled {
    pair.done = true;
    const own = pair.own ?? {
      outcome: {
        status: 'skipped',
        message: 'its own turn did not come',
        notJudged: { cause: 'aborted' },
      } as CheckOutcome,
      durationMs: 0,
      requests: 0,
    };
    const result = this.resultOf(pair.item, this.merged(pair, own.outcome), own.durationMs, own.requests);
    if (pair.error === undefined) return { item: pair.item, result };
    const message = pair.error instanceof Error ? pair.error.message : String(pair.error);
    const { failures: _f, repro: _r, ...rest } = result;
    return {
      item: pair.item,
      result: { ...rest, status: 'error', message: `tool error (not a server failure): ${message}` },
    };
  }

  /**
   * Its own outcome with what it judged of others' answers. A skip of its own (it sent nothing:
   * covered) is a pass when others' answers were judged.
   */
  private merged(pair: PassivePair, own: CheckOutcome): CheckOutcome {
    const { findings } = pair;
    if (findings.failures.length > 0) return this.withSenders(findings.outcome(''), pair);
    if (own.status === 'failed' || findings.judged === 0) return own;
    const shared = `${findings.judged} answer(s) to other checks' requests judged`;
    if (own.status === 'passed') return { status: 'passed', message: `${own.message} (and ${shared})` };
    return { status: 'passed', message: `${shared}; ${own.message}` };
  }

  private withSenders(outcome: CheckOutcome, pair: PassivePair): CheckOutcome {
    if (outcome.status !== 'failed') return outcome;
    return {
      ...outcome,
      message: `${outcome.message} (judged on the answer to a request of ${[...pair.senders].slice(0, 3).join(', ')})`,
    };
  }
}
