import { resolve } from 'node:path';
import type { Command } from 'commander';
import { VapcError } from '../../errors.js';
import { createConsoleReporter, createGitHubSink, writeReports, type ReportFormat } from '../../reporters/index.js';
import { composeEvents } from '../../results/events.js';
import { loadReport, loadReports } from '../../reporters/load.js';
import { Secrets } from '../../secrets/index.js';
import { learnFromReport, sanitizeReport } from '../../secrets/report.js';
import { loadSpec } from '../../spec/load.js';
import { operationLabel, secretResponsePointers } from '../../spec/model.js';
import { ExitCode, type CommandContext } from '../io.js';
import { environmentSecrets, OutputGuard } from '../../secrets/guard.js';
import { mergeShardReports } from '../../reporters/merge.js';
import { announceCoverage, coverageGateOf } from '../../coverage/index.js';
import { commandSettings } from '../../config/settings.js';
import type { RunReport } from '../../results/model.js';
import { printable } from '../../results/printable.js';
import { applyBaseline } from '../../baseline/index.js';
import { checks as registry } from '../../../suites/index.js';
import { profile } from '../../../suites/profile.js';
import { loadBaselineFlags, todayUtc } from '../baseline.js';
import { withVerdict } from '../../results/verdict.js';
import { verdictRules } from '../../checks/verdict-rules.js';

const FORMATS = ['console', 'junit', 'html', 'sarif'] as const;
type Format = (typeof FORMATS)[number];

