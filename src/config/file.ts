/**
 * The config file of `vapc run` (YAML), read through the one reader of checkout files: a regular
 * file inside the working directory (or, named elsewhere, inside its own folder) after realpath, at
 * most MAX_CONFIG_BYTES, nothing quoted back beyond a short escaped excerpt, a YAML warning (an
 * unknown tag) refused like an error, aliases bounded. Its keys come from the settings table.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { VapcError } from '../errors.js';
import { excerpt, readCheckoutFile, shownName } from '../files/checkout.js';
import { clip, printable } from '../results/printable.js';
import { settingsFromObject, settingOfKey } from './settings.js';
import type { FixtureSpec } from '../results/fixtures.js';
import type { PartialSettings } from './table.js';
import { snakeOf } from './values.js';

/** The config files `vapc run` reads from the working directory when --config is not given, in this order. */
export const DEFAULT_CONFIG_FILES = ['vapc.yaml', '.vapc.yaml'] as const;

/** A config file is at most this large (the documented keys take a few hundred bytes). */
export const MAX_CONFIG_BYTES = 256 * 1024;

/**
 * The first of DEFAULT_CONFIG_FILES present in `dir` (a file, or a symlink wherever it leads: the
 * reader refuses what it must not read), as its bare name; undefined when none. A directory of that
 * name is not a config file.
 */
export function findConfigFile(dir: string): string | undefined {
  return DEFAULT_CONFIG_FILES.find((name) => {
    try {
      return !lstatSync(join(dir, name)).isDirectory();
    } catch {
      return false;
    }
  });
}

/** A config file as read: its settings, and for each setting the key it came from and that key's line. */
export interface LoadedConfig {
  settings: PartialSettings;
  keys: Partial<Record<keyof PartialSettings, { key: string; line?: number }>>;
}

/**
 * Reads a YAML config file with the line of each key (see the module comment); `suites` are the
 * names `suite:` may hold, `fixtures` the contract's fixtures `fixtures:` may give.
 */
export async function readConfigFile(
  path: string,
  cwd: string = process.cwd(),
  label: string = path,
  suites: readonly string[] = [],
  fixtures: readonly FixtureSpec[] = [],
): Promise<LoadedConfig> {
  const name = `config file ${shownName(label)}`;
  const text = readCheckoutFile(path, {
    label: name,
    maxBytes: MAX_CONFIG_BYTES,
    capOf: 'a config file',
    code: 'E_CONFIG',
    cwd,
  });
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter: lines, logLevel: 'error' });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) {
    const pos = lines.linePos(problem.pos[0]);
    const at = ` at line ${pos.line}, column ${pos.col}`;
    const what = doc.errors.length > 0 ? 'is not valid YAML' : 'is refused (a YAML warning)';
    throw new VapcError('E_CONFIG', `${name} ${what}${at}: ${clip(printable(problem.message.split('\n')[0]!), 120)}`);
  }
  let data: unknown;
  try {
    // maxAliasCount bounds alias expansion: a "billion laughs" document is refused, not expanded.
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new VapcError('E_CONFIG', `${name} is refused: ${aliasRefusal(doc, lines, error)}`);
  }
  const positions = keyLines(doc, lines);
  const settings = settingsFromObject(data, name, positions, suites, fixtures);
  const keys: LoadedConfig['keys'] = {};
  for (const rawKey of Object.keys((data ?? {}) as Record<string, unknown>)) {
    const setting = settingOfKey(rawKey)?.name;
    if (setting === undefined) continue;
    const line = positions.get(rawKey);
    keys[setting] = line === undefined ? { key: rawKey } : { key: rawKey, line };
  }
  return { settings, keys };
}

/** Why toJS refused a document (its aliases expand too far), with the first alias's position. */
function aliasRefusal(doc: Document, lines: LineCounter, error: unknown): string {
  let at = '';
  visit(doc, {
    Alias(_key, node) {
      const pos = node.range ? lines.linePos(node.range[0]) : undefined;
      if (pos) at = ` (first alias at line ${pos.line}, column ${pos.col})`;
      return visit.BREAK;
    },
  });
  const message = String((error as Error).message);
  const why = /alias/i.test(message)
    ? 'its aliases expand too far (a resource-exhaustion document)'
    : excerpt(message, 80);
  return `${why}${at}`;
}

/** The line of each top-level key and of each key under `fixtures:` (1-based). */
function keyLines(doc: Document, counter: LineCounter): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (node: unknown, prefix: string): void => {
    if (!isMap(node)) return;
    for (const pair of node.items) {
      if (!isScalar(pair.key) || !pair.key.range) continue;
      const name = String(pair.key.value);
      out.set(`${prefix}${name}`, counter.linePos(pair.key.range[0]).line);
      if (prefix === '' && snakeOf(name) === 'fixtures') walk(pair.value, 'fixtures.');
    }
  };
  walk(doc.contents, '');
  return out;
}
