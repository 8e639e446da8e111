import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  coerce,
  DEFAULT_CONFIG_FILES,
  DEFAULT_REPORT_DIR,
  findConfigFile,
  gateSettingsIn,
  mergeSettings,
  readConfigFile,
  redactedSettings,
  settingsFromEnv,
  type GateSetting,
  type LoadedConfig,
  type PartialSettings,
  type RunSettings,
} from '../../config/settings.js';
import { isVapcError, SETUP_ERROR_CODES, VapcError } from '../../errors.js';
import { escapeData, escapeProperty } from '../../reporters/github.js';
import { createConsoleReporter } from '../../reporters/console.js';
import { createGitHubSink } from '../../reporters/github-sink.js';
import { composeEvents, type RunEvents } from '../../results/events.js';
import { budgetLines, renderDryRun } from '../../runner/budget.js';
import type { CheckDefinition, Credentials, Fixtures } from '../../checks/check.js';
import { randomSeed, runConformance, type ConformanceResult } from '../../runner/conformance.js';
import { SUITES, type RunReport } from '../../results/model.js';
import { underCi } from '../../results/ci.js';
import type { CredentialSource, RunConfig } from '../../results/run-config.js';
import { checks as registry } from '../../../suites/index.js';
import { profile } from '../../../suites/profile.js';
import { validateWireRequest } from '../../checks/wire.js';
import type { ReferenceServer } from '../../server/index.js';
import { parseBaseUrl } from '../../transport/undici.js';
import { loadSpec } from '../../spec/load.js';
import { Secrets } from '../../secrets/index.js';
import { printable } from '../../results/printable.js';
import { environmentGuard, environmentSecrets, OutputGuard } from '../../secrets/guard.js';
import type { AbortedRun } from '../aborted.js';
import { ExitCode, fromAction, type CliIo, type CommandContext } from '../io.js';
import {
  baselinedReport,
  loadBaselineFlags,
  markKnownLive,
  saveBaseline,
  todayUtc,
  type BaselineFlags,
} from '../baseline.js';
import type { RunFocus } from '../../diff/focus.js';
import { paths } from '../../paths.js';
import { directoryRefusal, excerpt, shownName } from '../../files/checkout.js';
import { operationLabel } from '../../runner/run.js';
import type { SpecModel } from '../../spec/model.js';
import { DEFAULT_COVERAGE_FLOOR, inconclusiveHeadline, withVerdict } from '../../results/verdict.js';
import { parseCoverageFloor } from '../../coverage/gate.js';
import { verdictRules } from '../../checks/verdict-rules.js';
import {
  announceCoverage,
  buildUniverse,
  coverageGateFlags,
  renderPlannedCoverage,
  type CoverageGateOptions,
} from '../../coverage/index.js';

/** --changed-since BASE: diff BASE against the spec this run uses and select the touched operations plus the smoke set. */
async function focusSince(baseArg: string, spec: SpecModel): Promise<RunFocus> {
  // Loaded only with --changed-since (start-up cost: see bench/RESULTS.md).
  const [{ diffDocuments }, { selectFocus }, { loadSpecSource }] = await Promise.all([
    import('../../diff/index.js'),
    import('../../diff/focus.js'),
    import('../../diff/source.js'),
  ]);
  const base = await loadSpecSource(baseArg, process.cwd());
  const head = await loadSpecSource(paths.specSource, process.cwd()).catch((error: unknown) => {
    base.dispose();
    throw error;
  });
  try {
    const changes = diffDocuments(base.document, head.document);
    const ops = spec.operations.map((op) => ({
      label: operationLabel(op),
      method: op.method,
      hasParameters: op.parameters.length > 0,
      hasBody: Boolean(op.requestBody),
    }));
    return selectFocus(baseArg, changes, ops);
  } finally {
    base.dispose();
    head.dispose();
  }
}

/**
 * The embedded reference server allows 1000 requests (the production plan's figure) per 10 s
 * window, so `npm start` is quick and the wait for the burst's reset is at most 10 s; the runner
 * paces and sizes its budget from the advertised headers either way.
 */
export const EMBEDDED_RATE_LIMIT = 1000;
export const EMBEDDED_RATE_WINDOW_MS = 10_000;