function parseFormats(list: string): Format[] {
  const items = list
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = items.filter((f) => !(FORMATS as readonly string[]).includes(f));
  if (unknown.length > 0 || items.length === 0) {
    throw new VapcError(
      'E_USAGE',
      `--format takes a comma-separated list of ${FORMATS.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
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
    .description(
      're-render the console summary, junit.xml, report.html and report.sarif from DIR/report.json (exit 1 when the report has failed or errored checks, 2 when report.json is missing or invalid)',
    )
    .argument('[dir]', 'report directory holding report.json', 'reports/latest')
    .option('--format <list>', `what to render: ${FORMATS.join(',')}`, FORMATS.join(','))
    .option('--quiet', 'print only a brief summary');
  for (const o of REPORT_SETTINGS.options) report.option(o.flags, o.description);
  report.action(async (dir: string, opts: { format: string; quiet?: boolean } & Record<string, unknown>) => {
    const settings = REPORT_SETTINGS.read(opts);
    const formats = parseFormats(opts.format);
    const loaded = judged(await rebaseline(await loadReport(dir), settings.baseline, io.stderr), settings);
    // A run that judged nothing has no verdict to render: re-rendering would draw a green page.
    if (loaded.run?.status === 'aborted' && loaded.results.length === 0) {
      throw new VapcError(
        'E_USAGE',
        `${dir}/report.json is from a run that judged nothing (aborted: ${printable(loaded.run.reason ?? 'no reason given')}); there is no verdict to render`,
      );
    }
    const files = formats.filter((f): f is Exclude<Format, 'console'> => f !== 'console') as ReportFormat[];
    const secrets = await reportSecrets(io.env, loaded);
    const guard = new OutputGuard(secrets);
    // The one sanitising pass of a report read from disk, after the baseline marks: every output gets this report.
    const safe = sanitizeReport(loaded, secrets);
    if (formats.includes('console')) {
      const reporter = composeEvents(
        createConsoleReporter({
          write: io.stdout,
          isTTY: io.isTTY,
          env: io.env,
          quiet: Boolean(opts.quiet),
          secrets,
        }),
        createGitHubSink({ write: io.stdout, env: io.env, secrets }),
      );
      reporter.onEnd?.(safe);
    }
    if (files.length > 0) {
      const written = await writeReports(safe, dir, {
        formats: files,
        sanitized: true,
        secrets,
        sarif: { rules: registry },
      });
      for (const f of files) {
        if (!written.errors.some((e) => e.format === f)) io.stdout(guard.line(`wrote ${written[f]}`));
      }
      for (const e of written.errors) io.stderr(guard.line(`vapc: could not write ${e.file}: ${e.message}`));
      if (written.errors.length > 0) return exit(ExitCode.usage);
    }
    exit(verdict(loaded, settings.allowInconclusive));
  });
  registerMergeCommand(report, ctx);
}

/**
 * The secrets to keep out of what a report renders: the credentials in the environment, and what
 * the report itself shows vapc sent or was given by its own successful calls (learnFromReport).
 */
async function reportSecrets(env: NodeJS.ProcessEnv, report: RunReport): Promise<Secrets> {
  // The environment's credentials and tokens, as every other command's output guard knows them.
  const secrets = environmentSecrets(env);
  const spec = await loadSpec();
  const pointers = new Map(spec.operations.map((op) => [operationLabel(op), secretResponsePointers(op)]));
  // The credential headers are the contract's security schemes, read from the spec.
  const credentialHeaders = spec.securitySchemes.map((s) => ({ header: s.header, bearer: s.credential === 'bearer' }));
  learnFromReport(report, secrets, (operation) => pointers.get(operation) ?? [], credentialHeaders);
  return secrets;
}

/**
 * A report's baseline marks are the artefact's claim: a forged `known: true` would hide a failure.
 * So they are dropped and, given the baseline file, recomputed from it and the results (today's
 * date deciding expiry); without it every failure counts as new, and a report that had marks says
 * so on stderr.
 */
async function rebaseline(
  report: RunReport,
  file: string | undefined,
  warn: (text: string) => void,
): Promise<RunReport> {
  const hadMarks = report.baseline !== undefined || report.results.some((r) => r.baseline !== undefined);
  const { baseline: _drop, ...rest } = report;
  const { new_failures: _n, known: _k, ...summary } = report.summary;
  const plain: RunReport = { ...rest, summary, results: report.results.map(({ baseline: _b, ...r }) => r) };
  const baseline = await loadBaselineFlags({ baseline: file });
  if (baseline && file !== undefined) return applyBaseline(plain, baseline, { file, today: todayUtc() });
  if (hadMarks)
    warn(
      `vapc: the report was written with --baseline; its known findings are not taken from the artefact: pass --baseline FILE to recompute them (until then every failure counts as new)\n`,
    );
  return plain;
}

/**
 * As for `vapc run`: a failed check, or a check that could not run, is not a pass; known findings
 * of a --baseline run (marked in report.json) do not fail it again; a run that judged too little is
 * inconclusive (exit 3) unless --allow-inconclusive.
 */
function verdict(r: RunReport, allowInconclusive: boolean): ExitCode {
  if (r.results.some((x) => (x.status === 'failed' && x.baseline?.known !== true) || x.status === 'error'))
    return ExitCode.failed;
  return r.verdict === 'inconclusive' && !allowInconclusive ? ExitCode.inconclusive : ExitCode.ok;
}

/** The report's verdict, never the artefact's claim: decided again from its results and coverage. */
const judged = (report: RunReport, settings: { allowInconclusive: boolean; coverageFloor: number }): RunReport =>
  withVerdict(report, verdictRules(registry, settings.coverageFloor, profile), {
    allowInconclusive: settings.allowInconclusive,
  });

/** The settings `vapc report` takes, as `vapc run` reads them (src/config/table.ts): one parser, one default. */
const REPORT_SETTINGS = commandSettings(['baseline', 'allowInconclusive', 'coverageFloor'], {
  baseline:
    'the baseline the run used: known findings are recomputed from it (without it, every failure counts as new)',
  allowInconclusive: 'exit 0 when the report is inconclusive (every output still says so)',
  coverageFloor: 'the coverage floor of a whole-plan run in percent (default as for vapc run)',
});

/** The settings `vapc report merge` takes, as `vapc run` reads them. */
const MERGE_SETTINGS = commandSettings(
  ['baseline', 'minCoverage', 'failOnUnseenStatus', 'failOnUndocumentedStatus', 'allowInconclusive', 'coverageFloor'],
  {
    baseline:
      'the baseline the shards used: known findings are recomputed from it (without it, every failure counts as new)',
    minCoverage: 'exit 1 when fewer than N percent of the merged coverage cells are judged, listing the cells missing',
    failOnUnseenStatus: 'exit 1 when a documented status was never observed in any shard',
    failOnUndocumentedStatus: 'exit 1 when a shard observed a status the operation does not document',
    allowInconclusive: 'exit 0 when the merged run is inconclusive (every output still says so)',
    coverageFloor: 'the coverage floor of the merged whole-plan run in percent (default as for vapc run)',
  },
);

/**
 * vapc report merge DIR... --report-dir OUT: joins the reports of `vapc run --shard I/N` into the
 * report of one run and writes report.json, junit.xml, report.html and report.sarif to OUT.
 * Exit 0/1 as for `vapc run`; 2 when the shards do not make one run (see reporters/merge.ts).
 */
function registerMergeCommand(report: Command, { io, exit }: CommandContext): void {
  const merge = report
    .command('merge')
    .description(
      'merge the report directories of `vapc run --shard I/N` (all N of them) into one report (exit 1 when a check failed, 2 when the shards do not make one run)',
    )
    .argument('<dirs...>', 'the shard report directories, each holding report.json')
    .option(
      '--report-dir <dir>',
      'where the merged report.json, junit.xml, report.html and report.sarif go',
      'reports/latest',
    )
    .option('--quiet', 'print only a brief summary');
  for (const o of MERGE_SETTINGS.options) merge.option(o.flags, o.description);
  merge.action(async (dirs: string[], _opts: unknown, command: Command) => {
    const opts = command.optsWithGlobals<{ reportDir: string; quiet?: boolean } & Record<string, unknown>>();
    const settings = MERGE_SETTINGS.read(opts);
    const out = resolve(opts.reportDir);
    const clash = dirs.find((d) => resolve(d) === out);
    if (clash !== undefined)
      throw new VapcError(
        'E_USAGE',
        `--report-dir ${opts.reportDir} is one of the shard directories; merge into another directory`,
      );
    const shards = await loadReports(dirs);
    const rebaselined = judged(await rebaseline(mergeShardReports(shards), settings.baseline, io.stderr), settings);
    const secrets = await reportSecrets(io.env, rebaselined);
    // Reports read from disk, merged and marked: sanitised once here, and every output gets this one.
    const merged = sanitizeReport(rebaselined, secrets);
    composeEvents(
      createConsoleReporter({ write: io.stdout, isTTY: io.isTTY, env: io.env, quiet: Boolean(opts.quiet), secrets }),
      createGitHubSink({ write: io.stdout, env: io.env, secrets }),
    ).onEnd?.(merged);
    const written = await writeReports(merged, out, { sanitized: true, secrets, sarif: { rules: registry } });
    const guard = new OutputGuard(secrets);
    for (const e of written.errors) io.stderr(guard.line(`vapc: could not write ${e.file}: ${e.message}`));
    if (written.errors.length > 0) return exit(ExitCode.usage);
    io.stdout(
      guard.line(
        `merged ${shards.length} shards: ${written.json}, ${written.junit}, ${written.html}, ${written.sarif}`,
      ),
    );
    const gateFailed = announceCoverage(
      merged.coverage,
      coverageGateOf(settings),
      (t) => io.stdout(guard.block(t)),
      (t) => io.stderr(guard.block(t)),
    );
    const status = verdict(merged, settings.allowInconclusive);
    exit(gateFailed && status === ExitCode.ok ? ExitCode.failed : status);
  });
}
