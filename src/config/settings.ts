import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { VapcError } from '../errors.js';
import { excerpt, readCheckoutFile, shownName } from '../files/checkout.js';
import { clip, printable } from '../results/printable.js';
import { SUITES, type Suite } from '../results/model.js';
import { FIXTURE_KEYS, type Fixtures } from '../results/fixtures.js';
import { snakeCase } from '../results/names.js';

/** The effective options of `vapc run`, after flags, env and the config file are merged. */
export interface RunSettings {
  baseUrl?: string;
  embedded: boolean;
  apiKey?: string;
  userId?: string;
  suites?: Suite[];
  seed?: number;
  runs?: number;
  rpm?: number;
  /** --budget N: plan at most N requests, highest-value checks first. */
  budget?: number;
  timeoutMs?: number;
  /** Whole-run deadline (an addition to the documented flags). */
  deadlineMs?: number;
  includeDestructive: boolean;
  reportDir: string;
  dryRun: boolean;
  strictTypes: boolean;
  quiet: boolean;
  fixtures: Fixtures;
  /** The config file the settings came from (given with --config, or found in the working directory). */
  configFile?: string;
  /** A config file found in the working directory and not read (an embedded run without --config). */
  configIgnored?: string;
}

export const DEFAULT_REPORT_DIR = 'reports/latest';

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

/** Settings as they come from one source (flags, env, file): all optional. */
export type PartialSettings = Partial<Omit<RunSettings, 'fixtures'>> & { fixtures?: Fixtures };

type Kind = 'string' | 'boolean' | 'int' | 'positiveInt' | 'positiveNumber' | 'suites';

/** The config-file keys (snake_case; camelCase accepted too) and what they hold. */
const KEYS: Record<string, { setting: keyof PartialSettings; kind: Kind }> = {
  base_url: { setting: 'baseUrl', kind: 'string' },
  embedded: { setting: 'embedded', kind: 'boolean' },
  api_key: { setting: 'apiKey', kind: 'string' },
  user_id: { setting: 'userId', kind: 'string' },
  suite: { setting: 'suites', kind: 'suites' },
  suites: { setting: 'suites', kind: 'suites' },
  seed: { setting: 'seed', kind: 'int' },
  runs: { setting: 'runs', kind: 'positiveInt' },
  rpm: { setting: 'rpm', kind: 'positiveNumber' },
  timeout_ms: { setting: 'timeoutMs', kind: 'positiveInt' },
  deadline_ms: { setting: 'deadlineMs', kind: 'positiveInt' },
  include_destructive: { setting: 'includeDestructive', kind: 'boolean' },
  report_dir: { setting: 'reportDir', kind: 'string' },
  dry_run: { setting: 'dryRun', kind: 'boolean' },
  strict_types: { setting: 'strictTypes', kind: 'boolean' },
  quiet: { setting: 'quiet', kind: 'boolean' },
};

/** The keys a config file accepts, in snake_case (docs/running.md lists them). */
export const CONFIG_KEYS: readonly string[] = [...Object.keys(KEYS), 'fixtures'];

const snakeOf = (key: string): string => snakeCase(key).replace(/-/g, '_');

/**
 * Keys a config file may not hold at all: the gate's baseline comes from the command line (or the
 * Action's input), and so does a request budget, which leaves checks out.
 */
const FLAG_ONLY_KEYS: Record<string, string> = {
  baseline: '--baseline FILE (Action input `baseline`)',
  write_baseline: '--write-baseline FILE',
  budget: '--budget N',
};

/** The keys refused with the flag to use instead (any other unknown key is refused listing the known ones). */
export const FLAG_ONLY_CONFIG_KEYS: readonly string[] = Object.keys(FLAG_ONLY_KEYS);

