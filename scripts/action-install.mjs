#!/usr/bin/env node
/**
 * The GitHub Action's install (action.yml): vapc as a consumer gets it, the packed package with its
 * runtime dependencies only, in a folder of its own that actions/cache keeps.
 *
 * `node scripts/action-install.mjs key` prints two $GITHUB_OUTPUT lines: `key`, the cache key (OS,
 * architecture, Node major and a hash of the action's own files: its lockfile and its sources, so a
 * tag or a commit of the action always maps to the same install), and `dir`, where the tool goes.
 *
 * `node scripts/action-install.mjs install` (on a cache miss) gets the tarball and installs it into
 * `dir` with `npm ci --omit=dev --ignore-scripts`, from a lockfile made of the action's own (the
 * runtime dependencies it was tested with; scripts/consumer-project.mjs). The tarball is, in order:
 * - VAPC_TOOL_TARBALL, when set (tests);
 * - the release's, when the action is used at a release tag (`uses: org/voice-agent-contract@vX.Y.Z`,
 *   the tag naming this package.json's version): downloaded from the release with its SHA256SUMS,
 *   and refused when its checksum differs;
 * - otherwise (a commit, a branch, `uses: ./`, or no such release) packed from the action's
 *   checkout: `npm ci` with the devDependencies the build needs, `npm run build`, `npm pack`. Only
 *   the packed tool is kept; that build happens once per cache key.
 *
 * The vapc step (scripts/action.mjs) runs `<dir>/node_modules/voice-agent-contract/bin/vapc.js`.
 * Environment: RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_SERVER_URL as GitHub sets them;
 * VAPC_ACTION_PATH (default: this script's checkout), VAPC_ACTION_REPOSITORY and VAPC_ACTION_REF
 * (default: read from the action's path, `.../_actions/OWNER/REPO/REF`), VAPC_TOOL_DIR (default
 * `$RUNNER_TEMP/vapc-tool`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE, runtimeEntries, writeConsumerProject } from './consumer-project.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** What the hash of the action's files leaves out: what its build and installs write. */
const NOT_SOURCE = new Set(['.git', 'node_modules', 'dist', 'reports', 'generated', '.vitest-cache']);

/** The action's settings from the environment (see the header). */
export function settings(env = process.env) {
  const actionPath = resolve(env.VAPC_ACTION_PATH || fileURLToPath(new URL('..', import.meta.url)));
  const fromPath = /[\\/]_actions[\\/]([^\\/]+)[\\/]([^\\/]+)[\\/]([^\\/]+)[\\/]?$/.exec(actionPath);
  return {
    actionPath,
    repository: env.VAPC_ACTION_REPOSITORY || (fromPath ? `${fromPath[1]}/${fromPath[2]}` : ''),
    ref: env.VAPC_ACTION_REF || (fromPath ? fromPath[3] : ''),
    toolDir: resolve(env.VAPC_TOOL_DIR || join(env.RUNNER_TEMP || tmpdir(), 'vapc-tool')),
    serverUrl: env.GITHUB_SERVER_URL || 'https://github.com',
    tarball: env.VAPC_TOOL_TARBALL || '',
  };
}

/** SHA-256 over the action's files (paths and bytes, in a stable order), build output left out. */
export function sourceHash(root) {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (NOT_SOURCE.has(entry.name) || entry.name.endsWith('.tgz')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile())
        hash
          .update(`${relative(root, path)}\0`)
          .update(readFileSync(path))
          .update('\0');
    }
  };
  walk(root);
  return hash.digest('hex');
}

/** The cache key: OS, architecture, Node major and the hash of the action's files. */
export function cacheKey(s, env = process.env) {
  const os = env.RUNNER_OS || process.platform;
  const arch = env.RUNNER_ARCH || process.arch;
  const node = process.versions.node.split('.')[0];
  return `vapc-tool-${os}-${arch}-node${node}-${sourceHash(s.actionPath).slice(0, 32)}`;
}

const say = (text) => process.stderr.write(`vapc install: ${text}\n`);

