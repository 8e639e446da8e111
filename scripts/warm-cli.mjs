// Makes the CLI bundle's code cache (scripts/build-cli.ts runs it after bundling; ARCHITECTURE.md
// "The CLI bundle and its code cache"). A plain node process, as bin/vapc.js runs: the bundle is
// loaded through bin/load-cli.js, runs what `npm start` runs bar the burst (the pre-burst suites
// against the embedded server), and the code V8 compiled for that run is written to
// dist/cli/vapc.cjs.cache.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheFile, loadCli } from '../bin/load-cli.js';

const WARM_RUN = [
  'run',
  '--embedded',
  '--seed',
  '1',
  '--quiet',
  '--suite',
  'auth,validation,ranges,schema,stateful,cors,robustness',
];

async function warmUp() {
  const cli = loadCli();
  const reports = mkdtempSync(join(tmpdir(), 'vapc-warm-'));
  let errors = '';
  const io = { stdout: () => {}, stderr: (t) => (errors += t), env: {}, isTTY: false };
  try {
    const code = await cli.main([...WARM_RUN, '--report-dir', reports], io);
    // 0 or 1: a run that reached its verdict; the cache is about code, not about the verdict.
    if (code !== 0 && code !== 1) throw new Error(`vapc ${WARM_RUN.join(' ')} exited ${code}: ${errors}`);
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
  writeFileSync(cacheFile, cli.makeCache());
}

await warmUp();
