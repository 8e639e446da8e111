/**
 * The tools a team runs an Arazzo document with, driven as they drive them: `vapc export arazzo`
 * (in-process), `redocly lint` with every Redocly rule (`extends: [all]`, the Arazzo rules among
 * them), Spectral's `spectral:arazzo` ruleset (all its rules, in-process: @stoplight/spectral-* are
 * already dev dependencies for the ecosystem tests) and `redocly respect` against a loopback server
 * (a child process; the server stays in this process, so the child is awaited, never waited on
 * synchronously). Each function runs one tool once and returns plain data.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { exportArazzoCommand } from '../../src/cli/commands/export.js';
import { packageRoot } from '../../src/paths.js';
import { runConformance } from '../../src/runner/conformance.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { runnerOptions, type LoopbackServer } from './loopback-runs.js';

const REDOCLY = join(packageRoot, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const QUIET_ENV = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/** A scratch directory of its own, removed by `done`. */
export async function scratch(): Promise<{ dir: string; done: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'vapc-arazzo-'));
  return { dir, done: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Registers, for the calling test file, one export from an embedded reference server (seed 1) in a
 * scratch directory removed after the file, and the spec; the getters read them in the tests.
 */
export function exportedOnce(): { spec: () => SpecModel; exported: () => Exported; dir: () => string } {
  let spec: SpecModel | undefined;
  let work: Awaited<ReturnType<typeof scratch>> | undefined;
  let exported: Exported | undefined;
  beforeAll(async () => {
    spec = await loadSpec();
    work = await scratch();
    exported = await exportFromEmbedded(work.dir, 1);
    expect(exported.status, exported.stderr).toBe(0);
  });
  afterAll(() => work?.done());
  return { spec: () => spec!, exported: () => exported!, dir: () => work!.dir };
}

export interface Exported {
  status: number;
  stderr: string;
  file: string;
}

/** `vapc export arazzo --embedded --include-destructive --seed N --out DIR/verified.arazzo.yaml`, in-process. */
export async function exportFromEmbedded(
  dir: string,
  seed: number,
  more: Record<string, unknown> = {},
): Promise<Exported> {
  let stderr = '';
  const file = join(dir, 'verified.arazzo.yaml');
  const status = await exportArazzoCommand(
    { embedded: true, includeDestructive: true, seed: String(seed), out: file, config: false, ...more },
    { stdout: () => undefined, stderr: (t) => (stderr += t), env: {}, isTTY: false },
    { cwd: packageRoot },
  );
  return { status, stderr, file };
}

function node(args: string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...QUIET_ENV } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
}

/** `redocly lint FILE` with every Redocly rule (`extends: [all]`), as JSON. */
export async function redoclyLint(file: string, dir: string): Promise<LintProblem[]> {
  const config = join(dir, 'redocly-all.yaml');
  await writeFile(config, 'extends:\n  - all\n');
  const { stdout, stderr } = await node([REDOCLY, 'lint', file, '--config', config, '--format', 'json'], dir);
  try {
    const parsed = JSON.parse(stdout) as { problems: LintProblem[] };
    return parsed.problems.map((p) => ({ ruleId: p.ruleId, severity: p.severity, message: p.message }));
  } catch {
    throw new Error(`redocly lint printed no JSON: ${stderr.slice(0, 500)}`);
  }
}

/** Spectral with every rule of its `spectral:arazzo` ruleset. */
export async function spectralArazzo(file: string): Promise<Array<{ code: string; path: string; message: string }>> {
  const { Spectral, Document } = spectralCore;
  const spectral = new Spectral();
  const rulesets = spectralRulesets as unknown as Record<string, unknown>;
  spectral.setRuleset({ extends: [[rulesets['arazzo'], 'all']] } as never);
  const results = await spectral.run(new Document(await readFile(file, 'utf8'), spectralParsers.Yaml as never, file));
  return results.map((r) => ({ code: String(r.code), path: r.path.join('.'), message: r.message }));
}

