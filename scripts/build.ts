// npm run build: bundled spec, HTML docs, precompiled validators, the TypeScript build, then the
// CLI bundle and its code cache (scripts/build-cli.ts).
// Skipped when nothing it reads or writes changed since the last build (scripts/build-stamp.ts);
// `npm run build -- --force` builds anyway.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { bundleSpec, buildDocs } from '../src/build/redocly.js';
import { buildChangelog, linkChangelog } from '../src/build/changelog.js';
import { loadDocument } from '../src/spec/load.js';
import { PACKAGED_SPEC_FILE, packagedSpecText } from '../src/spec/packaged.js';
import { buildModel } from '../src/spec/model.js';
import { SpecSource } from '../src/spec/source.js';
import { buildUniverse, specCellLocator } from '../src/coverage/universe.js';
import { CELL_LINES_FILE, cellLinesText } from '../src/coverage/lines.js';
import type { JsonObject } from '../src/diff/types.js';
import { packageRoot } from '../src/paths.js';
import { buildValidators } from './build-validators.js';
import { buildCli } from './build-cli.js';
import { STAMP_FILE, staleBecause, writeStamp } from './build-stamp.js';

const started = Date.now();
const reason = process.argv.includes('--force') ? 'asked with --force' : staleBecause(packageRoot);
if (reason === undefined) {
  console.log('build    up to date: nothing changed since the last build (npm run build -- --force rebuilds)');
  process.exit(0);
}
console.log(`build    ${reason}`);
rmSync(`${packageRoot}/${STAMP_FILE}`, { force: true });
const bundle = await bundleSpec();
console.log(`bundle   ${bundle.operations} operations -> dist/openapi.yaml, dist/openapi.json`);
const docs = await buildDocs();
console.log(`docs     ${Math.round(docs.bytes / 1024)} KiB -> dist/docs/index.html`);
// Validated here once (the meta-schema and the structure), then stamped for runs: see src/spec/packaged.ts.
const validated = await loadDocument();
await writeFile(PACKAGED_SPEC_FILE, packagedSpecText(validated));
console.log('spec     validated and dereferenced -> dist/openapi.dereferenced.json');
// The coverage cells' spec lines, found once here rather than by parsing the YAML at every run.
await writeFile(
  CELL_LINES_FILE,
  cellLinesText(buildUniverse(buildModel(validated), specCellLocator(new SpecSource())).cells),
);
console.log('lines    coverage cells located in spec/ -> dist/cell-lines.json');
const changelog = await buildChangelog(validated as unknown as JsonObject);
await writeFile(docs.htmlPath, linkChangelog(await readFile(docs.htmlPath, 'utf8')));
console.log(`changes  ${changelog.versions} version(s) -> dist/docs/changelog.html (linked from index.html)`);
const validators = await buildValidators();
console.log(
  `valid.   ${validators.validators} validators precompiled (${Math.round(validators.bytes / 1024)} KiB) -> src/generated/`,
);

const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
});
if (tsc.status !== 0) {
  console.error('build: the TypeScript build failed');
  process.exit(1);
}
console.log('compile  src/ and suites/ -> dist/');
const cli = await buildCli().catch((error: unknown) => {
  console.error(`build: the CLI bundle failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(
  `cli      dist/src/cli -> dist/cli/vapc.cjs (${Math.round(cli.bytes / 1024)} KiB), code cache ${Math.round(cli.cacheBytes / 1024)} KiB`,
);
writeStamp(packageRoot);
console.log(`build    done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