/** A value as a refusal names it: its type and a short, escaped excerpt (a file's text is never quoted further). */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${typeof value === 'string' ? excerpt(value) : String(value)}`;
}

/** Parses a comma-separated suite list (or a list), refusing unknown names. */
export function parseSuites(value: unknown, where: string): Suite[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!items || items.some((s) => typeof s !== 'string')) {
    throw new VapcError(
      'E_CONFIG',
      `${where}: expected a comma-separated list of suites (${SUITES.join(', ')}), got ${describeValue(value)}`,
    );
  }
  const names = items.map((s: string) => s.trim()).filter((s: string) => s !== '');
  if (names.length === 0)
    throw new VapcError('E_CONFIG', `${where}: the suite list is empty; known suites: ${SUITES.join(', ')}`);
  const unknown = names.filter((s) => !(SUITES as readonly string[]).includes(s));
  if (unknown.length > 0) {
    throw new VapcError(
      'E_CONFIG',
      `${where}: unknown suite ${unknown
        .slice(0, 3)
        .map((s) => excerpt(s))
        .join(', ')}${unknown.length > 3 ? ` and ${unknown.length - 3} more` : ''}; known suites: ${SUITES.join(', ')}`,
    );
  }
  return [...new Set(names)] as Suite[];
}

/** Converts one value to its kind, or throws a clear E_CONFIG error naming where it came from. */
export function coerce(kind: Kind, value: unknown, where: string, fromText: boolean): unknown {
  const fail = (expected: string): never => {
    throw new VapcError('E_CONFIG', `${where}: expected ${expected}, got ${describeValue(value)}`);
  };
  switch (kind) {
    case 'string':
      if (typeof value !== 'string' || value.trim() === '') fail('a non-empty string');
      return value;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (fromText && typeof value === 'string' && /^(true|false|1|0|yes|no)$/i.test(value.trim()))
        return /^(true|1|yes)$/i.test(value.trim());
      return fail('true or false');
    case 'int':
    case 'positiveInt': {
      const n =
        typeof value === 'number'
          ? value
          : fromText && typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)
            ? Number(value)
            : NaN;
      if (!Number.isSafeInteger(n)) return fail(kind === 'int' ? 'an integer' : 'a positive integer');
      if (kind === 'positiveInt' && n <= 0) return fail('a positive integer');
      if (kind === 'int' && (n < 0 || n > 0xffffffff)) return fail('an integer from 0 to 4294967295');
      return n;
    }
    case 'positiveNumber': {
      const n =
        typeof value === 'number'
          ? value
          : fromText && typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value)
            ? Number(value)
            : NaN;
      if (!Number.isFinite(n) || n <= 0) return fail('a positive number');
      return n;
    }
    case 'suites':
      return parseSuites(value, where);
  }
}

/** `phone_numbers: [{id, channel}]`: phone numbers with the channel each goes with (channel optional). */
function parsePhoneNumbers(v: unknown, where: string): NonNullable<Fixtures['phone_numbers']> {
  const ok = (p: unknown): p is { id: string; channel?: string } =>
    p !== null &&
    typeof p === 'object' &&
    typeof (p as { id?: unknown }).id === 'string' &&
    (p as { id: string }).id !== '' &&
    ['undefined', 'string'].includes(typeof (p as { channel?: unknown }).channel);
  if (!Array.isArray(v) || v.length === 0 || !v.every(ok))
    throw new VapcError(
      'E_CONFIG',
      `${where}: expected a list of {id, channel} (channel optional), got ${describeValue(v)}`,
    );
  return v.map((p) => (p.channel ? { id: p.id, channel: p.channel } : { id: p.id }));
}

function parseFixtures(value: unknown, where: string, lines: KeyLines): Fixtures {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new VapcError(
      'E_CONFIG',
      `${where}: expected a mapping of fixture ids (${FIXTURE_KEYS.join(', ')}), got ${describeValue(value)}`,
    );
  }
  const out: Fixtures = {};
  for (const [rawKey, v] of Object.entries(value as Record<string, unknown>))
    atLine(lines.get(`fixtures.${rawKey}`), () => parseFixture(out, rawKey, v, where));
  return out;
}

/** Runs `read`; a config error it throws gets the key's line appended. */
function atLine<T>(line: number | undefined, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (line === undefined || !(error instanceof VapcError) || / \(line \d+\)$/.test(error.message)) throw error;
    throw new VapcError(error.code, `${error.message} (line ${line})`);
  }
}

function parseFixture(out: Fixtures, rawKey: string, v: unknown, where: string): void {
  const key = snakeOf(rawKey) as (typeof FIXTURE_KEYS)[number];
  if (!FIXTURE_KEYS.includes(key)) {
    throw new VapcError(
      'E_CONFIG',
      `${where}: unknown fixture ${excerpt(rawKey)}; known fixtures: ${FIXTURE_KEYS.join(', ')}`,
    );
  }
  if (key === 'channels') {
    if (!Array.isArray(v) || v.length === 0 || v.some((c) => typeof c !== 'string' || c === '')) {
      throw new VapcError(
        'E_CONFIG',
        `${where}.channels: expected a list of the provider identifiers (strings), got ${describeValue(v)}`,
      );
    }
    out.channels = v as string[];
  } else if (key === 'phone_numbers') {
    out.phone_numbers = parsePhoneNumbers(v, `${where}.${rawKey}`);
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

/** Line numbers of a config file's keys: `key` for top-level keys, `fixtures.key` for fixtures. */
export type KeyLines = ReadonlyMap<string, number>;

/** Reads settings from a parsed config object (the YAML file's top-level mapping); `lines` puts the line of each key in errors. */
export function settingsFromObject(data: unknown, source: string, lines: KeyLines = new Map()): PartialSettings {
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new VapcError(
      'E_CONFIG',
      `${source}: expected a mapping of options at the top level, got ${describeValue(data)}`,
    );
  }
  const out: PartialSettings = {};
  for (const [rawKey, value] of Object.entries(data as Record<string, unknown>))
    atLine(lines.get(rawKey), () => readKey(out, rawKey, value, source, lines));
  return out;
}

function readKey(out: PartialSettings, rawKey: string, value: unknown, source: string, lines: KeyLines): void {
  const key = snakeOf(rawKey);
  if (key === 'fixtures') {
    out.fixtures = parseFixtures(value, `${source}: fixtures`, lines);
    return;
  }
  const spec = KEYS[key];
  if (!spec) {
    const known = CONFIG_KEYS.join(', ');
    const instead = FLAG_ONLY_KEYS[key];
    if (instead)
      throw new VapcError('E_CONFIG', `${source}: ${excerpt(rawKey)} is not read from a config file; give ${instead}`);
    throw new VapcError(
      'E_CONFIG',
      `${source}: unknown key ${excerpt(rawKey)}; known keys: ${known} (snake_case or camelCase)`,
    );
  }
  (out as Record<string, unknown>)[spec.setting] = coerce(spec.kind, value, `${source}: ${rawKey}`, false);
}

/** A config file as read: its settings, and for each setting the key it came from and that key's line. */
export interface LoadedConfig {
  settings: PartialSettings;
  keys: Partial<Record<keyof PartialSettings, { key: string; line?: number }>>;
}

/**
 * The settings that decide what the gate judges and where the key goes: a config file committed in
 * the checkout is written by the pull request the gate judges, so under CI these come from flags,
 * the environment or Action inputs (the baseline path cannot be set in a config file at all).
 * `embedded` would swap the target for the bundled reference server, which passes; `base_url` would
 * send the key (VAPC_API_KEY) to a host the pull request named; `report_dir` would write (and
 * replace) files outside the checkout; `fixtures` choose the records the checks judge.
 */
export const GATE_SETTINGS = [
  'baseUrl',
  'reportDir',
  'fixtures',
  'dryRun',
  'suites',
  'includeDestructive',
  'embedded',
] as const;
export type GateSetting = (typeof GATE_SETTINGS)[number];

/** The gate settings a loaded config file sets, with their key and line. */
export function gateSettingsIn(config: LoadedConfig): Array<{ setting: GateSetting; key: string; line?: number }> {
  return GATE_SETTINGS.filter((s) => config.keys[s] !== undefined).map((setting) => ({
    setting,
    ...config.keys[setting]!,
  }));
}

/** Loads a YAML config file; unreadable, malformed, unknown keys or wrong types → VapcError E_CONFIG. */
export async function loadConfigFile(path: string): Promise<PartialSettings> {
  return (await readConfigFile(path)).settings;
}

/**
 * Reads a YAML config file with the line of each key (see loadConfigFile), through the one reader
 * of checkout files: a regular file inside the working directory (or, named elsewhere, inside its
 * own folder) after realpath, at most MAX_CONFIG_BYTES. Nothing of the file is quoted back beyond a
 * short, escaped excerpt; a YAML warning (an unknown tag) refuses the file, escaped, like an error.
 */
export async function readConfigFile(
  path: string,
  cwd: string = process.cwd(),
  label: string = path,
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
  const settings = settingsFromObject(data, name, positions);
  const keys: LoadedConfig['keys'] = {};
  for (const rawKey of Object.keys((data ?? {}) as Record<string, unknown>)) {
    const setting = snakeOf(rawKey) === 'fixtures' ? 'fixtures' : KEYS[snakeOf(rawKey)]?.setting;
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

/**
 * Settings from the environment: VAPC_BASE_URL, VAPC_API_KEY, VAPC_USER_ID and VAPC_FIXTURES (a
 * JSON object of fixture ids, the `fixtures:` of a config file), empty values ignored.
 */
export function settingsFromEnv(env: Record<string, string | undefined>): PartialSettings {
  const out: PartialSettings = {};
  if (env['VAPC_BASE_URL']) out.baseUrl = env['VAPC_BASE_URL'];
  if (env['VAPC_API_KEY']) out.apiKey = env['VAPC_API_KEY'];
  if (env['VAPC_USER_ID']) out.userId = env['VAPC_USER_ID'];
  const fixtures = env['VAPC_FIXTURES']?.trim();
  if (fixtures) {
    let value: unknown;
    try {
      value = JSON.parse(fixtures);
    } catch {
      throw new VapcError('E_CONFIG', 'VAPC_FIXTURES: not JSON; give an object such as {"org_id": "org_123"}');
    }
    out.fixtures = parseFixtures(value, 'VAPC_FIXTURES', new Map());
  }
  return out;
}

/** Flags > environment > config file > defaults; fixtures merged key by key in the same order. */
export function mergeSettings(flags: PartialSettings, env: PartialSettings, file: PartialSettings): RunSettings {
  const pick = <K extends keyof PartialSettings>(key: K): PartialSettings[K] => flags[key] ?? env[key] ?? file[key];
  const settings: RunSettings = {
    embedded: pick('embedded') ?? false,
    includeDestructive: pick('includeDestructive') ?? false,
    reportDir: pick('reportDir') ?? DEFAULT_REPORT_DIR,
    dryRun: pick('dryRun') ?? false,
    strictTypes: pick('strictTypes') ?? false,
    quiet: pick('quiet') ?? false,
    fixtures: { ...file.fixtures, ...env.fixtures, ...flags.fixtures },
  };
  for (const key of [
    'baseUrl',
    'apiKey',
    'userId',
    'suites',
    'seed',
    'runs',
    'rpm',
    'budget',
    'timeoutMs',
    'deadlineMs',
  ] as const) {
    const value = pick(key);
    if (value !== undefined) (settings as unknown as Record<string, unknown>)[key] = value;
  }
  return settings;
}

/** The settings as a report may show them: no credential values. */
export function redactedSettings(settings: RunSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(settings)) {
    if (k === 'configIgnored') continue;
    if (k === 'apiKey' || k === 'userId')
      out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v === undefined ? undefined : 'set';
    else out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  }
  return out;
}
