/**
 * What `vapc drift` and `vapc proxy` share once the traffic is judged: the one pipeline of `vapc run`
 * by return values (report → the baseline → the verdict → the console and writeReports), the
 * coverage gate, the baseline file, and the exit status. Every stream passes the command's output
 * guard; every file is scrubbed with the run's secrets after rendering (writeReports).
 */
import type { Command } from 'commander';
import type { CheckDefinition } from '../checks/check.js';
import { verdictRules } from '../checks/verdict-rules.js';
import { announceCoverage, coverageGateOf, type CoverageGateOptions } from '../coverage/index.js';
import { commandSettings } from '../config/settings.js';
import { createConsoleReporter } from '../reporters/console.js';
import { createGitHubSink } from '../reporters/github-sink.js';
import { composeEvents } from '../results/events.js';
import type { RunReport } from '../results/model.js';
import { printable } from '../results/printable.js';
import { inconclusiveHeadline, withVerdict } from '../results/verdict.js';
import { environmentGuard, OutputGuard } from '../secrets/guard.js';
import type { Secrets } from '../secrets/index.js';
import { sanitizeReport } from '../secrets/report.js';
import { baselinedReport, loadBaselineFlags, saveBaseline, todayUtc } from './baseline.js';
import { profile } from '../../suites/profile.js';
import { ExitCode, type CliIo } from './io.js';
import { prepareReportDir } from './run/finish.js';

/**
 * The settings `vapc drift` and `vapc proxy` take beside their source, as `vapc run` reads them
 * (src/config/table.ts): the report directory, the baseline, the coverage gate and the verdict's
 * options; one parser and one default each, the help said of traffic where it differs.
 */
export const TRAFFIC_SETTINGS = commandSettings(
  [
    'reportDir',
    'quiet',
    'baseline',
    'writeBaseline',
    'pruneBaseline',
    'strictBaseline',
    'minCoverage',
    'failOnUnseenStatus',
    'failOnUndocumentedStatus',
    'sarifCoverage',
    'allowInconclusive',
  ],
  {
    writeBaseline: "record this traffic's failures as known findings (YAML, sorted; reasons kept from --baseline)",
    pruneBaseline: 'with --baseline: drop entries whose check and operation were judged and passed',
    failOnUnseenStatus: 'fail when a documented status never appears in the traffic',
    failOnUndocumentedStatus: 'fail when the traffic holds a status the operation does not document',
    allowInconclusive: 'exit 0 when no judge judged any answer of the traffic (every report still says so)',
  },
);

/** The settings of a traffic command, read from its flags. */
export type TrafficSettings = ReturnType<typeof TRAFFIC_SETTINGS.read>;

/** The flags of a traffic command as commander gives them (by attribute); read through TRAFFIC_SETTINGS. */
export type TrafficFlags = Readonly<Record<string, unknown>>;

/** The report, baseline, gate and verdict options, as `vapc run` declares them. */
export function addTrafficOptions(command: Command): Command {
  for (const o of TRAFFIC_SETTINGS.options) command.option(o.flags, o.description);
  return command;
}

/** What a traffic command settles before it reads any traffic: the gate's options, the baseline, the report directory. */
export interface TrafficSetup {
  settings: TrafficSettings;
  gate: CoverageGateOptions;
  baseline: Awaited<ReturnType<typeof loadBaselineFlags>>;
  reportDir: string;
  today: string;
}

/**
 * Everything that can be refused before the traffic is read: a bad --min-coverage, a bad baseline
 * file (exit 2, file and line named), a report directory that cannot be used.
 */
export async function trafficSetup(flags: TrafficFlags, io: CliIo, today = todayUtc()): Promise<TrafficSetup> {
  const settings = TRAFFIC_SETTINGS.read(flags);
  const gate = coverageGateOf(settings);
  const baseline = await loadBaselineFlags(settings, {
    today,
    warn: (line) => io.stderr(environmentGuard(io.env).line(line)),
  });
  await prepareReportDir(settings.reportDir);
  return { settings, gate, baseline, reportDir: settings.reportDir, today };
}

