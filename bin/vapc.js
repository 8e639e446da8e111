#!/usr/bin/env node
// Thin launcher: the CLI is compiled from src/cli/ and bundled into dist/cli/vapc.cjs by `npm run build`.
import { existsSync } from 'node:fs';
import { bundleFile, loadCli } from './load-cli.js';

if (!existsSync(bundleFile)) {
  process.stderr.write('vapc: the toolkit is not built yet; run `npm run build` first.\n');
  process.exit(2);
}
let cli;
try {
  cli = loadCli();
} catch (error) {
  // A damaged install (a cut or edited bundle): the tool's fault, one line, exit 2 (docs/interface.md).
  const why = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(
    `vapc: the CLI bundle cannot be loaded (${why.split('\n')[0]}); rebuild with npm run build [E_TOOL_FAILED]\n`,
  );
  process.exit(2);
}
process.exitCode = await cli.main(process.argv.slice(2));
