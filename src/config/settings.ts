/**
 * The readers of `vapc run`'s settings, all derived from the one table (src/config/table.ts): the
 * flags (as commander gives them), the environment, a config file's mapping; the precedence (flags
 * > environment > config file > default); the gate settings a checkout file may not set under CI;
 * the options commander declares and their help; the settings as report.json shows them.
 */
import { VapcError } from '../errors.js';
import { excerpt } from '../files/checkout.js';
import {
  attributeOf,
  flagName,
  META_OPTIONS,
  SETTINGS,
  type PartialSettings,
  type RunSettings,
  type SettingDef,
  type SettingName,
} from './table.js';
import type { FixtureSpec } from '../results/fixtures.js';
import { atLine, coerce, describeValue, parseFixtures, snakeOf, type KeyLines } from './values.js';

export { DEFAULT_REPORT_DIR, type PartialSettings, type RunSettings } from './table.js';
export { coerce, parseSuites, type KeyLines } from './values.js';

const byKey = new Map<string, SettingDef>(
  SETTINGS.flatMap((d) => (d.key ? [d.key, ...(d.aliases ?? [])].map((k) => [k, d] as const) : [])),
);
const byInstead = new Map<string, SettingDef>(
  SETTINGS.filter((d) => d.instead).map((d) => [snakeOf(attributeOf(d.flag!)), d] as const),
);

/** The setting a config-file key names (snake_case or camelCase), or undefined. */
export const settingOfKey = (rawKey: string): SettingDef | undefined => byKey.get(snakeOf(rawKey));

/** The keys a config file accepts, in snake_case (docs/running.md lists them). */
export const CONFIG_KEYS: readonly string[] = [...byKey.keys()];

/** The keys refused with the flag to use instead (any other unknown key is refused listing the known ones). */
export const FLAG_ONLY_CONFIG_KEYS: readonly string[] = [...byInstead.keys()];

/** The value a flag's text gives a setting; a bad value is a usage error naming the flag. */
function fromFlagText(def: SettingDef, value: unknown, suites: readonly string[]): unknown {
  const flag = flagName(def.flag!);
  if (def.kind === 'boolean') return value === true ? true : undefined;
  try {
    return def.parse ? def.parse(String(value), flag) : coerce(def.kind, value, flag, true, suites);
  } catch (error) {
    if (error instanceof VapcError) throw new VapcError('E_USAGE', error.message);
    throw error;
  }
}

/** Flags as settings (`flags` as commander gives them, by attribute); a bad value is a usage error naming the flag. */
export function settingsFromFlags(
  flags: Readonly<Record<string, unknown>>,
  suites: readonly string[] = [],
  only?: readonly SettingName[],
): PartialSettings {
  const out: Record<string, unknown> = {};
  for (const def of SETTINGS) {
    if (!def.flag || (only && !only.includes(def.name))) continue;
    const value = flags[attributeOf(def.flag)];
    if (value === undefined) continue;
    const setting = fromFlagText(def, value, suites);
    if (setting !== undefined) out[def.name] = setting;
  }
  return out as PartialSettings;
}

/** What a refusal of VAPC_FIXTURES asks for: an object such as the first declared fixture with an example value. */
function fixturesWanted(fixtures: readonly FixtureSpec[]): string {
  const shown = fixtures.find((d) => d.kind === 'id' && d.example !== undefined);
  return shown?.kind === 'id'
    ? `an object such as ${JSON.stringify({ [shown.key]: shown.example }).replace(':', ': ')}`
    : 'an object of fixture ids';
}

/**
 * Settings from the environment: each setting's variable of the table (VAPC_BASE_URL,
 * VAPC_API_KEY, VAPC_USER_ID, and VAPC_FIXTURES, a JSON object of fixture ids: the `fixtures:` of a
 * config file), empty values ignored.
 */
export function settingsFromEnv(
  env: Record<string, string | undefined>,
  suites: readonly string[] = [],
  fixtures: readonly FixtureSpec[] = [],
): PartialSettings {
  const out: Record<string, unknown> = {};
  for (const def of SETTINGS) {
    const text = def.env ? env[def.env]?.trim() : undefined;
    if (!text) continue;
    if (def.kind !== 'fixtures') {
      out[def.name] = def.kind === 'string' ? env[def.env!] : coerce(def.kind, text, def.env!, true, suites);
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new VapcError('E_CONFIG', `${def.env}: not JSON; give ${fixturesWanted(fixtures)}`);
    }
    out[def.name] = parseFixtures(value, def.env!, new Map(), fixtures);
  }
  return out as PartialSettings;
}

/** Reads settings from a parsed config object (the YAML file's top-level mapping); `lines` puts the line of each key in errors. */
export function settingsFromObject(
  data: unknown,
  source: string,
  lines: KeyLines = new Map(),
  suites: readonly string[] = [],
  fixtures: readonly FixtureSpec[] = [],
): PartialSettings {
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new VapcError(
      'E_CONFIG',
      `${source}: expected a mapping of options at the top level, got ${describeValue(data)}`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [rawKey, value] of Object.entries(data as Record<string, unknown>))
    atLine(lines.get(rawKey), () => readKey(out, rawKey, value, { source, lines, suites, fixtures }));
  return out as PartialSettings;
}

