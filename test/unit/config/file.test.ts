/**
 * The config file of `vapc run` (src/config/file.ts): which file is found in a directory, how it is
 * read (the size cap, YAML errors and warnings, duplicate keys, alias bombs), the settings it gives
 * and the key and line each came from, and the line every refusal names. Every path here is an
 * absolute path or relative to a directory passed in: nothing changes the working directory.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG_FILES, findConfigFile, MAX_CONFIG_BYTES, readConfigFile } from '../../../src/config/file.js';
import { CONFIG_KEYS } from '../../../src/config/settings.js';
import { scratchDirs, settled } from './helpers.js';
import { FIXTURES } from '../../../suites/fixtures.js';

const { root, dirWith } = scratchDirs('vapc-config-file-');

/** Reads `text` as `vapc.yaml` of a fresh directory: the loaded config, or the refusal's code and message. */
async function read(text: string, suites: readonly string[] = ['auth', 'cors']): Promise<unknown> {
  const dir = dirWith({ 'vapc.yaml': text });
  return settled(readConfigFile(join(dir, 'vapc.yaml'), dir, 'vapc.yaml', suites, FIXTURES));
}

describe('findConfigFile: the config file of a working directory', () => {
  it('vapc.yaml first, then .vapc.yaml, else none', () => {
    expect(DEFAULT_CONFIG_FILES).toEqual(['vapc.yaml', '.vapc.yaml']);
    expect(findConfigFile(dirWith({ 'vapc.yaml': '', '.vapc.yaml': '' }))).toBe('vapc.yaml');
    expect(findConfigFile(dirWith({ '.vapc.yaml': '' }))).toBe('.vapc.yaml');
    expect(findConfigFile(dirWith({ 'vapc.yml': '', 'redocly.yaml': '' }))).toBeUndefined();
    expect(findConfigFile(join(root(), 'no-such-dir'))).toBeUndefined();
  });

  it('a directory of that name is not a config file; a symlink is found (the reader then judges it)', () => {
    const dir = dirWith({ '.vapc.yaml': '' });
    mkdirSync(join(dir, 'vapc.yaml'));
    expect(findConfigFile(dir)).toBe('.vapc.yaml');
    const linked = dirWith();
    symlinkSync(join(root(), 'nowhere.yaml'), join(linked, 'vapc.yaml'));
    expect(findConfigFile(linked)).toBe('vapc.yaml');
  });
});

