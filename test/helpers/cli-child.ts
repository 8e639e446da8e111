/**
 * Runs CLI cases in one child process (test/catalog/hostile/spec-child.ts), for the hostile cases
 * that could read the process's own environment (/proc/self/environ) or exhaust its memory: the
 * child's environment holds the markers a test looks for, its peak RSS is returned, and it is
 * killed after 90 s.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

export interface ChildCase {
  name: string;
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
}

export interface ChildRun {
  name: string;
  status: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export async function runCliChild(
  cases: readonly ChildCase[],
  env: Record<string, string>,
): Promise<{ results: ChildRun[]; maxRssKb: number }> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', join(packageRoot, 'test/catalog/hostile/spec-child.ts'), JSON.stringify(cases)],
    { cwd: packageRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString().slice(0, 2000)));
  const timer = setTimeout(() => proc.kill('SIGKILL'), 90_000);
  await new Promise((resolve) => proc.on('close', resolve));
  clearTimeout(timer);
  try {
    return JSON.parse(out) as { results: ChildRun[]; maxRssKb: number };
  } catch {
    throw new Error(`the child did not finish: ${err.slice(0, 500)}`);
  }
}
