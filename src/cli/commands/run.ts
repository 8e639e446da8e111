/**
 * vapc run: the conformance suite against a server (shared/runner-interface.md). A thin command:
 * its options come from the settings table (src/config/table.ts), its settings from
 * src/config/resolve.ts, the target and runConformance's options from src/cli/run/target.ts, and its
 * end (the baseline, the verdict, the reports, the exit status) from src/cli/run/finish.ts.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CheckDefinition } from '../../checks/check.js';
import { resolveSettings, type ConfigFlags } from '../../config/resolve.js';
import { DEFAULT_REPORT_DIR, runOptions, type RunSettings } from '../../config/settings.js';
import { buildUniverse, renderPlannedCoverage } from '../../coverage/index.js';
import { isVapcError, VapcError } from '../../errors.js';
import { createConsoleReporter } from '../../reporters/console.js';
import { createGitHubSink } from '../../reporters/github-sink.js';
import { composeEvents } from '../../results/events.js';
import { printable } from '../../results/printable.js';
import { randomSeed, runConformance } from '../../runner/conformance.js';
import { environmentGuard, environmentSecrets, OutputGuard } from '../../secrets/guard.js';
import { Secrets } from '../../secrets/index.js';
import { loadSpec } from '../../spec/load.js';
import { parseBaseUrl } from '../../transport/undici.js';
import { checks as registry } from '../../../suites/index.js';
import { profile, SUITE_NAMES } from '../../../suites/profile.js';
import type { AbortedRun } from '../aborted.js';
import { loadBaselineFlags, markKnownLive, todayUtc } from '../baseline.js';
import { ExitCode, type CliIo, type CommandContext } from '../io.js';
import { announceSetupError, dryRunText, finishRun, prepareReportDir, runHeader } from '../run/finish.js';
import { conformanceOptions, credentialSources, focusSince, targetOf, type Target } from '../run/target.js';

export { EMBEDDED_RATE_LIMIT, EMBEDDED_RATE_WINDOW_MS } from '../run/target.js';

/** The flags as commander gives them: each setting's flag under its attribute (src/config/table.ts), and the config file's own. */
export interface RunFlags extends ConfigFlags {
  baseUrl?: string;
  embedded?: boolean;
  apiKey?: string;
  userId?: string;
  suite?: string;
  seed?: string;
  runs?: string;
  rpm?: string;
  budget?: string;
  timeoutMs?: string;
  deadlineMs?: string;
  includeDestructive?: boolean;
  reportDir?: string;
  dryRun?: boolean;
  strictTypes?: boolean;
  quiet?: boolean;
  baseline?: string;
  writeBaseline?: string;
  pruneBaseline?: boolean;
  strictBaseline?: boolean;
  changedSince?: string;
  shard?: string;
  minCoverage?: string;
  failOnUnseenStatus?: boolean;
  failOnUndocumentedStatus?: boolean;
  sarifCoverage?: boolean;
  allowInconclusive?: boolean;
  coverageFloor?: string;
  arazzo?: string[];
}

/** Seams for tests: a check list instead of the suites' registry (the contract's profile goes with either). */
export interface RunDeps {
  checks?: readonly CheckDefinition[];
  /** Today (YYYY-MM-DD) for baseline expiry; default the UTC date. */
  today?: string;
  /** The working directory a vapc.yaml is looked for in (default process.cwd()). */
  cwd?: string;
}

/** The settings of one run from its flags, environment and config file (src/config/resolve.ts), for this contract's suites and fixtures. */
export function resolveRunSettings(
  flags: RunFlags,
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): Promise<RunSettings> {
  return resolveSettings(flags as RunFlags & Record<string, unknown>, {
    env,
    cwd,
    suites: SUITE_NAMES,
    fixtures: profile.fixtures,
    checkBaseUrl: (url) => void parseBaseUrl(url),
  });
}

/**
 * The whole `vapc run`: returns the exit status; bad input and unreachable targets are VapcErrors
 * (exit 2). A run that stops before judging marks the report directory as aborted, so it never
 * shows the previous run's verdict.
 */
export async function runCommand(flags: RunFlags, io: CliIo, deps: RunDeps = {}): Promise<number> {
  const startedAt = new Date().toISOString();
  let settings: RunSettings | undefined;
  try {
    settings = await resolveRunSettings(flags, io.env, deps.cwd);
    return await runWithSettings(settings, flags, io, deps);
  } catch (error) {
    if (isVapcError(error) && !settings?.dryRun) {
      const secrets = new Secrets({
        apiKeys: settings?.apiKey ? [settings.apiKey] : [],
        userIds: settings?.userId ? [settings.userId] : [],
      });
      const run: AbortedRun = { reason: printable(secrets.evidence(error.message)), code: error.code, startedAt };
      if (settings?.baseUrl !== undefined) run.target = printable(secrets.text(settings.baseUrl));
      if (settings?.seed !== undefined) run.seed = settings.seed;
      const { markAborted } = await import('../aborted.js');
      // Relative to the run's working directory, as the config file is (RunDeps.cwd), not the process's.
      const dir = settings?.reportDir ?? flags.reportDir ?? DEFAULT_REPORT_DIR;
      await markAborted(resolve(deps.cwd ?? process.cwd(), dir), run);
    }
    throw error;
  }
}

