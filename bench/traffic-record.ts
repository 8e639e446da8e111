// Shared by bench/drift.bench.ts and bench/proxy.bench.ts (not a bench itself): traffic recorded
// from a server by a `vapc run` of it (the runner as the client, every suite but the burst,
// destructive operations included), written as the NDJSON both `vapc drift` and `redocly drift` read.
import { createWriteStream } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runConformance } from '../src/runner/conformance.js';
import { validateWireRequest } from '../src/checks/wire.js';
import { Secrets } from '../src/secrets/index.js';
import type { SpecModel } from '../src/spec/model.js';
import { recordedLine } from '../src/traffic/record.js';
import { packageRoot } from '../src/paths.js';
import { checks } from '../suites/index.js';
import { profile } from '../suites/profile.js';
import type { LoopbackServer } from '../test/helpers/loopback-runs.js';

export const NOT_RATELIMIT = ['auth', 'validation', 'ranges', 'schema', 'stateful', 'cors', 'robustness'] as const;

/** Records the traffic of one `vapc run` of `server` into `file` (NDJSON); returns the exchanges written. */
export async function recordRun(server: LoopbackServer, spec: SpecModel, file: string, seed = 1): Promise<number> {
  const out = createWriteStream(file);
  const secrets = new Secrets();
  let lines = 0;
  const { api_key, user_id, org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
  await runConformance({
    baseUrl: server.url,
    checks,
    profile,
    spec,
    seed,
    runs: 3,
    credentials: { apiKey: api_key, userId: user_id },
    fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] },
    validateRequest: validateWireRequest,
    suites: [...NOT_RATELIMIT],
    includeDestructive: true,
    onExchange: (exchange) => {
      if (!exchange.response) return;
      out.write(`${JSON.stringify(recordedLine(exchange, secrets))}\n`);
      lines++;
    },
  }).catch((error: unknown) => {
    // A fault that stops the run (a server that stops answering) still leaves the traffic it had.
    if (lines === 0) throw error;
  });
  await new Promise<void>((resolve) => out.end(() => resolve()));
  return lines;
}

export interface Measured {
  ms: number;
  maxRssKb: number;
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs a command under GNU time: wall time and peak resident memory (its own and its children's). */
export function timed(command: string, args: string[], cwd = packageRoot): Promise<Measured> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'MAXRSS %M', command, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => {
      const rss = /MAXRSS (\d+)/.exec(stderr);
      resolve({
        ms: performance.now() - started,
        maxRssKb: rss ? Number(rss[1]) : NaN,
        status: status ?? -1,
        stdout,
        stderr,
      });
    });
  });
}

export const VAPC = join(packageRoot, 'bin', 'vapc.js');
export const REDOCLY = join(packageRoot, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
export const BUNDLE = join(packageRoot, 'dist', 'openapi.yaml');

/** The problems of `redocly drift --format json` (its JSON follows a banner on some Node versions). */
export function redoclyProblems(stdout: string): Array<Record<string, unknown>> {
  const at = stdout.indexOf('{');
  if (at < 0) return [];
  try {
    return (JSON.parse(stdout.slice(at)) as { problems?: Array<Record<string, unknown>> }).problems ?? [];
  } catch {
    return [];
  }
}
