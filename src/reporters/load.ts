import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VapcError } from '../errors.js';
import type { CheckResult, Observation, RunReport, Severity, Suite, Verdict } from '../results/model.js';
import type { ShardField } from '../results/shard.js';

const VERDICTS: readonly Verdict[] = ['passed', 'failed', 'skipped', 'error'];
const SEVERITIES: readonly Severity[] = ['critical', 'major', 'minor'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/**
 * Parses report.json text into a RunReport. Requires the documented shape of runner-interface.md
 * (tool, target, seed, summary, results[] with id, suite, operation, status, message); fills the
 * additions (rule, severity, timing, observations, config) with neutral defaults when an older or
 * hand-written file lacks them. Throws VapcError E_CONFIG with a message that says what is wrong.
 */
export function parseReport(text: string, source = 'report.json'): RunReport {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new VapcError('E_CONFIG', `${source} is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const bad = (what: string): never => {
    throw new VapcError('E_CONFIG', `${source} is not a vapc report: ${what}`);
  };
  if (!isObject(data)) bad('the top level is not an object');
  const d = data as Record<string, unknown>;
  if (typeof d.target !== 'string') bad('"target" (string) is missing');
  if (typeof d.seed !== 'number') bad('"seed" (number) is missing');
  if (!isObject(d.summary)) bad('"summary" (object) is missing');
  if (!Array.isArray(d.results)) bad('"results" (array) is missing');
  const results: CheckResult[] = (d.results as unknown[]).map((r, i) => {
    if (!isObject(r)) return bad(`results[${i}] is not an object`);
    for (const field of ['id', 'suite', 'operation', 'message'] as const) {
      if (typeof r[field] !== 'string') bad(`results[${i}].${field} (string) is missing`);
    }
    if (!VERDICTS.includes(r.status as Verdict)) bad(`results[${i}].status must be one of ${VERDICTS.join(', ')}`);
    const out: CheckResult = {
      ...(r as unknown as CheckResult),
      suite: r.suite as Suite,
      rule: str(r.rule),
      contract_ref: str(r.contract_ref),
      severity: SEVERITIES.includes(r.severity as Severity) ? (r.severity as Severity) : 'major',
      duration_ms: num(r.duration_ms),
      requests: num(r.requests),
    };
    if (r.failures !== undefined && !Array.isArray(r.failures)) bad(`results[${i}].failures must be an array`);
    return out;
  });
  const summary = d.summary as Record<string, unknown>;
  const count = (v: Verdict) => results.filter((r) => r.status === v).length;
  const observations: Observation[] = Array.isArray(d.observations)
    ? (d.observations as unknown[]).filter(isObject).map((o) => ({ ...(o as object), id: str(o.id, 'observation'), message: str(o.message) }) as Observation)
    : [];
  const tool = isObject(d.tool) ? d.tool : {};
  const shard = d.shard === undefined ? undefined : parseShardField(d.shard, bad);
  return {
    tool: { name: 'voice-agent-contract', version: str(tool.version, '?') },
    spec_version: str(d.spec_version, '?'),
    target: d.target as string,
    seed: d.seed as number,
    started_at: str(d.started_at),
    summary: {
      passed: num(summary.passed, count('passed')),
      failed: num(summary.failed, count('failed')),
      skipped: num(summary.skipped, count('skipped')),
      errors: num(summary.errors, count('error')),
      requests: num(summary.requests),
      duration_ms: num(summary.duration_ms),
      observations: num(summary.observations, observations.length),
      // Counts of a --baseline run, kept when present.
      ...(typeof summary.new_failures === 'number' ? { new_failures: summary.new_failures } : {}),
      ...(typeof summary.known === 'number' ? { known: summary.known } : {}),
    },
    results,
    observations,
    config: isObject(d.config) ? d.config : {},
    ...(isObject(d.baseline) && Array.isArray(d.baseline.not_observed) ? { baseline: d.baseline as unknown as RunReport['baseline'] } : {}),
    ...(shard ? { shard } : {}),
    // report.json's `run` block (complete / aborted with its reason), kept when well formed.
    ...(isObject(d.run) && (d.run.status === 'complete' || d.run.status === 'aborted') ? { run: { status: d.run.status, ...(typeof d.run.reason === 'string' ? { reason: d.run.reason } : {}) } } : {}),
  };
}

/** report.json's `shard` field: {index, count, plan_size, positions}, integers with 1 ≤ index ≤ count. */
function parseShardField(value: unknown, bad: (what: string) => never): ShardField {
  const v = isObject(value) ? value : {};
  const { index, count, plan_size: size, positions } = v;
  if (!Number.isInteger(index) || !Number.isInteger(count) || (count as number) < 1 || (index as number) < 1 || (index as number) > (count as number)) {
    return bad('"shard" must be {index, count, ...} with integers 1 <= index <= count');
  }
  if (!Number.isInteger(size) || !Array.isArray(positions) || !positions.every((p) => Number.isInteger(p))) {
    return bad('"shard" must carry plan_size (integer) and positions (integers)');
  }
  return { index: index as number, count: count as number, plan_size: size as number, positions: positions as number[] };
}

/** Reads DIR/report.json; a missing or unreadable file is E_CONFIG with the path in the message. */
export async function loadReport(dir: string): Promise<RunReport> {
  const file = join(dir, 'report.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? String(e)})`;
    throw new VapcError('E_CONFIG', `${file} ${why}; run \`vapc run --report-dir ${dir}\` first`);
  }
  return parseReport(text, file);
}
