// A consumer project with the packed tarball unpacked as node_modules/voice-agent-contract, its
// dependencies linked from this repository's node_modules and its bin linked into node_modules/.bin
// from the packed package.json: the package's own files are exactly what `npm pack` ships, and
// nothing is fetched. (`npm install --offline <tarball>` needs registry metadata that the npm cache
// of a fresh `npm ci` does not hold: it failed with ENOTCACHED on a fresh clone.)
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { writeConsumerProject as writeProject } from '../../scripts/consumer-project.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
export const PACKAGE = 'voice-agent-contract';

export interface PackedConsumer {
  /** The consumer project (has package.json with type module). */
  dir: string;
  /** Every path npm pack put in the tarball, relative to the package root. */
  files: string[];
}

/** Packs this repository into `work` and builds a consumer project at `work/consumer`. */
export function consumerWithTarball(work: string): PackedConsumer {
  const packed = execFileSync(npm, ['pack', '--json', '--pack-destination', work], {
    cwd: packageRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const info = (JSON.parse(packed) as { filename: string; files: { path: string }[] }[])[0];
  if (!info) throw new Error('npm pack printed nothing');
  const dir = join(work, 'consumer');
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  execFileSync('tar', ['-xzf', join(work, info.filename), '-C', work]);
  const installed = join(modules, PACKAGE);
  renameSync(join(work, 'package'), installed);
  for (const entry of readdirSync(join(packageRoot, 'node_modules'))) {
    if (entry.startsWith('.') || entry === PACKAGE) continue;
    symlinkSync(join(packageRoot, 'node_modules', entry), join(modules, entry), 'dir');
  }
  linkBins(installed, join(modules, '.bin'));
  return { dir, files: info.files.map((f) => f.path) };
}

/** What npm does with the packed package.json's `bin`: a link per command, its target made executable. */
function linkBins(installed: string, binDir: string): void {
  const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bins = typeof manifest.bin === 'string' ? { [PACKAGE]: manifest.bin } : (manifest.bin ?? {});
  for (const [name, target] of Object.entries(bins)) {
    const file = join(installed, target);
    chmodSync(file, 0o755);
    symlinkSync(relative(binDir, file), join(binDir, name));
  }
}

/** Packs a package folder (this repository by default) into `work`; returns the tarball's path. */
export function pack(work: string, folder: string = packageRoot): string {
  const packed = execFileSync(npm, ['pack', '--json', '--pack-destination', work, folder], {
    cwd: packageRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const info = (JSON.parse(packed) as { filename: string }[])[0];
  if (!info) throw new Error('npm pack printed nothing');
  return join(work, info.filename);
}

/**
 * A consumer project at `dir` depending on this package as `spec` (a tarball path or a git URL),
 * its lockfile made from this repository's (scripts/consumer-project.mjs): `npm ci --offline` there
 * installs every dependency from the npm cache.
 */
export function writeConsumerProject(dir: string, spec: string, resolved: string = spec): void {
  writeProject(dir, spec, { lockfile: join(packageRoot, 'package-lock.json'), resolved });
}

/** Runs a command in a consumer project to its end: its exit status and its stdout and stderr together. */
export function runIn(command: string, args: string[], cwd: string): { status: number | null; out: string } {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

/**
 * Registers, for the calling test file, one packed consumer project (consumerWithTarball) made
 * before its tests and removed after them. Needs `npm run build` first.
 */
export function packedConsumerOnce(): () => PackedConsumer {
  let work: string | undefined;
  let consumer: PackedConsumer | undefined;
  beforeAll(() => {
    if (!existsSync(join(packageRoot, 'dist', 'src', 'index.js')))
      throw new Error('dist/ is missing: run `npm run build` first');
    work = mkdtempSync(join(tmpdir(), 'vapc-pack-'));
    consumer = consumerWithTarball(work);
  }, 120_000);
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });
  return () => consumer!;
}
