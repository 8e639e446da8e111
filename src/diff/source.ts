import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { VapcError } from '../errors.js';
import { loadDocument } from '../spec/load.js';
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

const ROOT_NAMES = ['openapi.yaml', 'openapi.yml', 'openapi.json', join('spec', 'openapi.yaml'), join('dist', 'openapi.json')];

function rootInDirectory(dir: string): string {
  for (const name of ROOT_NAMES) if (existsSync(join(dir, name))) return join(dir, name);
  throw new VapcError('E_USAGE', `${dir} holds no OpenAPI document (looked for ${ROOT_NAMES.join(', ')})`);
}

function git(args: string[], cwd: string): { status: number; stdout: string; stderr: string } {
  const run = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (run.error) throw new VapcError('E_USAGE', `cannot run git: ${run.error.message}`);
  return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr };
}

/** Materialises `spec/` of a git revision into a temporary directory (git archive | tar -x). */
function fromRevision(rev: string, repo: string): { dir: string; root: string } {
  if (rev.startsWith('-')) throw new VapcError('E_USAGE', `${rev} is neither a file nor a git revision`);
  const top = git(['rev-parse', '--show-toplevel'], repo);
  if (top.status !== 0) throw new VapcError('E_USAGE', `${rev} is not a file, and ${repo} is not a git repository to read a revision from`);
  const toplevel = top.stdout.trim();
  if (git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], toplevel).status !== 0) {
    throw new VapcError('E_USAGE', `${rev} is neither a file, a directory nor a git revision of ${toplevel}`);
  }
  const specDir = relative(toplevel, resolve(repo, 'spec')) || 'spec';
  const dir = mkdtempSync(join(tmpdir(), 'vapc-diff-'));
  const tar = join(dir, 'spec.tar');
  const archive = git(['archive', '--format=tar', `--output=${tar}`, rev, '--', specDir], toplevel);
  if (archive.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new VapcError('E_USAGE', `revision ${rev} has no ${specDir}/: ${archive.stderr.trim().split('\n')[0] ?? ''}`);
  }
  const untar = spawnSync('tar', ['-xf', tar, '-C', dir], { encoding: 'utf8' });
  if (untar.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new VapcError('E_TOOL_FAILED', `cannot unpack ${rev}:${specDir}: ${untar.stderr}`);
  }
  return { dir, root: rootInDirectory(join(dir, specDir)) };
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
  if (typeof doc['openapi'] !== 'string' || !doc['openapi'].startsWith('3.')) fail('`openapi` must be a 3.x version string');
  if (!isObj(doc['info']) || typeof doc['info']['version'] !== 'string') fail('`info.version` must be a string');
  if (doc['paths'] !== undefined && !isObj(doc['paths'])) fail('`paths` must be an object');
  for (const [path, item] of Object.entries(isObj(doc['paths']) ? doc['paths'] : {})) {
    if (!isObj(item)) fail(`paths.${path} must be an object`);
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      const op = (item as JsonObject)[method];
      if (op !== undefined && (!isObj(op) || (op['responses'] !== undefined && !isObj(op['responses'])))) fail(`${method.toUpperCase()} ${path} must be an operation object`);
    }
  }
}

/**
 * Loads BASE or HEAD of `vapc diff`: a spec file (the authored split spec or a bundle), a directory
 * holding one, or a git revision of this repository's spec/. The document is validated and
 * dereferenced (src/spec/load.ts); any failure is a VapcError that the CLI maps to exit 2.
 */
export async function loadSpecSource(arg: string, repo: string): Promise<SpecSource> {
  const path = resolve(repo, arg);
  let rootFile: string;
  let temp: string | undefined;
  if (existsSync(path)) {
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
    const document = (await loadDocument({ path: rootFile, validateSchema: false })) as unknown as JsonObject;
    assertShape(document, arg);
    const displayPath = (file: string) => (temp ? relative(temp, file) : relative(repo, file) || file);
    return { label: arg, document, rootFile, displayPath, dispose };
  } catch (error) {
    dispose();
    if (error instanceof VapcError) throw new VapcError('E_SPEC_INVALID', `${arg}: ${error.message}`, { cause: error });
    throw error;
  }
}
