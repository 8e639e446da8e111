/**
 * `vapc export arazzo [--out FILE]`: runs the stateful scenarios against the target (the checks of
 * the stateful suite, key regeneration and invites with --include-destructive), records what each
 * check sent through the runner's `onExchange` tap, and when every one of them passed writes them as
 * an Arazzo 1.0.1 document (src/arazzo/export.ts): every success criterion in it held on that run.
 * A run where a stateful check failed writes nothing (exit 1); one where none could run writes
 * nothing either (exit 3, inconclusive). The target and credentials are read as `vapc run` reads
 * them (flags, environment, config file).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { VapcError } from '../../errors.js';
import { paths } from '../../paths.js';
import { loadSpec } from '../../spec/load.js';
import type { Operation, SpecModel } from '../../spec/model.js';
import type { Exchange } from '../../transport/types.js';
import { exportScenarios, type Scenario } from '../../arazzo/export.js';
import { randomSeed, runConformance } from '../../runner/conformance.js';
import { validateWireRequest } from '../../checks/wire.js';
import type { CheckDefinition } from '../../checks/check.js';
import { buildUniverse } from '../../coverage/index.js';
import { operationMatcher } from '../../coverage/touch.js';
import { environmentSecrets, OutputGuard } from '../../secrets/guard.js';
import type { Secrets } from '../../secrets/index.js';
import { printable } from '../../results/printable.js';
import type { CheckResult } from '../../results/model.js';
import { directoryRefusal } from '../../files/checkout.js';
import { checksOf } from '../../../suites/index.js';
import { profile } from '../../../suites/profile.js';
import { ExitCode, type CliIo, type CommandContext } from '../io.js';
import { resolveRunSettings, type RunFlags } from './run.js';
import { targetOf } from '../run/target.js';
import { runOptions } from '../../config/settings.js';

export interface ExportFlags {
  out?: string;
  baseUrl?: string;
  embedded?: boolean;
  apiKey?: string;
  userId?: string;
  config?: string | false;
  trustConfig?: boolean;
  seed?: string;
  timeoutMs?: string;
  includeDestructive?: boolean;
}

/** Seams for tests: the working directory a config file is looked for in. */
export interface ExportDeps {
  cwd?: string;
}

/** What a check sent, by check id, each exchange with its operation (discovery's and shared setup's left out). */
function recorder(spec: SpecModel): {
  onExchange: (exchange: Exchange, checkId: string | undefined) => void;
  scenarios: (results: readonly CheckResult[], checks: readonly CheckDefinition[]) => Scenario[];
} {
  const match = operationMatcher(buildUniverse(spec));
  const sent = new Map<string, Array<{ exchange: Exchange; operation: Operation }>>();
  return {
    onExchange(exchange, checkId) {
      if (!checkId || !exchange.response || exchange.response.status === 429) return;
      const found = match(exchange.request.method, new URL(exchange.request.url).pathname);
      if (!found) return;
      const list = sent.get(checkId) ?? [];
      list.push({ exchange, operation: found.operation });
      sent.set(checkId, list);
    },
    scenarios(results, checks) {
      return results
        .filter((r) => r.status === 'passed' && sent.has(r.id))
        .filter((r, i, all) => all.findIndex((o) => o.id === r.id) === i)
        .map((r) => {
          const check = checks.find((c) => c.id === r.id)!;
          return { check: r.id, rule: check.rule, contractRef: check.contractRef, exchanges: sent.get(r.id)! };
        });
    },
  };
}

/** The API keys the recorded requests carried (the one given, any the run regenerated): sent as an input, never written. */
function keysSent(scenarios: readonly Scenario[]): string[] {
  const keys = new Set<string>();
  for (const s of scenarios)
    for (const { exchange } of s.exchanges) {
      const auth = Object.entries(exchange.request.headers).find(([k]) => k.toLowerCase() === 'authorization')?.[1];
      if (auth) keys.add(auth.replace(/^Bearer\s+/i, ''));
    }
  return [...keys];
}

