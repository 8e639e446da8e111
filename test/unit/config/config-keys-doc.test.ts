/**
 * docs/running.md says exactly which keys a vapc.yaml accepts (its `fixtures:` keys too, as
 * docs/interface.md does) and which flags of `vapc run` are flags only: the keys are the config
 * reader's, every other flag of the command is listed as flag-only, and a config file naming one
 * of those is refused (E_CONFIG), with the flag to use for the keys the reader names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/main.js';
import { CONFIG_KEYS, FLAG_ONLY_CONFIG_KEYS, settingsFromObject } from '../../../src/config/settings.js';
import { isVapcError } from '../../../src/errors.js';
import { FIXTURES } from '../../../suites/fixtures.js';
import { packageRoot } from '../../../src/paths.js';

const page = readFileSync(join(packageRoot, 'docs', 'running.md'), 'utf8');
const interfacePage = readFileSync(join(packageRoot, 'docs', 'interface.md'), 'utf8');

/** The code spans of a page between two phrases. */
function spansBetween(from: string, to: string, text = page): string[] {
  const start = text.indexOf(from);
  const end = text.indexOf(to, start);
  expect(start, from).toBeGreaterThanOrEqual(0);
  expect(end, to).toBeGreaterThan(start);
  return [...text.slice(start, end).matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
}

const accepted = spansBetween('The keys `vapc.yaml` accepts', 'other key is refused').filter((s) =>
  /^[a-z_]+$/.test(s),
);
const flagOnly = spansBetween('The other flags of `vapc run` are flags only', 'In a config file').filter((s) =>
  s.startsWith('--'),
);
const refusedNamingFlag = spansBetween('In a config file', 'are refused naming the flag').map((s) =>
  s.replace(/:$/, ''),
);

async function runFlags(): Promise<string[]> {
  const io = { stdout: () => {}, stderr: () => {}, env: {}, isTTY: false };
  const run = (await buildProgram({ io, exit: () => {} })).commands.find((c) => c.name() === 'run')!;
  return run.options.map((o) => o.long!);
}

/** How a config reader told to read `key` fails: its code and message, or 'read' when it accepts it. */
function refusal(key: string): string {
  try {
    settingsFromObject({ [key]: true }, 'vapc.yaml');
    return 'read';
  } catch (error) {
    return isVapcError(error) ? `${error.code}: ${error.message}` : String(error);
  }
}

describe('docs/running.md: the keys of vapc.yaml', () => {
  it('lists exactly the keys the config reader accepts', () => {
    expect([...accepted].sort()).toEqual([...CONFIG_KEYS].sort());
  });

  it('lists every other flag of vapc run as a flag only, and no flag that has a key', async () => {
    const flags = await runFlags();
    const withKey = CONFIG_KEYS.map((k) => `--${k.replace(/_/g, '-')}`).filter((f) => flags.includes(f));
    expect(withKey.length).toBeGreaterThan(10);
    expect([...flagOnly].sort()).toEqual(flags.filter((f) => !withKey.includes(f)).sort());
  });

  it('names the keys refused with the flag to use', () => {
    expect([...refusedNamingFlag].sort()).toEqual([...FLAG_ONLY_CONFIG_KEYS].sort());
    for (const key of FLAG_ONLY_CONFIG_KEYS)
      expect(refusal(key)).toMatch(/^E_CONFIG: vapc\.yaml: "\w+" is not read from a config file; give --/);
  });

  it('refuses each flag-only setting in a config file', () => {
    for (const flag of flagOnly) {
      const key = flag.replace(/^--/, '').replace(/-/g, '_');
      expect(refusal(key), key).toMatch(/^E_CONFIG: /);
    }
  });

  it('lists the fixtures: keys the reader knows, on this page and in docs/interface.md', () => {
    const keys = (spans: string[]) => spans.filter((k) => /^[a-z_]+$/.test(k)).sort();
    expect(keys(spansBetween('The `fixtures:` keys are', 'a check that needs a fixture'))).toEqual(
      FIXTURES.map((f) => f.key).sort(),
    );
    expect(keys(spansBetween('The `fixtures:` keys of the config file', 'A check that', interfacePage))).toEqual(
      FIXTURES.map((f) => f.key).sort(),
    );
  });
});