export interface RunFlags extends BaselineFlags {
  baseUrl?: string;
  embedded?: boolean;
  apiKey?: string;
  userId?: string;
  /** A file (--config FILE), or false (--no-config: read none, not even one found on disk). */
  config?: string | false;
  /** --trust-config: under CI, read the gate settings (GATE_SETTINGS: base_url, report_dir, fixtures, dry_run, ...) from the config file too. */
  trustConfig?: boolean;
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
  changedSince?: string;
  shard?: string;
  minCoverage?: string;
  failOnUnseenStatus?: boolean;
  failOnUndocumentedStatus?: boolean;
  sarifCoverage?: boolean;
  /** --allow-inconclusive: exit 0 on an inconclusive run (said in every report). */
  allowInconclusive?: boolean;
  /** --coverage-floor N: the floor of a whole-plan run in percent (0 turns it off). */
  coverageFloor?: string;
}

/** `--shard I/N`: 1 ≤ I ≤ N; anything else is a usage error. */
export function parseShard(text: string): { index: number; count: number } {
  const m = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new VapcError('E_USAGE', `--shard takes I/N with 1 <= I <= N (e.g. --shard 2/3), not "${text}"`);
  }
  return { index, count };
}

/** Flags as settings; a bad value is a usage error naming the flag. */
function settingsFromFlags(flags: RunFlags): PartialSettings {
  const out: PartialSettings = {};
  const usage = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof VapcError) throw new VapcError('E_USAGE', error.message);
      throw error;
    }
  };
  if (flags.baseUrl !== undefined) out.baseUrl = flags.baseUrl;
  if (flags.embedded) out.embedded = true;
  if (flags.apiKey !== undefined) out.apiKey = flags.apiKey;
  if (flags.userId !== undefined) out.userId = flags.userId;
  if (flags.suite !== undefined)
    out.suites = usage(() => coerce('suites', flags.suite, '--suite', true) as RunSettings['suites']);
  if (flags.seed !== undefined) out.seed = usage(() => coerce('int', flags.seed, '--seed', true) as number);
  if (flags.runs !== undefined) out.runs = usage(() => coerce('positiveInt', flags.runs, '--runs', true) as number);
  if (flags.rpm !== undefined) out.rpm = usage(() => coerce('positiveNumber', flags.rpm, '--rpm', true) as number);
  if (flags.budget !== undefined)
    out.budget = usage(() => coerce('positiveInt', flags.budget, '--budget', true) as number);
  if (flags.timeoutMs !== undefined)
    out.timeoutMs = usage(() => coerce('positiveInt', flags.timeoutMs, '--timeout-ms', true) as number);
  if (flags.deadlineMs !== undefined)
    out.deadlineMs = usage(() => coerce('positiveInt', flags.deadlineMs, '--deadline-ms', true) as number);
  if (flags.includeDestructive) out.includeDestructive = true;
  if (flags.reportDir !== undefined) out.reportDir = flags.reportDir;
  if (flags.dryRun) out.dryRun = true;
  if (flags.strictTypes) out.strictTypes = true;
  if (flags.quiet) out.quiet = true;
  return out;
}

/** How to give a gate setting instead of in a config file. */
const GATE_INSTEAD: Record<GateSetting, { cli: string; input: string }> = {
  baseUrl: { cli: 'give --base-url URL on the command line or set VAPC_BASE_URL', input: 'set the input `base-url`' },
  reportDir: { cli: 'give --report-dir DIR on the command line', input: 'set the input `report-dir`' },
  fixtures: { cli: 'set VAPC_FIXTURES to a JSON object of the ids', input: 'set the input `fixtures`' },
  dryRun: { cli: 'give --dry-run on the command line', input: 'add --dry-run to the input `args`' },
  suites: { cli: 'give --suite LIST on the command line', input: 'set the input `suites`' },
  includeDestructive: {
    cli: 'give --include-destructive on the command line',
    input: 'add --include-destructive to the input `args`',
  },
  embedded: { cli: 'give --embedded on the command line', input: 'add --embedded to the input `args`' },
};

/**
 * Under CI, a config file is the pull request's own: the settings that decide what the gate judges
 * are refused there (exit 2, the key, its line and what to use instead) unless --trust-config says
 * the file is trusted.
 */
