/**
 * Resolving the settings of one `vapc run` (src/config/resolve.ts): which config file is read
 * (vapc.yaml or .vapc.yaml found in the working directory, --config FILE, none with --no-config,
 * none found by --embedded), the gate settings a checkout file may not set under CI (every form of
 * "under CI": `CI` true in any case or 1, or a provider's own variable; --trust-config lifts it), and
 * the target a run needs. The working directory is passed in, never changed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSettings, type ConfigFlags } from '../../../src/config/resolve.js';
import { GATE_SETTINGS, mergeSettings } from '../../../src/config/settings.js';
import { SETTINGS } from '../../../src/config/table.js';
import { VapcError } from '../../../src/errors.js';
import { CI_PROVIDER_VARIABLES } from '../../../src/results/ci.js';
import { FIXTURES } from '../../../suites/fixtures.js';
import { scratchDirs, settled } from './helpers.js';

const URL_FILE = 'http://127.0.0.1:1111';
const URL_FLAG = 'http://127.0.0.1:3333';
const { dirWith } = scratchDirs('vapc-resolve-');

/** Resolves in `cwd` with `env`; the base URLs checked are recorded in `checked`. */
async function resolveIn(
  cwd: string,
  flags: ConfigFlags & Record<string, unknown>,
  env: Record<string, string | undefined> = {},
  checked: string[] = [],
) {
  return resolveSettings(flags, {
    env,
    cwd,
    suites: ['auth', 'cors'],
    fixtures: FIXTURES,
    checkBaseUrl: (url) => void checked.push(url),
  });
}

const defaults = mergeSettings({}, {}, {});

describe('which config file a run reads', () => {
  it('vapc.yaml in the working directory, named in the settings', async () => {
    const cwd = dirWith({ 'vapc.yaml': `base_url: ${URL_FILE}\nseed: 4\n`, '.vapc.yaml': 'seed: 5\n' });
    expect(await resolveIn(cwd, {})).toStrictEqual({
      ...defaults,
      baseUrl: URL_FILE,
      seed: 4,
      configFile: 'vapc.yaml',
    });
  });

  it('.vapc.yaml when there is no vapc.yaml', async () => {
    const cwd = dirWith({ '.vapc.yaml': `base_url: ${URL_FILE}\nseed: 5\n` });
    expect(await resolveIn(cwd, {})).toMatchObject({ seed: 5, configFile: '.vapc.yaml' });
  });

  it('none found: no config file in the settings', async () => {
    expect(await resolveIn(dirWith(), { baseUrl: URL_FLAG })).toStrictEqual({ ...defaults, baseUrl: URL_FLAG });
  });

  it('--config FILE, relative to the working directory or absolute, instead of the one found', async () => {
    const cwd = dirWith({ 'vapc.yaml': 'seed: 1\n', 'ci.yaml': `base_url: ${URL_FILE}\nseed: 2\n` });
    expect(await resolveIn(cwd, { config: 'ci.yaml' })).toMatchObject({ seed: 2, configFile: 'ci.yaml' });
    const elsewhere = dirWith({ 'other.yaml': `base_url: ${URL_FILE}\nseed: 3\n` });
    const path = join(elsewhere, 'other.yaml');
    expect(await resolveIn(cwd, { config: path })).toMatchObject({ seed: 3, configFile: path });
    expect(await settled(resolveIn(cwd, { config: 'missing.yaml' }))).toBe(
      'E_CONFIG config file missing.yaml: no such file',
    );
  });

  it('--no-config reads none, not even the one found', async () => {
    const cwd = dirWith({ 'vapc.yaml': 'seed: bad\n' });
    expect(await resolveIn(cwd, { config: false, baseUrl: URL_FLAG })).toStrictEqual({
      ...defaults,
      baseUrl: URL_FLAG,
    });
  });

  it('--embedded ignores a file found on disk (naming it), and reads one named with --config', async () => {
    const cwd = dirWith({ '.vapc.yaml': 'seed: bad\n', 'e.yaml': 'seed: 9\n' });
    expect(await resolveIn(cwd, { embedded: true })).toStrictEqual({
      ...defaults,
      embedded: true,
      configIgnored: '.vapc.yaml',
    });
    expect(await resolveIn(cwd, { embedded: true, config: 'e.yaml' })).toStrictEqual({
      ...defaults,
      embedded: true,
      seed: 9,
      configFile: 'e.yaml',
    });
  });

  it('a bad file is refused before anything else is judged', async () => {
    const cwd = dirWith({ 'vapc.yaml': 'seed: 1\nseed: 2\n' });
    expect(await settled(resolveIn(cwd, { baseUrl: URL_FLAG }))).toBe(
      'E_CONFIG config file vapc.yaml is not valid YAML at line 2, column 1: Map keys must be unique',
    );
  });
});