/**
 * The inputs a team passes to the exported workflows for a server: its credentials, and the
 * fixtures the runner's discovery finds on it (a dry run sends only discovery's reads). `pairs`:
 * the server takes a phone number with its own channel only (the team knows; discovery cannot).
 */
export async function inputsFor(
  server: LoopbackServer,
  spec: SpecModel,
  pairs = true,
): Promise<Record<string, string>> {
  const f = server.fixtures;
  const { discovery } = await runConformance(runnerOptions(server, spec, { checks: [], dryRun: true }));
  const found = { ...discovery.fixtures, ...f } as Record<string, unknown> & { channels: readonly string[] };
  const phones = (found['phone_numbers'] ?? []) as Array<Record<string, string>>;
  const phone = phones.find((p) => p['id'] === found['phone_number_id']) ?? phones[0];
  const channel = phone?.['channel'] ?? phone?.['provider'] ?? found.channels[0]!;
  // The workflows send `channel_2` with the same phone number: another channel the server lists
  // where a phone number takes any channel, the phone's own where the server pairs them.
  const other = (pairs ? undefined : found.channels.find((c) => c !== channel)) ?? channel;
  const inputs: Record<string, string> = {
    api_key: f.api_key,
    user_id: f.user_id,
    org_id: f.org_id,
    recipient_list_id: f.recipient_list_id,
    api_key_id: f.api_key_id,
    channel,
    channel_2: other,
  };
  if (typeof found['assistant_id'] === 'string') inputs['assistant_id'] = found['assistant_id'];
  const phoneId = phone?.['id'] ?? found['phone_number_id'];
  if (typeof phoneId === 'string') inputs['phone_number_id'] = phoneId;
  return inputs;
}

export interface RespectRun {
  status: number | null;
  /** The checks that failed with severity error, one line each: `workflow/step status check: message`. */
  failed: string[];
  checks: number;
}

/**
 * `redocly respect FILE --server contract=URL --input {JSON}` (the JSON form: a key with `=` or `,`
 * in it survives), the status-code check a warning: respect 2.77 does not match a `2XX` range of the
 * description to the answer's status (the workflows' own criteria judge the status).
 */
export async function respect(
  file: string,
  url: string,
  inputs: Record<string, string>,
  dir: string,
): Promise<RespectRun> {
  const json = join(dir, `respect-${Math.random().toString(36).slice(2)}.json`);
  const args = [REDOCLY, 'respect', file, '--server', `contract=${url}`, '--input', JSON.stringify(inputs)];
  const { status, stderr } = await node([...args, '--severity', 'STATUS_CODE_CHECK=warn', '-J', json], dir);
  let parsed: { files: Record<string, { executedWorkflows: Workflow[] }> };
  try {
    parsed = JSON.parse(await readFile(json, 'utf8'));
  } catch {
    throw new Error(`redocly respect wrote no JSON (exit ${status}): ${stderr.slice(-500)}`);
  }
  const failed: string[] = [];
  let checks = 0;
  const visit = (workflowId: string, steps: ExecutedStep[]): void => {
    for (const step of steps) {
      if (step.executedSteps) visit(workflowId, step.executedSteps);
      for (const c of step.checks ?? []) {
        checks++;
        if (!c.passed && c.severity === 'error')
          failed.push(`${workflowId}/${step.stepId} ${step.response?.statusCode} ${c.name}: ${c.message ?? ''}`);
      }
    }
  };
  for (const f of Object.values(parsed.files))
    for (const w of f.executedWorkflows) visit(w.workflowId, w.executedSteps);
  return { status, failed, checks };
}

interface ExecutedStep {
  stepId: string;
  response?: { statusCode?: number };
  checks?: Array<{ name: string; passed: boolean; severity: string; message?: string }>;
  executedSteps?: ExecutedStep[];
}
interface Workflow {
  workflowId: string;
  executedSteps: ExecutedStep[];
}
