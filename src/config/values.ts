/**
 * The value kinds of `vapc run`'s settings and how each is read from text (a flag, an environment
 * variable) or from YAML (a config file): one converter per kind, one clear E_CONFIG error naming
 * where the value came from and what it was (escaped, never quoted beyond a short excerpt).
 */
import { VapcError } from '../errors.js';
import { excerpt } from '../files/checkout.js';
import type { Fixtures, FixtureSpec, TaggedId } from '../results/fixtures.js';
import { snakeCase } from '../results/names.js';

export type Kind = 'string' | 'boolean' | 'int' | 'positiveInt' | 'positiveNumber' | 'suites' | 'fixtures' | 'paths';

/** The most files a repeatable path setting (`--arazzo`) takes. */
export const MAX_PATHS = 32;

/** A config file's key as the readers compare it: snake_case (camelCase and kebab-case accepted). */
export const snakeOf = (key: string): string => snakeCase(key).replace(/-/g, '_');

/** A value as a refusal names it: its type and a short, escaped excerpt (a file's text is never quoted further). */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${typeof value === 'string' ? excerpt(value) : String(value)}`;
}

/** Parses a comma-separated suite list (or a list), refusing names not among `known`. */
export function parseSuites(value: unknown, where: string, known: readonly string[]): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!items || items.some((s) => typeof s !== 'string')) {
    throw new VapcError(
      'E_CONFIG',
      `${where}: expected a comma-separated list of suites (${known.join(', ')}), got ${describeValue(value)}`,
    );
  }
  const names = items.map((s: string) => s.trim()).filter((s: string) => s !== '');
  if (names.length === 0)
    throw new VapcError('E_CONFIG', `${where}: the suite list is empty; known suites: ${known.join(', ')}`);
  const unknown = names.filter((s) => !known.includes(s));
  if (unknown.length > 0) {
    throw new VapcError(
      'E_CONFIG',
      `${where}: unknown suite ${unknown
        .slice(0, 3)
        .map((s) => excerpt(s))
        .join(', ')}${unknown.length > 3 ? ` and ${unknown.length - 3} more` : ''}; known suites: ${known.join(', ')}`,
    );
  }
  return [...new Set(names)];
}

/** `--shard I/N`: 1 ≤ I ≤ N; anything else is a usage error. */
export function parseShard(text: string): { index: number; count: number } {
  const m = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || index < 1 || index > count) {
    throw new VapcError('E_USAGE', `--shard takes I/N with 1 <= I <= N (e.g. --shard 2/3), not "${text}"`);
  }
  return { index, count };
}

/** A percentage from 0 to 100 given as text (`--min-coverage`, `--coverage-floor`); `note` follows the range in the refusal. */
export function parsePercent(text: string, flag: string, note = ''): number {
  const n = Number(text);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(text) || !(n >= 0 && n <= 100))
    throw new VapcError('E_USAGE', `${flag} takes a percentage from 0 to 100${note}, not "${text}"`);
  return n;
}

/** An integer kind's value from a number, or from text when `fromText`; NaN when it is neither. */
function integerOf(value: unknown, fromText: boolean): number {
  if (typeof value === 'number') return value;
  return fromText && typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
}

/** What each kind reads (its converter), given the value, a refusal and whether the value came as text. */
const CONVERT: Record<
  Exclude<Kind, 'suites' | 'fixtures'>,
  (value: unknown, fail: (expected: string) => never, fromText: boolean) => unknown
> = {
  string: (value, fail) => (typeof value !== 'string' || value.trim() === '' ? fail('a non-empty string') : value),
  // A repeatable flag gives a list (commander collects it), a config file a list or one path.
  paths: (value, fail) => {
    const list = typeof value === 'string' ? [value] : value;
    if (!Array.isArray(list) || list.length === 0 || list.some((v) => typeof v !== 'string' || v.trim() === ''))
      return fail('a file path or a list of file paths');
    if (list.length > MAX_PATHS) return fail(`at most ${MAX_PATHS} file paths`);
    return [...new Set(list as string[])];
  },
  boolean: (value, fail, fromText) => {
    if (typeof value === 'boolean') return value;
    if (fromText && typeof value === 'string' && /^(true|false|1|0|yes|no)$/i.test(value.trim()))
      return /^(true|1|yes)$/i.test(value.trim());
    return fail('true or false');
  },
  int: (value, fail, fromText) => {
    const n = integerOf(value, fromText);
    if (!Number.isSafeInteger(n)) return fail('an integer');
    if (n < 0 || n > 0xffffffff) return fail('an integer from 0 to 4294967295');
    return n;
  },
  positiveInt: (value, fail, fromText) => {
    const n = integerOf(value, fromText);
    return Number.isSafeInteger(n) && n > 0 ? n : fail('a positive integer');
  },
  positiveNumber: (value, fail, fromText) => {
    const n =
      typeof value === 'number'
        ? value
        : fromText && typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)
          ? Number(value)
          : NaN;
    return Number.isFinite(n) && n > 0 ? n : fail('a positive number');
  },
};

/** Converts one value to its kind, or throws a clear E_CONFIG error naming where it came from. */
export function coerce(
  kind: Kind,
  value: unknown,
  where: string,
  fromText: boolean,
  suites: readonly string[] = [],
  fixtures: readonly FixtureSpec[] = [],
): unknown {
  const fail = (expected: string): never => {
    throw new VapcError('E_CONFIG', `${where}: expected ${expected}, got ${describeValue(value)}`);
  };
  switch (kind) {
    case 'suites':
      return parseSuites(value, where, suites);
    case 'fixtures':
      return parseFixtures(value, where, new Map(), fixtures);
    default:
      return CONVERT[kind](value, fail, fromText);
  }
}

/** Line numbers of a config file's keys: `key` for top-level keys, `fixtures.key` for fixtures. */
export type KeyLines = ReadonlyMap<string, number>;

/** Runs `read`; a config error it throws gets the key's line appended. */
export function atLine<T>(line: number | undefined, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (line === undefined || !(error instanceof VapcError) || / \(line \d+\)$/.test(error.message)) throw error;
    throw new VapcError(error.code, `${error.message} (line ${line})`);
  }
}

/** `[{id, <tag>}]` (a tagged-ids fixture): ids with the tag each goes with (the tag optional). */
function parseTaggedIds(v: unknown, tag: string, where: string): TaggedId[] {
  const ok = (p: unknown): p is TaggedId =>
    p !== null &&
    typeof p === 'object' &&
    typeof (p as { id?: unknown }).id === 'string' &&
    (p as { id: string }).id !== '' &&
    ['undefined', 'string'].includes(typeof (p as Record<string, unknown>)[tag]);
  if (!Array.isArray(v) || v.length === 0 || !v.every(ok))
    throw new VapcError(
      'E_CONFIG',
      `${where}: expected a list of {id, ${tag}} (${tag} optional), got ${describeValue(v)}`,
    );
  return v.map((p) => (p[tag] ? { id: p.id, [tag]: p[tag] } : { id: p.id }));
}

/** The keys a refusal lists: the declared ones, or none. */
const keysOf = (declared: readonly FixtureSpec[]): string =>
  declared.length ? declared.map((d) => d.key).join(', ') : 'none declared';

/**
 * The `fixtures:` mapping (of a config file, or VAPC_FIXTURES): the values by key, each checked
 * against what the contract declares (`declared`, its profile's fixtures); `lines` puts a key's line in errors.
 */
export function parseFixtures(
  value: unknown,
  where: string,
  lines: KeyLines,
  declared: readonly FixtureSpec[] = [],
): Fixtures {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new VapcError(
      'E_CONFIG',
      `${where}: expected a mapping of fixture ids (${keysOf(declared)}), got ${describeValue(value)}`,
    );
  }
  const out: Fixtures = {};
  for (const [rawKey, v] of Object.entries(value as Record<string, unknown>))
    atLine(lines.get(`fixtures.${rawKey}`), () => parseFixture(out, rawKey, v, where, declared));
  return out;
}

function parseFixture(
  out: Fixtures,
  rawKey: string,
  v: unknown,
  where: string,
  declared: readonly FixtureSpec[],
): void {
  const key = snakeOf(rawKey);
  const spec = declared.find((d) => d.key === key);
  if (!spec) {
    throw new VapcError(
      'E_CONFIG',
      `${where}: unknown fixture ${excerpt(rawKey)}; known fixtures: ${keysOf(declared)}`,
    );
  }
  if (spec.kind === 'list') {
    if (!Array.isArray(v) || v.length === 0 || v.some((c) => typeof c !== 'string' || c === '')) {
      throw new VapcError(
        'E_CONFIG',
        `${where}.${key}: expected a list of ${spec.items} (strings), got ${describeValue(v)}`,
      );
    }
    out[key] = v as string[];
  } else if (spec.kind === 'tagged-ids') {
    out[key] = parseTaggedIds(v, spec.tag, `${where}.${rawKey}`);
  } else {
    if (typeof v === 'number' && Number.isFinite(v)) out[key] = String(v);
    else if (typeof v === 'string' && v !== '') out[key] = v;
    else
      throw new VapcError(
        'E_CONFIG',
        `${where}.${rawKey}: expected an id (a non-empty string), got ${describeValue(v)}`,
      );
  }
}
