#!/usr/bin/env node
// Thin launcher: the CLI is compiled from src/cli/ and bundled into dist/cli/vapc.cjs by `npm run build`.
import { existsSync } from 'node:fs';
import { bundleFile, loadCli } from './load-cli.js';

if (!existsSync(bundleFile)) {
  process.stderr.write('vapc: the toolkit is not built yet; run `npm run build` first.\n');
  process.exit(2);
}
const { main } = loadCli();
process.exitCode = await main(process.argv.slice(2));
