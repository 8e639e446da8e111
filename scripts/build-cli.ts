// The CLI bundle (run by scripts/build.ts after tsc; ARCHITECTURE.md "The CLI bundle and its code
// cache"): esbuild bundles dist/src/cli/main.js and the libraries every run loads into one
// CommonJS file, dist/cli/vapc.cjs, which bin/vapc.js compiles with V8's code cache. The cache is
// made by scripts/warm-cli.mjs in a fresh, plain node process (no tsx: V8 keys a cache to its
// flags). CommonJS because Node 20 has a code cache for scripts only (vm.Script), not for modules.
import { spawnSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const warmScript = fileURLToPath(new URL('./warm-cli.mjs', import.meta.url));
const outfile = join(root, 'dist', 'cli', 'vapc.cjs');

/**
 * Left out of the bundle, loaded from node_modules when used: the embedded server's Fastify stack
 * (only `serve` and `--embedded` start it), swagger-parser (only a user's `--spec`), Redocly (run
 * as its own process), cli-progress (only a live bar; src/reporters/console/progress.ts requires it lazily).
 */
export const EXTERNAL = [
  '@apidevtools/swagger-parser',
  '@fastify/*',
  '@redocly/cli',
  'cli-progress',
  'fastify',
  'fastify-plugin',
  'light-my-request',
];

export async function buildCli(): Promise<{ bytes: number; cacheBytes: number }> {
  const { build } = await import('esbuild');
  rmSync(`${outfile}.cache`, { force: true });
  const result = await build({
    entryPoints: [join(root, 'dist', 'src', 'cli', 'main.js')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.19',
    external: EXTERNAL,
    // The modules find the package root and resolve packages from their own URL (src/paths.ts).
    define: { 'import.meta.url': '__vapc_module_url' },
    banner: { js: "const __vapc_module_url = require('node:url').pathToFileURL(__filename).href;" },
    // No comments or indentation: a third less to read and hash at every start. Names are kept.
    minifyWhitespace: true,
    logLevel: 'warning',
    metafile: true,
  });
  // A script has no import(): a package left outside must be required (src/spec/load.ts does).
  const dynamic = Object.values(result.metafile.outputs).flatMap((o) =>
    o.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path),
  );
  if (dynamic.length > 0) throw new Error(`the CLI bundle would import() ${dynamic.join(', ')}; require it instead`);
  const warm = spawnSync(process.execPath, [warmScript], { encoding: 'utf8' });
  if (warm.status !== 0) throw new Error(`the warm-up run of the CLI bundle failed:\n${warm.stderr}`);
  return { bytes: statSync(outfile).size, cacheBytes: statSync(`${outfile}.cache`).size };
}
