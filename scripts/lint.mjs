// npm run lint: Redocly lint of the spec (recommended-strict, stricter rules and the contract's own
// rules of redocly.yaml), `tsc --noEmit` and `prettier --check .` (.prettierrc.json, .prettierignore).
// Exits 1 on any error or warning of the spec, a type error or a file Prettier would change, 2 when
// a tool cannot run. `npm run format` rewrites the files the format step names.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { register } from 'tsx/esm/api';

register();
const { lintSpec } = await import('../src/build/redocly.ts');

let status = 0;
try {
  const lint = await lintSpec();
  if (lint.output) console.log(lint.output);
  console.log(
    lint.ok ? 'spec      clean (redocly lint)' : `spec      ${lint.errors} error(s), ${lint.warnings} warning(s)`,
  );
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
const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'], {
  stdio: 'inherit',
});
if (tsc.status === 0) {
  console.log('types     clean (tsc --noEmit)');
} else {
  console.log('types     tsc --noEmit failed');
  status = Math.max(status, tsc.status === null ? 2 : 1);
}

// Formatting: prettier --check lists each file it would change on stderr ("[warn] path"); the fix is
// one command, so the summary line names it.
const prettier = spawnSync(
  process.execPath,
  ['node_modules/prettier/bin/prettier.cjs', '--check', '.', '--log-level', 'warn'],
  {
    stdio: 'inherit',
  },
);
if (prettier.status === 0) {
  console.log('format    clean (prettier --check)');
} else if (prettier.status === 1) {
  console.log('format    files above are not formatted: run `npm run format` (prettier --write .) to fix');
  status = Math.max(status, 1);
} else {
  console.log('format    prettier --check could not run');
  status = 2;
}
process.exit(status);
