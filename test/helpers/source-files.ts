import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The TypeScript sources (no `.d.ts`) below `dir`, relative to `root`, leaving out the paths in `skip` (relative to `root`). */
export function sourceFiles(dir: string, skip: readonly string[] = [], root = process.cwd()): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (skip.includes(relative(root, path))) continue;
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path, skip, root));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(root, path));
  }
  return out;
}

/** The project's own code: the sources of src/ (generated code aside) and suites/, relative to `root`. */
export function ownSources(root = process.cwd()): string[] {
  return [...sourceFiles(join(root, 'src'), ['src/generated'], root), ...sourceFiles(join(root, 'suites'), [], root)];
}
