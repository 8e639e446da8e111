import { VapcError } from '../errors.js';
import { summarize, type Observation, type RunReport } from '../results/model.js';
import { clip } from '../results/printable.js';
import { mergeShardResults } from '../results/shard.js';
import { mergeCoverage } from '../coverage/merge.js';
import { mergeWorkflowCoverage } from '../results/workflows.js';

/** A shard's report and where it was read from (named in refusals). */
export interface ShardReport {
  source: string;
  report: RunReport;
}

/** Options that change the plan or the cases sent: shards must agree on them to make one run. */
const PLAN_KEYS = ['suites', 'runs', 'strict_types', 'include_destructive', 'arazzo', 'checks'] as const;

const refuse = (message: string): never => {
  throw new VapcError('E_USAGE', `cannot merge: ${message}`);
};

function same<T>(shards: readonly ShardReport[], what: string, get: (r: RunReport) => T): void {
  const values = shards.map((s) => clip(JSON.stringify(get(s.report)) ?? 'undefined', 200));
  if (new Set(values).size > 1)
    refuse(`the shards differ in ${what}: ${shards.map((s, i) => `${s.source} ${values[i]}`).join(', ')}`);
}

/** Each index 1..N exactly once; all shards of one count. Returns the reports in shard order. */
function inShardOrder(shards: readonly ShardReport[]): ShardReport[] {
  for (const s of shards) {
    if (!s.report.shard)
      refuse(
        `${s.source} is not a shard report (no "shard" field); give the report directories of \`vapc run --shard I/N\``,
      );
  }
  same(shards, 'shard count', (r) => r.shard!.count);
  const count = shards[0]!.report.shard!.count;
  const byIndex = new Map<number, ShardReport>();
  for (const s of shards) {
    const seen = byIndex.get(s.report.shard!.index);
    if (seen) refuse(`shard ${s.report.shard!.index}/${count} is given twice (${seen.source}, ${s.source})`);
    byIndex.set(s.report.shard!.index, s);
  }
  // Every index is in 1..count (load.ts) and none twice, so count >= shards given; name at most
  // 10 missing ones, in a loop bounded by the shards given, not by the count a report claims.
  const absent = count - byIndex.size;
  const missing: number[] = [];
  for (let i = 1; i <= count && missing.length < Math.min(absent, 10); i++) if (!byIndex.has(i)) missing.push(i);
  if (absent > 0) {
    const more = absent > missing.length ? ` and ${absent - missing.length} more` : '';
    refuse(`shard${absent > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')}${more} missing`);
  }
  return Array.from({ length: count }, (_, i) => byIndex.get(i + 1)!);
}

/**
 * Merges the reports of `vapc run --shard 1/N` … `N/N` into the report one unsharded run would
 * have written: the results in plan order, requests added up, the duration the longest shard's
 * (they run side by side), observations joined. Refuses (VapcError E_USAGE, exit 2) shards of
 * different seeds, spec versions, tool versions, shard counts or plan options, a shard given
 * twice, a missing shard, and results that do not fit the plan's partition.
 */
export function mergeShardReports(shards: readonly ShardReport[]): RunReport {
  if (shards.length === 0) refuse('no shard reports given');
  const ordered = inShardOrder(shards);
  same(ordered, 'seed', (r) => r.seed);
  same(ordered, 'spec version', (r) => r.spec_version);
  same(ordered, 'vapc version', (r) => r.tool.version);
  for (const key of PLAN_KEYS) same(ordered, `the option ${key}`, (r) => r.config[key]);
  const results = mergeShardResults(ordered.map((s) => ({ shard: s.report.shard!, results: s.report.results })));
  if (typeof results === 'string') refuse(`${results}; the shards do not split one plan`);

  const observations: Observation[] = [];
  const seen = new Set<string>();
  for (const o of ordered.flatMap((s) => s.report.observations)) {
    const key = `${o.id}|${o.operation ?? ''}|${o.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      observations.push(o);
    }
  }
  const first = ordered[0]!.report;
  const requests = ordered.reduce((n, s) => n + s.report.summary.requests, 0);
  const limited = ordered.map((s) => s.report.summary.rate_limited).filter((n): n is number => n !== undefined);
  const duration = Math.max(...ordered.map((s) => s.report.summary.duration_ms));
  const targets = [...new Set(ordered.map((s) => s.report.target))];
  const aborted = ordered
    .map((s) => (s.report.run?.status === 'aborted' ? (s.report.run.reason ?? 'aborted') : undefined))
    .filter((a): a is string => a !== undefined);
  const config: Record<string, unknown> = { ...first.config, merged_shards: ordered.length };
  const merged: RunReport = {
    tool: first.tool,
    spec_version: first.spec_version,
    target: targets.join(', '),
    seed: first.seed,
    started_at:
      ordered
        .map((s) => s.report.started_at)
        .filter(Boolean)
        .sort()[0] ?? first.started_at,
    summary: {
      ...summarize(results as RunReport['results'], requests, duration, observations.length),
      ...(limited.length ? { rate_limited: limited.reduce((a, b) => a + b, 0) } : {}),
    },
    results: results as RunReport['results'],
    observations,
    config,
    run: aborted.length > 0 ? { status: 'aborted', reason: aborted.join('; ') } : { status: 'complete' },
  };
  const coverage = mergeCoverage(ordered.map((s) => s.report.coverage));
  if (coverage) merged.coverage = coverage;
  // Each shard ran some of the workflows: their counts add up (the others counted 0 in it).
  const workflows = mergeWorkflowCoverage(ordered.map((s) => s.report.workflows));
  if (workflows) merged.workflows = workflows;
  return merged;
}
