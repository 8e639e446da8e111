/**
 * `vapc drift` as a library call: reads a recording exchange by exchange (read.ts) into the judge of
 * recorded traffic (judge.ts) and returns the report. Nothing is written here: a recording found
 * malformed halfway throws (E_TRAFFIC) before any report exists, so the CLI writes nothing.
 */
import type { CheckDefinition } from '../checks/check.js';
import type { ContractProfile } from '../checks/profile.js';
import type { RunReport } from '../results/model.js';
import type { Secrets } from '../secrets/index.js';
import type { SpecModel } from '../spec/model.js';
import type { RecordingFormat } from './formats.js';
import { readRecording, type ReadTally, type RecordingLimits } from './read.js';
import { TrafficJudge } from './judge.js';

export interface DriftOptions {
  spec: SpecModel;
  checks: readonly CheckDefinition[];
  profile?: ContractProfile;
  secrets: Secrets;
  /** The recording: a file, a directory, or `-` (then `stdin`). */
  path: string;
  stdin?: AsyncIterable<Buffer>;
  format?: RecordingFormat;
  basePath?: string;
  cwd?: string;
  limits?: Partial<RecordingLimits>;
  /** Told every exchange read (a progress line). */
  onExchange?: (count: number) => void;
}

export interface DriftResult {
  report: RunReport;
  /** The format read (told from the name and first bytes unless given). */
  format: RecordingFormat;
  files: number;
}

/** Judges a whole recording; throws a VapcError (E_TRAFFIC) for one that is not a recording. */
export async function driftRecording(options: DriftOptions): Promise<DriftResult> {
  const shown = options.path === '-' ? 'standard input' : options.path;
  const config = {
    recording: shown,
    ...(options.format ? { format: options.format } : {}),
    ...(options.basePath ? { base_path: options.basePath } : {}),
  };
  const judge = new TrafficJudge({
    spec: options.spec,
    checks: options.checks,
    secrets: options.secrets,
    target: `recording ${shown}`,
    source: 'drift',
    config,
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.basePath ? { basePath: options.basePath } : {}),
  });
  const tally: ReadTally = { files: 0, unanswered: 0 };
  const source = {
    path: options.path,
    ...(options.stdin ? { stdin: options.stdin } : {}),
    ...(options.format ? { format: options.format } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  };
  let count = 0;
  for await (const { exchange, where } of readRecording(source, tally)) {
    judge.judge(exchange, where);
    options.onExchange?.(++count);
  }
  judge.unanswered(tally.unanswered);
  const format = tally.format ?? options.format ?? 'ndjson';
  const report = judge.report();
  return { report: { ...report, config: { ...report.config, format } }, format, files: tally.files };
}
