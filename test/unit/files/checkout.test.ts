/**
 * The one reader of files a checkout controls (src/files/checkout.ts), rule by rule: what it reads,
 * what it refuses and how each refusal names the file and the rule. Fixtures are made in a
 * temporary directory; nothing here reads a kernel or device file (they are refused by path).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VapcError } from '../../../src/errors.js';
import {
  confinementOf,
  directoryRefusal,
  excerpt,
  isInside,
  readCheckoutFile,
  realpathOf,
  resolvedPath,
  shownName,
  type CheckoutFileOptions,
} from '../../../src/files/checkout.js';

let root: string;
let cwd: string;
let other: string;
let socket: Server;
const base: CheckoutFileOptions = { label: 'the file', maxBytes: 16, code: 'E_CONFIG' };

function refusal(path: string, options: Partial<CheckoutFileOptions> = {}): { code: string; message: string } {
  try {
    readCheckoutFile(path, { ...base, cwd, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(VapcError);
    return { code: (error as VapcError).code, message: (error as Error).message };
  }
  return { code: 'read', message: '' };
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'vapc-checkout-file-')));
  cwd = join(root, 'checkout');
  other = join(root, 'elsewhere');
  mkdirSync(join(cwd, 'sub'), { recursive: true });
  mkdirSync(other);
  writeFileSync(join(cwd, 'ok.yaml'), 'a: 1\n');
  writeFileSync(join(cwd, 'sub', 'exact.yaml'), 'x'.repeat(16));
  writeFileSync(join(cwd, 'big.yaml'), 'x'.repeat(17));
  writeFileSync(join(other, 'secret.yaml'), 'secret: 1\n');
  writeFileSync(join(other, 'own.yaml'), 'own: 1\n');
  symlinkSync(join(other, 'secret.yaml'), join(cwd, 'out.yaml'));
  symlinkSync('ok.yaml', join(cwd, 'in.yaml'));
  symlinkSync('nowhere.yaml', join(cwd, 'dangling.yaml'));
  symlinkSync('loop-b.yaml', join(cwd, 'loop-a.yaml'));
  symlinkSync('loop-a.yaml', join(cwd, 'loop-b.yaml'));
  symlinkSync('/dev/zero', join(cwd, 'zero.yaml'));
  symlinkSync(join(cwd, 'ok.yaml'), join(other, 'back-in.yaml'));
  spawnSync('mkfifo', [join(cwd, 'fifo.yaml')]);
  socket = createServer();
  await new Promise<void>((resolve) => socket.listen(join(cwd, 'socket.yaml'), resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

describe('readCheckoutFile: what it reads', () => {
  it('a regular file inside the working directory, relative or absolute', () => {
    expect(readCheckoutFile('ok.yaml', { ...base, cwd })).toBe('a: 1\n');
    expect(readCheckoutFile(join(cwd, 'ok.yaml'), { ...base, cwd })).toBe('a: 1\n');
  });
  it('a symlink that stays inside', () => expect(readCheckoutFile('in.yaml', { ...base, cwd })).toBe('a: 1\n'));
  it('exactly the cap', () => expect(readCheckoutFile('sub/exact.yaml', { ...base, cwd })).toBe('x'.repeat(16)));
  it('a file named outside the working directory, inside its own folder', () =>
    expect(readCheckoutFile(join(other, 'own.yaml'), { ...base, cwd })).toBe('own: 1\n'));
  it('with `within`, a file inside that folder', () =>
    expect(readCheckoutFile(join(other, 'own.yaml'), { ...base, cwd, within: other })).toBe('own: 1\n'));
  it('relative to process.cwd() without `cwd` (the repository the tests run in)', () => {
    expect(readCheckoutFile('package.json', { ...base, maxBytes: 1_000_000 })).toContain('"voice-agent-contract"');
    expect(confinementOf('package.json')).toBe(process.cwd());
  });
});

describe('readCheckoutFile: what it refuses, naming the file and the rule', () => {
  it('a missing file: the missing code and text, or the defaults', () => {
    expect(refusal('none.yaml')).toEqual({ code: 'E_CONFIG', message: 'the file: no such file' });
    expect(refusal('none.yaml', { missingCode: 'E_SPEC_UNREADABLE', missing: 'run it first' })).toEqual({
      code: 'E_SPEC_UNREADABLE',
      message: 'the file: run it first',
    });
  });
  it('a symlink that leads nowhere or in a loop: refused with the refusal code', () => {
    for (const name of ['dangling.yaml', 'loop-a.yaml'])
      expect(refusal(name, { missingCode: 'E_SPEC_UNREADABLE' })).toEqual({
        code: 'E_CONFIG',
        message: 'the file: refused: a symlink that leads nowhere (or in a loop)',
      });
  });
  it('a symlink that leads outside the working directory', () => {
    expect(refusal('out.yaml')).toEqual({
      code: 'E_CONFIG',
      message: `the file: refused: it leads outside ${cwd} (symlinks resolved); a file the checkout controls is read only inside it`,
    });
  });
  it('a file outside `within`, and a link back into the checkout from a folder named elsewhere', () => {
    expect(refusal('ok.yaml', { within: join(cwd, 'sub') }).message).toMatch(/leads outside .*checkout\/sub/);
    expect(refusal(join(other, 'back-in.yaml')).message).toMatch(/leads outside .*elsewhere/);
  });
  it('a kernel or device file, named or linked', () => {
    const device = 'the file: refused: a kernel or device file is never read';
    expect(refusal('/dev/zero').message).toBe(device);
    expect(refusal('/proc/self/environ').message).toBe(device);
    expect(refusal('zero.yaml', { within: '/' }).message).toBe(device);
  });
  it('a directory, a FIFO, a socket: not a regular file', () => {
    expect(refusal('sub').message).toBe('the file: refused: a directory, not a regular file');
    expect(refusal('fifo.yaml').message).toBe('the file: refused: a FIFO, not a regular file');
    expect(refusal('socket.yaml').message).toMatch(
      /the file: refused: (a socket, not a regular file|cannot be opened \(ENXIO\))/,
    );
  });
  it('one byte past the cap, with what the cap is for', () => {
    expect(refusal('big.yaml').message).toBe('the file: refused: 17 bytes, more than the 16 it may have');
    expect(refusal('big.yaml', { capOf: 'a config file' }).message).toBe(
      'the file: refused: 17 bytes, more than the 16 a config file may have',
    );
  });
});

describe('the helpers', () => {
  it('isInside: the folder itself and what is under it, not a sibling that shares its prefix', () => {
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b/c')).toBe(true);
    expect(isInside('/a/b/', '/a/b/c')).toBe(true);
    expect(isInside('/a/b', '/a/bc')).toBe(false);
    expect(isInside('/a/b', '/a')).toBe(false);
  });
  it('realpathOf: the real path, or undefined', () => {
    expect(realpathOf(join(cwd, 'in.yaml'))).toBe(join(cwd, 'ok.yaml'));
    expect(realpathOf(join(cwd, 'dangling.yaml'))).toBeUndefined();
  });
  it('confinementOf: the working directory for a path inside it, else the folder the path names', () => {
    expect(confinementOf('a/b.yaml', cwd)).toBe(cwd);
    expect(confinementOf(cwd, cwd)).toBe(cwd);
    expect(confinementOf('../elsewhere/x.yaml', cwd)).toBe(other);
    expect(confinementOf('/etc/x.yaml', cwd)).toBe('/etc');
  });
  it('resolvedPath: links resolved as far as the path exists', () => {
    expect(resolvedPath(join(cwd, 'in.yaml'))).toBe(join(cwd, 'ok.yaml'));
    expect(resolvedPath(join(cwd, 'new', 'deeper'))).toBe(join(cwd, 'new', 'deeper'));
    expect(resolvedPath(join(cwd, 'out.yaml', 'x'))).toBe(join(other, 'secret.yaml', 'x'));
  });
  it('directoryRefusal: a directory that leads out of its confinement, or nothing', () => {
    symlinkSync(other, join(cwd, 'reports'));
    try {
      expect(directoryRefusal('reports/latest', cwd)).toBe(
        `reports/latest leads outside ${cwd} (symlinks resolved); name a directory inside it`,
      );
      expect(directoryRefusal('sub/latest', cwd)).toBeUndefined();
      expect(directoryRefusal(join(other, 'x'), cwd)).toBeUndefined();
    } finally {
      rmSync(join(cwd, 'reports'));
    }
  });
  it('shownName and excerpt: one line, escaped, cut', () => {
    expect(shownName('a\nb')).toBe('a\\nb');
    expect(shownName('x'.repeat(300))).toHaveLength(200);
    expect(excerpt('k\u001b[2J')).toBe('"k\\x1b[2J"');
    expect(excerpt('y'.repeat(50))).toBe(`"${'y'.repeat(39)}…"`);
    expect(excerpt('abcdef', 4)).toBe('"abc…"');
  });
});
