// Entry point of `npm run build`: runs scripts/build.ts with tsx (the build compiles the TypeScript
// itself), passing its arguments on (`npm run build -- --force`).
import { spawnSync } from 'node:child_process';
const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
