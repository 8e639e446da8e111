import type { Command } from 'commander';
import type { CheckDefinition } from '../../checks/check.js';
import { VapcError } from '../../errors.js';
import { printable } from '../../results/printable.js';
import { environmentSecrets, OutputGuard } from '../../secrets/guard.js';
import { loadSpec } from '../../spec/load.js';
import { TrafficJudge } from '../../traffic/judge.js';
import { startProxy, type ProxyServer } from '../../traffic/proxy.js';
import { openRecordWriter, type RecordWriter } from '../../traffic/record.js';
import { parseBaseUrl } from '../../transport/undici.js';
import { checks as registry } from '../../../suites/index.js';
import { profile } from '../../../suites/profile.js';
import { ExitCode, type CliIo, type CommandContext } from '../io.js';
import { addTrafficOptions, finishTraffic, trafficLine, trafficSetup, type TrafficFlags } from '../traffic.js';

/** The flags of `vapc proxy`: where it forwards, listens and records, and the traffic settings (TRAFFIC_SETTINGS). */
export type ProxyFlags = TrafficFlags & { target?: string; listen?: string; record?: string; exitAfter?: string };

/** Seams for tests: the checks, today's date, and what stops the proxy instead of SIGINT/SIGTERM. */
export interface ProxyDeps {
  checks?: readonly CheckDefinition[];
  today?: string;
  /** Resolves with a reason when the proxy should stop (default: SIGINT or SIGTERM). */
  stop?: Promise<string>;
  /** Told the proxy's address once it listens. */
  onListening?: (url: string) => void;
}

export const DEFAULT_LISTEN = '127.0.0.1:4011';

/** `--listen HOST:PORT` (`[::1]:PORT` for IPv6; port 0 picks a free one). */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new VapcError('E_USAGE', `--listen takes HOST:PORT (e.g. 127.0.0.1:4011), not "${printable(text)}"`);
  return { host: (m[1] ?? m[2])!, port };
}

function exitAfterOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\s*[1-9]\d{0,8}\s*$/.test(text))
    throw new VapcError('E_USAGE', `--exit-after takes a positive number of exchanges, not "${printable(text)}"`);
  return Number(text);
}

/** SIGINT or SIGTERM, once; the handlers are removed when the proxy stops. */
function signalled(): { stop: Promise<string>; release: () => void } {
  let release = () => undefined as void;
  const stop = new Promise<string>((resolve) => {
    const on = (signal: string) => () => resolve(signal);
    const int = on('SIGINT');
    const term = on('SIGTERM');
    process.once('SIGINT', int);
    process.once('SIGTERM', term);
    release = () => {
      process.off('SIGINT', int);
      process.off('SIGTERM', term);
    };
  });
  return { stop, release };
}

/** The proxy's settings, every one checked before anything listens. */
function settingsOf(flags: ProxyFlags): { target: URL; listen: { host: string; port: number }; exitAfter?: number } {
  if (flags.target === undefined)
    throw new VapcError('E_USAGE', 'no target: give --target URL (the server to forward to)');
  const target = parseBaseUrl(flags.target);
  const listen = parseListen(flags.listen ?? DEFAULT_LISTEN);
  const exitAfter = exitAfterOf(flags.exitAfter);
  return { target, listen, ...(exitAfter !== undefined ? { exitAfter } : {}) };
}

/**
 * The whole `vapc proxy`: forwards until stopped (a signal, --exit-after N), judging each exchange
 * after its answer went back, then the pipeline every run ends with. Its exit status is the verdict.
 */
export async function proxyCommand(flags: ProxyFlags, io: CliIo, deps: ProxyDeps = {}): Promise<number> {
  const { target, listen, exitAfter } = settingsOf(flags);
  const setup = await trafficSetup(flags, io, deps.today);
  const secrets = environmentSecrets(io.env);
  const guard = new OutputGuard(secrets);
  const checks = deps.checks ?? registry;
  const judge = new TrafficJudge({
    spec: await loadSpec(),
    checks,
    profile,
    secrets,
    target: target.href,
    source: 'proxy',
    basePath: target.pathname,
    config: { target_url: target.href, ...(flags.record !== undefined ? { record: flags.record } : {}) },
  });
  const record: RecordWriter | undefined =
    flags.record !== undefined ? await openRecordWriter(flags.record) : undefined;
  const signals = deps.stop ? undefined : signalled();
  let stopNow: (reason: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => (stopNow = resolve));
  let fatal: unknown;
  let judged = 0;
  let proxy: ProxyServer;
  try {
    proxy = await startProxy({
      target,
      ...listen,
      onExchange(exchange) {
        if (fatal !== undefined) return;
        const where = record ? `${record.path} line ${judged + 1}` : `exchange ${judged + 1}`;
        try {
          judge.judge(exchange, where);
          record?.write(exchange, secrets);
        } catch (error) {
          fatal = error;
          stopNow('a recorded exchange could not be judged');
          return;
        }
        if (++judged === exitAfter) stopNow(`--exit-after ${exitAfter}`);
      },
    });
  } catch (error) {
    signals?.release();
    await record?.close().catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new VapcError('E_USAGE', `--listen ${listen.host}:${listen.port}: cannot listen (${code})`);
  }
  deps.onListening?.(proxy.url);
  io.stdout(guard.line(`listening ${proxy.url}`));
  if (!setup.settings.quiet)
    io.stdout(guard.line(`forwarding to ${target.href}; stop with Ctrl-C (SIGINT) or SIGTERM for the reports`));
  const reason = await Promise.race([stopped, deps.stop ?? signals!.stop]);
  signals?.release();
  if (!setup.settings.quiet)
    io.stdout(guard.line(`vapc proxy: stopping (${reason}): ${proxy.forwarded} exchange(s) forwarded`));
  await proxy.close();
  await record?.close();
  if (fatal !== undefined) throw fatal;
  const report = judge.report();
  if (!setup.settings.quiet) io.stdout(guard.block(trafficLine(report)));
  if (record && !setup.settings.quiet)
    io.stdout(guard.line(`recorded ${judged} exchange(s) to ${record.path} (${record.format})`));
  return finishTraffic(report, checks, setup, io, secrets);
}

/** vapc proxy --target URL: forwards traffic untouched, judges it after forwarding, reports when stopped (docs/proxy.md). */
export function registerProxyCommand(program: Command, ctx: CommandContext): void {
  const command = program
    .command('proxy')
    .description(
      'a reverse proxy that forwards traffic to the target byte for byte and judges each exchange after forwarding; on SIGINT/SIGTERM or --exit-after N it writes the reports of vapc drift and exits with the verdict (0 pass, 1 a finding, 2 usage error, 3 nothing judged)',
    )
    .option('--target <url>', 'the server to forward to (its path prefixes every request)')
    .option('--listen <host:port>', `where the proxy listens (default ${DEFAULT_LISTEN}; port 0 picks a free one)`)
    .option(
      '--record <file>',
      'also write the exchanges to FILE (NDJSON, or HAR 1.2 for a .har name), credentials replaced',
    )
    .option('--exit-after <n>', 'stop after N exchanges were forwarded and judged');
  addTrafficOptions(command).action(async (flags: ProxyFlags) => {
    ctx.exit((await proxyCommand(flags, ctx.io)) as ExitCode);
  });
}
