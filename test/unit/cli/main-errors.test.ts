import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';

/** A report directory of the test's own: a run that cannot start marks its report dir as aborted, and
 * the default one (reports/latest) holds the report of the person's last `npm start`. */
const reportDir = () => ['--report-dir', join(mkdtempSync(join(tmpdir(), 'vapc-main-errors-')), 'reports')];

/** Runs the CLI in-process with the given environment; returns what it printed. */
async function vapc(env: Record<string, string>, ...argv: string[]): Promise<{ status: number; out: string }> {
  let out = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), env, isTTY: false };
  const status = await main(argv, io);
  return { status, out };
}

describe('vapc: the last-resort error line', () => {
  const env = { VAPC_API_KEY: 'sk-live-Zq8+/=&"<\'x9', GITHUB_TOKEN: 'ghs_abcdefghijklmnop1234' };

  it('never prints a credential of the environment that a message quotes', async () => {
    const run = await vapc(
      env,
      'run',
      ...reportDir(),
      '--config',
      `/nonexistent/${env.VAPC_API_KEY}/${env.GITHUB_TOKEN}.yaml`,
    );
    expect(run.status).toBe(2);
    expect(run.out).toMatch(/^vapc: /);
    expect(run.out).not.toContain(env.VAPC_API_KEY);
    expect(run.out).not.toContain(env.GITHUB_TOKEN);
  });

  it('keeps a message that quotes a workflow command inert', async () => {
    const run = await vapc({}, 'run', ...reportDir(), '--config', '/nonexistent/x\n::error::owned.yaml');
    expect(run.status).toBe(2);
    for (const line of run.out.split('\n')) expect(line).not.toMatch(/^\s*::/);
  });
});
