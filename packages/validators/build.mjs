// Builds packages/validators/dist from the root build's output (run by scripts/build.mjs after
// `npm run build`): src/index.ts bundled by esbuild into one ESM and one CommonJS file, so the
// precompiled AJV code and every helper it uses are inlined and the package has no dependencies;
// src/middleware/index.ts bundled the same way as `./middleware`, except that its imports of
// src/index.ts stay imports of the package's own `./index.js` (one copy of the validators, one
// manifest, the same error classes); the declarations tsc emitted for both entries (and every
// file they import), copied next to each bundle; the bundled document as dist/openapi.json. Fails
// when a declaration imports a package, or when the middleware bundle would carry validators of
// its own. Skipped when its output is newer than everything it reads.
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
const ENTRIES = ['index.d.ts', join('middleware', 'index.d.ts')];
const publicIndex = join(root, 'src', 'index.ts');

const newest = (dir) =>
  readdirSync(dir, { recursive: true }).reduce((t, f) => Math.max(t, statSync(join(dir, String(f))).mtimeMs), 0);
const inputs = [
  join(root, 'dist', 'openapi.json'),
  ...ENTRIES.map((f) => join(declarations, f)),
  join(here, 'build.mjs'),
  join(here, 'package.json'),
];

/** Every declaration file reachable from the entries' declarations by relative imports. */
function reachableDeclarations() {
  const seen = new Set();
  const queue = [...ENTRIES];
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

/** esbuild plugin: an import that resolves to src/index.ts stays an import of the package's ./index.js. */
const sharedIndex = {
  name: 'shared-index',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      const target = resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      return target === publicIndex ? { path: './index.js', external: true } : undefined;
    });
  },
};

/** Fails the build when the middleware bundle took in the generated validators or their runtime. */
function ownValidatorsGuard(metafile) {
  const own = Object.keys(metafile.inputs).filter((f) => /src\/(generated\/|validators\/validate\.ts)/.test(f));
  if (own.length > 0)
    throw new Error(
      `the middleware bundle must import the validators from ./index.js, but it inlines ${own.join(', ')}`,
    );
}

export async function buildValidatorsPackage({ force = false } = {}) {
  const upToDate =
    existsSync(marker) &&
    statSync(marker).mtimeMs >
      Math.max(
        ...inputs.map((f) => statSync(f).mtimeMs),
        ...['validators', 'middleware', 'http'].map((d) => newest(join(root, 'src', d))),
      );
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
  for (const format of ['esm', 'cjs']) {
    await build({ ...common, format, outfile: join(out, format, 'index.js') });
    const middleware = await build({
      ...common,
      entryPoints: [join(root, 'src', 'middleware', 'index.ts')],
      format,
      outfile: join(out, format, 'middleware.js'),
      plugins: [sharedIndex],
      metafile: true,
    });
    ownValidatorsGuard(middleware.metafile);
  }
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
