/**
 * The GitHub Action (action.yml + scripts/action.mjs) end to end under a simulated GitHub
 * environment: GITHUB_ACTIONS=true, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files in a temp dir, the
 * INPUT_* variables action.yml sets, and the built CLI (npm run build) against a faulty reference
 * server this test starts.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubAnnotations, githubStepSummary } from '../../src/reporters/index.js';
import type { CheckResult, RunReport } from '../../src/results/model.js';
import type { ReferenceServer } from '../../src/server/index.js';
import { loadSpec } from '../../src/spec/load.js';
import { startFaultyServer } from '../catalog/faults/index.js';
// @ts-expect-error: a plain ESM script without types
import { exit2Messages, INPUTS, maskLines, OUTPUTS, planRun, splitArgs } from '../../scripts/action.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'action.mjs');

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  'working-directory'?: string;
}
interface ActionYml {
  runs: { using: string; steps: Step[] };
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
}
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionYml;

describe('action.yml', () => {
  it('is a composite action that installs the packed tool into a cached folder and runs scripts/action.mjs with it', () => {
    expect(action.runs.using).toBe('composite');
    const steps = action.runs.steps;
    const key = steps.find((s) => s.id === 'vapc-install')!;
    expect(key.run).toBe('node "${{ github.action_path }}/scripts/action-install.mjs" key >> "$GITHUB_OUTPUT"');
    const cache = steps.find((s) => s.id === 'vapc-cache') as Step & { with: Record<string, string> };
    expect(cache.uses).toMatch(/^actions\/cache@v\d+$/);
    expect(cache.with).toEqual({
      path: '${{ steps.vapc-install.outputs.dir }}',
      key: '${{ steps.vapc-install.outputs.key }}',
    });
    const install = steps.find((s) => s.run?.includes('action-install.mjs" install'))! as Step & { if: string };
    expect(install.if).toBe("steps.vapc-cache.outputs.cache-hit != 'true'");
    expect(install.env?.['VAPC_TOOL_DIR']).toBe('${{ steps.vapc-install.outputs.dir }}');
    // No step installs the action's own dependencies in its checkout (devDependencies included).
    expect(steps.filter((s) => /\bnpm (ci|install)\b/.test(s.run ?? ''))).toEqual([]);
    const run = steps.find((s) => s.id === 'vapc')!;
    expect(run.run).toContain('${{ github.action_path }}/scripts/action.mjs');
    expect(run.env?.['VAPC_TOOL_DIR']).toBe('${{ steps.vapc-install.outputs.dir }}');
    expect(run.shell).toBe('bash');
    expect(steps.indexOf(key) < steps.indexOf(cache) && steps.indexOf(install) < steps.indexOf(run)).toBe(true);
  });
  it('passes every input to the script under the name the script reads, and nothing else', () => {
    const run = action.runs.steps.find((s) => s.id === 'vapc')!;
    const expected = Object.fromEntries(
      Object.entries(INPUTS as Record<string, string>).map(([input, env]) => [env, `\${{ inputs.${input} }}`]),
    );
    expect(run.env).toEqual({ ...expected, VAPC_TOOL_DIR: '${{ steps.vapc-install.outputs.dir }}' });
    expect(
      Object.keys(action.inputs)
        .filter((k) => k !== 'node-version')
        .sort(),
    ).toEqual(Object.keys(INPUTS).sort());
    expect(action.inputs['base-url']!.required).toBe(true);
  });
  it('declares the outputs the script writes', () => {
    expect(Object.keys(action.outputs).sort()).toEqual([...(OUTPUTS as string[])].sort());
    for (const [name, o] of Object.entries(action.outputs)) expect(o.value).toBe(`\${{ steps.vapc.outputs.${name} }}`);
  });
});

describe('scripts/action.mjs: inputs to vapc run', () => {
  it('maps inputs to flags, credentials to VAPC_* env (never argv), and splits extra args', () => {
    const plan = planRun({
      INPUT_BASE_URL: 'https://api.example.com',
      INPUT_API_KEY: 'sk-secret',
      INPUT_USER_ID: 'user-1',
      INPUT_SUITES: 'auth,ranges',
      INPUT_RPM: '30',
      INPUT_SEED: '7',
      INPUT_BASELINE: '.vapc/baseline.yaml',
      INPUT_REPORT_DIR: '',
      INPUT_ARGS: `--timeout-ms 20000 --config "my config.yaml"`,
    });
    expect(plan.argv).toEqual([
      'run',
      '--base-url',
      'https://api.example.com',
      '--suite',
      'auth,ranges',
      '--rpm',
      '30',
      '--seed',
      '7',
      '--baseline',
      '.vapc/baseline.yaml',
      '--no-config',
      '--report-dir',
      'vapc-reports',
      '--timeout-ms',
      '20000',
      '--config',
      'my config.yaml',
    ]);
    expect(plan.argv.join(' ')).not.toMatch(/sk-secret|user-1/);
    expect(plan.env).toEqual({ VAPC_ACTION: 'true', VAPC_API_KEY: 'sk-secret', VAPC_USER_ID: 'user-1' });
  });
  it('reads a config file only when the `config` input names one', () => {
    expect(planRun({ INPUT_BASE_URL: 'http://x' }).argv).toContain('--no-config');
    const named = planRun({ INPUT_BASE_URL: 'http://x', INPUT_CONFIG: 'ci/vapc.yaml' }).argv;
    expect(named).not.toContain('--no-config');
    expect(named.join(' ')).toContain('--config ci/vapc.yaml');
  });
  it('masks every line of a multi-line secret, so no line of it can print (or act as a workflow command)', () => {
    expect(maskLines('line-one\n::warning::line-two\r\n\n')).toBe(
      '::add-mask::line-one\n::add-mask::::warning::line-two\n',
    );
  });
  it('refuses an unclosed quote in args', () => {
    expect(() => splitArgs('--config "x')).toThrow(/unclosed " quote/);
  });
});

describe('GitHub output respects the annotation limits', () => {
  const result = (i: number, status: CheckResult['status'], known = false): CheckResult => ({
    id: `ranges.check-${String(i).padStart(2, '0')}`,
    suite: 'ranges',
    operation: 'POST /campaign',
    status,
    message: `m${i}`,
    rule: 'r',
    contract_ref: '4',
    severity: 'major',
    duration_ms: 1,
    requests: 1,
    ...(known ? { baseline: { known: true, reason: 'accepted', kinds: ['status:2xx'] } } : {}),
  });
  const report = (results: CheckResult[]): RunReport => ({
    tool: { name: 'voice-agent-contract', version: '0' },
    spec_version: '2.0.1',
    target: 'http://x',
    seed: 1,
    started_at: '',
    summary: { passed: 0, failed: 0, skipped: 0, errors: 0, requests: 0, duration_ms: 0, observations: 0 },
    results,
    observations: [],
    config: {},
  });
  it('prints at most 10 errors and 10 warnings, and the summary says how many more', () => {
    const r = report([
      ...Array.from({ length: 14 }, (_, i) => result(i, 'failed')),
      ...Array.from({ length: 12 }, (_, i) => result(20 + i, 'error')),
    ]);
    const lines = githubAnnotations(r).trim().split('\n');
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(10);
    expect(lines.filter((l) => l.startsWith('::warning '))).toHaveLength(10);
    expect(githubStepSummary(r)).toContain('and 4 more are listed here');
  });
  it('prints exactly as many errors as failures up to the limit, and none for known findings', () => {
    const r = report([...Array.from({ length: 3 }, (_, i) => result(i, 'failed')), result(9, 'failed', true)]);
    expect(githubAnnotations(r).match(/^::error /gm)).toHaveLength(3);
    expect(githubStepSummary(r)).not.toContain('more are listed here');
  });
});

// ---- end to end ---------------------------------------------------------------------------------

/** A fault that fails more checks than GitHub shows annotations for (the 422 body shape). */
const MANY_FAILURES = 'error-422-wrong-shape';
let server: ReferenceServer;
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js')))
    throw new Error('run `npm run build` first: the action runs the built CLI');
  server = await startFaultyServer(MANY_FAILURES, {
    spec: await loadSpec(),
    rateLimit: 1_000_000,
    rateWindowMs: 60_000,
  });
});
afterAll(async () => {
  await server?.close();
});

