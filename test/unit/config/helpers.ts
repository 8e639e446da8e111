/** What the config tests share: a refusal as its code and message, and scratch directories. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { isVapcError } from '../../../src/errors.js';

/** What `read` gives: its value, or the refusal's code and message (any other error is thrown on). */
export function outcome(read: () => unknown): unknown {
  try {
    return read();
  } catch (error) {
    if (isVapcError(error)) return `${error.code} ${error.message}`;
    throw error;
  }
}

/** The same for a promise. */
export async function settled(run: Promise<unknown>): Promise<unknown> {
  try {
    return await run;
  } catch (error) {
    if (isVapcError(error)) return `${error.code} ${error.message}`;
    throw error;
  }
}

/**
 * Scratch directories under one temporary root, made before the file's tests and removed after:
 * `dirWith(files)` is a fresh directory holding the given files. Nothing changes the working directory.
 */
export function scratchDirs(prefix: string): {
  root: () => string;
  dirWith: (files?: Record<string, string>) => string;
} {
  let root = '';
  let count = 0;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });
  return {
    root: () => root,
    dirWith: (files = {}) => {
      const dir = join(root, `d${(count += 1)}`);
      mkdirSync(dir);
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      return dir;
    },
  };
}
