/**
 * Writes suites/check-values.ts: for each check, how many faults of the project's catalogue
 * (test/catalog/faults) name it among the checks they must trip. `vapc run --budget N` plans the
 * checks that catch the most faults per request first (src/runner/budget.ts). Data, not code:
 * rerun after adding faults or checks (`npx tsx scripts/check-values.ts`); a check missing from the
 * table counts as catching one fault.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkOf, faults } from '../test/catalog/faults/index.js';
import { checks } from '../suites/index.js';
import { packageRoot } from '../src/paths.js';

const counts = new Map<string, number>(checks.map((c) => [c.id, 0]));
for (const fault of faults)
  for (const id of new Set(fault.catches.map(checkOf))) counts.set(id, (counts.get(id) ?? 0) + 1);
const rows = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, n]) => `  '${id}': ${n},`);
const text = `// Written by scripts/check-values.ts from test/catalog/faults: do not edit by hand.

/** Per check id: the faults of the catalogue that name it among the checks they must trip. */
export const CATALOGUE_FAULTS: Readonly<Record<string, number>> = {
${rows.join('\n')}
};
`;
writeFileSync(resolve(packageRoot, 'suites', 'check-values.ts'), text);
console.log(`check values: ${counts.size} checks, ${faults.length} faults -> suites/check-values.ts`);