/** Where the document names the bundled spec: relative to the file written (or the working directory for stdout). */
function sourceUrlFor(out: string | undefined, cwd: string): string {
  const from = out === undefined ? cwd : dirname(resolve(cwd, out));
  const rel = relative(from, paths.bundledYaml).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** The YAML of the document, refused (a fault of the tool) if it would carry any secret the run knows. */
function documentText(document: unknown, secrets: Secrets): string {
  // Every string quoted: a plain `on` or `2030-01-01T00:00:00Z` is a boolean or a date to a YAML 1.1 reader.
  const text = stringify(document, { lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
  if (secrets.scrub(text) !== text)
    throw new VapcError(
      'E_TOOL_FAILED',
      'the exported workflows would carry a secret the run knows; nothing was written',
    );
  return text;
}

async function writeOut(file: string, text: string, cwd: string): Promise<string> {
  const path = resolve(cwd, file);
  const outside = directoryRefusal(dirname(path));
  if (outside !== undefined) throw new VapcError('E_USAGE', `--out ${outside}`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** The whole `vapc export arazzo`: returns the exit status (see the module comment). */
export async function exportArazzoCommand(flags: ExportFlags, io: CliIo, deps: ExportDeps = {}): Promise<number> {
  const cwd = deps.cwd ?? process.cwd();
  const settings = await resolveRunSettings(flags as RunFlags, io.env, cwd);
  const spec = await loadSpec();
  const target = await targetOf(settings, spec);
  try {
    const { baseUrl, credentials, fixtures } = target;
    const secrets = environmentSecrets(io.env);
    secrets.addApiKey(credentials.apiKey);
    secrets.addUserId(credentials.userId);
    const guard = new OutputGuard(secrets);
    const say = (text: string) => io.stderr(guard.block(text));
    const seed = settings.seed ?? randomSeed();
    const suites = profile.suites.filter((s) => s.scenarios).map((s) => s.name);
    const checks = checksOf(suites);
    const record = recorder(spec);
    say(
      `vapc export arazzo: the stateful scenarios against ${settings.embedded ? `the embedded reference server at ${baseUrl}` : baseUrl} · seed ${seed}\n`,
    );
    const { report, discovery } = await runConformance({
      baseUrl,
      spec,
      secrets,
      checks,
      profile,
      credentials: Object.fromEntries(Object.entries(credentials).filter(([, v]) => v !== undefined)),
      fixtures,
      seed,
      suites,
      includeDestructive: settings.includeDestructive === true,
      validateRequest: validateWireRequest,
      onExchange: record.onExchange,
      ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    });
    // The fixtures the run used: discovered ones (assistant, phone number) under the configured ones.
    return await finish(report.results, {
      flags,
      io,
      cwd,
      spec,
      seed,
      secrets,
      say,
      fixtures: { ...discovery.fixtures, ...fixtures },
      credentials,
      checks,
      record,
    });
  } finally {
    await target.server?.close().catch(() => undefined);
  }
}

interface Finish {
  flags: ExportFlags;
  io: CliIo;
  cwd: string;
  spec: SpecModel;
  seed: number;
  secrets: Secrets;
  say: (text: string) => void;
  fixtures: Parameters<typeof exportScenarios>[1]['fixtures'];
  credentials: { apiKey?: string | undefined; userId?: string | undefined };
  checks: readonly CheckDefinition[];
  record: ReturnType<typeof recorder>;
}

/** From the stateful results to the file: nothing when a check failed (1) or none passed (3). */
async function finish(results: readonly CheckResult[], f: Finish): Promise<number> {
  const failed = results.filter((r) => r.status === 'failed' || r.status === 'error');
  for (const r of failed) f.say(`  ${r.status} ${r.id} ${r.operation}: ${printable(f.secrets.evidence(r.message))}\n`);
  if (failed.length > 0) {
    f.say(
      `vapc export arazzo: ${failed.length} stateful check(s) did not pass; nothing was written (only a run that passed is exported)\n`,
    );
    return ExitCode.failed;
  }
  const scenarios = f.record.scenarios(results, f.checks);
  for (const r of results.filter((x) => x.status === 'skipped'))
    f.say(`  not exported: ${r.id} ${r.operation}: ${printable(f.secrets.evidence(r.message))}\n`);
  if (scenarios.length === 0) {
    f.say('vapc export arazzo: no stateful check sent and passed anything; nothing was written\n');
    return ExitCode.inconclusive;
  }
  const summary = exportScenarios(scenarios, {
    spec: f.spec,
    sourceUrl: sourceUrlFor(f.flags.out, f.cwd),
    fixtures: f.fixtures,
    apiKeys: keysSent(scenarios),
    ...(f.credentials.userId !== undefined ? { userId: f.credentials.userId } : {}),
    replacesCredential: (op) => profile.replacesCredential(op),
    seed: f.seed,
  });
  const text = documentText(summary.document, f.secrets);
  const where = f.flags.out === undefined ? undefined : await writeOut(f.flags.out, text, f.cwd);
  if (where === undefined) f.io.stdout(text);
  f.say(
    `arazzo: ${summary.workflows} workflow(s), ${summary.steps} step(s), ${summary.criteria} success criteria, each seen to hold` +
      `${where ? ` -> ${printable(where)}` : ''}\n`,
  );
  return ExitCode.ok;
}

/** The settings of vapc run that the export reads. */
const EXPORT_FLAGS = new Set([
  '--base-url',
  '--embedded',
  '--api-key',
  '--user-id',
  '--config',
  '--no-config',
  '--trust-config',
  '--seed',
  '--timeout-ms',
  '--include-destructive',
]);

/** `vapc export arazzo`: see the module comment and docs/arazzo.md. */
export function registerExportCommand(program: Command, ctx: CommandContext): void {
  const exporter = program.command('export').description('Export what a run verified, in a standard format');
  const command = exporter
    .command('arazzo')
    .description(
      'Run the stateful scenarios against the target and, when every one passes, write them as an Arazzo 1.0.1 document (exit 0 written, 1 a stateful check failed, 2 usage/setup error, 3 nothing to export)',
    )
    .option(
      '--out <file>',
      'write the document to FILE (default: standard output; the summary goes to standard error)',
    );
  // The target, credentials and run settings as vapc run reads them (src/config/table.ts).
  for (const option of runOptions().filter((o) => EXPORT_FLAGS.has(o.flags.split(' ')[0]!)))
    command.option(option.flags, option.description);
  command.action(async (flags: ExportFlags) => {
    ctx.exit((await exportArazzoCommand(flags, ctx.io)) as ExitCode);
  });
}
