#!/usr/bin/env node
// The numbers the docs give about installs, measured rather than typed: how many packages an
// install of the toolkit brings (from the lockfile: the runtime dependencies a consumer's `npm ci`
// installs, and everything a checkout's `npm ci` installs), and how many megabytes the toolkit and
// the validators package take once installed (the packed files, from `npm pack --dry-run`, and the
// runtime dependencies as this checkout's node_modules holds them). Needs `npm run build` first.
//
// In the docs each number sits between markers: <!-- count:NAME -->78<!-- /count -->.
// `npm run docs:counts` rewrites them; test/unit/build/docs-counts.test.ts fails when one differs.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeEntries } from './consumer-project.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The pages that carry counts. */
export const PAGES = ['docs/setup.md', 'docs/validators.md', 'docs/github-action.md', 'packages/validators/README.md'];

/** Bytes of the files under `dir`, not following links, leaving out nested node_modules folders. */
function bytesOf(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesOf(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
}

/** The unpacked size of a package folder as `npm pack` would ship it. */
function packedBytes(folder) {
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts', folder], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return JSON.parse(out)[0].unpackedSize;
}

const mb = (bytes, digits) => (bytes / 1_000_000).toFixed(digits);

/** Every count, by name, as the docs print it. */
export function measure() {
  const lockfile = join(root, 'package-lock.json');
  const runtime = Object.keys(runtimeEntries(lockfile));
  // What a checkout's `npm ci` installed here (optional packages of other platforms are not),
  // to the nearest ten: the docs say "about".
  const installed = Object.keys(JSON.parse(readFileSync(lockfile, 'utf8')).packages).filter(
    (p) => p !== '' && existsSync(join(root, p)),
  );
  const runtimeBytes = runtime.reduce((sum, path) => sum + bytesOf(join(root, path)), 0);
  return {
    'toolkit-packages': String(runtime.length + 1),
    'toolkit-mb': mb(packedBytes('.') + runtimeBytes, 0),
    'checkout-packages': String(Math.round(installed.length / 10) * 10),
    'validators-mb': mb(packedBytes('./packages/validators'), 1),
  };
}

const MARKER = /<!-- count:([a-z-]+) -->([^<]*)<!-- \/count -->/g;

/** The counts a page states: [name, value] in order. */
export function stated(text) {
  return [...text.matchAll(MARKER)].map((m) => [m[1], m[2]]);
}

/** The page with every count replaced by its measured value (an unknown name is an error). */
export function rewrite(text, counts) {
  return text.replace(MARKER, (_m, name) => {
    if (!(name in counts)) throw new Error(`unknown count ${name}`);
    return `<!-- count:${name} -->${counts[name]}<!-- /count -->`;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const counts = measure();
  for (const page of PAGES) {
    const file = join(root, page);
    const text = readFileSync(file, 'utf8');
    const next = rewrite(text, counts);
    if (next !== text && process.argv.includes('--write')) writeFileSync(file, next);
    process.stdout.write(
      `${page}: ${
        stated(next)
          .map(([n, v]) => `${n}=${v}`)
          .join(' ') || 'no counts'
      }${next !== text ? (process.argv.includes('--write') ? ' (rewritten)' : ' (differs: run with --write)') : ''}\n`,
    );
  }
}