function refuseGateSettings(
  config: LoadedConfig,
  file: string,
  flags: RunFlags,
  env: Record<string, string | undefined>,
): void {
  if (flags.trustConfig || !underCi(env)) return;
  const first = gateSettingsIn(config)[0];
  if (!first) return;
  const instead = GATE_INSTEAD[first.setting];
  const how = fromAction(env)
    ? `${instead.input} (or add --trust-config to \`args\` if the file is trusted)`
    : `${instead.cli} (or pass --trust-config if the file is trusted)`;
  const at = first.line !== undefined ? ` line ${first.line}` : '';
  throw new VapcError(
    'E_CONFIG',
    `config file ${shownName(file)}${at}: ${excerpt(first.key)} is not read from a config file under CI (the pull request under test could change it); ${how}`,
  );
}

/** Which config file a run reads, and why a file found on disk is ignored. */
function configFileOf(flags: RunFlags, cwd: string): { file?: string; path?: string; ignored?: string } {
  if (flags.config === false) return {};
  if (typeof flags.config === 'string') return { file: flags.config, path: resolve(flags.config) };
  const found = findConfigFile(cwd);
  if (found === undefined) return {};
  // The embedded run tests the bundled server: a file found on disk was written for another target.
  if (flags.embedded) return { ignored: found };
  return { file: found, path: join(cwd, found) };
}

/**
 * Resolves flags, env and config file into the settings of one run. Without --config, a
 * `vapc.yaml` (or `.vapc.yaml`) in the working directory is read, as redocly.yaml is by Redocly;
 * not with --no-config, and not by --embedded (it reads a file only when --config names it).
 */
export async function resolveRunSettings(
  flags: RunFlags,
  env: Record<string, string | undefined>,
  cwd: string = process.cwd(),
): Promise<RunSettings> {
  const fromFlags = settingsFromFlags(flags);
  const { file: configFile, path, ignored } = configFileOf(flags, cwd);
  let fromFile: PartialSettings = {};
  if (path !== undefined) {
    const loaded = await readConfigFile(path, cwd, configFile);
    refuseGateSettings(loaded, configFile!, flags, env);
    fromFile = loaded.settings;
  }
  const settings = mergeSettings(fromFlags, settingsFromEnv(env), fromFile);
  if (configFile !== undefined) settings.configFile = configFile;
  if (ignored !== undefined) settings.configIgnored = ignored;
  if (settings.embedded) {
    if (fromFlags.baseUrl !== undefined)
      throw new VapcError('E_USAGE', 'give either --base-url or --embedded, not both');
    delete settings.baseUrl;
  } else if (settings.baseUrl === undefined) {
    if (fromAction(env)) throw new VapcError('E_USAGE', 'no target: set the input `base-url` to the server under test');
    // Under CI the target never comes from a file of the checkout (refuseGateSettings).
    const where = underCi(env)
      ? ''
      : configFile !== undefined
        ? `, or base_url in ${configFile}`
        : `, or base_url in a config file (--config FILE, or ${DEFAULT_CONFIG_FILES[0]} in the working directory)`;
    throw new VapcError('E_USAGE', `no target: give --base-url URL (or VAPC_BASE_URL${where}), or --embedded`);
  } else {
    parseBaseUrl(settings.baseUrl);
  }
  return settings;
}

/**
 * Under GitHub Actions a run that could not start (setup error, unreachable target) leaves exactly
 * one `::error` annotation with the same sentence the console prints, so the job page says why.
 */
function announceSetupError(error: unknown, io: CliIo, secrets: Secrets): void {
  // The Action writes the one `::error` of an exit 2 itself, naming its inputs.
  if (io.env['GITHUB_ACTIONS'] !== 'true' || fromAction(io.env) || !isVapcError(error)) return;
  if (!SETUP_ERROR_CODES.includes(error.code) && error.code !== 'E_UNREACHABLE') return;
  // The trusted path: vapc's own annotation, its message (which may quote the server) escaped.
  io.stdout(
    `::error title=${escapeProperty('vapc run could not start')}::${escapeData(`${printable(secrets.evidence(error.message))} [${error.code}]`)}\n`,
  );
}

/**
 * Where each credential came from (flag, env, config or none; never its value), so the replay line
 * names the same source. The key names stay clear of the secret-field names reporters scrub.
 */
function credentialSources(
  flags: RunFlags,
  env: Record<string, string | undefined>,
  settings: RunSettings,
): Pick<RunConfig, 'api_key_from' | 'user_id_from'> {
  const from = (flag: string | undefined, envName: string, value: string | undefined): CredentialSource =>
    flag !== undefined ? 'flag' : env[envName] ? 'env' : value !== undefined ? 'config' : 'none';
  return {
    api_key_from: from(flags.apiKey, 'VAPC_API_KEY', settings.apiKey),
    user_id_from: from(flags.userId, 'VAPC_USER_ID', settings.userId),
  };
}

