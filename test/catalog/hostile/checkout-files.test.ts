/**
 * Issue 32, attack 3 and the /dev/zero part of attack 7: one reader for every file the checkout
 * controls. A `.vapc.yaml` committed as a symlink to /proc/self/environ was read (statSync follows
 * links) and the config error quoted it: DATABASE_URL and AWS keys in clear on stderr, and through
 * the Action's `config` input in its annotation and step summary. `--config /dev/zero` and
 * `--baseline /dev/zero` read ~630 MB before failing; the Action's precheck took a character device
 * for a file; a report.json linking out of the checkout was read too.
 *
 * The cases that could read this process's environment or exhaust memory run in one child process
 * (spec-child.ts) whose environment holds the markers the test looks for, and whose peak RSS and
 * time are bounded.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionStep } from '../../helpers/action-step.js';
import { runCliChild, type ChildRun } from '../../helpers/cli-child.js';

const DATABASE_URL = 'postgres://app:Pg-marker-5tR8q2Lw@db.internal:5432/app';
const AWS_ACCESS_KEY_ID = 'AKIAMARKER7Q2W4E6R8T';
const MARKERS = ['Pg-marker-5tR8q2Lw', AWS_ACCESS_KEY_ID];

type Run = ChildRun;

let tmp: string;
let child: { results: Run[]; maxRssKb: number };
const result = (name: string): Run => {
  const r = child.results.find((x) => x.name === name);
  if (!r) throw new Error(`no result for ${name}`);
  return r;
};

/** Exit 2, one line on stderr naming the file and the rule, nothing of the environment (a hang is the test's timeout). */
function expectRefused(run: Run, rule: RegExp): void {
  expect(run.status, run.stderr).toBe(2);
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(run.stderr).toMatch(rule);
  for (const marker of MARKERS) expect(run.stdout + run.stderr).not.toContain(marker);
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'vapc-checkout-files-'));
  // A checkout whose .vapc.yaml is a symlink to this process's environment.
  const environ = join(tmp, 'environ');
  mkdirSync(environ);
  symlinkSync('/proc/self/environ', join(environ, '.vapc.yaml'));
  // A report artefact whose report.json links out of the checkout.
  const artefact = join(tmp, 'artefact');
  mkdirSync(join(artefact, 'reports'), { recursive: true });
  symlinkSync('/proc/self/environ', join(artefact, 'reports', 'report.json'));
  mkdirSync(join(artefact, 'shard'), { recursive: true });
  writeFileSync(join(tmp, 'outside.json'), '{}');
  symlinkSync(join(tmp, 'outside.json'), join(artefact, 'shard', 'report.json'));
  const run = ['run', '--base-url', 'http://127.0.0.1:9', '--seed', '1'];
  child = await runCliChild(
    [
      { name: 'found .vapc.yaml', argv: run, cwd: environ },
      { name: '--config .vapc.yaml', argv: [...run, '--config', '.vapc.yaml'], cwd: environ },
      {
        name: 'under the Action',
        argv: [...run, '--config', '.vapc.yaml'],
        cwd: environ,
        env: { VAPC_ACTION: 'true', GITHUB_ACTIONS: 'true', CI: 'true' },
      },
      { name: '--config /dev/zero', argv: [...run, '--config', '/dev/zero'], cwd: tmp },
      { name: '--baseline /dev/zero', argv: [...run, '--no-config', '--baseline', '/dev/zero'], cwd: tmp },
      { name: 'vapc report', argv: ['report', 'reports'], cwd: artefact },
      {
        name: 'vapc report merge',
        argv: ['report', 'merge', 'reports', 'shard', '--report-dir', 'out'],
        cwd: artefact,
      },
    ],
    { DATABASE_URL, AWS_ACCESS_KEY_ID },
  );
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('attack 3: a .vapc.yaml committed as a symlink to /proc/self/environ', () => {
  it('found in the working directory: refused, the file and the rule named, the environment never printed', () =>
    expectRefused(
      result('found .vapc.yaml'),
      /config file \.vapc\.yaml: refused: it leads outside .* \(symlinks resolved\)/,
    ));
  it('named with --config: refused the same way', () =>
    expectRefused(result('--config .vapc.yaml'), /config file \.vapc\.yaml: refused: it leads outside/));
  it('under the Action (its `config` input): the one line the Action turns into its annotation holds nothing of it', () =>
    expectRefused(result('under the Action'), /config file \.vapc\.yaml: refused/));
});

describe('attack 3: report artefacts that link out of the checkout', () => {
  it('vapc report: report.json -> /proc/self/environ is refused, not read', () =>
    expectRefused(result('vapc report'), /report\.json: refused: it leads outside/));
  it('vapc report merge: a shard whose report.json links elsewhere is refused', () =>
    expectRefused(result('vapc report merge'), /report\.json: refused: it leads outside/));
});

describe('attack 7: /dev/zero as a config or baseline file', () => {
  it('--config /dev/zero: refused before any read', () =>
    expectRefused(
      result('--config /dev/zero'),
      /config file \/dev\/zero: refused: a kernel or device file is never read/,
    ));
  it('--baseline /dev/zero: refused before any read', () =>
    expectRefused(result('--baseline /dev/zero'), /baseline file \/dev\/zero: refused: a kernel or device file/));
  it('all of it in well under 200 MB of memory', () =>
    expect(child.maxRssKb, `peak RSS ${Math.round(child.maxRssKb / 1024)} MB`).toBeLessThan(200 * 1024));
});

describe("attack 7: the Action's precheck takes no character device for a file", () => {
  const action = (inputs: Record<string, string>) =>
    runActionStep(mkdtempSync(join(tmp, 'action-')), { INPUT_REPORT_DIR: 'reports', ...inputs });

  for (const input of ['baseline', 'config'] as const) {
    it(
      `the input \`${input}\` naming /dev/zero: refused before vapc runs, naming the input`,
      { timeout: 60_000 },
      async () => {
        const r = await action({ [`INPUT_${input.toUpperCase()}`]: '/dev/zero' });
        expect(r.code).toBe(2);
        expect(r.stderr.trim()).toBe(
          `vapc action: the input \`${input}\` names /dev/zero, which is not a regular file (a device, FIFO or socket): name the YAML file`,
        );
        expect(r.stdout.split('\n').filter((l) => l.startsWith('::error'))).toHaveLength(1);
      },
    );
  }
});
