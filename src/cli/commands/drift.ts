import type { Command } from 'commander';
import type { CheckDefinition } from '../../checks/check.js';
import { VapcError } from '../../errors.js';
import { printable } from '../../results/printable.js';
import { environmentSecrets, OutputGuard } from '../../secrets/guard.js';
import { loadSpec } from '../../spec/load.js';
import { driftRecording } from '../../traffic/drift.js';
import { RECORDING_FORMATS, type RecordingFormat } from '../../traffic/formats.js';
import { checks as registry } from '../../../suites/index.js';
import { profile } from '../../../suites/profile.js';
import { ExitCode, type CliIo, type CommandContext } from '../io.js';
import { addTrafficOptions, finishTraffic, trafficLine, trafficSetup, type TrafficFlags } from '../traffic.js';

/** The flags of `vapc drift`: the recording's own, and the traffic settings (TRAFFIC_SETTINGS). */
export type DriftFlags = TrafficFlags & { format?: string; basePath?: string };

/** Seams for tests: the checks, today's date, the working directory and standard input. */
export interface DriftDeps {
  checks?: readonly CheckDefinition[];
  today?: string;
  cwd?: string;
  stdin?: AsyncIterable<Buffer>;
}

function formatOf(text: string | undefined): RecordingFormat | undefined {
  if (text === undefined || text === 'auto') return undefined;
  if ((RECORDING_FORMATS as readonly string[]).includes(text)) return text as RecordingFormat;
  throw new VapcError('E_USAGE', `--format takes auto, ${RECORDING_FORMATS.join(', ')}, not "${printable(text)}"`);
}

function basePathOf(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!/^\/[^\s?#]*$/.test(text))
    throw new VapcError('E_USAGE', `--base-path takes a URL path starting with /, not "${printable(text)}"`);
  return text.replace(/\/+$/, '') || undefined;
}

/**
 * The whole `vapc drift`: reads and judges the recording, then the pipeline every run ends with.
 * Bad input (flags, the baseline, a recording that is not one) is a VapcError (exit 2), thrown
 * before any report is written.
 */
export async function driftCommand(
  source: string,
  flags: DriftFlags,
  io: CliIo,
  deps: DriftDeps = {},
): Promise<number> {
  const format = formatOf(flags.format);
  const basePath = basePathOf(flags.basePath);
  const setup = await trafficSetup(flags, io, deps.today);
  const secrets = environmentSecrets(io.env);
  const guard = new OutputGuard(secrets);
  const checks = deps.checks ?? registry;
  const spec = await loadSpec();
  if (!setup.settings.quiet) io.stdout(guard.line(`vapc drift: ${source === '-' ? 'standard input' : source}`));
  const result = await driftRecording({
    spec,
    checks,
    profile,
    secrets,
    path: source,
    ...(deps.stdin ? { stdin: deps.stdin } : {}),
    ...(format ? { format } : {}),
    ...(basePath ? { basePath } : {}),
    ...(deps.cwd ? { cwd: deps.cwd } : {}),
  });
  if (!setup.settings.quiet) io.stdout(guard.block(trafficLine(result.report)));
  return finishTraffic(result.report, checks, setup, io, secrets);
}

/** vapc drift FILE|DIR|-: recorded traffic judged by the runner's judges (docs/drift.md). */
export function registerDriftCommand(program: Command, ctx: CommandContext): void {
  const command = program
    .command('drift')
    .description(
      "judge recorded traffic (HAR 1.2, NDJSON, Kong gateway logs) against the contract with the runner's judges (exit 0 pass, 1 a finding, 2 usage error or a recording that is not one, 3 nothing judged)",
    )
    .argument('<recording>', 'a recording file, a directory of them, or - for standard input')
    .option('--format <format>', `auto (from the name and first bytes), ${RECORDING_FORMATS.join(', ')}`, 'auto')
    .option('--base-path <path>', "the path the contract's paths stand under in the recorded URLs (e.g. /v2)");
  addTrafficOptions(command).action(async (recording: string, flags: DriftFlags) => {
    ctx.exit((await driftCommand(recording, flags, ctx.io)) as ExitCode);
  });
}