describe('flags > environment > config file, through the file found', () => {
  it('each source in turn', async () => {
    const cwd = dirWith({ 'vapc.yaml': `base_url: ${URL_FILE}\napi_key: file-key\nfixtures:\n  org_id: file\n` });
    const env = { VAPC_API_KEY: 'env-key', VAPC_FIXTURES: '{"org_id": "env"}' };
    expect(await resolveIn(cwd, {})).toMatchObject({
      baseUrl: URL_FILE,
      apiKey: 'file-key',
      fixtures: { org_id: 'file' },
    });
    expect(await resolveIn(cwd, {}, env)).toMatchObject({ apiKey: 'env-key', fixtures: { org_id: 'env' } });
    expect(await resolveIn(cwd, { apiKey: 'flag-key', baseUrl: URL_FLAG }, env)).toMatchObject({
      baseUrl: URL_FLAG,
      apiKey: 'flag-key',
    });
  });
});

/** Every way an environment says "under CI". */
const CI_ENVS: Array<Record<string, string>> = [
  { CI: 'true' },
  { CI: 'TRUE' },
  { CI: 'True' },
  { CI: '1' },
  { CI: 'yes' },
  ...CI_PROVIDER_VARIABLES.map((name) => ({ [name]: name === 'JENKINS_URL' ? 'https://jenkins.example/' : 'true' })),
];
/** Environments that are not CI. */
const NOT_CI: Array<Record<string, string>> = [
  {},
  { CI: 'false' },
  { CI: '0' },
  { CI: '' },
  { CI: 'no' },
  { CI: 'off' },
];

/** A value of a gate setting's key in a file, and the key. */
function gateLine(name: string): string {
  const def = SETTINGS.find((d) => d.name === name)!;
  if (def.kind === 'boolean') return `${def.key}: true`;
  if (def.kind === 'suites') return `${def.key}: auth`;
  if (def.kind === 'fixtures') return `${def.key}:\n  org_id: o`;
  return `${def.key}: ${name === 'baseUrl' ? URL_FILE : 'file-dir'}`;
}

describe('under CI, a config file of the checkout may not set a gate setting', () => {
  for (const env of CI_ENVS)
    it(`${JSON.stringify(env)}: base_url is refused with the file, its line and what to give instead`, async () => {
      const cwd = dirWith({ 'vapc.yaml': `seed: 1\nbase_url: ${URL_FILE}\n` });
      expect(await settled(resolveIn(cwd, { baseUrl: URL_FLAG }, env))).toBe(
        'E_CONFIG config file vapc.yaml line 2: "base_url" is not read from a config file under CI (the pull request under test could change it); give --base-url URL on the command line or set VAPC_BASE_URL (or pass --trust-config if the file is trusted)',
      );
    });

  it('every gate setting of the table, each with what to use instead', async () => {
    for (const name of GATE_SETTINGS) {
      const def = SETTINGS.find((d) => d.name === name)!;
      const cwd = dirWith({ '.vapc.yaml': `quiet: true\n${gateLine(name)}\n` });
      expect(await settled(resolveIn(cwd, { baseUrl: URL_FLAG }, { CI: 'true' }))).toBe(
        `E_CONFIG config file .vapc.yaml line 2: "${def.key}" is not read from a config file under CI (the pull request under test could change it); ${def.gate!.cli} (or pass --trust-config if the file is trusted)`,
      );
    }
  });

  it('the first gate setting in the file is named, with the key as written', async () => {
    const cwd = dirWith({ 'vapc.yaml': 'seed: 1\ndryRun: true\nreport-dir: r\n' });
    expect(await settled(resolveIn(cwd, { baseUrl: URL_FLAG }, { CI: '1' }))).toMatch(
      /^E_CONFIG config file vapc\.yaml line 2: "dryRun" is not read from a config file under CI/,
    );
    const reversed = dirWith({ 'vapc.yaml': 'report-dir: r\ndryRun: true\n' });
    expect(await settled(resolveIn(reversed, { baseUrl: URL_FLAG }, { CI: '1' }))).toMatch(
      /^E_CONFIG config file vapc\.yaml line 1: "report-dir" is not read from a config file under CI/,
    );
  });

  it('from the GitHub Action, the message names the Action input', async () => {
    const cwd = dirWith({ 'vapc.yaml': 'include_destructive: true\n' });
    expect(await settled(resolveIn(cwd, { baseUrl: URL_FLAG }, { GITHUB_ACTIONS: 'true', VAPC_ACTION: 'true' }))).toBe(
      'E_CONFIG config file vapc.yaml line 1: "include_destructive" is not read from a config file under CI (the pull request under test could change it); add --include-destructive to the input `args` (or add --trust-config to `args` if the file is trusted)',
    );
  });

  it('the other settings are read from it under CI', async () => {
    const cwd = dirWith({ 'vapc.yaml': 'seed: 8\nquiet: true\ntimeout_ms: 500\n' });
    expect(await resolveIn(cwd, { baseUrl: URL_FLAG }, { CI: 'true' })).toMatchObject({
      seed: 8,
      quiet: true,
      timeoutMs: 500,
      configFile: 'vapc.yaml',
    });
  });

  it('--trust-config reads the gate settings too', async () => {
    const cwd = dirWith({ 'vapc.yaml': `base_url: ${URL_FILE}\ndry_run: true\n` });
    expect(await resolveIn(cwd, { trustConfig: true }, { CI: 'true' })).toMatchObject({
      baseUrl: URL_FILE,
      dryRun: true,
    });
  });

  it('a file named with --config under CI is judged the same way', async () => {
    const cwd = dirWith({ 'ci.yaml': 'suite: auth\n' });
    expect(await settled(resolveIn(cwd, { config: 'ci.yaml', baseUrl: URL_FLAG }, { CI: 'true' }))).toMatch(
      /^E_CONFIG config file ci\.yaml line 1: "suite" is not read from a config file under CI .*; give --suite LIST on the command line/,
    );
  });

  for (const env of NOT_CI)
    it(`${JSON.stringify(env)} is not CI: the file sets them`, async () => {
      const cwd = dirWith({ 'vapc.yaml': `base_url: ${URL_FILE}\nsuite: cors\n` });
      expect(await resolveIn(cwd, {}, env)).toMatchObject({ baseUrl: URL_FILE, suites: ['cors'] });
    });
});