/** Runs the action's script as the composite step would, in a fresh workspace. */
async function runAction(inputs: Record<string, string>, workspace = mkdtempSync(join(tmpdir(), 'vapc-action-'))) {
  const files = { output: join(workspace, 'github_output'), summary: join(workspace, 'step_summary') };
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? workspace,
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_WORKSPACE: workspace,
    GITHUB_ACTION_PATH: ROOT,
    NO_COLOR: '1',
    ...inputs,
  };
  let stdout = '';
  let stderr = '';
  const code = await new Promise<number>((done) => {
    const child = spawn(process.execPath, [SCRIPT], { cwd: workspace, env });
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (c) => done(c ?? -1));
  });
  const outputs = Object.fromEntries(
    readFileSync(files.output, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return { code, stdout, stderr, outputs, summary: readFileSync(files.summary, 'utf8'), workspace };
}

const credentials = () => ({
  INPUT_BASE_URL: server.url,
  INPUT_API_KEY: server.fixtures.api_key,
  INPUT_USER_ID: server.fixtures.user_id,
});
const BASE = { INPUT_SUITES: 'validation,ranges', INPUT_SEED: '1', INPUT_RUNS: '2', INPUT_REPORT_DIR: 'reports' };

describe('the action under a simulated GitHub environment', () => {
  let first: Awaited<ReturnType<typeof runAction>>;

  it('fails the step, writes the outputs, at most 10 error annotations and the rest to the step summary', async () => {
    first = await runAction({ ...credentials(), ...BASE, INPUT_ARGS: '--write-baseline baseline.yaml' });
    expect(first.code, first.stderr).toBe(1);
    const failed = Number(first.outputs['failed']);
    expect(failed).toBeGreaterThan(10);
    expect(first.outputs).toMatchObject({
      'new-findings': String(failed),
      'report-dir': join(first.workspace, 'reports'),
      'exit-code': '1',
    });
    expect(Number(first.outputs['passed'])).toBeGreaterThan(0);
    const report = JSON.parse(readFileSync(join(first.workspace, 'reports', 'report.json'), 'utf8'));
    expect(report.summary.failed).toBe(failed);
    const errors = first.stdout.split('\n').filter((l) => l.startsWith('::error '));
    expect(errors).toHaveLength(10);
    // The step summary: the per-suite table, every failure with its repro, and how many more than the annotations.
    expect(first.summary).toContain('| suite | passed | failed | skipped | error |');
    expect(first.summary).toMatch(/\| validation \| \d+ \| \d+ \|/);
    expect(first.summary).toContain(`and ${failed - 10} more are listed here`);
    expect(first.summary.match(/^\| `(validation|ranges)\./gm)).toHaveLength(failed);
    expect(first.summary).toMatch(/```sh\ncurl /);
  });

  it('masks the credentials and writes them nowhere else', () => {
    const key = server.fixtures.api_key;
    expect(first.stdout).toContain(`::add-mask::${key}`);
    const everywhere = [
      first.stdout.replaceAll(`::add-mask::${key}`, '').replaceAll(`::add-mask::${server.fixtures.user_id}`, ''),
      first.stderr,
      first.summary,
      readFileSync(join(first.workspace, 'reports', 'report.json'), 'utf8'),
    ];
    for (const text of everywhere) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(server.fixtures.user_id);
    }
  });

  it('passes with the baseline the first run wrote: no annotations, new-findings 0, known ones in the summary', async () => {
    const again = await runAction(
      { ...credentials(), ...BASE, INPUT_SEED: '2', INPUT_BASELINE: 'baseline.yaml' },
      first.workspace,
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.outputs['new-findings']).toBe('0');
    expect(Number(again.outputs['failed'])).toBeGreaterThan(10);
    expect(again.stdout).not.toMatch(/^::error /m);
    expect(again.summary).toMatch(/### Known findings \(\d+, baseline `baseline\.yaml`\)/);
  });

  it('exits 2 with a clear message and still writes report-dir when the target is missing', async () => {
    const r = await runAction({ ...BASE, INPUT_BASE_URL: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no target: set the input `base-url`/);
    expect(r.outputs).toMatchObject({
      passed: '',
      failed: '',
      'exit-code': '2',
      'report-dir': join(r.workspace, 'reports'),
    });
    expectOneError(r, 'base-url');
  });
});

/** An exit 2 under the Action: exactly one `::error` naming the input to change, a step summary naming it, every output set. */
function expectOneError(r: Awaited<ReturnType<typeof runAction>>, input: string) {
  const errors = r.stdout.split('\n').filter((l) => l.startsWith('::error'));
  expect(errors, r.stdout + r.stderr).toHaveLength(1);
  expect(errors[0]).toContain(`change the input ${input}`);
  expect(r.summary).toMatch(/## vapc could not run/);
  expect(r.summary).toContain(`**Input to change:** \`${input}\``);
  expect(Object.keys(r.outputs).sort()).toEqual([...(OUTPUTS as string[])].sort());
  expect(r.outputs['exit-code']).toBe('2');
  expect(r.stdout + r.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
}

describe('the action: settings come from the workflow, and every exit 2 speaks once', () => {
  const HOSTILE_CONFIG = 'dry_run: true\nsuite: cors\ninclude_destructive: true\n';

  it('ignores a vapc.yaml in the checkout that would turn the gate off: the gate still runs and fails', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'vapc-action-'));
    writeFileSync(join(workspace, 'vapc.yaml'), HOSTILE_CONFIG);
    writeFileSync(join(workspace, '.vapc.yaml'), HOSTILE_CONFIG);
    const r = await runAction({ ...credentials(), ...BASE, INPUT_SUITES: 'validation', INPUT_RUNS: '1' }, workspace);
    expect(r.code, r.stderr).toBe(1);
    expect(Number(r.outputs['failed'])).toBeGreaterThan(0);
    expect(r.stdout).not.toMatch(/dry run|^config:/m);
  });

  it('refuses dry_run/suite/include_destructive from a config file the `config` input names (exit 2, the key and its line)', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'vapc-action-'));
    writeFileSync(join(workspace, 'ci.yaml'), `timeout_ms: 5000\n${HOSTILE_CONFIG}`);
    const r = await runAction({ ...credentials(), ...BASE, INPUT_CONFIG: 'ci.yaml' }, workspace);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /config file ci\.yaml line 2: "dry_run" is not read from a config file under CI .*add --dry-run to the input `args`/,
    );
    expectOneError(r, 'args');
    expect(existsSync(join(workspace, 'reports', 'report.json'))).toBe(false);
  });

  it('a missing baseline file: one line saying what to do on the first run, one ::error, a summary', async () => {
    const r = await runAction({ ...credentials(), ...BASE, INPUT_BASELINE: '.vapc/baseline.yaml' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /baseline file \.vapc\/baseline\.yaml named by the input `baseline` does not exist: for the first run .*--write-baseline \.vapc\/baseline\.yaml/,
    );
    expectOneError(r, 'baseline');
  });

  it('wrong credentials: one ::error naming the api-key input (not --api-key), a summary, outputs', async () => {
    const r = await runAction({
      ...BASE,
      INPUT_BASE_URL: server.url,
      INPUT_API_KEY: 'not-the-key',
      INPUT_USER_ID: server.fixtures.user_id,
    });
    expect(r.code).toBe(2);
    expectOneError(r, 'api-key');
    expect(r.stdout).toMatch(/^::error .*the credentials were refused.*the input `api-key`/m);
    expect(r.stdout.split('\n').find((l) => l.startsWith('::error'))).not.toMatch(/--api-key|VAPC_API_KEY/);
    expect(JSON.parse(readFileSync(join(r.workspace, 'reports', 'report.json'), 'utf8')).run.status).toBe('aborted');
  });

  it('a report.json that is a directory: one line, one ::error, every output set (no stack trace)', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'vapc-action-'));
    mkdirSync(join(workspace, 'reports', 'report.json'), { recursive: true });
    const r = await runAction({ ...credentials(), ...BASE }, workspace);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^vapc action: reports\/report\.json is a directory, not a report/),
    ]);
    expectOneError(r, 'report-dir');
  });

  it('a multi-line api-key: every line masked before anything else prints', async () => {
    const r = await runAction({
      ...BASE,
      INPUT_BASE_URL: server.url,
      INPUT_API_KEY: 'first-line-of-key\n::notice::second-line-of-key',
      INPUT_USER_ID: server.fixtures.user_id,
    });
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      '::add-mask::first-line-of-key',
      '::add-mask::::notice::second-line-of-key',
      `::add-mask::${server.fixtures.user_id}`,
    ]);
    expect(lines.filter((l) => l.startsWith('::notice::'))).toEqual([]);
  });
});

describe('the action: a fault of vapc itself names no input to change', () => {
  it('says the tool failed, not which input to change, for E_TOOL_FAILED and an internal error', () => {
    for (const reason of [
      'the precompiled validator Call is missing; rebuild with npm run build [E_TOOL_FAILED]',
      'internal error: Cannot read properties of undefined',
    ]) {
      const { annotation, summary } = exit2Messages(reason);
      expect(annotation).toMatch(
        /^::error title=vapc failed \(a fault of the tool, not of the server or the inputs\)::/,
      );
      expect(annotation).not.toContain('change the input');
      expect(summary).toMatch(/^## vapc failed\n/);
      expect(summary).toContain('**No input to change:**');
    }
    // A usage error still names its input.
    expect(exit2Messages('no target: set --base-url URL (VAPC_BASE_URL) [E_USAGE]').annotation).toContain(
      'change the input base-url',
    );
  });
});
