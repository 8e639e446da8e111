/**
 * Issue 32, attack 2 and the `--help`/`-V` part of attack 7: revisions and paths never mix. A pull
 * request that commits a directory named like the base revision (`origin/main/`, `base/`, a copy
 * of its own spec) made `vapc diff origin/main HEAD` print "no changes" and `vapc run
 * --changed-since base` drop the changed operation; `vapc diff --help HEAD` and `vapc diff HEAD -V`
 * exited 0 with no diff at all. Each is now exit 2 with one line naming what is ambiguous.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { runCommand } from '../../../src/cli/commands/run.js';

let repo: string;

const doc = (maximum: number) =>
  JSON.stringify({
    openapi: '3.1.0',
    info: { title: 't', version: '1.0.0' },
    paths: {
      '/campaign': {
        post: {
          requestBody: {
            content: {
              'application/json': {
                schema: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum } } },
              },
            },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
  });

function git(args: string[]): string {
  const r = spawnSync(
    'git',
    ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args],
    { cwd: repo, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

async function vapc(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, isTTY: false };
  const cwd = process.cwd();
  process.chdir(repo);
  try {
    return { code: await main(argv, io), stdout, stderr };
  } finally {
    process.chdir(cwd);
  }
}

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'vapc-revisions-'));
  mkdirSync(join(repo, 'spec'));
  writeFileSync(join(repo, 'spec', 'openapi.json'), doc(200));
  git(['init', '-q', '-b', 'main']);
  git(['add', '.']);
  git(['commit', '-qm', 'base']);
  git(['update-ref', 'refs/remotes/origin/main', 'HEAD']);
  git(['tag', 'base']);
  // The pull request: a breaking change (maximum 200 -> 5), and copies of its own spec committed
  // under the names of the base revision.
  writeFileSync(join(repo, 'spec', 'openapi.json'), doc(5));
  for (const name of ['origin/main', 'base']) {
    mkdirSync(join(repo, name), { recursive: true });
    cpSync(join(repo, 'spec', 'openapi.json'), join(repo, name, 'openapi.json'));
  }
  git(['add', '.']);
  git(['commit', '-qm', 'head']);
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('attack 2: a directory named like the base revision', () => {
  it('vapc diff origin/main HEAD: refused naming the path and the revision (no "no changes", exit 0)', async () => {
    const r = await vapc(['diff', 'origin/main', 'HEAD']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /"origin\/main" names both a path \(.*origin\/main\) and a git revision \(commit [0-9a-f]{12}\): write \.\/origin\/main for the path, or refs\/remotes\/origin\/main or [0-9a-f]{12} for the revision/,
    );
  });

  it('the revision spelled unambiguously is diffed: the breaking change is found (exit 1)', async () => {
    const r = await vapc(['diff', 'refs/remotes/origin/main', 'HEAD']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/maximum/);
    // ./origin/main is the committed copy: no change, as asked.
    expect((await vapc(['diff', './origin/main', 'HEAD'])).code).toBe(0);
  });

  it('vapc run --changed-since base: refused before any request (the changed operation is not dropped)', async () => {
    const io: CliIo = { stdout: () => undefined, stderr: () => undefined, env: {}, isTTY: false };
    const cwd = process.cwd();
    process.chdir(repo);
    try {
      await expect(
        runCommand(
          { baseUrl: 'http://127.0.0.1:9', changedSince: 'base', dryRun: true, seed: '1', config: false },
          io,
          { cwd: repo },
        ),
      ).rejects.toThrow(/"base" names both a path .* and a git revision/);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe('attack 7: options in the place of revisions', () => {
  it('vapc diff --help HEAD: exit 2, no help printed as if the gate had passed', async () => {
    const r = await vapc(['diff', '--help', 'HEAD']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--help takes no other argument/);
  });

  it('vapc diff HEAD -V: exit 2, no version printed', async () => {
    const r = await vapc(['diff', 'HEAD', '-V']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/-V takes no other argument/);
  });

  it('vapc run --changed-since -V: exit 2', async () => {
    const r = await vapc(['run', '--base-url', 'http://127.0.0.1:9', '--changed-since', '-V']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('-- ends options: the revisions after it are diffed; help and version alone still work', async () => {
    const r = await vapc(['diff', '--', 'refs/remotes/origin/main', 'HEAD']);
    expect(r.code).toBe(1);
    expect((await vapc(['diff', '--help'])).code).toBe(0);
    expect((await vapc(['report', 'merge', '--help'])).code).toBe(0);
    const version = await vapc(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')).version,
    );
  });
});
