// npm's `prepare`: builds dist/ (and packages/validators/dist) so a checkout works right after
// `npm ci`, and `npm install <git url>#<tag>` gives a package with its compiled code (npm installs the devDependencies of a git dependency,
// runs this, then packs the `files`). Its output goes to stderr: `npm pack --json` owns stdout.
// Skipped, with a note, when the build tools are not installed (`npm ci --omit=dev`), and on
// `npm pack` of a checkout that is already built (`npm test` builds first; rebuilding there would
// rewrite files other test workers are reading).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const say = (text) => process.stderr.write(`prepare: ${text}\n`);

if (!existsSync('node_modules/tsx') || !existsSync('node_modules/typescript')) {
  say('the build tools (tsx, typescript) are not installed: dist/ not built; run `npm install` then `npm run build`');
  process.exit(0);
}
if (process.env.npm_command === 'pack' && existsSync('dist/src/index.js')) {
  say('dist/ is already built; packing it as it is (`npm run build` refreshes it)');
  process.exit(0);
}
const result = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 2, 2] });
process.exit(result.status ?? 1);
