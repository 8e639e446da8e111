import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { VapcError } from '../errors.js';
import { printable } from '../results/printable.js';
import { loadDocument, SPEC_LIMITS } from '../spec/load.js';
import type { JsonObject } from './types.js';

/** One side of a diff, loaded: the dereferenced document and where its authored source is. */
export interface SpecSource {
  /** The argument as given (a path or a git revision). */
  label: string;
  document: JsonObject;
  /** The root file of the authored document (with $refs), for locating lines. */
  rootFile: string;
  /** Turns a file under the loaded copy into the path to show (a git revision's copy maps back to spec/...). */
  displayPath: (file: string) => string;
  /** Removes the temporary copy of a git revision, if any. */
  dispose: () => void;
}

const ROOT_NAMES = [
  'openapi.yaml',
  'openapi.yml',
  'openapi.json',
  join('spec', 'openapi.yaml'),
  join('dist', 'openapi.json'),
];

function rootInDirectory(dir: string): string {
  for (const name of ROOT_NAMES) if (existsSync(join(dir, name))) return join(dir, name);
  throw new VapcError('E_USAGE', `${dir} holds no OpenAPI document (looked for ${ROOT_NAMES.join(', ')})`);
}

function git(args: string[], cwd: string): { status: number; stdout: string; stderr: string } {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (run.error) throw new VapcError('E_USAGE', `cannot run git: ${run.error.message}`);
  return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr };
}

/** At most this many files, and this many bytes in all, are copied out of a git revision. */
const MAX_REVISION_FILES = 1000;
const MAX_REVISION_BYTES = 64 * 1024 * 1024;

interface TreeEntry {
  mode: string;
  object: string;
  size: number;
  path: string;
}

/** The entries of `rev:specDir`, recursively (`git ls-tree -r -l -z`). */
function treeEntries(rev: string, specDir: string, toplevel: string): TreeEntry[] {
  const run = spawnSync('git', ['ls-tree', '-r', '-l', '-z', rev, '--', `${specDir}/`], {
    cwd: toplevel,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.error || run.status !== 0) return [];
  const entries: TreeEntry[] = [];
  for (const record of run.stdout.split('\0')) {
    const m = /^(\d+) (\w+) ([0-9a-f]+)\s+(-|\d+)\t(.+)$/s.exec(record);
    if (m) entries.push({ mode: m[1]!, object: m[3]!, size: m[4] === '-' ? 0 : Number(m[4]), path: m[5]! });
  }
  return entries;
}

/**
 * Materialises `spec/` of a git revision into a temporary directory. Only regular files are
 * copied (blob by blob, each within the caps): a symlink or submodule committed in the revision
 * is left out, so it cannot point the loader at a file of this machine.
 */
function fromRevision(rev: string, repo: string): { dir: string; root: string } {
  if (rev.startsWith('-')) throw new VapcError('E_USAGE', `${printable(rev)} is neither a file nor a git revision`);
  const top = git(['rev-parse', '--show-toplevel'], repo);
  if (top.status !== 0)
    throw new VapcError(
      'E_USAGE',
      `${printable(rev)} is not a file, and ${repo} is not a git repository to read a revision from`,
    );
  const toplevel = top.stdout.trim();
  if (git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], toplevel).status !== 0) {
    throw new VapcError(
      'E_USAGE',
      `${printable(rev)} is neither a file, a directory nor a git revision of ${toplevel}`,
    );
  }
  const specDir = (relative(toplevel, resolve(repo, 'spec')) || 'spec').split(sep).join('/');
  const entries = treeEntries(rev, specDir, toplevel).filter((e) => e.mode === '100644' || e.mode === '100755');
  if (entries.length === 0) throw new VapcError('E_USAGE', `revision ${printable(rev)} has no ${specDir}/`);
  const total = entries.reduce((n, e) => n + e.size, 0);
  if (
    entries.length > MAX_REVISION_FILES ||
    total > MAX_REVISION_BYTES ||
    entries.some((e) => e.size > SPEC_LIMITS.maxFileBytes)
  ) {
    throw new VapcError(
      'E_SPEC_REFUSED',
      `${printable(rev)}:${specDir}/ is larger than a spec may be (${entries.length} files, ${total} bytes)`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'vapc-diff-'));
  try {
    for (const entry of entries) {
      const target = resolve(dir, entry.path);
      if (!target.startsWith(dir + sep)) continue;
      const blob = spawnSync('git', ['cat-file', 'blob', entry.object], {
        cwd: toplevel,
        maxBuffer: SPEC_LIMITS.maxFileBytes + 1,
      });
      if (blob.status !== 0)
        throw new VapcError('E_TOOL_FAILED', `cannot read ${printable(entry.path)} of ${printable(rev)}`);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, blob.stdout);
    }
    return { dir, root: rootInDirectory(join(dir, specDir)) };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** An argument written as a path: `./x`, `../x` or absolute. No git revision is spelled so. */
