/**
 * bin/vapc.js before the CLI loads: an older Node is told the version it needs (package.json's
 * engines), and a copy without dist/ says why it has none and what to do: a checkout is to be
 * built; a package npm installed from git with install scripts off (so its build, `prepare`, never
 * ran) gets the two ways out. Node 18 is simulated precisely where it matters to the launcher and the
 * bundle: `process.versions.node` says 18.20.8 and there is no global `File` (Node 20 added it;
 * without the guard the bundle dies on it: "internal error: File is not defined").
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';

const NODE_18 = `Object.defineProperty(process.versions, 'node', { value: '18.20.8' });\ndelete globalThis.File;\n`;
const engines = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { engines: { node: string } })
  .engines.node;

async function vapc(bin: string, args: string[], nodeArgs: string[] = []): Promise<{ status: number; stderr: string }> {
  try {
    const r = await promisify(execFile)(process.execPath, [...nodeArgs, bin, ...args], { timeout: 60_000 });
    return { status: 0, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stderr?: string };
    return { status: typeof err.code === 'number' ? err.code : -1, stderr: err.stderr ?? '' };
  }
}

/** A copy of the package's launcher (bin/, package.json) under `dir`, plus the given files. */
function launcherCopy(dir: string, extra: Record<string, string> = {}): string {
  mkdirSync(dir, { recursive: true });
  cpSync(join(packageRoot, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(packageRoot, 'package.json'), join(dir, 'package.json'));
  for (const [path, text] of Object.entries(extra)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return join(dir, 'bin', 'vapc.js');
}

describe('bin/vapc.js on an older Node', () => {
  it('names the Node version package.json requires and exits 2, before the CLI loads', async () => {
    const work = mkdtempSync(join(tmpdir(), 'vapc-node18-'));
    writeFileSync(join(work, 'node18.mjs'), NODE_18);
    const r = await vapc(
      join(packageRoot, 'bin', 'vapc.js'),
      ['run', '--embedded', '--dry-run'],
      ['--import', join(work, 'node18.mjs')],
    );
    expect(r.status).toBe(2);
    expect(engines).toBe('>=20.19.0');
    expect(r.stderr).toBe(
      'vapc: vapc needs Node.js 20.19.0 or later, and this is Node.js 18.20.8; install a newer Node.js (22 or 24) [E_USAGE]\n',
    );
  });

  it('lets the running Node (20.19 or later) through', async () => {
    const r = await vapc(join(packageRoot, 'bin', 'vapc.js'), ['--version']);
    expect(r).toEqual({ status: 0, stderr: '' });
  });
});

describe('bin/vapc.js without dist/ (a checkout not built yet: test/e2e/cli-bundle.test.ts)', () => {
  it('installed from git with scripts off: says what happened and the two ways out, on one line', async () => {
    // What npm installs from git with ignore-scripts: the package's `files` as they are in the
    // clone, without the dist/ its `prepare` would have built.
    const app = mkdtempSync(join(tmpdir(), 'vapc-scripts-off-'));
    const bin = launcherCopy(join(app, 'node_modules', 'voice-agent-contract'), { 'spec/openapi.yaml': '' });
    const r = await vapc(bin, ['--version']);
    expect(r.status).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^vapc: this copy of voice-agent-contract has no dist\/: /);
    expect(r.stderr).toContain('install scripts are off (ignore-scripts)');
    expect(r.stderr).toContain('npm install -D --ignore-scripts=false "<the same git URL>"');
    expect(r.stderr).toContain('install a release tarball, which carries dist/');
  });
});
