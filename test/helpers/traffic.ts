/**
 * What the tests (and benches) of recorded traffic share: the traffic of a `vapc run` of a loopback
 * server written as a recording (NDJSON, the shape `vapc drift` and `redocly drift` read), hand-made
 * recording lines, and the CLI run in-process with its streams captured.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type CliIo } from '../../src/cli/main.js';
import { proxyCommand, type ProxyFlags } from '../../src/cli/commands/proxy.js';
import { validateWireRequest } from '../../src/checks/wire.js';
import type { Suite } from '../../src/results/model.js';
import { runConformance } from '../../src/runner/conformance.js';
import { Secrets } from '../../src/secrets/index.js';
import type { SpecModel } from '../../src/spec/model.js';
import { recordedLine } from '../../src/traffic/record.js';
import type { Exchange } from '../../src/transport/types.js';
import { checks } from '../../suites/index.js';
import { profile } from '../../suites/profile.js';
import type { LoopbackServer } from './loopback-runs.js';
import { captureIo } from './captured-io.js';

/** Every suite but the rate-limit burst (which spends a window). */
export const RECORDED_SUITES: Suite[] = ['auth', 'validation', 'ranges', 'schema', 'stateful', 'cors', 'robustness'];

/** The exchanges of one `vapc run` of `server` (the runner as the client; destructive operations included). */
export async function runTraffic(
  server: LoopbackServer,
  spec: SpecModel,
  options: { seed?: number; runs?: number; suites?: Suite[] } = {},
): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  const { api_key, user_id, org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
  await runConformance({
    baseUrl: server.url,
    checks,
    profile,
    spec,
    seed: options.seed ?? 1,
    runs: options.runs ?? 3,
    credentials: { apiKey: api_key, userId: user_id },
    fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] },
    validateRequest: validateWireRequest,
    suites: options.suites ?? RECORDED_SUITES,
    includeDestructive: true,
    onExchange: (exchange) => {
      if (exchange.response) exchanges.push(exchange);
    },
  }).catch((error: unknown) => {
    // A fault that stops the run (a server that stops answering) still leaves the traffic it had.
    if (exchanges.length === 0) throw error;
  });
  return exchanges;
}

/** Exchanges as NDJSON text, credentials replaced as `vapc proxy --record` replaces them. */
export const ndjsonOf = (exchanges: readonly Exchange[], secrets = new Secrets()): string =>
  exchanges.map((e) => `${JSON.stringify(recordedLine(e, secrets))}\n`).join('');

/** Records one run of `server` into `file`; returns the exchanges written. */
export async function recordRun(server: LoopbackServer, spec: SpecModel, file: string, seed = 1): Promise<number> {
  const exchanges = await runTraffic(server, spec, { seed });
  writeFileSync(file, ndjsonOf(exchanges));
  return exchanges.length;
}

/** One recording line, made by hand: a request and its answer. */
export function lineOf(
  request: { method: string; url: string; headers?: Record<string, string>; body?: string },
  response: { status: number; headers?: Record<string, string>; body?: string },
): string {
  return JSON.stringify({ request: { headers: {}, ...request }, response: { headers: {}, ...response } });
}

/** The documented rate-limit headers and JSON content type of an answer. */
export const ANSWER_HEADERS = {
  'content-type': 'application/json',
  'x-ratelimit-limit': '100',
  'x-ratelimit-remaining': '99',
  'x-ratelimit-reset': '60',
};

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Streams for a command run in-process, captured (NO_COLOR, not a TTY). */
export function capturedIo(env: Record<string, string> = {}): { io: CliIo; out: () => string; err: () => string } {
  const io = captureIo(env);
  return { io, out: io.out, err: io.err };
}

/** A CLI command in-process, its streams captured. */
export async function cli(argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const { io, out, err } = capturedIo(env);
  const code = await main(argv, io);
  return { code, out: out(), err: err() };
}

/** A fresh temporary directory. */
export const tempDir = (prefix = 'vapc-traffic-'): string => mkdtempSync(join(tmpdir(), prefix));

export interface InProcessProxy {
  url: string;
  /** Resolves with its exit status once it stopped (by itself, --exit-after, or `stop`). */
  done: Promise<number>;
  /** Ends it as a signal would; resolves with its exit status. */
  stop: () => Promise<number>;
  out: () => string;
  err: () => string;
}

/** `vapc proxy` in-process on a free loopback port (reports in a fresh directory unless `flags` names one). */
export async function startProxyCommand(flags: ProxyFlags): Promise<InProcessProxy> {
  const { io, out, err } = capturedIo();
  let stopNow!: (reason: string) => void;
  const stop = new Promise<string>((resolve) => (stopNow = resolve));
  let listening!: (url: string) => void;
  const ready = new Promise<string>((resolve) => (listening = resolve));
  const done = proxyCommand({ listen: '127.0.0.1:0', reportDir: join(tempDir(), 'r'), ...flags }, io, {
    stop,
    onListening: listening,
  });
  const url = await Promise.race([
    ready,
    done.then((code) => Promise.reject(new Error(`proxy exited ${code}: ${err()}`))),
  ]);
  return { url, done, stop: () => (stopNow('test'), done), out, err };
}