function readKey(
  out: Record<string, unknown>,
  rawKey: string,
  value: unknown,
  at: { source: string; lines: KeyLines; suites: readonly string[]; fixtures: readonly FixtureSpec[] },
): void {
  const def = settingOfKey(rawKey);
  if (!def) {
    const instead = byInstead.get(snakeOf(rawKey))?.instead;
    if (instead)
      throw new VapcError(
        'E_CONFIG',
        `${at.source}: ${excerpt(rawKey)} is not read from a config file; give ${instead}`,
      );
    throw new VapcError(
      'E_CONFIG',
      `${at.source}: unknown key ${excerpt(rawKey)}; known keys: ${CONFIG_KEYS.join(', ')} (snake_case or camelCase)`,
    );
  }
  out[def.name] =
    def.kind === 'fixtures'
      ? parseFixtures(value, `${at.source}: fixtures`, at.lines, at.fixtures)
      : coerce(def.kind, value, `${at.source}: ${rawKey}`, false, at.suites);
}

/** Flags > environment > config file > defaults, for every setting of the table; fixtures merged key by key in the same order. */
export function mergeSettings(flags: PartialSettings, env: PartialSettings, file: PartialSettings): RunSettings {
  const out: Record<string, unknown> = {};
  for (const def of SETTINGS) {
    const value =
      def.kind === 'fixtures'
        ? { ...file.fixtures, ...env.fixtures, ...flags.fixtures }
        : (flags[def.name] ?? env[def.name] ?? file[def.name] ?? def.default);
    if (value !== undefined) out[def.name] = value;
  }
  return out as unknown as RunSettings;
}

/** The settings a config file in the checkout may not set under CI (the table's gate settings). */
export const GATE_SETTINGS: readonly SettingName[] = SETTINGS.filter((d) => d.gate).map((d) => d.name);

/** What to use instead of a gate setting in a config file: on the command line, and as an Action input. */
export const gateInstead = (name: SettingName): { cli: string; input: string } =>
  SETTINGS.find((d) => d.name === name)!.gate!;

/** The gate settings a loaded config file sets, with their key and line, in the file's order. */
export function gateSettingsIn(config: {
  keys: Partial<Record<string, { key: string; line?: number }>>;
}): Array<{ setting: SettingName; key: string; line?: number }> {
  return GATE_SETTINGS.filter((s) => config.keys[s] !== undefined)
    .map((setting) => ({ setting, ...config.keys[setting]! }))
    .sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
}

/** The settings as report.json's `config` shows them: snake_case, no credential value, the gate's own flags left out. */
export function redactedSettings(settings: RunSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const defs = new Map(SETTINGS.map((d) => [d.name as string, d]));
  for (const [k, v] of Object.entries(settings)) {
    const def = defs.get(k);
    if (k === 'configIgnored' || def?.unreported) continue;
    out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = def?.secret ? (v === undefined ? undefined : 'set') : v;
  }
  return out;
}

/** `--config`'s help: the keys a config file accepts, from the table. */
function configHelp(): string {
  const keyed = SETTINGS.filter((d) => d.key && d.kind !== 'fixtures');
  const booleans = keyed.filter((d) => d.kind === 'boolean').map((d) => d.key!);
  const others = keyed.filter((d) => d.kind !== 'boolean').map((d) => d.key!);
  return `YAML file: ${others.join(', ')}, the booleans ${booleans.join(', ')} (snake_case or camelCase) and fixtures:; other keys are refused (default: vapc.yaml or .vapc.yaml in the working directory, except with --embedded)`;
}

/** `--trust-config`'s help: the gate settings, from the table. */
function trustHelp(): string {
  const keys = SETTINGS.filter((d) => d.gate && d.key).map((d) => d.key!);
  return `under CI, also read ${keys.join(', ')} from the config file (refused there by default: the pull request under test wrote it)`;
}

/** An option as commander declares it; `collect` gathers a repeatable flag's values into a list. */
export interface RunOption {
  flags: string;
  description: string;
  collect?: (value: string, previous: string[] | undefined) => string[];
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Every option of `vapc run` as commander declares it, in `--help` order: the table's flags and the config file's own. */
export function runOptions(suites: readonly string[] = []): RunOption[] {
  const out: RunOption[] = [];
  for (const def of SETTINGS) {
    if (def.flag) {
      const env = def.env ? ` (env ${def.env})` : '';
      const list = def.kind === 'suites' && suites.length ? `: ${suites.join(',')}` : '';
      const option: RunOption = { flags: def.flag, description: `${def.help}${list}${env}` };
      if (def.repeatable) option.collect = collect;
      out.push(option);
    }
    for (const meta of META_OPTIONS.filter((m) => m.after === def.name)) {
      const help = meta.flag.startsWith('--config')
        ? configHelp()
        : meta.flag === '--trust-config'
          ? trustHelp()
          : meta.help;
      out.push({ flags: meta.flag, description: help });
    }
  }
  return out;
}

/**
 * Some of the settings for another command that takes them (`vapc report`, `vapc report merge`):
 * the same flags, parsers and defaults as `vapc run`'s, the help replaced where `help` says.
 */
export function commandSettings<N extends SettingName>(
  names: readonly N[],
  help: Partial<Record<N, string>> = {},
): {
  options: Array<{ flags: string; description: string }>;
  read: (flags: Readonly<Record<string, unknown>>) => Pick<RunSettings, N>;
} {
  const defs = names.map((name) => SETTINGS.find((d) => d.name === name && d.flag)!);
  return {
    options: defs.map((d) => ({ flags: d.flag!, description: help[d.name as N] ?? d.help })),
    read: (flags) => {
      const given = settingsFromFlags(flags, [], names) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const d of defs) if ((given[d.name] ?? d.default) !== undefined) out[d.name] = given[d.name] ?? d.default;
      return out as Pick<RunSettings, N>;
    },
  };
}