/** The judged traffic to its exit status: baseline, verdict, console, report files, baseline file, coverage gate. */
export async function finishTraffic(
  judged: RunReport,
  checks: readonly CheckDefinition[],
  setup: TrafficSetup,
  io: CliIo,
  secrets: Secrets,
): Promise<number> {
  const flags = setup.settings;
  const guard = new OutputGuard(secrets);
  const say = (text: string) => io.stdout(guard.block(text));
  const shout = (text: string) => io.stderr(guard.block(text));
  const { baseline } = setup;
  const baselined =
    baseline && flags.baseline !== undefined
      ? baselinedReport(judged, baseline, {
          file: flags.baseline,
          today: setup.today,
          prune: flags.pruneBaseline === true,
        })
      : judged;
  // Made safe once, after the baseline's marks and the verdict: every output gets this report.
  const report = sanitizeReport(
    withVerdict(baselined, verdictRules(checks, 0, profile), { allowInconclusive: flags.allowInconclusive === true }),
    secrets,
  );
  composeEvents(
    createConsoleReporter({ write: io.stdout, isTTY: io.isTTY, env: io.env, quiet: flags.quiet === true, secrets }),
    createGitHubSink({ write: io.stdout, env: io.env, secrets }),
  ).onEnd?.(report);
  const { writeReports } = await import('../reporters/index.js');
  const written = await writeReports(report, setup.reportDir, {
    secrets,
    sarif: { rules: checks, coverage: flags.sarifCoverage === true },
  });
  for (const e of written.errors) shout(`vapc: could not write ${e.file}: ${printable(e.message)}\n`);
  if (!flags.quiet || written.errors.length > 0)
    say(`reports: ${written.json}, ${written.junit}, ${written.html}, ${written.sarif}\n`);
  if (flags.writeBaseline !== undefined || flags.pruneBaseline)
    for (const line of await saveBaseline(flags, report, baseline)) say(`${line}\n`);
  const gateFailed = announceCoverage(report.coverage, setup.gate, say, shout);
  if (written.errors.length > 0) {
    shout(`vapc: ${written.errors.length} report file(s) could not be written: exit 2, whatever the verdict above\n`);
    return ExitCode.usage;
  }
  const status = statusOf(report, flags, shout);
  return gateFailed && status === ExitCode.ok ? ExitCode.failed : status;
}

/** 1 when a judge failed (a new finding, with a baseline) or could not run; 3 when nothing was judged (0 with --allow-inconclusive). */
function statusOf(report: RunReport, flags: TrafficSettings, shout: (text: string) => void): number {
  const failed = report.summary.new_failures ?? report.summary.failed;
  if (failed > 0) return ExitCode.failed;
  if (report.summary.errors > 0) {
    shout(`vapc: ${report.summary.errors} judge(s) could not run (tool errors, see the report); not a pass\n`);
    return ExitCode.failed;
  }
  if (report.verdict !== 'inconclusive') return ExitCode.ok;
  if (!flags.allowInconclusive) return ExitCode.inconclusive;
  shout(
    `vapc: INCONCLUSIVE (${printable(inconclusiveHeadline(report.evidence!))}); exit 0 only because of --allow-inconclusive\n`,
  );
  return ExitCode.ok;
}

/** One line of what the traffic held: exchanges, how many on the contract and judged, the operations never exercised. */
export function trafficLine(report: RunReport): string {
  const t = report.traffic;
  if (!t) return '';
  const unseen = t.operations.filter((o) => o.exchanges === 0).map((o) => o.operation);
  const seen = t.operations.length - unseen.length;
  const lines = [
    `traffic: ${t.exchanges} exchange(s), ${t.on_contract} on the contract, ${t.judged} judged; ${seen} of ${t.operations.length} operations exercised` +
      (t.unanswered > 0 ? `; ${t.unanswered} request(s) without an answer (not judged)` : ''),
  ];
  if (unseen.length > 0) lines.push(`  never exercised: ${unseen.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
