import type { Command } from 'commander';
import { VapcError } from '../../errors.js';
import { createConsoleReporter, createGitHubSink, writeReports, type ReportFormat } from '../../reporters/index.js';
import { composeEvents } from '../../results/events.js';
import { loadReport } from '../../reporters/load.js';
import { Secrets } from '../../secrets/index.js';
import { learnFromReport } from '../../secrets/report.js';
import { loadSpec } from '../../spec/load.js';
import { operationLabel, secretResponsePointers } from '../../spec/model.js';
import { ExitCode, type CommandContext } from '../io.js';

const FORMATS = ['console', 'junit', 'html'] as const;
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
export function registerReportCommand(program: Command, { io, exit }: CommandContext): void {
  program
    .command('report')
    .description('re-render the console summary, junit.xml and report.html from DIR/report.json (exit 1 when the report has failed or errored checks, 2 when report.json is missing or invalid)')
    .argument('[dir]', 'report directory holding report.json', 'reports/latest')
    .option('--format <list>', `what to render: ${FORMATS.join(',')}`, FORMATS.join(','))
    .option('--quiet', 'print only a brief summary')
    .action(async (dir: string, opts: { format: string; quiet?: boolean }) => {
      const formats = parseFormats(opts.format);
      const report = await loadReport(dir);
      const files = formats.filter((f): f is Exclude<Format, 'console'> => f !== 'console') as ReportFormat[];
      const secrets = new Secrets({ apiKeys: [io.env.VAPC_API_KEY ?? ''], userIds: [io.env.VAPC_USER_ID ?? ''] });
      const spec = await loadSpec();
      const pointers = new Map(spec.operations.map((op) => [operationLabel(op), secretResponsePointers(op)]));
      learnFromReport(report, secrets, (operation) => pointers.get(operation) ?? []);
      if (formats.includes('console')) {
        const reporter = composeEvents(
          createConsoleReporter({ write: io.stdout, isTTY: io.isTTY, env: io.env, quiet: Boolean(opts.quiet), secrets }),
          createGitHubSink({ write: io.stdout, env: io.env, secrets }),
        );
        reporter.onEnd?.(report);
      }
      if (files.length > 0) {
        const written = await writeReports(report, dir, { formats: files, secrets });
        for (const f of files) {
          if (!written.errors.some((e) => e.format === f)) io.stdout(`wrote ${written[f]}\n`);
        }
        for (const e of written.errors) io.stderr(`vapc: could not write ${e.file}: ${e.message}\n`);
        if (written.errors.length > 0) return exit(ExitCode.usage);
      }
      // As for `vapc run`: a failed check, or a check that could not run, is not a pass.
      // Known findings of a --baseline run (marked in report.json) do not fail it again.
      exit(report.results.some((r) => (r.status === 'failed' && r.baseline?.known !== true) || r.status === 'error') ? ExitCode.failed : ExitCode.ok);
    });
}
