/**
 * The GitHub Action's step (scripts/action.mjs) as GitHub runs it, in a workspace a test made:
 * GITHUB_ACTIONS and CI set, GITHUB_WORKSPACE the workspace, GITHUB_OUTPUT and the step summary in
 * files beside it, the INPUT_* variables given (base-url defaults to a closed loopback port).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';

export async function runActionStep(
  workspace: string,
  inputs: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string; summary: string }> {
  const files = { output: `${workspace}.github_output`, summary: `${workspace}.step_summary` };
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  const env = {
    PATH: process.env.PATH ?? '',
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_WORKSPACE: workspace,
    INPUT_BASE_URL: 'http://127.0.0.1:9',
    ...inputs,
  };
  let stdout = '';
  let stderr = '';
  const code = await new Promise<number>((done) => {
    const proc = spawn(process.execPath, [join(packageRoot, 'scripts', 'action.mjs')], { cwd: workspace, env });
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.on('close', (c) => done(c ?? -1));
  });
  return { code, stdout, stderr, summary: readFileSync(files.summary, 'utf8') };
}
