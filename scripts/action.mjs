#!/usr/bin/env node
/**
 * The GitHub Action's step (action.yml): turns the action's inputs (INPUT_* env vars set by
 * action.yml) into a `vapc run` of this checkout's CLI, then writes the outputs (passed, failed,
 * new-findings, report-dir, exit-code) to $GITHUB_OUTPUT and exits with vapc's status.
 *
 * The CLI itself, seeing GITHUB_ACTIONS=true, prints the `::error` annotations (at most 10, GitHub's
 * limit per step) and appends the Markdown job summary to $GITHUB_STEP_SUMMARY. Credentials go to
 * the CLI through VAPC_API_KEY / VAPC_USER_ID, never on its command line, and are masked first.
 *
 * Runs anywhere with a simulated environment (test/e2e/action.test.ts): set GITHUB_ACTIONS=true,
 * GITHUB_OUTPUT and GITHUB_STEP_SUMMARY to files, and the INPUT_* variables below.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** action.yml input -> environment variable the composite step sets. */
export const INPUTS = {
  'base-url': 'INPUT_BASE_URL',
  'api-key': 'INPUT_API_KEY',
  'user-id': 'INPUT_USER_ID',
  suites: 'INPUT_SUITES',
  rpm: 'INPUT_RPM',
  seed: 'INPUT_SEED',
  runs: 'INPUT_RUNS',
  baseline: 'INPUT_BASELINE',
  'report-dir': 'INPUT_REPORT_DIR',
  args: 'INPUT_ARGS',
};
export const OUTPUTS = ['passed', 'failed', 'new-findings', 'report-dir', 'exit-code'];
export const DEFAULT_REPORT_DIR = 'vapc-reports';

/** Splits extra arguments like a shell would for simple cases: whitespace, '...' and "..." quotes. */
export function splitArgs(text) {
  const out = [];
  let current = '';
  let quote = '';
  let started = false;
  for (const ch of text ?? '') {
    if (quote) {
      if (ch === quote) quote = '';
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (quote) throw new Error(`args: unclosed ${quote} quote`);
  if (started) out.push(current);
  return out;
}

/** The `vapc run` arguments and the extra environment for the given INPUT_* variables. */
export function planRun(env) {
  const input = (name) => (env[INPUTS[name]] ?? '').trim();
  const reportDir = input('report-dir') || DEFAULT_REPORT_DIR;
  const argv = ['run'];
  if (input('base-url')) argv.push('--base-url', input('base-url'));
  for (const name of ['suites', 'rpm', 'seed', 'runs', 'baseline']) {
    if (input(name)) argv.push(name === 'suites' ? '--suite' : `--${name}`, input(name));
  }
  argv.push('--report-dir', reportDir, ...splitArgs(env[INPUTS.args] ?? ''));
  const childEnv = {};
  if (input('api-key')) childEnv.VAPC_API_KEY = input('api-key');
  if (input('user-id')) childEnv.VAPC_USER_ID = input('user-id');
  return { argv, env: childEnv, reportDir, secrets: [input('api-key'), input('user-id')].filter(Boolean) };
}

/** The step's outputs from report.json (empty counts when the run wrote none, e.g. a usage error). */
export function outputsOf(reportDir, exitCode) {
  const out = { passed: '', failed: '', 'new-findings': '', 'report-dir': resolve(reportDir), 'exit-code': String(exitCode) };
  const file = join(reportDir, 'report.json');
  if (!existsSync(file)) return out;
  const summary = JSON.parse(readFileSync(file, 'utf8')).summary ?? {};
  out.passed = String(summary.passed ?? 0);
  out.failed = String(summary.failed ?? 0);
  out['new-findings'] = String(summary.new_failures ?? summary.failed ?? 0);
  return out;
}

/** Appends `name=value` lines to $GITHUB_OUTPUT (values here are always one line). */
export function writeOutputs(file, outputs) {
  const text = Object.entries(outputs)
    .map(([k, v]) => `${k}=${String(v).replace(/[\r\n]+/g, ' ')}\n`)
    .join('');
  if (file) appendFileSync(file, text);
  else process.stdout.write(text);
}

async function main() {
  const env = process.env;
  let plan;
  try {
    plan = planRun(env);
  } catch (e) {
    process.stderr.write(`vapc action: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  // Masked before anything else prints, so GitHub hides them in every later log line.
  for (const s of plan.secrets) process.stdout.write(`::add-mask::${s}\n`);
  // A report.json left from an earlier run must not be read as this run's.
  rmSync(join(plan.reportDir, 'report.json'), { force: true });
  const cli = fileURLToPath(new URL('../bin/vapc.js', import.meta.url));
  const code = await new Promise((done) => {
    const child = spawn(process.execPath, [cli, ...plan.argv], { stdio: 'inherit', env: { ...env, ...plan.env } });
    child.on('error', (e) => {
      process.stderr.write(`vapc action: cannot start vapc: ${e.message}\n`);
      done(2);
    });
    child.on('close', (status) => done(status ?? 2));
  });
  writeOutputs(env.GITHUB_OUTPUT, outputsOf(plan.reportDir, code));
  return code;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
