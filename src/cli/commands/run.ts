import type { Command } from 'commander';
import {
  coerce,
  loadConfigFile,
  mergeSettings,
  redactedSettings,
  settingsFromEnv,
  type PartialSettings,
  type RunSettings,
} from '../../config/settings.js';
import { VapcError } from '../../errors.js';
import { createConsoleReporter, writeReports } from '../../reporters/index.js';
import { renderDryRun } from '../../runner/budget.js';
import type { CheckDefinition, Credentials, Fixtures } from '../../runner/check.js';
import { randomSeed, runConformance } from '../../runner/conformance.js';
import { loadRegistry } from '../../runner/registry.js';
import { validateWireRequest } from '../../runner/wire.js';
import { startReferenceServer, type ReferenceServer } from '../../server/index.js';
import { parseBaseUrl } from '../../transport/undici.js';
import { loadSpec } from '../../spec/load.js';
import { Redactor } from '../../transport/redact.js';
import { ExitCode, type CliIo, type CommandContext } from '../main.js';

/**
 * The embedded reference server allows 1000 requests (the production plan's figure) per 10 s
 * window, so `npm start` is quick and the burst waits at most 10 s for a fresh window; the runner
 * paces and sizes its budget from the advertised headers either way.
 */
export const EMBEDDED_RATE_LIMIT = 1000;
export const EMBEDDED_RATE_WINDOW_MS = 10_000;

export interface RunFlags {
  baseUrl?: string;
  embedded?: boolean;
  apiKey?: string;
  userId?: string;
  config?: string;
  suite?: string;
  seed?: string;
  runs?: string;
  rpm?: string;
  timeoutMs?: string;
  deadlineMs?: string;
  includeDestructive?: boolean;
  reportDir?: string;
  dryRun?: boolean;
  strictTypes?: boolean;
  quiet?: boolean;
  shard?: string;
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
  if (flags.suite !== undefined) out.suites = usage(() => coerce('suites', flags.suite, '--suite', true) as RunSettings['suites']);
  if (flags.seed !== undefined) out.seed = usage(() => coerce('int', flags.seed, '--seed', true) as number);
  if (flags.runs !== undefined) out.runs = usage(() => coerce('positiveInt', flags.runs, '--runs', true) as number);
  if (flags.rpm !== undefined) out.rpm = usage(() => coerce('positiveNumber', flags.rpm, '--rpm', true) as number);
  if (flags.timeoutMs !== undefined) out.timeoutMs = usage(() => coerce('positiveInt', flags.timeoutMs, '--timeout-ms', true) as number);
  if (flags.deadlineMs !== undefined) out.deadlineMs = usage(() => coerce('positiveInt', flags.deadlineMs, '--deadline-ms', true) as number);
  if (flags.includeDestructive) out.includeDestructive = true;
  if (flags.reportDir !== undefined) out.reportDir = flags.reportDir;
  if (flags.dryRun) out.dryRun = true;
  if (flags.strictTypes) out.strictTypes = true;
  if (flags.quiet) out.quiet = true;
  return out;
}

/** Resolves flags, env and config file into the settings of one run. */
export async function resolveRunSettings(flags: RunFlags, env: Record<string, string | undefined>): Promise<RunSettings> {
  const fromFlags = settingsFromFlags(flags);
  const fromFile = flags.config !== undefined ? await loadConfigFile(flags.config) : {};
  const settings = mergeSettings(fromFlags, settingsFromEnv(env), fromFile);
  if (settings.embedded) {
    if (fromFlags.baseUrl !== undefined) throw new VapcError('E_USAGE', 'give either --base-url or --embedded, not both');
    delete settings.baseUrl;
  } else if (settings.baseUrl === undefined) {
    throw new VapcError('E_USAGE', 'no target: give --base-url URL (or VAPC_BASE_URL, or base_url in the config file), or --embedded');
  } else {
    parseBaseUrl(settings.baseUrl);
  }
  return settings;
}

/** Seams for tests: a check list instead of the suites' registry. */
export interface RunDeps {
  checks?: readonly CheckDefinition[];
}

