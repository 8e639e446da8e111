/**
 * The partition of a run into shards (`vapc run --shard I/N`) and its inverse (`vapc report merge`).
 *
 * - The burst suite (the profile's SuiteSpec.burst, last in the plan: it waits for a fresh window
 *   and bursts past the advertised limit) stays whole in shard 1, so only one shard bursts and its checks read one
 *   window.
 * - The other pairs (check × operation) are balanced by their planned requests (the checks' own
 *   estimates), the costliest first, each to the shard with the fewest planned requests so far
 *   (ties to the lower index), shard 1 starting with the burst's share.
 *
 * The plan and the estimates depend on the suites, the options and --runs, not on the server
 * (a missing fixture only marks a pair skipped), so the same options give the same partition and
 * each pair lands in exactly one shard. Each shard records the plan positions of its results, so
 * the merge puts them back in plan order without knowing this rule, and sees any pair missing or
 * run twice.
 */
import type { CheckResult, ShardField, ShardInfo } from './model.js';

/** Shard I of N, 1-based (as `--shard 2/3` and report.json's `shard` field write it). */
export type { ShardField, ShardInfo } from './model.js';

/** A pair of the plan as the partition sees it: whether it is of a burst suite, and its planned requests. */
export interface PlanCost {
  burst: boolean;
  requests: number;
}

/** The shard (1-based) of each plan position. */
export function shardAssignments(plan: readonly PlanCost[], count: number): number[] {
  const owner = new Array<number>(plan.length).fill(1);
  const load = new Array<number>(count).fill(0);
  for (const p of plan) if (p.burst) load[0]! += Math.max(0, p.requests);
  const dealt = plan.map((p, i) => ({ i, cost: Math.max(0, p.requests) })).filter(({ i }) => !plan[i]!.burst);
  dealt.sort((a, b) => b.cost - a.cost || a.i - b.i);
  for (const { i, cost } of dealt) {
    let best = 0;
    for (let k = 1; k < count; k++) if (load[k]! < load[best]!) best = k;
    owner[i] = best + 1;
    load[best]! += cost;
  }
  return owner;
}

/** The positions of `plan` that shard `shard` runs, in plan order. */
export function shardPositions(plan: readonly PlanCost[], shard: ShardInfo): number[] {
  const owner = shardAssignments(plan, shard.count);
  return owner.flatMap((o, i) => (o === shard.index ? [i] : []));
}

/**
 * Puts the results of shards 1..N back in the order of the whole plan, by the positions each
 * shard recorded. Returns a sentence saying what does not fit when the parts do not cover one
 * plan exactly once (different plans, a truncated or edited report).
 */
export function mergeShardResults(
  parts: ReadonlyArray<{ shard: ShardField; results: readonly CheckResult[] }>,
): CheckResult[] | string {
  const size = parts[0]?.shard.plan_size ?? 0;
  const merged = new Array<CheckResult | undefined>(size);
  for (const { shard, results } of parts) {
    const name = `shard ${shard.index}/${shard.count}`;
    if (shard.plan_size !== size)
      return `${name} comes from a plan of ${shard.plan_size} pairs, shard ${parts[0]!.shard.index} from one of ${size}`;
    if (shard.positions.length !== results.length)
      return `${name} has ${results.length} results for ${shard.positions.length} plan positions`;
    for (const [k, position] of shard.positions.entries()) {
      if (!Number.isInteger(position) || position < 0 || position >= size)
        return `${name} names plan position ${position}, outside 0..${size - 1}`;
      if (merged[position])
        return `plan position ${position} (${results[k]!.id} on ${results[k]!.operation}) was run by two shards`;
      merged[position] = results[k];
    }
  }
  const missing = merged.findIndex((r) => r === undefined);
  if (missing >= 0 || merged.length !== size) return `plan position ${missing} was run by no shard`;
  return merged as CheckResult[];
}
