/**
 * The spec lines of the coverage cells, found once by the build: `npm run build` walks the authored
 * spec's YAML (src/spec/source.ts) for every cell of the packaged spec and writes
 * `dist/cell-lines.json`, stamped with the hash of the spec folder, as src/spec/packaged.ts stamps
 * the dereferenced spec. A run reads that file (a JSON.parse) instead of parsing the YAML files
 * again, which was about a fifth of a run's CPU time; a spec edited since the build, a missing or
 * unreadable file fall back to parsing the YAML, as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import { specFolderHash } from '../spec/packaged.js';
import type { SourcePosition } from '../spec/source.js';

export const CELL_LINES_FILE = join(packageRoot, 'dist', 'cell-lines.json');
const FORMAT = 1;

interface CellLines {
  format: number;
  spec_hash: string;
  /** Cell key (universe.ts `cellKey`) to its file and line. */
  lines: Record<string, [string, number]>;
}

/** The build's side: the lines of `cells` (their keys, files and lines), stamped with the spec folder. */
export function cellLinesText(
  cells: ReadonlyArray<{ key: string; spec_line: number | null; spec_file?: string }>,
  specFile?: string,
): string {
  const lines: CellLines['lines'] = {};
  for (const c of cells)
    if (c.spec_line !== null && c.spec_file !== undefined) lines[c.key] = [c.spec_file, c.spec_line];
  return JSON.stringify({ format: FORMAT, spec_hash: specFolderHash(specFile), lines } satisfies CellLines);
}

/** The run's side: the build's lines by cell key, or undefined when there are none or the spec changed since. */
export function packagedCellLines(
  file: string = CELL_LINES_FILE,
  specFile?: string,
): Map<string, SourcePosition> | undefined {
  try {
    const packaged = JSON.parse(readFileSync(file, 'utf8')) as Partial<CellLines>;
    if (packaged.format !== FORMAT || typeof packaged.lines !== 'object' || packaged.lines === null) return undefined;
    if (packaged.spec_hash !== specFolderHash(specFile)) return undefined;
    return new Map(Object.entries(packaged.lines).map(([key, [file, line]]) => [key, { file, line, column: 1 }]));
  } catch {
    return undefined;
  }
}
