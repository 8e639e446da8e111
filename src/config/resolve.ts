/**
 * The settings of one `vapc run`, resolved from its three sources: the flags, the environment and
 * a config file (given with --config, or found in the working directory as redocly.yaml is by
 * Redocly; not with --no-config, and not by --embedded, which reads a file only when --config
 * names it). Under CI a config file in the checkout is the pull request's own: the gate settings
 * are refused there unless --trust-config.
 */
import { join, resolve } from 'node:path';
import { VapcError } from '../errors.js';
import { excerpt, shownName } from '../files/checkout.js';
import { fromAction, underCi } from '../results/ci.js';
import type { FixtureSpec } from '../results/fixtures.js';
import { DEFAULT_CONFIG_FILES, findConfigFile, readConfigFile, type LoadedConfig } from './file.js';
import {
  gateInstead,
  gateSettingsIn,
  mergeSettings,
  settingsFromEnv,
  settingsFromFlags,
  type PartialSettings,
  type RunSettings,
} from './settings.js';

/** The flags that decide how the config file is read (not settings themselves). */
export interface ConfigFlags {
  /** A file (--config FILE), or false (--no-config: read none, not even one found on disk). */
  config?: string | false;
  /** --trust-config: under CI, read the gate settings from the config file too. */
  trustConfig?: boolean;
  embedded?: boolean;
}

/**
 * What resolving needs besides the flags: the environment, the working directory, the suite names
 * `--suite` may hold and the fixtures `fixtures:` and VAPC_FIXTURES may give (both the contract
 * profile's), how a base URL is checked.
 */
export interface ResolveContext {
  env: Record<string, string | undefined>;
  cwd: string;
  suites: readonly string[];
  fixtures: readonly FixtureSpec[];
  checkBaseUrl: (url: string) => void;
}

/**
 * Under CI, a config file is the pull request's own: the settings that decide what the gate judges
 * are refused there (exit 2, the key, its line and what to use instead) unless --trust-config says
 * the file is trusted.
 */
function refuseGateSettings(config: LoadedConfig, file: string, flags: ConfigFlags, env: ResolveContext['env']): void {
  if (flags.trustConfig || !underCi(env)) return;
  // The first in the file (gateSettingsIn keeps the file's order): the line a reader fixes first.
  const first = gateSettingsIn(config)[0];
  if (!first) return;
  const instead = gateInstead(first.setting);
  const how = fromAction(env)
    ? `${instead.input} (or add --trust-config to \`args\` if the file is trusted)`
    : `${instead.cli} (or pass --trust-config if the file is trusted)`;
  const at = first.line !== undefined ? ` line ${first.line}` : '';
  throw new VapcError(
    'E_CONFIG',
    `config file ${shownName(file)}${at}: ${excerpt(first.key)} is not read from a config file under CI (the pull request under test could change it); ${how}`,
  );
}

/** Which config file a run reads, and why a file found on disk is ignored. */
function configFileOf(flags: ConfigFlags, cwd: string): { file?: string; path?: string; ignored?: string } {
  if (flags.config === false) return {};
  if (typeof flags.config === 'string') return { file: flags.config, path: resolve(cwd, flags.config) };
  const found = findConfigFile(cwd);
  if (found === undefined) return {};
  // The embedded run tests the bundled server: a file found on disk was written for another target.
  if (flags.embedded) return { ignored: found };
  return { file: found, path: join(cwd, found) };
}

/** The target a run needs: a base URL, or the embedded server (and not both); a usage error naming where to give it. */
function checkTarget(
  settings: RunSettings,
  fromFlags: PartialSettings,
  configFile: string | undefined,
  at: ResolveContext,
): void {
  if (settings.embedded) {
    if (fromFlags.baseUrl !== undefined)
      throw new VapcError('E_USAGE', 'give either --base-url or --embedded, not both');
    delete settings.baseUrl;
    return;
  }
  if (settings.baseUrl !== undefined) {
    at.checkBaseUrl(settings.baseUrl);
    return;
  }
  if (fromAction(at.env))
    throw new VapcError('E_USAGE', 'no target: set the input `base-url` to the server under test');
  // Under CI the target never comes from a file of the checkout (refuseGateSettings).
  const where = underCi(at.env)
    ? ''
    : configFile !== undefined
      ? `, or base_url in ${configFile}`
      : `, or base_url in a config file (--config FILE, or ${DEFAULT_CONFIG_FILES[0]} in the working directory)`;
  throw new VapcError('E_USAGE', `no target: give --base-url URL (or VAPC_BASE_URL${where}), or --embedded`);
}

/** Resolves flags (as commander gives them), env and config file into the settings of one run (see the module comment). */
export async function resolveSettings(
  flags: ConfigFlags & Readonly<Record<string, unknown>>,
  at: ResolveContext,
): Promise<RunSettings> {
  const fromFlags = settingsFromFlags(flags, at.suites);
  const { file: configFile, path, ignored } = configFileOf(flags, at.cwd);
  let fromFile: PartialSettings = {};
  if (path !== undefined) {
    const loaded = await readConfigFile(path, at.cwd, configFile, at.suites, at.fixtures);
    refuseGateSettings(loaded, configFile!, flags, at.env);
    fromFile = loaded.settings;
  }
  const settings = mergeSettings(fromFlags, settingsFromEnv(at.env, at.suites, at.fixtures), fromFile);
  if (configFile !== undefined) settings.configFile = configFile;
  if (ignored !== undefined) settings.configIgnored = ignored;
  checkTarget(settings, fromFlags, configFile, at);
  return settings;
}
