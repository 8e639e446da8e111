// Builds packages/validators/dist from the root build's output (run by scripts/build.mjs after
// `npm run build`): src/index.ts bundled by esbuild into one ESM and one CommonJS file, so the
// precompiled AJV code and every helper it uses are inlined and the package has no dependencies;
// the declarations tsc emitted for src/index.ts (and every file they import), copied next to each
// bundle; the bundled document as dist/openapi.json. Fails when a declaration imports a package.
// Skipped when its output is newer than everything it reads.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const out = join(here, 'dist');
const declarations = join(root, 'dist', 'src');
const marker = join(out, 'esm', 'index.js');

const newest = (dir) =>
  readdirSync(dir, { recursive: true }).reduce((t, f) => Math.max(t, statSync(join(dir, String(f))).mtimeMs), 0);
const inputs = [
  join(root, 'dist', 'openapi.json'),
  join(declarations, 'index.d.ts'),
  join(here, 'build.mjs'),
  join(here, 'package.json'),
];

/** Every declaration file reachable from dist/src/index.d.ts by relative imports. */
function reachableDeclarations() {
  const seen = new Set();
  const queue = ['index.d.ts'];
  while (queue.length > 0) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(declarations, file), 'utf8');
    for (const [, spec] of text.matchAll(/(?:from\s+|import\()\s*'([^']+)'/g)) {
      if (!spec.startsWith('.'))
        throw new Error(`${file} imports the package "${spec}": the validators package must need none`);
      queue.push(relative(declarations, join(declarations, dirname(file), spec.replace(/\.js$/, '.d.ts'))));
    }
  }
  return [...seen];
}

export async function buildValidatorsPackage({ force = false } = {}) {
  const upToDate =
    existsSync(marker) &&
    statSync(marker).mtimeMs >
      Math.max(...inputs.map((f) => statSync(f).mtimeMs), newest(join(root, 'src', 'validators')));
  if (upToDate && !force) return { built: false };
  const { build } = await import('esbuild');
  rmSync(out, { recursive: true, force: true });
  const common = {
    entryPoints: [join(root, 'src', 'index.ts')],
    bundle: true,
    platform: 'neutral',
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'warning',
  };
  await build({ ...common, format: 'esm', outfile: join(out, 'esm', 'index.js') });
  await build({ ...common, format: 'cjs', outfile: join(out, 'cjs', 'index.js') });
  writeFileSync(join(out, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  const files = reachableDeclarations();
  for (const flavour of ['esm', 'cjs']) {
    for (const file of files) {
      mkdirSync(dirname(join(out, flavour, file)), { recursive: true });
      copyFileSync(join(declarations, file), join(out, flavour, file));
    }
  }
  copyFileSync(join(root, 'dist', 'openapi.json'), join(out, 'openapi.json'));
  return { built: true, declarations: files.length, bytes: statSync(marker).size };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = await buildValidatorsPackage({ force: process.argv.includes('--force') });
  console.log(
    r.built
      ? `package  packages/validators/dist: ESM + CommonJS bundles (${Math.round(r.bytes / 1024)} KiB), ${r.declarations} declaration files`
      : 'package  packages/validators/dist up to date',
  );
}
