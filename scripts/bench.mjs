// npm run bench: runs every bench/*.bench.ts in name order; each prints its own ratios.
// `npm run bench -- kills` (or startup, runner, ...) runs only the benches whose names contain a word given.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const only = process.argv.slice(2);
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .sort()
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', `bench/${file}`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
