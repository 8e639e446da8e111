/**
 * How `vapc run` ends: the lines it starts with, a dry run's plan, and a judged run to its exit
 * status by one pipeline of return values (runConformance → the baseline → the verdict →
 * writeReports), the report directory checked before any request and the baseline files written
 * on the way.
 */
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import type { CheckDefinition } from '../../checks/check.js';
import { verdictRules } from '../../checks/verdict-rules.js';
import type { RunSettings } from '../../config/settings.js';
import { profile } from '../../../suites/profile.js';
import { announceCoverage, coverageGateOf } from '../../coverage/index.js';
import { workflowsLine } from '../../results/workflows.js';
import { isVapcError, SETUP_ERROR_CODES, VapcError } from '../../errors.js';
import { directoryRefusal } from '../../files/checkout.js';
import { escapeData, escapeProperty } from '../../reporters/github.js';
import type { RunEvents } from '../../results/events.js';
import type { RunReport } from '../../results/model.js';
import { printable } from '../../results/printable.js';
import { inconclusiveHeadline, withVerdict } from '../../results/verdict.js';
import { budgetLines, renderDryRun } from '../../runner/budget.js';
import type { ConformanceResult } from '../../runner/conformance.js';
import type { Secrets } from '../../secrets/index.js';
import { baselinedReport, saveBaseline, type loadBaselineFlags } from '../baseline.js';
import { ExitCode, fromAction, type CliIo } from '../io.js';

/** Where a run prints: both streams made safe (secrets scrubbed, no workflow commands), and the secrets. */
export type RunOutput = { say: (text: string) => void; shout: (text: string) => void; secrets: Secrets };

/** The lines a run starts with: the config file read or ignored, the target, the seed and what kind of run. */
export function runHeader(settings: RunSettings, baseUrl: string, seed: number): string {
  const lines: string[] = [];
  const { shard } = settings;
  if (settings.configFile !== undefined) lines.push(`config: ${printable(settings.configFile)}`);
  if (settings.configIgnored !== undefined)
    lines.push(
      `config: ${printable(settings.configIgnored)} ignored (the embedded run reads a config file only when --config names it)`,
    );
  lines.push(
    `vapc run: ${settings.embedded ? `embedded reference server at ${baseUrl}` : baseUrl} · seed ${seed}` +
      `${settings.seed === undefined ? ` (random; replay with --seed ${seed})` : ''}${shard ? ` · shard ${shard.index}/${shard.count}` : ''}${settings.dryRun ? ' · dry run' : ''}`,
  );
  return `${lines.join('\n')}\n`;
}

/** A fixture value as a dry run shows it: ids joined by '/', a phone number with its channel as `id:channel`. */
function fixtureText(v: unknown): string {
  if (!Array.isArray(v)) return String(v);
  return v
    .map((x) =>
      x !== null && typeof x === 'object'
        ? [(x as { id?: unknown }).id, (x as { channel?: unknown }).channel].filter((p) => p !== undefined).join(':')
        : String(x),
    )
    .join('/');
}

/** What a dry run found and would do. Discovered values are server text: shown as data (escaped), never as control. */
export function dryRunText(
  result: ConformanceResult & { dryRun: NonNullable<ConformanceResult['dryRun']> },
  secrets: Secrets,
): string {
  const lines = result.discovery.notes.map((n) => `  discovery: ${printable(secrets.evidence(n))}\n`).join('');
  const found = Object.entries(result.discovery.fixtures)
    .map(([k, v]) => `${k}=${printable(secrets.evidence(fixtureText(v)))} (${result.discovery.sources[k]})`)
    .join(', ');
  return `${lines}  fixtures: ${found || 'none'}\n${renderDryRun(result.dryRun)}`;
}

/**
 * Under GitHub Actions a run that could not start (setup error, unreachable target) leaves exactly
 * one `::error` annotation with the same sentence the console prints, so the job page says why.
 */
export function announceSetupError(error: unknown, io: CliIo, secrets: Secrets): void {
  // The Action writes the one `::error` of an exit 2 itself, naming its inputs.
  if (io.env['GITHUB_ACTIONS'] !== 'true' || fromAction(io.env) || !isVapcError(error)) return;
  if (!SETUP_ERROR_CODES.includes(error.code) && error.code !== 'E_UNREACHABLE') return;
  // The trusted path: vapc's own annotation, its message (which may quote the server) escaped.
  io.stdout(
    `::error title=${escapeProperty('vapc run could not start')}::${escapeData(`${printable(secrets.evidence(error.message))} [${error.code}]`)}\n`,
  );
}

/**
 * The report directory is checked before any request is sent: a path that names a file, or a
 * directory that cannot be created, is a usage error (exit 2), not a run that loses its results.
 */