describe('the target', () => {
  it('the base URL is checked, wherever it came from', async () => {
    const checked: string[] = [];
    await resolveIn(dirWith({ 'vapc.yaml': `base_url: ${URL_FILE}\n` }), {}, {}, checked);
    await resolveIn(dirWith(), {}, { VAPC_BASE_URL: URL_FLAG }, checked);
    expect(checked).toEqual([URL_FILE, URL_FLAG]);
    const bad = resolveSettings(
      { baseUrl: 'ftp://x' },
      {
        env: {},
        cwd: dirWith(),
        suites: [],
        fixtures: [],
        checkBaseUrl: () => {
          throw new VapcError('E_USAGE', '--base-url: not http(s)');
        },
      },
    );
    expect(await settled(bad)).toBe('E_USAGE --base-url: not http(s)');
  });

  it('--embedded and --base-url together are refused; a base URL from the environment or a file is dropped', async () => {
    const checked: string[] = [];
    expect(await settled(resolveIn(dirWith(), { embedded: true, baseUrl: URL_FLAG }))).toBe(
      'E_USAGE give either --base-url or --embedded, not both',
    );
    const fromEnv = await resolveIn(dirWith(), { embedded: true }, { VAPC_BASE_URL: URL_FLAG }, checked);
    expect(fromEnv.embedded).toBe(true);
    expect('baseUrl' in fromEnv).toBe(false);
    const cwd = dirWith({ 'e.yaml': `base_url: ${URL_FILE}\n` });
    const fromFile = await resolveIn(cwd, { embedded: true, config: 'e.yaml' }, {}, checked);
    expect('baseUrl' in fromFile).toBe(false);
    expect(checked).toEqual([]);
  });

  it('no target: the message says where one may be given', async () => {
    expect(await settled(resolveIn(dirWith(), {}))).toBe(
      'E_USAGE no target: give --base-url URL (or VAPC_BASE_URL, or base_url in a config file (--config FILE, or vapc.yaml in the working directory)), or --embedded',
    );
    expect(await settled(resolveIn(dirWith({ '.vapc.yaml': 'seed: 1\n' }), {}))).toBe(
      'E_USAGE no target: give --base-url URL (or VAPC_BASE_URL, or base_url in .vapc.yaml), or --embedded',
    );
    expect(await settled(resolveIn(dirWith({ 'vapc.yaml': 'seed: 1\n' }), {}, { CI: 'true' }))).toBe(
      'E_USAGE no target: give --base-url URL (or VAPC_BASE_URL), or --embedded',
    );
    expect(await settled(resolveIn(dirWith(), {}, { CI: 'true', VAPC_ACTION: 'true' }))).toBe(
      'E_USAGE no target: set the input `base-url` to the server under test',
    );
  });
});