describe('readConfigFile', () => {
  it('gives the settings, and for each the key as written and its line', async () => {
    expect(
      await read('# vapc settings\nseed: 7\ndryRun: true\n\nsuite: [cors]\nfixtures:\n  org_id: o\n'),
    ).toStrictEqual({
      settings: { seed: 7, dryRun: true, suites: ['cors'], fixtures: { org_id: 'o' } },
      keys: {
        seed: { key: 'seed', line: 2 },
        dryRun: { key: 'dryRun', line: 3 },
        suites: { key: 'suite', line: 5 },
        fixtures: { key: 'fixtures', line: 6 },
      },
    });
  });

  it('an empty file, or one of comments only, sets nothing', async () => {
    expect(await read('')).toStrictEqual({ settings: {}, keys: {} });
    expect(await read('# nothing yet\n')).toStrictEqual({ settings: {}, keys: {} });
  });

  it('aliases within bounds are read', async () => {
    expect(await read('api_key: &k abc\nuser_id: *k\n')).toMatchObject({
      settings: { apiKey: 'abc', userId: 'abc' },
    });
  });

  it('refuses a file that is not a mapping, and a wrong value, with the line of its key', async () => {
    expect(await read('just text\n')).toBe(
      'E_CONFIG config file vapc.yaml: expected a mapping of options at the top level, got string "just text"',
    );
    expect(await read('seed: 1\nrpm: 0\n')).toBe(
      'E_CONFIG config file vapc.yaml: rpm: expected a positive number, got number 0 (line 2)',
    );
    expect(await read('seed: 1\nsuite: nope\n')).toBe(
      'E_CONFIG config file vapc.yaml: suite: unknown suite "nope"; known suites: auth, cors (line 2)',
    );
    expect(await read('\n\nbudget: 10\n')).toBe(
      'E_CONFIG config file vapc.yaml: "budget" is not read from a config file; give --budget N (line 3)',
    );
  });

  it('a fixture refusal names the line of the fixture key, not the line of `fixtures:`', async () => {
    expect(await read('seed: 1\nfixtures:\n  org_id: o\n  assistant_id: ""\n')).toBe(
      'E_CONFIG config file vapc.yaml: fixtures.assistant_id: expected an id (a non-empty string), got string "" (line 4)',
    );
    // A mapping under another key is not fixtures: its keys' lines are not taken for the fixtures'.
    expect(await read('fixtures:\n  org_id: ""\nquiet:\n  org_id: x\n')).toBe(
      'E_CONFIG config file vapc.yaml: fixtures.org_id: expected an id (a non-empty string), got string "" (line 2)',
    );
    // Nor a `fixtures:` nested in it.
    expect(await read('fixtures:\n  org_id: ""\n  fixtures:\n    org_id: x\n')).toBe(
      'E_CONFIG config file vapc.yaml: fixtures.org_id: expected an id (a non-empty string), got string "" (line 2)',
    );
    expect(await read('seed: 1\nfixtures: 5\n')).toMatch(
      /^E_CONFIG config file vapc\.yaml: fixtures: expected a mapping of fixture ids \(.*\), got number 5 \(line 2\)$/,
    );
    expect(await read('seed: 1\nfixtures: [org_id]\n')).toMatch(/got a list \(line 2\)$/);
  });

  it('a key that is not a scalar (a YAML complex key) gives no line to another key', async () => {
    expect(await read('undefined: 1\n? [a, b]\n: 2\n')).toBe(
      `E_CONFIG config file vapc.yaml: unknown key "undefined"; known keys: ${CONFIG_KEYS.join(', ')} (snake_case or camelCase) (line 1)`,
    );
  });

  it('refuses YAML that is not valid, and a duplicate key, with the line and column', async () => {
    expect(await read('seed: 1\nseed: 2\n')).toBe(
      'E_CONFIG config file vapc.yaml is not valid YAML at line 2, column 1: Map keys must be unique',
    );
    expect(await read('seed: [1\n')).toBe(
      'E_CONFIG config file vapc.yaml is not valid YAML at line 2, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]',
    );
  });

  it('refuses a YAML warning (an unknown tag) as it does an error', async () => {
    expect(await read('quiet: true\nseed: !foo 1\n')).toBe(
      'E_CONFIG config file vapc.yaml is refused (a YAML warning) at line 2, column 7: Unresolved tag: !foo',
    );
  });

  it('refuses an alias bomb before expanding it, naming the first alias', async () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    expect(await read(`${bomb}\n`)).toBe(
      'E_CONFIG config file vapc.yaml is refused: its aliases expand too far (a resource-exhaustion document) (first alias at line 2, column 8)',
    );
  });

  it(`reads a file of ${MAX_CONFIG_BYTES} bytes (256 KiB) and refuses one byte more`, async () => {
    expect(MAX_CONFIG_BYTES).toBe(262144);
    const line = `# ${'x'.repeat(97)}\n`;
    const padding = line.repeat(Math.floor((MAX_CONFIG_BYTES - 8) / line.length));
    const fill = (n: number) => `${padding}${'#'.repeat(n - padding.length - 8)}\nseed: 1`;
    expect(fill(MAX_CONFIG_BYTES)).toHaveLength(MAX_CONFIG_BYTES);
    expect(await read(fill(MAX_CONFIG_BYTES))).toMatchObject({ settings: { seed: 1 } });
    expect(await read(fill(MAX_CONFIG_BYTES + 1))).toBe(
      'E_CONFIG config file vapc.yaml: refused: 262145 bytes, more than the 262144 a config file may have',
    );
  });

  it('names a missing file as given (escaped), with E_CONFIG', async () => {
    const dir = dirWith();
    await expect(readConfigFile(join(dir, 'gone.yaml'), dir, 'gone\u001b.yaml')).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: 'config file gone\\x1b.yaml: no such file',
    });
    await expect(readConfigFile(join(dir, 'gone.yaml'), dir)).rejects.toMatchObject({
      message: `config file ${join(dir, 'gone.yaml')}: no such file`,
    });
  });

  it('by default knows no suite names: a suite key is refused', async () => {
    const dir = dirWith({ 'vapc.yaml': 'suite: auth\n' });
    await expect(readConfigFile(join(dir, 'vapc.yaml'), dir)).rejects.toMatchObject({
      message: `config file ${join(dir, 'vapc.yaml')}: suite: unknown suite "auth"; known suites:  (line 1)`,
    });
  });

  it('by default knows no fixture: a fixture key is refused', async () => {
    const dir = dirWith({ 'vapc.yaml': 'fixtures:\n  org_id: o\n' });
    await expect(readConfigFile(join(dir, 'vapc.yaml'), dir, 'vapc.yaml')).rejects.toMatchObject({
      message: 'config file vapc.yaml: fixtures: unknown fixture "org_id"; known fixtures: none declared (line 2)',
    });
  });
});
