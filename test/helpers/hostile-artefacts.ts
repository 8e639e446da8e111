/**
 * The crafted report artefacts of test/catalog/hostile/artefacts.test.ts and its slow-tier half
 * (test/slow/hostile-artefacts-big.test.ts): folders holding a forged report.json, vapc run on them
 * in-process or in a child process whose peak memory is measured, and what a refusal and an inert
 * rendering look like.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import type { CheckResult, RunReport } from '../../src/results/model.js';
import { hasControls } from '../../src/results/printable.js';
import { FIXTURES } from './reports.js';

/**
 * Registers, for the calling test file, a temporary folder removed after its tests, and returns
 * the builders of crafted report folders inside it.
 */
export function artefactWorkspace(): {
  root: string;
  dirWith: (report: unknown) => string;
  shardDirs: (edit?: (parts: RunReport[]) => void) => string[];
} {
  const root = mkdtempSync(join(tmpdir(), 'vapc-hostile-artefacts-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  /** A directory holding `report` (an object, or raw JSON text) as report.json. */
  function dirWith(report: unknown): string {
    const dir = mkdtempSync(join(root, 'r-'));
    writeFileSync(join(dir, 'report.json'), typeof report === 'string' ? report : JSON.stringify(report));
    return dir;
  }

  /** The failing fixture split into shards 1/2 and 2/2, `edit` applied to both before writing. */
  function shardDirs(edit: (parts: RunReport[]) => void = () => {}): string[] {
    const whole = fixture('failing-run');
    const cut = 7;
    const parts = [whole.results.slice(0, cut), whole.results.slice(cut)].map((results, i) => ({
      ...whole,
      results,
      shard: {
        index: i + 1,
        count: 2,
        plan_size: whole.results.length,
        positions: results.map((_, k) => k + (i === 0 ? 0 : cut)),
      },
    }));
    edit(parts);
    return parts.map(dirWith);
  }
  return { root, dirWith, shardDirs };
}

export const fixture = (name: string): RunReport =>
  JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as RunReport;

/** A passing report with one failed result the artefact itself marks as a known finding. */
export function forgedKnown(): RunReport {
  const r = fixture('passing-run');
  const failed: CheckResult = {
    ...r.results[0]!,
    status: 'failed',
    message: 'status 500 on a valid request',
    failures: [{ expected: 'status 201', actual: 'status 500' }],
    baseline: { known: true, kinds: ['status:5xx'], reason: 'accepted' },
  };
  return {
    ...r,
    results: [failed, ...r.results.slice(1)],
    summary: { ...r.summary, failed: 1, new_failures: 0, known: 1 },
    baseline: { file: 'baseline.yaml', entries: 1, known: 1, new_failures: 0, expired: 0, not_observed: [] },
  };
}

export interface Ran {
  code: number;
  out: string;
  err: string;
}

export async function vapc(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env, isTTY: false };
  const code = await main(args, io);
  return { code, out, err };
}

export interface Measured extends Ran {
  ms: number;
  rssMb: number;
}

const CHILD = join(process.cwd(), 'test', 'catalog', 'hostile', 'artefacts-child.ts');

/** Runs vapc in a child process (heap capped at 512 MB so a runaway ends there, not in the machine's memory). */
export async function vapcChild(args: string[]): Promise<Measured> {
  const run = promisify(execFile);
  try {
    const { stdout } = await run(
      process.execPath,
      ['--max-old-space-size=512', '--import', 'tsx', CHILD, JSON.stringify(args)],
      { timeout: 60_000, maxBuffer: 1 << 20 },
    );
    const r = JSON.parse(stdout) as { code: number; stdout: string; stderr: string; ms: number; rssMb: number };
    return { code: r.code, out: r.stdout, err: r.stderr, ms: r.ms, rssMb: r.rssMb };
  } catch (e) {
    const failure = e as { code?: number | string; signal?: string; stderr?: string };
    return {
      code: Number(failure.code ?? -1),
      out: '',
      err: `child died (${failure.signal ?? failure.code}): ${String(failure.stderr ?? '').slice(-300)}`,
      ms: Infinity,
      rssMb: Infinity,
    };
  }
}

/** Exit 2 with one line, not "internal error", matching `why`. */
export function expectRefused(r: Ran, why: RegExp): void {
  expect(r.code, r.err).toBe(2);
  expect(r.err.trimEnd().split('\n'), r.err).toHaveLength(1);
  expect(r.err).toMatch(/^vapc: .* \[E_(CONFIG|USAGE)\]\n$/);
  expect(r.err).not.toMatch(/internal error/);
  expect(r.err).toMatch(why);
}

/** No control character, no CR, no line a CI runner would read as a workflow command. */
export function expectInert(text: string): void {
  for (const line of text.split('\n')) {
    expect(hasControls(line), JSON.stringify(line)).toBe(false);
    expect(line, line).not.toMatch(/^\s*::/);
  }
}

// A loose bound: the point is "ends, and small" (on main a forged shard count ran 52 s to a V8 fatal at
// 1.5 GB). Memory only: a hang is the test's timeout, and no assertion reads the wall clock.
export const BIG = { rssMb: 300 };
