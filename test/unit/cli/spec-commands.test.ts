import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { packageRoot, packageVersion } from '../../../src/paths.js';

interface Captured {
  status: number;
  stdout: string;
  stderr: string;
}

async function vapc(...argv: string[]): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, isTTY: false };
  const status = await main(argv, io);
  return { status, stdout, stderr };
}

/** A stack trace line, as Node prints them. */
const STACK = /^\s+at .+\(.+:\d+:\d+\)$|^\s+at .+:\d+:\d+$/m;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vapc-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('vapc lint|build|docs: help and version', () => {
  it('--version prints the package version and exits 0', async () => {
    const run = await vapc('--version');
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(packageVersion());
  });

  it('--help lists lint, build and docs and exits 0', async () => {
    const run = await vapc('--help');
    expect(run.status).toBe(0);
    for (const command of ['lint', 'build', 'docs']) expect(run.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it.each(['lint', 'build', 'docs'])('%s --help shows the --spec option and exits 0', async (command) => {
    const run = await vapc(command, '--help');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Usage: vapc ${command}`);
    expect(run.stdout).toContain('--spec <file>');
  });

  it('an unknown option is a usage error: exit 2, message, no stack', async () => {
    const run = await vapc('lint', '--no-such-option');
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/unknown option/);
    expect(run.stderr).not.toMatch(STACK);
  });
});

describe('vapc lint', () => {
  it('exits 0 on the authored spec and says it is clean', async () => {
    const run = await vapc('lint');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/is clean/);
  });

  it('exits 1 and lists the findings of a spec that breaks a rule', async () => {
    const file = join(dir, 'no-429.yaml');
    const spec = await readFile(join(packageRoot, 'dist', 'openapi.yaml'), 'utf8').catch(() => '');
    expect(spec, 'dist/openapi.yaml exists (npm run build)').not.toBe('');
    // Drop the 429 of GET /health: the bundle keeps components, so only operation-429 trips.
    await writeFile(
      file,
      spec.replace(/(\/health:[\s\S]*?)\n {8}'429':\n {10}\$ref: '#\/components\/responses\/RateLimited'/, '$1'),
    );
    const run = await vapc('lint', '--spec', file);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/vapc\/operation-429/);
    expect(run.stdout).toMatch(/lint: \d+ error\(s\), 0 warning\(s\)/);
  });

  it.each([
    ['lint', []],
    ['build', []],
    ['docs', ['-o', 'out.html']],
  ])('vapc %s --spec missing.yaml: clear message, exit 2, no stack trace', async (command, extra) => {
    const run = await vapc(
      command,
      '--spec',
      join(dir, 'missing.yaml'),
      ...extra.map((a) => (a === 'out.html' ? join(dir, a) : a)),
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^vapc: cannot read the OpenAPI document .*missing\.yaml: no such file \[E_SPEC_UNREADABLE\]\n$/,
    );
    expect(run.stderr).not.toMatch(STACK);
    expect(run.stdout).toBe('');
  });

  it('a directory given as --spec is refused the same way', async () => {
    const run = await vapc('lint', '--spec', dir);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/E_SPEC_UNREADABLE/);
  });
});

describe('vapc docs', () => {
  it('writes the page where -o says and exits 0', async () => {
    const output = join(dir, 'docs', 'index.html');
    const run = await vapc('docs', '-o', output);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(output);
    expect(existsSync(output)).toBe(true);
  });
});

describe('bin/vapc.js as a process', () => {
  const bin = join(packageRoot, 'bin', 'vapc.js');
  const built = existsSync(join(packageRoot, 'dist', 'src', 'cli', 'main.js'));

  it.runIf(built)('lint --spec missing.yaml exits 2 with one line on stderr', () => {
    const run = spawnSync(process.execPath, [bin, 'lint', '--spec', 'missing.yaml'], { cwd: dir, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(join(dir, 'missing.yaml'));
    expect(run.stderr).not.toMatch(STACK);
  });

  it.runIf(built)('--version exits 0', () => {
    const run = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe(packageVersion());
  });
});
