import { resolve } from 'node:path';
import type { Command } from 'commander';
import { VapcError } from '../../errors.js';
import { createConsoleReporter, writeReports, type ReportFormat } from '../../reporters/index.js';
import { loadReport } from '../../reporters/load.js';
import { mergeShardReports } from '../../reporters/merge.js';
import type { RunReport } from '../../results/model.js';
import { ExitCode, type CommandContext } from '../main.js';

const FORMATS = ['console', 'junit', 'html', 'sarif'] as const;
type Format = (typeof FORMATS)[number];

function parseFormats(list: string): Format[] {
  const items = list
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = items.filter((f) => !(FORMATS as readonly string[]).includes(f));
  if (unknown.length > 0 || items.length === 0) {
    throw new VapcError('E_USAGE', `--format takes a comma-separated list of ${FORMATS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  }
  return [...new Set(items as Format[])];
}

/**
 * vapc report DIR: renders DIR/report.json again (console summary, junit.xml, report.html), so a
 * run's results can be read or re-published without rerunning. Exit status as for `vapc run`:
 * 0 no check failed or errored, 1 some did, 2 report.json missing or invalid, or bad usage.
 */
export function registerReportCommand(program: Command, ctx: CommandContext): void {
  const { io, exit } = ctx;
  const report = program
    .command('report')
    .description('re-render the console summary, junit.xml, report.html and report.sarif from DIR/report.json (exit 1 when the report has failed or errored checks, 2 when report.json is missing or invalid)')
    .argument('[dir]', 'report directory holding report.json', 'reports/latest')
    .option('--format <list>', `what to render: ${FORMATS.join(',')}`, FORMATS.join(','))
    .option('--quiet', 'print only a brief summary')
    .action(async (dir: string, opts: { format: string; quiet?: boolean }) => {
      const formats = parseFormats(opts.format);
      const loaded = await loadReport(dir);
      const files = formats.filter((f): f is Exclude<Format, 'console'> => f !== 'console') as ReportFormat[];
      const secrets = [io.env.VAPC_API_KEY, io.env.VAPC_USER_ID].filter((s): s is string => typeof s === 'string' && s.length > 0);
      if (formats.includes('console')) {
        const reporter = createConsoleReporter({ write: io.stdout, isTTY: io.isTTY, env: io.env, quiet: Boolean(opts.quiet), secrets });
        reporter.onEnd?.(loaded);
      }
      if (files.length > 0) {
        const written = await writeReports(loaded, dir, { formats: files, secrets });
        for (const f of files) {
          if (!written.errors.some((e) => e.format === f)) io.stdout(`wrote ${written[f]}\n`);
        }
        for (const e of written.errors) io.stderr(`vapc: could not write ${e.file}: ${e.message}\n`);
        if (written.errors.length > 0) return exit(ExitCode.usage);
      }
      // As for `vapc run`: a failed check, or a check that could not run, is not a pass.
      exit(verdict(loaded));
    });
  registerMergeCommand(report, ctx);
}

/** As for `vapc run`: a failed check, or a check that could not run, is not a pass. */
const verdict = (r: RunReport) => (r.results.some((x) => x.status === 'failed' || x.status === 'error') ? ExitCode.failed : ExitCode.ok);

/**
 * vapc report merge DIR... --report-dir OUT: joins the reports of `vapc run --shard I/N` into the
 * report of one run and writes report.json, junit.xml, report.html and report.sarif to OUT.
 * Exit 0/1 as for `vapc run`; 2 when the shards do not make one run (see reporters/merge.ts).
 */
function registerMergeCommand(report: Command, { io, exit }: CommandContext): void {
  report
    .command('merge')
    .description('merge the report directories of `vapc run --shard I/N` (all N of them) into one report (exit 1 when a check failed, 2 when the shards do not make one run)')
    .argument('<dirs...>', 'the shard report directories, each holding report.json')
    .option('--report-dir <dir>', 'where the merged report.json, junit.xml, report.html and report.sarif go', 'reports/latest')
    .option('--quiet', 'print only a brief summary')
    .action(async (dirs: string[], _opts: unknown, command: Command) => {
      const opts = command.optsWithGlobals<{ reportDir: string; quiet?: boolean }>();
      const out = resolve(opts.reportDir);
      const clash = dirs.find((d) => resolve(d) === out);
      if (clash !== undefined) throw new VapcError('E_USAGE', `--report-dir ${opts.reportDir} is one of the shard directories; merge into another directory`);
      const shards = await Promise.all(dirs.map(async (dir) => ({ source: dir, report: await loadReport(dir) })));
      const merged = mergeShardReports(shards);
      const secrets = [io.env.VAPC_API_KEY, io.env.VAPC_USER_ID].filter((s): s is string => typeof s === 'string' && s.length > 0);
      createConsoleReporter({ write: io.stdout, isTTY: io.isTTY, env: io.env, quiet: Boolean(opts.quiet), secrets }).onEnd?.(merged);
      const written = await writeReports(merged, out, { secrets });
      for (const e of written.errors) io.stderr(`vapc: could not write ${e.file}: ${e.message}\n`);
      if (written.errors.length > 0) return exit(ExitCode.usage);
      io.stdout(`merged ${shards.length} shards: ${written.json}, ${written.junit}, ${written.html}, ${written.sarif}\n`);
      exit(verdict(merged));
    });
}
