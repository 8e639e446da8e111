/**
 * The files of a spec, read as untrusted input (issue 20). A spec is confined to its own folder:
 * the root file and every file a `$ref` names must be regular files inside the root's directory
 * after realpath (symlinks resolved), each read with a size cap, parsed with caps on YAML alias
 * expansion, nesting and node count. No `$ref` is fetched from the network unless its host is
 * named in `allowRefHosts` (`--allow-ref-host`), and even then never from a loopback, private,
 * link-local or unspecified address, and never through a redirect.
 *
 * A refusal is a `VapcError('E_SPEC_REFUSED')` whose message names the `$ref` as written (made
 * printable and cut) and never quotes what the target holds: parse errors are reported by kind
 * and position only.
 */
import { statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Lexer } from 'yaml';
import { parseSpecYaml } from './yaml.js';
import { VapcError } from '../errors.js';
import { isInside, readCheckoutFile, realpathOf } from '../files/checkout.js';
import { fetchRef, refused, shown } from './remote.js';

/** The caps of one load; every one is a one-line refusal (exit 2) when passed. */
export interface SpecLimits {
  /** Bytes per spec file (4 MiB; the authored files are at most 32 KB, the bundle 84 KB). */
  maxFileBytes: number;
  /** YAML tokens per file, counted by the lexer before anything is built (200,000; the whole authored spec has 10,000). */
  maxYamlTokens: number;
  /** Files in one spec, root included (1000). */
  maxFiles: number;
  /** YAML alias expansion, as the `yaml` package counts it (`maxAliasCount`, 100). */
  maxAliases: number;
  /** Nesting of objects and arrays in one file (128). */
  maxDepth: number;
  /** Objects, arrays and scalars in all files together, and in the document once dereferenced (500,000). */
  maxNodes: number;
}

export const SPEC_LIMITS: SpecLimits = {
  maxFileBytes: 4 * 1024 * 1024,
  maxYamlTokens: 200_000,
  maxFiles: 1000,
  maxAliases: 100,
  maxDepth: 128,
  maxNodes: 500_000,
};

export interface ReadSpecOptions {
  /** Hosts whose http(s) `$ref`s may be fetched (`--allow-ref-host`); none by default. */
  allowRefHosts?: readonly string[];
  limits?: Partial<SpecLimits>;
}

/** Every file of a spec, parsed: keyed by absolute path (local) or URL (allowed remote). */
export interface SpecFiles {
  root: string;
  /** The confining directory (the root's directory after realpath). */
  folder: string;
  files: Map<string, unknown>;
}

/** Reads one file of a spec, inside `folder`, with the one reader of checkout files (src/files/checkout.ts). */
function readSpecFile(file: string, max: number, what: string, folder: string): string {
  return readCheckoutFile(file, {
    label: what,
    maxBytes: max,
    capOf: 'a spec file',
    code: 'E_SPEC_REFUSED',
    missingCode: 'E_SPEC_UNREADABLE',
    within: folder,
  });
}

/** Counts nodes and checks nesting of a parsed value (iteratively: a deep file cannot overflow the stack). */
function measure(value: unknown, what: string, limits: SpecLimits, counted: { nodes: number }): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (++counted.nodes > limits.maxNodes)
      throw new VapcError('E_SPEC_REFUSED', `${what}: more than ${limits.maxNodes} nodes in the spec`);
    if (typeof node !== 'object' || node === null) continue;
    if (depth > limits.maxDepth)
      throw new VapcError('E_SPEC_REFUSED', `${what}: nested deeper than ${limits.maxDepth} levels`);
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    // Refused before the children are queued: a million-item array must not cost a million entries here.
    if (counted.nodes + stack.length + children.length > limits.maxNodes)
      throw new VapcError('E_SPEC_REFUSED', `${what}: more than ${limits.maxNodes} nodes in the spec`);
    for (const child of children) stack.push([child, depth + 1]);
  }
}

/**
 * Parses a spec file: JSON with JSON.parse (fast and light), anything else as YAML after the lexer
 * has counted its tokens (the YAML document model costs about 1 KB a node, so a file of tiny
 * nodes is refused before it is built), with the alias cap, refusing what YAML parsers read
 * differently (src/spec/yaml.ts). An error names its kind and line, never the text.
 */
export function parseSpecText(text: string, what: string, limits: SpecLimits): unknown {
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // not JSON after all (YAML flow style): parsed as YAML below
    }
  }
  let tokens = 0;
  // Every token takes at least one character: a file shorter than the cap needs no count.
  for (const token of text.length > limits.maxYamlTokens ? new Lexer().lex(text) : []) {
    void token;
    if (++tokens > limits.maxYamlTokens)
      throw new VapcError('E_SPEC_REFUSED', `${what}: more than ${limits.maxYamlTokens} YAML tokens in one file`);
  }
  return parseSpecYaml(text, what, { maxAliases: limits.maxAliases });
}

