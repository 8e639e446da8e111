// Entry point of `npm run build`: runs scripts/build.ts with tsx (the build compiles the TypeScript
// itself), passing its arguments on (`npm run build -- --force`), then builds the validators
// package (packages/validators/build.mjs: bundles of the compiled validators, no dependencies).
import { spawnSync } from 'node:child_process';
const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);
const pkg = spawnSync(process.execPath, ['packages/validators/build.mjs', ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(pkg.status ?? 1);
