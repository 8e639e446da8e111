// Shared by bench/drift.bench.ts and bench/proxy.bench.ts (not a bench itself): the recording of a
// `vapc run` of a server (test/helpers/traffic.ts), and a command timed under GNU time.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';

export { recordRun } from '../test/helpers/traffic.js';

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