/** The `$ref` strings of a parsed file that name another file (not `#/...` alone). */
function externalRefs(value: unknown): string[] {
  const found: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (!Array.isArray(node)) {
      const ref = (node as Record<string, unknown>)['$ref'];
      if (typeof ref === 'string' && !ref.startsWith('#')) found.push(ref);
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push(child);
  }
  return found;
}

/** Where a local `$ref` (no scheme) from `from` points, or a refusal: absolute, escaping, special. */
function localTarget(ref: string, target: string, from: string, folder: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !/^file:/i.test(target))
    throw refused(ref, 'only relative file references inside the spec folder are resolved');
  let path: string;
  try {
    path = /^file:/i.test(target) ? fileURLToPath(target) : decodeURIComponent(target);
  } catch {
    throw refused(ref, 'not a valid file reference');
  }
  if (isAbsolute(path) || /^file:/i.test(target)) {
    const abs = resolve(path);
    if (!isInside(folder, realpathOf(abs) ?? abs)) throw refused(ref, 'it points outside the spec folder');
    throw refused(ref, 'absolute paths and file: URLs are not resolved; use a path relative to the file');
  }
  const abs = resolve(dirname(from), path);
  const real = realpathOf(abs);
  if (real === undefined) {
    if (!isInside(folder, abs)) throw refused(ref, 'it points outside the spec folder');
    throw new VapcError('E_SPEC_UNREADABLE', `$ref "${shown(ref)}": no such file in the spec folder`);
  }
  if (!isInside(folder, real)) throw refused(ref, 'it points outside the spec folder (after following symlinks)');
  return abs;
}

/**
 * Reads one file of a spec already loaded, for the tools that follow its `$ref`s again to find
 * lines (SARIF locations, diff annotations): only a regular file inside `folder` after realpath,
 * within the size cap; anything else throws.
 */
export function readInFolder(file: string, folder: string): string {
  const real = realpathOf(file);
  const root = realpathOf(folder) ?? folder;
  if (real === undefined || !isInside(root, real))
    throw new VapcError('E_SPEC_REFUSED', `${shown(file)}: outside the spec folder`);
  return readSpecFile(real, SPEC_LIMITS.maxFileBytes, shown(file), root);
}

/** Reads the root file and every file its `$ref`s name, within the folder and the caps. */
export async function readSpecFiles(root: string, options: ReadSpecOptions = {}): Promise<SpecFiles> {
  const limits: SpecLimits = { ...SPEC_LIMITS, ...options.limits };
  const rootAbs = resolve(root);
  const rootReal = realpathOf(rootAbs);
  if (rootReal === undefined || statSync(rootReal).isDirectory()) {
    throw new VapcError(
      'E_SPEC_UNREADABLE',
      `cannot read the OpenAPI document ${shown(rootAbs)}: ${rootReal === undefined ? 'no such file' : 'a directory'}`,
    );
  }
  const folder = realpathOf(dirname(rootAbs)) ?? dirname(rootAbs);
  if (!isInside(folder, rootReal))
    throw new VapcError('E_SPEC_REFUSED', `${shown(rootAbs)}: a symlink to a file outside its folder`);
  const files = new Map<string, unknown>();
  const counted = { nodes: 0 };
  const queue: Array<{ key: string; ref: string; remote: boolean }> = [{ key: rootAbs, ref: rootAbs, remote: false }];
  while (queue.length > 0) {
    const { key, ref, remote } = queue.shift()!;
    if (files.has(key)) continue;
    if (files.size >= limits.maxFiles)
      throw new VapcError('E_SPEC_REFUSED', `the spec names more than ${limits.maxFiles} files`);
    const what = key === rootAbs ? shown(rootAbs) : `$ref "${shown(ref)}"`;
    const text = remote
      ? await fetchRef(ref, key, options.allowRefHosts ?? [], limits.maxFileBytes)
      : readSpecFile(key, limits.maxFileBytes, what, folder);
    const value = parseSpecText(text, what, limits);
    measure(value, what, limits, counted);
    files.set(key, value);
    for (const next of externalRefs(value)) {
      const target = next.split('#', 1)[0]!;
      if (target === '') continue;
      if (remote || /^https?:/i.test(target)) {
        let url: URL;
        try {
          url = new URL(target, remote ? key : 'http://invalid./');
        } catch {
          throw refused(next, 'not a valid URL');
        }
        if (!/^https?:$/.test(url.protocol) || (!remote && !/^https?:/i.test(target)))
          throw refused(next, 'a remote document may only name other http(s) documents');
        queue.push({ key: url.href, ref: next, remote: true });
      } else {
        queue.push({ key: localTarget(next, target, key, folder), ref: next, remote: false });
      }
    }
  }
  return { root: rootAbs, folder, files };
}
