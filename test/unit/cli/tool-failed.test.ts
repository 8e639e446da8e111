/**
 * A fault of the tool itself (E_TOOL_FAILED: a malformed check registry, a missing precompiled
 * validator, Redocly that cannot run, a file of a revision git cannot read) exits 2 like an
 * internal error, never 1: exit 1 says "a check failed" (under `vapc diff`, "a breaking change"),
 * and a CI gate must not read the tool's fault as a verdict on the server or the spec.
 * Here `vapc diff` reads a git revision whose spec file's object is damaged.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';

const repo = mkdtempSync(join(tmpdir(), 'vapc-tool-failed-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const git = (...args: string[]) => {
  const run = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
};

describe('vapc: a fault of the tool', () => {
  it('exits 2 with one line naming it and its code, not 1 (a failed check, a breaking change)', async () => {
    // A spec file whose object git can size (ls-tree) but not read (cat-file): its tail is cut off.
    mkdirSync(join(repo, 'spec'));
    const filler = Array.from({ length: 20_000 }, (_, i) => ((i * 7919) % 100_003).toString(36)).join('');
    writeFileSync(join(repo, 'spec', 'openapi.yaml'), `openapi: 3.1.0\n# ${filler}\n`);
    git('init', '-q');
    git('add', 'spec');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'spec');
    const blob = git('rev-parse', 'HEAD:spec/openapi.yaml');
    const object = join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2));
    const stored = readFileSync(object);
    rmSync(object);
    writeFileSync(object, stored.subarray(0, stored.length >> 1));

    let out = '';
    const io: CliIo = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), env: {}, isTTY: false };
    const cwd = process.cwd();
    process.chdir(repo);
    let status: number;
    try {
      status = await main(['diff', 'HEAD', 'spec/openapi.yaml'], io);
    } finally {
      process.chdir(cwd);
    }
    expect(out).toBe('vapc: cannot read spec/openapi.yaml of HEAD [E_TOOL_FAILED]\n');
    expect(status).toBe(2);
  });
});
