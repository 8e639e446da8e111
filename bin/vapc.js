#!/usr/bin/env node
// Thin launcher: the CLI is compiled from src/cli/ and bundled into dist/cli/vapc.cjs by `npm run build`.
// Plain enough for any Node that runs ES modules, so an older Node is told the version it needs
// (package.json's engines) rather than failing inside the bundle (Node 18: "File is not defined").
import { existsSync, readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const needed = (/(\d+)\.(\d+)\.(\d+)/.exec(manifest.engines?.node ?? '') ?? []).slice(1).map(Number);
const running = process.versions.node.split('.').map(Number);
const first = needed.findIndex((n, i) => running[i] !== n);
if (first !== -1 && running[first] < needed[first]) {
  process.stderr.write(
    `vapc: vapc needs Node.js ${needed.join('.')} or later, and this is Node.js ${process.versions.node}; install a newer Node.js (22 or 24) [E_USAGE]\n`,
  );
  process.exit(2);
}

const { bundleFile, loadCli } = await import('./load-cli.js');
if (!existsSync(bundleFile)) {
  // A checkout has its build script; an installed package does not, and lacks dist/ only when npm
  // installed it from git without running its build (`prepare`): install scripts were off.
  process.stderr.write(
    existsSync(new URL('scripts/build.mjs', root))
      ? 'vapc: the toolkit is not built yet; run `npm run build` first.\n'
      : `vapc: this copy of ${manifest.name} has no dist/: npm installed it from git without running its build, because install scripts are off (ignore-scripts). ` +
          'Either reinstall it with its build script allowed (npm install -D --ignore-scripts=false "<the same git URL>"), ' +
          'or install a release tarball, which carries dist/ and needs no script (docs/setup.md, "Installing") [E_USAGE]\n',
  );
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