/** The whole `vapc run`: returns the exit status; bad input and unreachable targets are VapcErrors (exit 2). */
export async function runCommand(flags: RunFlags, io: CliIo, deps: RunDeps = {}): Promise<number> {
  const settings = await resolveRunSettings(flags, io.env);
  const shard = flags.shard !== undefined ? parseShard(flags.shard) : undefined;
  if (shard && settings.seed === undefined) {
    // A random seed per shard would make N different runs that `vapc report merge` refuses.
    throw new VapcError('E_USAGE', '--shard needs a fixed --seed N, the same for every shard, so that the shards split one run and can be merged');
  }
  const seed = settings.seed ?? randomSeed();
  let server: ReferenceServer | undefined;
  try {
    let baseUrl = settings.baseUrl!;
    const credentials: Credentials = {};
    if (settings.apiKey !== undefined) credentials.apiKey = settings.apiKey;
    if (settings.userId !== undefined) credentials.userId = settings.userId;
    let fixtures: Fixtures = { ...settings.fixtures };
    const spec = await loadSpec();
    if (settings.embedded) {
      server = await startReferenceServer({ host: '127.0.0.1', port: 0, spec, rateLimit: EMBEDDED_RATE_LIMIT, rateWindowMs: EMBEDDED_RATE_WINDOW_MS });
      baseUrl = server.url;
      credentials.apiKey = server.fixtures.api_key;
      credentials.userId = server.fixtures.user_id;
      const { org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
      fixtures = { org_id, recipient_list_id, api_key_id, channels: [...channels], ...settings.fixtures };
    }
    // One redactor for the run and every line printed: secrets learned mid-run (a regenerated key,
    // an invite token) are scrubbed from live output too.
    const scrub = new Redactor({
      apiKeys: credentials.apiKey ? [credentials.apiKey] : [],
      userIds: credentials.userId ? [credentials.userId] : [],
      secretFields: spec.secretFields(),
    });
    const secrets = () => scrub.knownSecrets();
    const say = (text: string) => io.stdout(scrub.text(text));
    say(
      `vapc run: ${settings.embedded ? `embedded reference server at ${baseUrl}` : baseUrl} · seed ${seed}` +
        `${settings.seed === undefined ? ` (random; replay with --seed ${seed})` : ''}${shard ? ` · shard ${shard.index}/${shard.count}` : ''}${settings.dryRun ? ' · dry run' : ''}\n`,
    );
    const checks = deps.checks ?? (await loadRegistry());
    const reporter = createConsoleReporter({ write: (t) => io.stdout(scrub.text(t)), isTTY: io.isTTY, env: io.env, quiet: settings.quiet, secrets: secrets() });
    const config = redactedSettings({ ...settings, seed } as RunSettings);
    if (settings.embedded) config['base_url'] = baseUrl;
    const options: Parameters<typeof runConformance>[0] = {
      baseUrl,
      spec,
      redactor: scrub,
      checks,
      credentials,
      fixtures,
      seed,
      includeDestructive: settings.includeDestructive,
      strictTypes: settings.strictTypes,
      dryRun: settings.dryRun,
      validateRequest: validateWireRequest,
      config,
    };
    if (!settings.dryRun) options.events = reporter;
    if (settings.suites) options.suites = settings.suites;
    if (settings.runs !== undefined) options.runs = settings.runs;
    if (settings.rpm !== undefined) options.rpm = settings.rpm;
    if (settings.timeoutMs !== undefined) options.timeoutMs = settings.timeoutMs;
    if (settings.deadlineMs !== undefined) options.deadlineMs = settings.deadlineMs;
    if (shard) options.shard = shard;
    const result = await runConformance(options);
    for (const s of result.secrets) scrub.addSecret(s);

    if (result.dryRun) {
      const lines = result.discovery.notes.map((n) => `  discovery: ${n}\n`).join('');
      const found = Object.entries(result.discovery.fixtures)
        .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('/') : v} (${result.discovery.sources[k as keyof Fixtures]})`)
        .join(', ');
      say(`${lines}  fixtures: ${found || 'none'}\n${renderDryRun(result.dryRun)}`);
      return ExitCode.ok;
    }

    const written = await writeReports(result.report, settings.reportDir, { secrets: scrub.knownSecrets(), sarif: { rules: checks } });
    for (const e of written.errors) io.stderr(`vapc: could not write ${e.file}: ${e.message}\n`);
    if (!settings.quiet || written.errors.length > 0) say(`reports: ${written.json}, ${written.junit}, ${written.html}, ${written.sarif}\n`);

    const { failed, errors } = result.report.summary;
    if (result.aborted) {
      io.stderr(`vapc: the run stopped early: ${scrub.text(result.aborted.message)}\n`);
      // A target that stopped answering is unreachable (2) even if some checks failed first.
      if (result.aborted.reason === 'unreachable' || failed === 0) return ExitCode.usage;
    }
    if (failed > 0) return ExitCode.failed;
    if (errors > 0) {
      io.stderr(`vapc: ${errors} check(s) could not run (tool errors, see the report); the run is not a pass\n`);
      return ExitCode.failed;
    }
    return ExitCode.ok;
  } finally {
    await server?.close().catch(() => undefined);
  }
}

/** vapc run: the conformance suite against a server (see shared/runner-interface.md). */
export function registerRunCommand(program: Command, ctx: CommandContext): void {
  program
    .command('run')
    .description('Run the conformance suite against an implementation of the contract (exit 0 pass, 1 a check failed, 2 usage/config error or unreachable)')
    .option('--base-url <url>', 'the server under test (env VAPC_BASE_URL); required unless --embedded')
    .option('--embedded', 'start the bundled reference server on a free loopback port and test it')
    .option('--api-key <key>', 'bearer value (env VAPC_API_KEY)')
    .option('--user-id <id>', 'X-User-ID value (env VAPC_USER_ID)')
    .option('--config <file>', 'YAML file: any option here (snake_case or camelCase) plus fixtures:')
    .option('--suite <list>', 'only these suites: auth,validation,ranges,schema,ratelimit,cors,stateful,robustness')
    .option('--seed <n>', 'fast-check seed (default: random, printed and written to report.json)')
    .option('--runs <n>', 'generated cases per property (default: the most that fit the request budget)')
    .option('--rpm <n>', 'client-side cap on requests per minute (default: follow X-RateLimit-*)')
    .option('--timeout-ms <n>', 'per-request timeout in milliseconds (default 10000)')
    .option('--deadline-ms <n>', 'whole-run deadline in milliseconds (default 1200000)')
    .option('--include-destructive', 'also exercise operations with effects outside test data (key regeneration, invites)')
    .option('--report-dir <dir>', 'where report.json, junit.xml, report.html and report.sarif go (default reports/latest)')
    .option('--dry-run', 'print the planned requests and projected time; send only read-only discovery requests')
    .option('--strict-types', 'also judge framework leniency (coercion of "5", "true", null as absent)')
    .option('--quiet', 'print only the final summary')
    .option('--shard <i/n>', 'run only the I-th of N deterministic parts of the plan (merge them with `vapc report merge`)')
    .action(async (flags: RunFlags) => {
      ctx.exit((await runCommand(flags, ctx.io)) as 0 | 1 | 2);
    });
}