/** report.json's `config`, typed (RunConfig): the settings in one spelling, credentials never by value. */
function runConfigOf(
  settings: RunSettings,
  seed: number,
  baseUrl: string,
  sources: Pick<RunConfig, 'api_key_from' | 'user_id_from'>,
): RunConfig {
  const config = redactedSettings({ ...settings, seed } as RunSettings) as RunConfig;
  if (settings.embedded) config.base_url = baseUrl;
  else Object.assign(config, sources);
  return config;
}

/** Seams for tests: a check list instead of the suites' registry (the contract's profile goes with either). */
export interface RunDeps {
  checks?: readonly CheckDefinition[];
  /** Today (YYYY-MM-DD) for baseline expiry; default the UTC date. */
  today?: string;
  /** The working directory a vapc.yaml is looked for in (default process.cwd()). */
  cwd?: string;
}

/** The target of a run: the base URL and credentials given, or an embedded reference server with its own. */
async function targetOf(
  settings: RunSettings,
  spec: SpecModel,
): Promise<{ baseUrl: string; credentials: Credentials; fixtures: Fixtures; server?: ReferenceServer }> {
  const credentials: Credentials = {};
  if (settings.apiKey !== undefined) credentials.apiKey = settings.apiKey;
  if (settings.userId !== undefined) credentials.userId = settings.userId;
  if (!settings.embedded) return { baseUrl: settings.baseUrl!, credentials, fixtures: { ...settings.fixtures } };
  const { startReferenceServer } = await import('../../server/index.js');
  const server = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    spec,
    rateLimit: EMBEDDED_RATE_LIMIT,
    rateWindowMs: EMBEDDED_RATE_WINDOW_MS,
  });
  credentials.apiKey = server.fixtures.api_key;
  credentials.userId = server.fixtures.user_id;
  const { org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
  return {
    baseUrl: server.url,
    credentials,
    fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels], ...settings.fixtures },
    server,
  };
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
function dryRunText(
  result: ConformanceResult & { dryRun: NonNullable<ConformanceResult['dryRun']> },
  secrets: Secrets,
): string {
  const lines = result.discovery.notes.map((n) => `  discovery: ${printable(secrets.evidence(n))}\n`).join('');
  const found = Object.entries(result.discovery.fixtures)
    .map(
      ([k, v]) =>
        `${k}=${printable(secrets.evidence(fixtureText(v)))} (${result.discovery.sources[k as keyof Fixtures]})`,
    )
    .join(', ');
  return `${lines}  fixtures: ${found || 'none'}\n${renderDryRun(result.dryRun)}`;
}

/** The exit status of a finished run (baseline files written on the way): 1 a check failed or could not run, 2 unreachable. */
async function exitStatus(
  report: RunReport,
  result: ConformanceResult,
  flags: RunFlags,
  baseline: Awaited<ReturnType<typeof loadBaselineFlags>>,
  out: RunOutput,
): Promise<number> {
  const { say, shout, secrets } = out;
  const { failed: anyFailed, errors, new_failures } = report.summary;
  // With --baseline only new (or expired) findings fail the run.
  const failed = new_failures ?? anyFailed;
  if (flags.writeBaseline !== undefined || flags.pruneBaseline) {
    if (result.aborted) shout(`vapc: the run stopped early, so the baseline file was not written\n`);
    else for (const line of await saveBaseline(flags, report, baseline)) say(`${line}\n`);
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
  if (report.verdict === 'inconclusive') {
    if (flags.allowInconclusive) {
      shout(
        `vapc: the run is INCONCLUSIVE (${printable(inconclusiveHeadline(report.evidence!))}); exit 0 only because of --allow-inconclusive\n`,
      );
      return ExitCode.ok;
    }
    return ExitCode.inconclusive;
  }
  return ExitCode.ok;
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
      await markAborted(
        resolve(deps.cwd ?? process.cwd(), settings?.reportDir ?? flags.reportDir ?? DEFAULT_REPORT_DIR),
        run,
      );
    }
    throw error;
  }
}

