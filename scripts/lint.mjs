// npm run lint: Redocly lint of the spec (recommended-strict, stricter rules and the contract's own
// rules of redocly.yaml) and `tsc --noEmit`. Exits 1 on any error or warning of either, 2 when a
// tool cannot run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { lintSpec } = await import('../src/build/redocly.ts');

let status = 0;
try {
  const lint = await lintSpec();
  if (lint.output) console.log(lint.output);
  console.log(lint.ok ? 'spec      clean (redocly lint)' : `spec      ${lint.errors} error(s), ${lint.warnings} warning(s)`);
  if (!lint.ok) status = 1;
} catch (error) {
  console.error(`spec      ${error instanceof Error ? error.message : String(error)}`);
  status = 2;
}

// tsc needs the generated validators (src/generated/, gitignored, written by the build): on a fresh
// clone, generate them first.
if (!existsSync('src/generated/validators.ts')) {
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-validators.ts'], { stdio: 'inherit' });
}
const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'], { stdio: 'inherit' });
if (tsc.status === 0) {
  console.log('types     clean (tsc --noEmit)');
} else {
  console.log('types     tsc --noEmit failed');
  status = Math.max(status, tsc.status === null ? 2 : 1);
}
process.exit(status);
