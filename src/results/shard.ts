/**
 * The partition of a run into shards (`vapc run --shard I/N`) and its inverse (`vapc report merge`).
 * Kept beside the result model so that the runner, which splits the plan, and the merge, which
 * puts the shards' results back in plan order, read one rule:
 *
 * - the pairs (check × operation) outside the ratelimit suite are dealt round-robin over the plan
 *   order: the j-th goes to shard (j mod N) + 1, so every shard gets a share of every suite;
 * - the ratelimit suite (last in the plan: it bursts past the advertised limit and measures the
 *   window) stays whole in one shard, the next in the rotation, so only one shard bursts.
 *
 * The plan does not depend on the server (fixtures only mark pairs skipped), so the same options
 * give the same plan, and each pair lands in exactly one shard.
 */
import type { CheckResult, Suite } from './model.js';

/** Shard I of N, 1-based (as `--shard 2/3` and report.json's `shard` field write it). */
export interface ShardInfo {
  index: number;
  count: number;
}

const BURST_SUITE: Suite = 'ratelimit';

/** The shard (1-based) of each plan position, given each position's suite. */
export function shardAssignments(suites: readonly Suite[], count: number): number[] {
  const dealt = suites.filter((s) => s !== BURST_SUITE).length;
  const burstShard = (dealt % count) + 1;
  let j = 0;
  return suites.map((suite) => (suite === BURST_SUITE ? burstShard : (j++ % count) + 1));
}

/** The items of `plan` that shard `shard` runs, in plan order. */
export function selectShard<T>(plan: readonly T[], suiteOf: (item: T) => Suite, shard: ShardInfo): T[] {
  const owner = shardAssignments(plan.map(suiteOf), shard.count);
  return plan.filter((_, i) => owner[i] === shard.index);
}

/**
 * Puts the results of shards 1..N (`parts[k]` is shard k+1's, in its plan order) back in the order
 * of the whole plan. Returns a sentence saying what does not fit when the parts cannot come from
 * one plan split by `shardAssignments` (different suites or versions, a truncated report).
 */
export function mergeShardResults(parts: readonly (readonly CheckResult[])[]): CheckResult[] | string {
  const count = parts.length;
  const dealtParts = parts.map((p) => p.filter((r) => r.suite !== BURST_SUITE));
  const burstParts = parts.map((p) => p.filter((r) => r.suite === BURST_SUITE));
  const dealt = dealtParts.reduce((n, p) => n + p.length, 0);
  const burstShard = (dealt % count) + 1;
  for (const [k, part] of parts.entries()) {
    const expected = Math.ceil((dealt - k) / count);
    if (dealtParts[k]!.length !== Math.max(0, expected)) {
      return `shard ${k + 1}/${count} has ${dealtParts[k]!.length} results outside the ratelimit suite where the plan gives it ${Math.max(0, expected)}`;
    }
    if (burstParts[k]!.length > 0 && k + 1 !== burstShard) return `shard ${k + 1}/${count} ran ratelimit checks, which the plan gives to shard ${burstShard}`;
    const firstBurst = part.findIndex((r) => r.suite === BURST_SUITE);
    if (firstBurst >= 0 && part.slice(firstBurst).some((r) => r.suite !== BURST_SUITE)) return `shard ${k + 1}/${count} has results out of plan order`;
  }
  const merged: CheckResult[] = [];
  for (let j = 0; j < dealt; j++) merged.push(dealtParts[j % count]![Math.floor(j / count)]!);
  merged.push(...burstParts.flat());
  return merged;
}