/** The lines a run starts with: the config file read or ignored, the target, the seed and what kind of run. */
function runHeader(
  settings: RunSettings,
  baseUrl: string,
  seed: number,
  shard: { index: number; count: number } | undefined,
): string {
  const lines: string[] = [];
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

type ConformanceOptions = Parameters<typeof runConformance>[0];
type Target = Awaited<ReturnType<typeof targetOf>>;
/** Where a run prints: both streams made safe (secrets scrubbed, no workflow commands), and the secrets. */
type RunOutput = { say: (text: string) => void; shout: (text: string) => void; secrets: Secrets };

/** What the run is about, resolved before runConformance is called. */
interface RunScope {
  spec: SpecModel;
  target: Target;
  checks: readonly CheckDefinition[];
  seed: number;
  shard: { index: number; count: number } | undefined;
  focus: RunFocus | undefined;
}

/** runConformance's options: the target, the checks and the contract's profile, and what the settings chose. */
function conformanceOptions(
  settings: RunSettings,
  flags: RunFlags,
  io: CliIo,
  scope: RunScope,
  secrets: Secrets,
): ConformanceOptions {
  const { spec, checks, seed, shard, focus } = scope;
  const { baseUrl, credentials, fixtures } = scope.target;
  const config = runConfigOf(settings, seed, baseUrl, credentialSources(flags, io.env, settings));
  const options: ConformanceOptions = {
    baseUrl,
    spec,
    secrets,
    checks,
    profile,
    credentials,
    fixtures,
    seed,
    config,
    validateRequest: validateWireRequest,
  };
  Object.assign(options, {
    includeDestructive: settings.includeDestructive,
    strictTypes: settings.strictTypes,
    dryRun: settings.dryRun,
  } satisfies Partial<typeof options>);
  if (settings.suites) options.suites = settings.suites;
  if (focus) {
    options.operations = new Set(focus.operations.map((o) => o.operation));
    options.focus = focus;
  }
  for (const key of ['runs', 'rpm', 'budget', 'timeoutMs', 'deadlineMs'] as const)
    if (settings[key] !== undefined) options[key] = settings[key];
  options.coverageFloor = parseCoverageFloor(flags.coverageFloor);
  if (shard) options.shard = shard;
  return options;
}

/** What a judged run needs after runConformance returns. */
interface RunFinish {
  settings: RunSettings;
  flags: RunFlags;
  baseline: Awaited<ReturnType<typeof loadBaselineFlags>>;
  today: string;
  checks: readonly CheckDefinition[];
  reporter: RunEvents;
  gateOptions: CoverageGateOptions;
}

/**
 * A judged run to its exit status. One pipeline, by return values: runConformance → baselinedReport
 * → writeReports. The run's report is safe from its source; the baseline adds only vapc's own
 * fields, so it is written as it is.
 */
async function finishRun(result: ConformanceResult, run: RunFinish, out: RunOutput): Promise<number> {
  const { settings, flags, baseline, today, checks, reporter } = run;
  const { say, shout } = out;
  const baselined =
    baseline && flags.baseline !== undefined
      ? baselinedReport(result.report, baseline, { file: flags.baseline, today, prune: flags.pruneBaseline === true })
      : result.report;
  // The verdict again after the baseline (only new findings fail), with --allow-inconclusive said in it.
  const report = withVerdict(baselined, verdictRules(checks, parseCoverageFloor(flags.coverageFloor)), {
    allowInconclusive: flags.allowInconclusive === true,
  });
  reporter.onEnd?.(report);
  const { writeReports } = await import('../../reporters/index.js');
  const written = await writeReports(report, settings.reportDir, {
    sanitized: true,
    secrets: out.secrets,
    sarif: { rules: checks, coverage: flags.sarifCoverage === true },
  });
  for (const e of written.errors) shout(`vapc: could not write ${e.file}: ${printable(e.message)}\n`);
  if (!settings.quiet || written.errors.length > 0)
    say(`reports: ${written.json}, ${written.junit}, ${written.html}, ${written.sarif}\n`);
  if (report.budget) say(`${budgetLines(report.budget).join('\n')}\n`);

  const gateFailed = announceCoverage(report.coverage, run.gateOptions, say, shout);
  const status = await exitStatus(report, result, flags, baseline, out);
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

async function runWithSettings(settings: RunSettings, flags: RunFlags, io: CliIo, deps: RunDeps): Promise<number> {
  const shard = flags.shard !== undefined ? parseShard(flags.shard) : undefined;
  if (shard && settings.seed === undefined) {
    // A random seed per shard would make N different runs that `vapc report merge` refuses.
    throw new VapcError(
      'E_USAGE',
      '--shard needs a fixed --seed N, the same for every shard, so that the shards split one run and can be merged',
    );
  }
  const seed = settings.seed ?? randomSeed();
  const gateOptions = coverageGateFlags(flags);
  parseCoverageFloor(flags.coverageFloor); // a bad --coverage-floor stops the run before any request
  // A bad baseline file stops the run before any request (exit 2, file and line named).
  const baseline = await loadBaselineFlags(flags, {
    today: deps.today ?? todayUtc(),
    warn: (line) => io.stderr(environmentGuard(io.env).line(line)),
  });
  let server: ReferenceServer | undefined;
  try {
    const spec = await loadSpec();
    const target = await targetOf(settings, spec);
    server = target.server;
    const { baseUrl, credentials } = target;
    // One set of secrets for the run and every line printed: secrets learned mid-run (a regenerated
    // key, an invite token) are scrubbed from live output too; no printed line can pose as a
    // workflow command.
    // The environment's secrets are among them: no report or line may print one.
    const secrets = environmentSecrets(io.env);
    secrets.addApiKey(credentials.apiKey);
    secrets.addUserId(credentials.userId);
    const guard = new OutputGuard(secrets);
    const say = (text: string) => io.stdout(guard.block(text));
    const shout = (text: string) => io.stderr(guard.block(text));
    if (!settings.dryRun) await prepareReportDir(settings.reportDir);
    // Start loading the reporters now: their modules load while the run waits on the server (finishRun awaits them).
    if (!settings.dryRun) import('../../reporters/index.js').catch(() => undefined);
    say(runHeader(settings, baseUrl, seed, shard));
    const focus = flags.changedSince === undefined ? undefined : await focusSince(flags.changedSince, spec);
    if (focus) say((await import('../../diff/focus.js')).renderFocus(focus));
    const checks = deps.checks ?? registry;
    // The console, and GitHub Actions output under GITHUB_ACTIONS=true, fed by one event stream.
    const reporter = composeEvents(
      createConsoleReporter({ write: io.stdout, isTTY: io.isTTY, env: io.env, quiet: settings.quiet, secrets }),
      createGitHubSink({ write: io.stdout, env: io.env, secrets }),
    );
    const options = conformanceOptions(settings, flags, io, { spec, target, checks, seed, shard, focus }, secrets);
    const today = deps.today ?? todayUtc();
    // The live lines during the run; the summary (onEnd) is printed from the final report below.
    const { onEnd: _end, ...live } =
      baseline && flags.baseline !== undefined ? markKnownLive(reporter, baseline, today) : reporter;
    if (!settings.dryRun) options.events = live;
    const result = await runConformance(options).catch((error: unknown) => {
      announceSetupError(error, io, secrets);
      throw error;
    });

    if (result.dryRun) {
      say(
        dryRunText({ ...result, dryRun: result.dryRun }, secrets) +
          renderPlannedCoverage(buildUniverse(spec), result.dryRun.lines),
      );
      return ExitCode.ok;
    }
    return await finishRun(
      result,
      { settings, flags, baseline, today, checks, reporter, gateOptions },
      { say, shout, secrets },
    );
  } finally {
    await server?.close().catch(() => undefined);
  }
}

/**
 * The report directory is checked before any request is sent: a path that names a file, or a
 * directory that cannot be created, is a usage error (exit 2), not a run that loses its results.
 */
async function prepareReportDir(dir: string): Promise<void> {
  // A symlink committed in the checkout must not make the run write (and replace files) elsewhere.
  const outside = directoryRefusal(dir);
  if (outside !== undefined) throw new VapcError('E_USAGE', `--report-dir ${outside}`);
  const info = await stat(dir).catch(() => undefined);
  if (info && !info.isDirectory())
    throw new VapcError(
      'E_USAGE',
      `--report-dir ${dir} is a file, not a directory; name a directory for report.json, junit.xml and report.html`,
    );
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new VapcError('E_USAGE', `--report-dir ${dir} cannot be used (${code}); name a writable directory`);
  }
}

/** vapc run: the conformance suite against a server (see shared/runner-interface.md). */
export function registerRunCommand(program: Command, ctx: CommandContext): void {
  const command = program.command('run');
  command
    .description(
      'Run the conformance suite against an implementation of the contract (exit 0 pass, 1 a check failed, 2 usage/config/setup error, unreachable, or a fault of the tool, 3 inconclusive: nothing failed but too little was judged)',
    )
    .option('--base-url <url>', 'the server under test (env VAPC_BASE_URL); required unless --embedded')
    .option('--embedded', 'start the bundled reference server on a free loopback port and test it')
    .option('--api-key <key>', 'bearer value (env VAPC_API_KEY)')
    .option('--user-id <id>', 'X-User-ID value (env VAPC_USER_ID)')
    .option(
      '--config <file>',
      'YAML file: base_url, api_key, user_id, suite, seed, runs, rpm, timeout_ms, deadline_ms, report_dir, the booleans embedded, include_destructive, dry_run, strict_types, quiet (snake_case or camelCase) and fixtures:; other keys are refused (default: vapc.yaml or .vapc.yaml in the working directory, except with --embedded)',
    )
    .option(
      '--no-config',
      'read no config file, not even one in the working directory (the GitHub Action passes this unless its `config` input names a file)',
    )
    .option(
      '--trust-config',
      'under CI, also read base_url, report_dir, fixtures, dry_run, suite, include_destructive and embedded from the config file (refused there by default: the pull request under test wrote it)',
    )
    .option('--suite <list>', `only these suites: ${SUITES.join(',')}`)
    .option('--seed <n>', 'fast-check seed (default: random, printed and written to report.json)')
    .option('--runs <n>', 'generated cases per property (default: the most that fit the request budget)')
    .option('--rpm <n>', 'client-side cap on requests per minute (default: follow X-RateLimit-*)')
    .option(
      '--budget <n>',
      'plan at most N requests, the checks catching most catalogue faults per request first; the report lists what was left out',
    )
    .option('--timeout-ms <n>', 'per-request timeout in milliseconds (default 10000)')
    .option('--deadline-ms <n>', 'whole-run deadline in milliseconds, report writing included (default 1200000)')
    .option(
      '--include-destructive',
      'also exercise operations with effects outside test data (key regeneration, invites)',
    )
    .option(
      '--report-dir <dir>',
      'where report.json, junit.xml, report.html and report.sarif go (default reports/latest)',
    )
    .option('--dry-run', 'print the planned requests and projected time; send only read-only discovery requests')
    .option('--strict-types', 'also judge framework leniency (coercion of "5", "true", null as absent)')
    .option('--quiet', 'print only the final summary')
    .action(async (flags: RunFlags) => {
      ctx.exit((await runCommand(flags, ctx.io)) as ExitCode);
    });
  addGateOptions(command);
}

/** The options that decide what fails the run beyond the checks: the baseline, focus, coverage, verdict and shard. */
function addGateOptions(command: Command): void {
  command
    .option('--baseline <file>', 'known findings (YAML): fail only on findings not in it; expired entries fail again')
    .option(
      '--write-baseline <file>',
      "record this run's failures as known findings (YAML, sorted; reasons kept from --baseline)",
    )
    .option('--prune-baseline', 'with --baseline: drop entries whose check and operation ran and passed')
    .option(
      '--strict-baseline',
      'with --baseline: exit 2 when an entry has a placeholder reason or no expires within 90 days (otherwise a warning)',
    )
    .option(
      '--changed-since <base>',
      'only the checks of operations that changed since BASE (a spec file, directory or git revision), plus a smoke set',
    )
    .option(
      '--min-coverage <n>',
      'exit 1 when fewer than N percent of the coverage cells are judged, listing the cells missing',
    )
    .option(
      '--fail-on-unseen-status',
      'fail the run when a documented status was never observed (an observation otherwise)',
    )
    .option(
      '--fail-on-undocumented-status',
      'fail the run when a status the operation does not document was observed (an observation otherwise)',
    )
    .option('--sarif-coverage', 'also write a note on the spec line of each coverage cell not judged into report.sarif')
    .option(
      '--allow-inconclusive',
      'exit 0 when the run is inconclusive (nothing failed, but it judged too little to pass); every report still says so',
    )
    .option(
      '--coverage-floor <n>',
      `percent of the coverage cells a whole-plan run must judge to pass, else it is inconclusive (default ${DEFAULT_COVERAGE_FLOOR}; 0 turns it off)`,
    )
    .option(
      '--shard <i/n>',
      'run only the I-th of N deterministic parts of the plan (merge them with `vapc report merge`)',
    );
}
