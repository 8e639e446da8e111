// Is the build up to date? `npm ci` builds once (prepare) and `npm test` would build again
// (pretest) from the same sources: about 12 s of a CI run spent on a result already on disk.
// The stamp records a hash of everything the build reads and of everything it writes; the build is
// skipped only when both still match, so an edited source, a new git tag (the changelog reads them),
// an upgraded tool (the lockfile) or a deleted or hand-edited output all rebuild.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** What the build reads: folders (walked) and single files, relative to the package root. */
export const BUILD_INPUTS = [
  'bin',
  'spec',
  'src',
  'suites',
  'scripts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'redocly.yaml',
];
/** What the build writes. `src/generated` is both: written by the build, so not an input. */
export const BUILD_OUTPUTS = ['dist', 'src/generated'];
export const STAMP_FILE = 'dist/.build-stamp.json';

const NOT_INPUTS = new Set(['src/generated']);
const NOT_OUTPUTS = new Set([STAMP_FILE]);

function filesUnder(root: string, entry: string, skip: ReadonlySet<string>): string[] {
  const path = join(root, entry);
  if (skip.has(entry) || !existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [entry];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(root, relative(root, join(path, name)).split(sep).join('/'), skip));
}

/** One hash over the names and contents of the files under `entries` (a missing entry counts as empty). */
export function hashFiles(
  root: string,
  entries: readonly string[],
  skip: ReadonlySet<string> = new Set(),
  extra = '',
): string {
  const hash = createHash('sha256').update(extra);
  for (const file of entries.flatMap((e) => filesUnder(root, e, skip))) {
    hash.update(`\0${file}\0`).update(readFileSync(join(root, file)));
  }
  return hash.digest('hex');
}

/** The git tags and the commits they name: the changelog page is built from them. */
function gitTags(root: string): string {
  const run = spawnSync('git', ['show-ref', '--tags'], { cwd: root, encoding: 'utf8' });
  return run.status === 0 ? run.stdout : '';
}

export interface BuildStamp {
  inputs: string;
  outputs: string;
}

export const inputsHash = (root: string): string =>
  hashFiles(root, BUILD_INPUTS, NOT_INPUTS, `node ${process.versions.node.split('.')[0]}\n${gitTags(root)}`);
export const outputsHash = (root: string): string => hashFiles(root, BUILD_OUTPUTS, NOT_OUTPUTS);

/** Why the build must run, or undefined when the outputs on disk were built from these inputs. */
export function staleBecause(root: string): string | undefined {
  const file = join(root, STAMP_FILE);
  if (!existsSync(file)) return 'no earlier build';
  let stamp: Partial<BuildStamp>;
  try {
    stamp = JSON.parse(readFileSync(file, 'utf8')) as Partial<BuildStamp>;
  } catch {
    return 'the build stamp is unreadable';
  }
  if (stamp.inputs !== inputsHash(root)) return 'sources changed since the last build';
  if (stamp.outputs !== outputsHash(root)) return 'the built files changed since the last build';
  return undefined;
}

/** Records that the outputs now on disk were built from the inputs now on disk. */
export function writeStamp(root: string): void {
  const stamp: BuildStamp = { inputs: inputsHash(root), outputs: outputsHash(root) };
  writeFileSync(join(root, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
}
