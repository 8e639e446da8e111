/**
 * Issue 32, the Action's part of attack 7: a committed `vapc-reports -> ../outside` symlink made the
 * Action delete and write outside the workspace, and `::add-mask::` data was not escaped, so a secret
 * holding `%25` or `%0A` masked another string than itself. The step runs here as GitHub runs it
 * (scripts/action.mjs with INPUT_* variables, GITHUB_WORKSPACE, GITHUB_OUTPUT and the step summary in
 * a temporary workspace); every case stops at the precheck, before vapc runs.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runActionStep } from '../../helpers/action-step.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'vapc-action-checkout-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A workspace beside a directory `outside` holding a report.json that must survive the step. */
function workspace(name: string): { dir: string; outside: string } {
  const dir = join(root, name, 'workspace');
  const outside = join(root, name, 'outside');
  mkdirSync(dir, { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'report.json'), '{"keep": true}');
  return { dir, outside };
}

const step = runActionStep;

describe('the report directory stays inside the workspace', () => {
  it(
    'a committed vapc-reports -> ../outside symlink: refused, nothing outside deleted or written',
    { timeout: 60_000 },
    async () => {
      const { dir, outside } = workspace('link');
      symlinkSync('../outside', join(dir, 'vapc-reports'));
      const r = await step(dir, {});
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        'vapc action: the input `report-dir` names vapc-reports, which is a symlink: name a real directory inside the workspace (a link could make the step write elsewhere)',
      );
      expect(readFileSync(join(outside, 'report.json'), 'utf8')).toBe('{"keep": true}');
      expect(r.stdout.split('\n').filter((l) => l.startsWith('::error'))).toHaveLength(1);
    },
  );

  it(
    'a report-dir under a symlinked directory (reports/latest with reports -> ../outside): refused',
    { timeout: 60_000 },
    async () => {
      const { dir, outside } = workspace('parent-link');
      symlinkSync('../outside', join(dir, 'reports'));
      const r = await step(dir, { INPUT_REPORT_DIR: 'reports' });
      expect(r.code).toBe(2);
      expect(readFileSync(join(outside, 'report.json'), 'utf8')).toBe('{"keep": true}');
      const nested = workspace('nested-link');
      symlinkSync('../outside', join(nested.dir, 'up'));
      const n = await step(nested.dir, { INPUT_REPORT_DIR: 'up/latest' });
      expect(n.code).toBe(2);
      expect(n.stderr).toMatch(/names up\/latest, which leads outside the workspace \(symlinks resolved\)/);
      expect(existsSync(join(nested.outside, 'latest'))).toBe(false);
    },
  );
});

describe('::add-mask:: data is escaped', () => {
  it('a secret holding %0A and %25 masks itself, not another string', { timeout: 60_000 }, async () => {
    const { dir } = workspace('mask');
    const r = await step(dir, {
      INPUT_API_KEY: 'key%0Apart-%25-end',
      INPUT_USER_ID: 'user\r%0D',
      // A baseline that does not exist stops the step at the precheck, after the masks.
      INPUT_BASELINE: 'missing.yaml',
    });
    expect(r.code).toBe(2);
    const masks = r.stdout.split('\n').filter((l) => l.startsWith('::add-mask::'));
    // The runner unescapes %25 to % and %0A to a line break: these read back as the secret itself.
    expect(masks).toEqual(['::add-mask::key%250Apart-%2525-end', '::add-mask::user', '::add-mask::%250D']);
  });
});