function sh(command, args, cwd, extraEnv = {}) {
  const r = spawnSync(command, args, { cwd, env: { ...process.env, ...extraEnv }, encoding: 'utf8' });
  if (r.status !== 0) {
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    throw new Error(`${command} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${out}`);
  }
  return r.stdout;
}

/** Downloads the release tarball of `version` and checks it against the release's SHA256SUMS. */
async function downloadRelease(s, version, into) {
  const base = `${s.serverUrl}/${s.repository}/releases/download/${s.ref}`;
  const name = `${PACKAGE}-${version}.tgz`;
  const get = async (file) => {
    const res = await fetch(`${base}/${file}`, { redirect: 'follow', signal: AbortSignal.timeout(120_000) });
    if (!res.ok) throw new Error(`${base}/${file} answered ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  };
  const sums = (await get('SHA256SUMS')).toString('utf8');
  const expected = /^([0-9a-f]{64})\s+\*?(.+)$/gm;
  const line = [...sums.matchAll(expected)].find((m) => m[2].trim() === name);
  if (!line) throw new Error(`the release's SHA256SUMS lists no ${name}`);
  const bytes = await get(name);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== line[1])
    throw new Error(`${name} does not match the release's SHA256SUMS (${actual} != ${line[1]}): not installed`);
  const file = join(into, name);
  writeFileSync(file, bytes);
  return file;
}

/** Packs the action's checkout: its dependencies with the build tools, the build, `npm pack`. */
function packCheckout(s, into) {
  say(`building the tool from the action's checkout (${s.actionPath}): npm ci, npm run build, npm pack`);
  sh(npm, ['ci', '--no-audit', '--no-fund'], s.actionPath);
  sh(npm, ['run', 'build', '--silent'], s.actionPath);
  const packed = JSON.parse(sh(npm, ['pack', '--json', '--pack-destination', into], s.actionPath));
  return join(into, packed[0].filename);
}

/** The tarball to install: given, the release's (at a release tag), or packed from the checkout. */
async function tarballFor(s, into) {
  if (s.tarball) return resolve(s.tarball);
  const version = JSON.parse(readFileSync(join(s.actionPath, 'package.json'), 'utf8')).version;
  if (s.repository && s.ref === `v${version}`) {
    try {
      const file = await downloadRelease(s, version, into);
      say(`using the release tarball of ${s.repository}@${s.ref} (checksum matches SHA256SUMS)`);
      return file;
    } catch (e) {
      if (/does not match/.test(e.message)) throw e;
      say(`no release tarball to use (${e.message})`);
    }
  }
  return packCheckout(s, into);
}

/** Installs the packed tool and its runtime dependencies (no devDependencies, no scripts) into toolDir. */
export async function install(s) {
  const work = mkdtempSync(join(tmpdir(), 'vapc-install-'));
  try {
    const tgz = await tarballFor(s, work);
    rmSync(s.toolDir, { recursive: true, force: true });
    mkdirSync(s.toolDir, { recursive: true });
    const copy = join(s.toolDir, basename(tgz));
    writeFileSync(copy, readFileSync(tgz));
    writeConsumerProject(s.toolDir, `file:${basename(tgz)}`, {
      lockfile: join(s.actionPath, 'package-lock.json'),
      name: 'vapc-tool',
    });
    sh(npm, ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund'], s.toolDir);
    const bin = join(s.toolDir, 'node_modules', PACKAGE, 'bin', 'vapc.js');
    if (!existsSync(bin)) throw new Error(`the install has no ${relative(s.toolDir, bin)}`);
    const packages = 1 + Object.keys(runtimeEntries(join(s.actionPath, 'package-lock.json'))).length;
    say(`installed ${PACKAGE} with its runtime dependencies only (${packages} packages) into ${s.toolDir}`);
    return bin;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function main(command) {
  const s = settings();
  if (command === 'key') {
    process.stdout.write(`key=${cacheKey(s)}\ndir=${s.toolDir}\n`);
    return 0;
  }
  if (command === 'install') {
    await install(s);
    return 0;
  }
  process.stderr.write('usage: node scripts/action-install.mjs key|install\n');
  return 2;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv[2]).catch((e) => {
    process.stderr.write(`vapc install: FAILED: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  });
}