export async function prepareReportDir(dir: string): Promise<void> {
  // A symlink committed in the checkout must not make the run write (and replace files) elsewhere.
  const outside = directoryRefusal(dir);
  if (outside !== undefined) throw new VapcError('E_USAGE', `--report-dir ${outside}`);
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory())
    throw new VapcError(
      'E_USAGE',
      `--report-dir ${dir} is a file, not a directory; name a directory for report.json, junit.xml, report.html and report.sarif`,
    );
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new VapcError('E_USAGE', `--report-dir ${dir} cannot be used (${code}); name a writable directory`);
  }
}

type Baseline = Awaited<ReturnType<typeof loadBaselineFlags>>;

/** The exit status of a finished run (baseline files written on the way): 1 a check failed or could not run, 2 unreachable, 3 inconclusive. */
async function exitStatus(
  report: RunReport,
  result: ConformanceResult,
  settings: RunSettings,
  baseline: Baseline,
  out: RunOutput,
): Promise<number> {
  const { say, shout, secrets } = out;
  const { failed: anyFailed, errors, new_failures } = report.summary;
  // With --baseline only new (or expired) findings fail the run.
  const failed = new_failures ?? anyFailed;
  if (settings.writeBaseline !== undefined || settings.pruneBaseline) {
    if (result.aborted) shout(`vapc: the run stopped early, so the baseline file was not written\n`);
    else for (const line of await saveBaseline(settings, report, baseline)) say(`${line}\n`);
  }
  if (result.aborted) {
    shout(`vapc: the run stopped early: ${printable(secrets.evidence(result.aborted.message))}\n`);
    // A target that stopped answering is unreachable (2) even if some checks failed first.
    if (result.aborted.reason === 'unreachable' || failed === 0) return ExitCode.usage;
  }
  if (failed > 0) return ExitCode.failed;
  if (errors > 0) {
    shout(`vapc: ${errors} check(s) could not run (tool errors, see the report); the run is not a pass\n`);
    return ExitCode.failed;
  }
  if (report.verdict !== 'inconclusive') return ExitCode.ok;
  if (!settings.allowInconclusive) return ExitCode.inconclusive;
  shout(
    `vapc: the run is INCONCLUSIVE (${printable(inconclusiveHeadline(report.evidence!))}); exit 0 only because of --allow-inconclusive\n`,
  );
  return ExitCode.ok;
}

/** What a judged run needs after runConformance returns. */
export interface RunFinish {
  settings: RunSettings;
  baseline: Baseline;
  today: string;
  checks: readonly CheckDefinition[];
  reporter: RunEvents;
}

/**
 * A judged run to its exit status. One pipeline, by return values: runConformance → baselinedReport
 * → the verdict → writeReports. The run's report is safe from its source; the baseline adds only
 * vapc's own fields, so it is written as it is.
 */
export async function finishRun(result: ConformanceResult, run: RunFinish, out: RunOutput): Promise<number> {
  const { settings, baseline, today, checks, reporter } = run;
  const { say, shout } = out;
  const baselined =
    baseline && settings.baseline !== undefined
      ? baselinedReport(result.report, baseline, { file: settings.baseline, today, prune: settings.pruneBaseline })
      : result.report;
  // The verdict again after the baseline (only new findings fail), with --allow-inconclusive said in it.
  const report = withVerdict(baselined, verdictRules(checks, settings.coverageFloor, profile), {
    allowInconclusive: settings.allowInconclusive,
  });
  reporter.onEnd?.(report);
  const { writeReports } = await import('../../reporters/index.js');
  const written = await writeReports(report, settings.reportDir, {
    secrets: out.secrets,
    sarif: { rules: checks, coverage: settings.sarifCoverage },
  });
  for (const e of written.errors) shout(`vapc: could not write ${e.file}: ${printable(e.message)}\n`);
  if (!settings.quiet || written.errors.length > 0)
    say(`reports: ${written.json}, ${written.junit}, ${written.html}, ${written.sarif}\n`);
  if (report.budget) say(`${budgetLines(report.budget).join('\n')}\n`);
  if (report.workflows) say(`${workflowsLine(report.workflows)}\n`);
  const gateFailed = announceCoverage(report.coverage, coverageGateOf(settings), say, shout);
  const status = await exitStatus(report, result, settings, baseline, out);
  // A report that could not be written is lost results, as for `vapc report`: exit 2, whatever the
  // verdict (printed above, and in the files that were written).
  if (written.errors.length > 0) {
    shout(
      `vapc: ${written.errors.length} report file(s) could not be written to --report-dir ${printable(settings.reportDir)}: exit 2, whatever the verdict above\n`,
    );
    return ExitCode.usage;
  }
  return gateFailed && status === ExitCode.ok ? ExitCode.failed : status;
}