const writtenAsPath = (arg: string): boolean => /^\.{1,2}(?:[/\\]|$)/.test(arg) || isAbsolute(arg);

/**
 * An argument that names both an existing path and a git revision is refused, naming both: a pull
 * request that commits a directory `origin/main/` (its own spec) must not stand in for the base
 * revision. `./origin/main` names the path; the revision's full name or commit names the revision.
 */
function refuseAmbiguous(arg: string, path: string, repo: string): void {
  if (writtenAsPath(arg) || arg.startsWith('-')) return;
  const verify = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${arg}^{commit}`], {
    cwd: repo,
    encoding: 'utf8',
  });
  if (verify.error || verify.status !== 0) return;
  const commit = verify.stdout.trim().slice(0, 12);
  const full = spawnSync('git', ['rev-parse', '--symbolic-full-name', arg], {
    cwd: repo,
    encoding: 'utf8',
  }).stdout?.trim();
  const revision = full && full !== arg ? `${printable(full)} or ${commit}` : commit;
  throw new VapcError(
    'E_USAGE',
    `"${printable(arg)}" names both a path (${printable(path)}) and a git revision (commit ${commit}): write ./${printable(arg)} for the path, or ${revision} for the revision`,
  );
}

const isObj = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The members the comparison reads, checked for shape. Full meta-schema validation is skipped for
 * speed (it is `vapc lint`'s job); a document that is not an OpenAPI 3 description still fails here.
 */
function assertShape(doc: JsonObject, arg: string): void {
  const fail = (what: string) => {
    throw new VapcError('E_SPEC_INVALID', `${arg}: not an OpenAPI 3 document: ${what}`);
  };
  if (typeof doc['openapi'] !== 'string' || !doc['openapi'].startsWith('3.'))
    fail('`openapi` must be a 3.x version string');
  if (!isObj(doc['info']) || typeof doc['info']['version'] !== 'string') fail('`info.version` must be a string');
  if (doc['paths'] !== undefined && !isObj(doc['paths'])) fail('`paths` must be an object');
  for (const [path, item] of Object.entries(isObj(doc['paths']) ? doc['paths'] : {})) {
    if (!isObj(item)) fail(`paths.${path} must be an object`);
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      const op = (item as JsonObject)[method];
      if (op !== undefined && (!isObj(op) || (op['responses'] !== undefined && !isObj(op['responses']))))
        fail(`${method.toUpperCase()} ${path} must be an operation object`);
    }
  }
}

/**
 * Loads BASE or HEAD of `vapc diff`: a spec file (the authored split spec or a bundle), a directory
 * holding one, or a git revision of this repository's spec/. The document is validated and
 * dereferenced (src/spec/load.ts); any failure is a VapcError that the CLI maps to exit 2.
 */
export async function loadSpecSource(
  arg: string,
  repo: string,
  options: { allowRefHosts?: readonly string[] } = {},
): Promise<SpecSource> {
  const path = resolve(repo, arg);
  let rootFile: string;
  let temp: string | undefined;
  if (existsSync(path)) {
    refuseAmbiguous(arg, path, repo);
    rootFile = statSync(path).isDirectory() ? rootInDirectory(path) : path;
  } else {
    const copy = fromRevision(arg, repo);
    temp = copy.dir;
    rootFile = copy.root;
  }
  const dispose = () => {
    if (temp) rmSync(temp, { recursive: true, force: true });
  };
  try {
    const document = (await loadDocument({
      path: rootFile,
      validateSchema: false,
      ...(options.allowRefHosts ? { allowRefHosts: options.allowRefHosts } : {}),
    })) as unknown as JsonObject;
    assertShape(document, arg);
    const displayPath = (file: string) => (temp ? relative(temp, file) : relative(repo, file) || file);
    return { label: arg, document, rootFile, displayPath, dispose };
  } catch (error) {
    dispose();
    if (error instanceof VapcError)
      throw new VapcError(
        error.code === 'E_SPEC_REFUSED' ? error.code : 'E_SPEC_INVALID',
        `${printable(arg)}: ${error.message}`,
        { cause: error },
      );
    throw error;
  }
}
