/**
 * The build's stamp (scripts/build-stamp.ts): `npm test` skips the build only when nothing the build
 * reads or writes changed since it last ran; any change to either side makes it build again.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STAMP_FILE, staleBecause, writeStamp } from '../../../scripts/build-stamp.js';

let root: string;
const put = (file: string, text: string): void => {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'vapc-stamp-'));
  put('spec/openapi.yaml', 'openapi: 3.1.0\n');
  put('src/index.ts', 'export {};\n');
  put('src/generated/validators.ts', '// generated\n');
  put('package-lock.json', '{}\n');
  put('dist/openapi.json', '{}\n');
  put('dist/src/index.js', 'export {};\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the build stamp', () => {
  it('asks for a build when there is no stamp, and for none right after one', () => {
    expect(staleBecause(root)).toBe('no earlier build');
    writeStamp(root);
    expect(staleBecause(root)).toBeUndefined();
  });

  it.each([
    ['an edited spec', 'spec/openapi.yaml', 'openapi: 3.1.1\n'],
    ['a new source file', 'src/new.ts', 'export const x = 1;\n'],
    ['another lockfile (a tool upgraded)', 'package-lock.json', '{"lockfileVersion":3}\n'],
  ])('builds again after %s', (_what, file, text) => {
    writeStamp(root);
    put(file, text);
    expect(staleBecause(root)).toBe('sources changed since the last build');
  });

  it.each([
    ['a hand-edited bundle', 'dist/openapi.json', '{"edited":true}\n'],
    ['an edited generated validator', 'src/generated/validators.ts', '// edited\n'],
  ])('builds again after %s', (_what, file, text) => {
    writeStamp(root);
    put(file, text);
    expect(staleBecause(root)).toBe('the built files changed since the last build');
  });

  it('builds again when a built file is gone', () => {
    writeStamp(root);
    rmSync(join(root, 'dist/src/index.js'));
    expect(staleBecause(root)).toBe('the built files changed since the last build');
  });

  it('builds again when the stamp is unreadable, never trusting it', () => {
    writeStamp(root);
    put(STAMP_FILE, '{not json');
    expect(staleBecause(root)).toBe('the build stamp is unreadable');
  });
});