/** The run's secrets (the environment's, the credentials in use) and its two streams through the one output guard. */
function outputOf(io: CliIo, target: Target) {
  // One set of secrets for the run and every line printed: secrets learned mid-run (a regenerated
  // key, an invite token) are scrubbed from live output too; no printed line can pose as a
  // workflow command. The environment's secrets are among them: no report or line may print one.
  const secrets = environmentSecrets(io.env);
  secrets.addApiKey(target.credentials.apiKey);
  secrets.addUserId(target.credentials.userId);
  const guard = new OutputGuard(secrets);
  return {
    secrets,
    say: (text: string) => io.stdout(guard.block(text)),
    shout: (text: string) => io.stderr(guard.block(text)),
  };
}

async function runWithSettings(settings: RunSettings, flags: RunFlags, io: CliIo, deps: RunDeps): Promise<number> {
  if (settings.shard && settings.seed === undefined) {
    // A random seed per shard would make N different runs that `vapc report merge` refuses.
    throw new VapcError(
      'E_USAGE',
      '--shard needs a fixed --seed N, the same for every shard, so that the shards split one run and can be merged',
    );
  }
  const seed = settings.seed ?? randomSeed();
  const today = deps.today ?? todayUtc();
  // A bad baseline file stops the run before any request (exit 2, file and line named).
  const baseline = await loadBaselineFlags(settings, {
    today,
    warn: (line) => io.stderr(environmentGuard(io.env).line(line)),
  });
  const spec = await loadSpec();
  // Bad workflow files (--arazzo) stop the run before the target is started or any request is sent.
  // Their reader and runner load only for a run that may need them (--arazzo, --check, --suite).
  const registryChecks = deps.checks ?? registry;
  const { checks, coverage } =
    settings.arazzo?.length || settings.checks?.length || settings.suites?.length
      ? await (
          await import('../run/workflows.js')
        ).runChecksOf(settings, { cwd: deps.cwd ?? process.cwd(), spec, registry: registryChecks, seed })
      : { checks: registryChecks, coverage: undefined };
  const target = await targetOf(settings, spec);
  try {
    const out = outputOf(io, target);
    const { say, secrets } = out;
    if (!settings.dryRun) await prepareReportDir(settings.reportDir);
    // Start loading the reporters now: their modules load while the run waits on the server (finishRun awaits them).
    if (!settings.dryRun) import('../../reporters/index.js').catch(() => undefined);
    say(runHeader(settings, target.baseUrl, seed));
    const focus = settings.changedSince === undefined ? undefined : await focusSince(settings.changedSince, spec);
    if (focus) say((await import('../../diff/focus.js')).renderFocus(focus));
    // The console, and GitHub Actions output under GITHUB_ACTIONS=true, fed by one event stream.
    const reporter = composeEvents(
      createConsoleReporter({ write: io.stdout, isTTY: io.isTTY, env: io.env, quiet: settings.quiet, secrets }),
      createGitHubSink({ write: io.stdout, env: io.env, secrets }),
    );
    const sources = credentialSources(flags, io.env, settings);
    const options = conformanceOptions(settings, { spec, target, checks, seed, focus, sources }, secrets);
    if (coverage) options.workflowCoverage = coverage;
    // The live lines during the run; the summary (onEnd) is printed from the final report below.
    const { onEnd: _end, ...live } =
      baseline && settings.baseline !== undefined ? markKnownLive(reporter, baseline, today) : reporter;
    if (!settings.dryRun) options.events = live;
    const result = await runConformance(options).catch((error: unknown) => {
      announceSetupError(error, io, secrets);
      throw error;
    });
    if (!result.dryRun) return await finishRun(result, { settings, baseline, today, checks, reporter }, out);
    say(
      dryRunText({ ...result, dryRun: result.dryRun }, secrets) +
        renderPlannedCoverage(buildUniverse(spec), result.dryRun.lines),
    );
    return ExitCode.ok;
  } finally {
    await target.server?.close().catch(() => undefined);
  }
}

/** vapc run: the conformance suite against a server (see shared/runner-interface.md). */
export function registerRunCommand(program: Command, ctx: CommandContext): void {
  const command = program
    .command('run')
    .description(
      'Run the conformance suite against an implementation of the contract (exit 0 pass, 1 a check failed, 2 usage/config/setup error, unreachable, or a fault of the tool, 3 inconclusive: nothing failed but too little was judged)',
    );
  // Every option from the settings table, in its order (src/config/table.ts).
  for (const option of runOptions(SUITE_NAMES))
    if (option.collect) command.option(option.flags, option.description, option.collect);
    else command.option(option.flags, option.description);
  command.action(async (flags: RunFlags) => {
    ctx.exit((await runCommand(flags, ctx.io)) as ExitCode);
  });
}
