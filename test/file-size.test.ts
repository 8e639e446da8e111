import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownSources } from './helpers/source-files.js';

/**
 * No file in src/ (generated code aside) or suites/ longer than 500 lines: a file that long does
 * more than one job (issue 34), and is split along its seams, a module per job. Beside
 * test/function-size.test.ts, which keeps every function under 80 lines.
 */
const ROOT = process.cwd();
const MAX_LINES = 500;

/**
 * Files allowed over the limit while the rewrite that splits them is under way, each with that
 * rewrite; an entry holds only while its file is still over the limit (a test below), so it goes
 * with the rewrite.
 */
const PENDING = new Map<string, string>([]);

/** Lines as `wc -l` counts them: the newlines, and a last line without one. */
export function lineCount(text: string): number {
  const newlines = text.split('\n').length - 1;
  return text.length > 0 && !text.endsWith('\n') ? newlines + 1 : newlines;
}

/** `file (N lines)` for every file longer than the limit. */
export function longFiles(files: ReadonlyArray<{ file: string; text: string }>, max = MAX_LINES): string[] {
  return files
    .filter(({ text }) => lineCount(text) > max)
    .map(({ file, text }) => `${file} (${lineCount(text)} lines)`);
}

describe('file size', () => {
  it('counts lines as wc -l does, and names each file over the limit', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
    const lines = (n: number) => 'x;\n'.repeat(n);
    expect(
      longFiles(
        [
          { file: 'a.ts', text: lines(3) },
          { file: 'b.ts', text: lines(4) },
          { file: 'c.ts', text: `${lines(3)}x;` },
        ],
        3,
      ),
    ).toEqual(['b.ts (4 lines)', 'c.ts (4 lines)']);
  });

  it(`finds no file over ${MAX_LINES} lines in src/ and suites/`, () => {
    const files = ownSources(ROOT);
    expect(files.length).toBeGreaterThan(50);
    const read = files
      .filter((file) => !PENDING.has(file))
      .map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
    expect(longFiles(read)).toEqual([]);
  });

  it('lets a pending file over the limit only while its rewrite has not split it', () => {
    const stillLong = [...PENDING.keys()].filter(
      (file) => lineCount(readFileSync(join(ROOT, file), 'utf8')) > MAX_LINES,
    );
    expect(stillLong).toEqual([...PENDING.keys()]);
  });
});
