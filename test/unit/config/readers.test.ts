/**
 * The readers derived from the settings table (src/config/settings.ts), one by one: flags as
 * commander gives them, the environment, a config file's mapping; what each sets and leaves unset,
 * the refusals they give (naming the flag, the variable or the key), the settings report.json shows,
 * and the help of `vapc run`'s options derived from the table.
 */
import { describe, expect, it } from 'vitest';
import {
  CONFIG_KEYS,
  commandSettings,
  FLAG_ONLY_CONFIG_KEYS,
  gateInstead,
  gateSettingsIn,
  GATE_SETTINGS,
  mergeSettings,
  redactedSettings,
  runOptions,
  settingOfKey,
  settingsFromEnv,
  settingsFromFlags,
  settingsFromObject,
  type RunSettings,
} from '../../../src/config/settings.js';
import { attributeOf, flagName, SETTINGS } from '../../../src/config/table.js';
import { DEFAULT_COVERAGE_FLOOR } from '../../../src/results/verdict.js';
import { outcome } from './helpers.js';
import { FIXTURES } from '../../../suites/fixtures.js';

const SUITES = ['auth', 'cors', 'ranges'];

describe('the table helpers', () => {
  it("attributeOf gives commander's attribute of a flag, flagName the flag without its argument", () => {
    expect(attributeOf('--base-url <url>')).toBe('baseUrl');
    expect(attributeOf('--fail-on-unseen-status')).toBe('failOnUnseenStatus');
    expect(attributeOf('--no-config')).toBe('config');
    expect(attributeOf('--suite <list>')).toBe('suite');
    expect(attributeOf('--know-not')).toBe('knowNot');
    expect(flagName('--shard <i/n>')).toBe('--shard');
  });

  it('the keys a config file accepts, the flag-only keys and the gate settings', () => {
    expect(CONFIG_KEYS).toEqual([
      'base_url',
      'embedded',
      'api_key',
      'user_id',
      'suite',
      'suites',
      'seed',
      'runs',
      'rpm',
      'timeout_ms',
      'deadline_ms',
      'include_destructive',
      'report_dir',
      'dry_run',
      'arazzo',
      'strict_types',
      'quiet',
      'fixtures',
    ]);
    expect(FLAG_ONLY_CONFIG_KEYS).toEqual(['check', 'budget', 'baseline', 'write_baseline']);
    expect(GATE_SETTINGS).toEqual([
      'baseUrl',
      'embedded',
      'suites',
      'includeDestructive',
      'reportDir',
      'dryRun',
      'arazzo',
      'fixtures',
    ]);
    expect(settingOfKey('timeoutMs')?.name).toBe('timeoutMs');
    expect(settingOfKey('suites')?.name).toBe('suites');
    expect(settingOfKey('budget')).toBeUndefined();
  });

  it('gateInstead: what to use instead of a gate setting, on the command line and in the Action', () => {
    expect(gateInstead('baseUrl')).toEqual({
      cli: 'give --base-url URL on the command line or set VAPC_BASE_URL',
      input: 'set the input `base-url`',
    });
    expect(gateInstead('fixtures')).toEqual({
      cli: 'set VAPC_FIXTURES to a JSON object of the ids',
      input: 'set the input `fixtures`',
    });
  });

  it("gateSettingsIn: the gate settings a loaded file sets, in the file's order (no line last), with key and line", () => {
    expect(
      gateSettingsIn({
        keys: {
          seed: { key: 'seed', line: 1 },
          dryRun: { key: 'dryRun', line: 2 },
          baseUrl: { key: 'base_url', line: 3 },
          reportDir: { key: 'report_dir' },
        },
      }),
    ).toStrictEqual([
      { setting: 'dryRun', key: 'dryRun', line: 2 },
      { setting: 'baseUrl', key: 'base_url', line: 3 },
      { setting: 'reportDir', key: 'report_dir' },
    ]);
    expect(gateSettingsIn({ keys: { seed: { key: 'seed', line: 1 } } })).toEqual([]);
  });
});

describe('settingsFromFlags', () => {
  it('sets only the flags given: an absent or false boolean sets nothing (a file may still set it)', () => {
    expect(settingsFromFlags({})).toStrictEqual({});
    expect(settingsFromFlags({ quiet: false, dryRun: undefined, seed: undefined })).toStrictEqual({});
    expect(settingsFromFlags({ quiet: true, embedded: true })).toStrictEqual({ quiet: true, embedded: true });
  });

  it("parses each value with its row's parser, from text", () => {
    expect(
      settingsFromFlags(
        {
          baseUrl: 'http://127.0.0.1:1',
          suite: 'cors,auth',
          seed: ' 7 ',
          rpm: '2.5',
          shard: '2/3',
          minCoverage: '40',
          coverageFloor: '0',
          budget: '100',
        },
        SUITES,
      ),
    ).toStrictEqual({
      baseUrl: 'http://127.0.0.1:1',
      suites: ['cors', 'auth'],
      seed: 7,
      rpm: 2.5,
      shard: { index: 2, count: 3 },
      minCoverage: 40,
      coverageFloor: 0,
      budget: 100,
    });
  });

  it('a bad value is a usage error naming the flag', () => {
    expect(outcome(() => settingsFromFlags({ runs: '0' }))).toBe(
      'E_USAGE --runs: expected a positive integer, got string "0"',
    );
    expect(outcome(() => settingsFromFlags({ suite: 'nope' }, SUITES))).toBe(
      'E_USAGE --suite: unknown suite "nope"; known suites: auth, cors, ranges',
    );
    expect(outcome(() => settingsFromFlags({ baseUrl: ' ' }))).toBe(
      'E_USAGE --base-url: expected a non-empty string, got string " "',
    );
    expect(outcome(() => settingsFromFlags({ shard: '4/3' }))).toBe(
      'E_USAGE --shard takes I/N with 1 <= I <= N (e.g. --shard 2/3), not "4/3"',
    );
    expect(outcome(() => settingsFromFlags({ coverageFloor: '-1' }))).toBe(
      'E_USAGE --coverage-floor takes a percentage from 0 to 100 (0 turns the floor off), not "-1"',
    );
  });

  it('knows no suite unless told', () => {
    expect(outcome(() => settingsFromFlags({ suite: 'auth' }))).toBe(
      'E_USAGE --suite: unknown suite "auth"; known suites: ',
    );
  });

  it('with `only`, reads only those rows: another flag, even a bad one, is not looked at', () => {
    expect(settingsFromFlags({ minCoverage: '40', shard: 'bad', quiet: true }, [], ['minCoverage'])).toStrictEqual({
      minCoverage: 40,
    });
  });
});

describe('settingsFromEnv', () => {
  it('reads each variable of the table; empty or blank values are not values', () => {
    expect(settingsFromEnv({})).toStrictEqual({});
    expect(
      settingsFromEnv({ VAPC_BASE_URL: '', VAPC_API_KEY: '  ', VAPC_USER_ID: '\n', VAPC_FIXTURES: ' ' }, [], FIXTURES),
    ).toStrictEqual({});
    expect(
      settingsFromEnv(
        {
          VAPC_BASE_URL: 'http://127.0.0.1:2',
          VAPC_API_KEY: 'k',
          VAPC_USER_ID: 'u',
          VAPC_FIXTURES: '{"org_id": "org_1", "channels": ["a", "b"]}',
          VAPC_SEED: '5',
        },
        [],
        FIXTURES,
      ),
    ).toStrictEqual({
      baseUrl: 'http://127.0.0.1:2',
      apiKey: 'k',
      userId: 'u',
      fixtures: { org_id: 'org_1', channels: ['a', 'b'] },
    });
  });

  it('a text setting is used as the variable gives it, blanks included', () => {
    expect(settingsFromEnv({ VAPC_API_KEY: ' k ', VAPC_BASE_URL: 'http://127.0.0.1:2 ' })).toStrictEqual({
      apiKey: ' k ',
      baseUrl: 'http://127.0.0.1:2 ',
    });
  });

  it('VAPC_FIXTURES: not JSON, or a JSON that is not a mapping of fixture ids, is refused naming the variable', () => {
    expect(outcome(() => settingsFromEnv({ VAPC_FIXTURES: '{org_id: 1' }, [], FIXTURES))).toBe(
      'E_CONFIG VAPC_FIXTURES: not JSON; give an object such as {"org_id": "org_123"}',
    );
    // The example is the declared fixture's: another contract's, or none.
    const notes = [
      { key: 'tags', kind: 'list', items: 'tags' },
      { key: 'notebook_id', kind: 'id', example: 'nb_7' },
    ] as const;
    expect(outcome(() => settingsFromEnv({ VAPC_FIXTURES: '{' }, [], notes))).toBe(
      'E_CONFIG VAPC_FIXTURES: not JSON; give an object such as {"notebook_id": "nb_7"}',
    );
    expect(outcome(() => settingsFromEnv({ VAPC_FIXTURES: '{' }, [], [{ key: 'notebook_id', kind: 'id' }]))).toBe(
      'E_CONFIG VAPC_FIXTURES: not JSON; give an object of fixture ids',
    );
    // No declaration given is none declared: every key refused, from the environment or a file.
    expect(outcome(() => settingsFromEnv({ VAPC_FIXTURES: '{"org_id": "o"}' }))).toBe(
      'E_CONFIG VAPC_FIXTURES: unknown fixture "org_id"; known fixtures: none declared',
    );
    expect(outcome(() => settingsFromObject({ fixtures: { org_id: 'o' } }, 'vapc.yaml'))).toBe(
      'E_CONFIG vapc.yaml: fixtures: unknown fixture "org_id"; known fixtures: none declared',
    );
    expect(outcome(() => settingsFromEnv({ VAPC_FIXTURES: '[]' }, [], FIXTURES))).toMatch(
      /^E_CONFIG VAPC_FIXTURES: expected a mapping of fixture ids \(.*\), got a list$/,
    );
    expect(outcome(() => settingsFromEnv({ VAPC_FIXTURES: '{"org_id": ""}' }, [], FIXTURES))).toBe(
      'E_CONFIG VAPC_FIXTURES.org_id: expected an id (a non-empty string), got string ""',
    );
  });
});

describe('settingsFromObject: a config file mapping', () => {
  it('an empty file sets nothing; a top level that is not a mapping is refused', () => {
    expect(settingsFromObject(null, 'config file vapc.yaml')).toStrictEqual({});
    expect(settingsFromObject(undefined, 'config file vapc.yaml')).toStrictEqual({});
    expect(settingsFromObject({}, 'config file vapc.yaml')).toStrictEqual({});
    for (const [data, got] of [
      ['base_url', 'string "base_url"'],
      [['base_url'], 'a list'],
      [5, 'number 5'],
      [false, 'boolean false'],
    ] as const)
      expect(outcome(() => settingsFromObject(data, 'config file vapc.yaml'))).toBe(
        `E_CONFIG config file vapc.yaml: expected a mapping of options at the top level, got ${got}`,
      );
  });

  it('reads snake_case, camelCase and kebab-case keys, the suites with either key, YAML types as such', () => {
    expect(
      settingsFromObject(
        {
          base_url: 'http://127.0.0.1:1',
          timeoutMs: 100,
          'dry-run': true,
          suites: ['auth'],
          rpm: 1.5,
          fixtures: { orgId: 'o' },
        },
        'vapc.yaml',
        new Map(),
        SUITES,
        FIXTURES,
      ),
    ).toStrictEqual({
      baseUrl: 'http://127.0.0.1:1',
      timeoutMs: 100,
      dryRun: true,
      suites: ['auth'],
      rpm: 1.5,
      fixtures: { org_id: 'o' },
    });
    expect(settingsFromObject({ suite: 'cors,auth' }, 'vapc.yaml', new Map(), SUITES)).toEqual({
      suites: ['cors', 'auth'],
    });
  });

  it('knows no suite unless told', () => {
    expect(outcome(() => settingsFromObject({ suite: 'auth' }, 'vapc.yaml'))).toBe(
      'E_CONFIG vapc.yaml: suite: unknown suite "auth"; known suites: ',
    );
  });

  it('a number given as a quoted string, or a boolean as text, is refused: YAML says what it is', () => {
    expect(outcome(() => settingsFromObject({ seed: '5' }, 'vapc.yaml'))).toBe(
      'E_CONFIG vapc.yaml: seed: expected an integer, got string "5"',
    );
    expect(outcome(() => settingsFromObject({ quiet: 'yes' }, 'vapc.yaml'))).toBe(
      'E_CONFIG vapc.yaml: quiet: expected true or false, got string "yes"',
    );
  });

  it('refuses an unknown key listing the known ones, and a flag-only key naming the flag, with the line', () => {
    const lines = new Map([
      ['basee_url', 4],
      ['budget', 6],
      ['writeBaseline', 8],
    ]);
    expect(outcome(() => settingsFromObject({ basee_url: 'x' }, 'vapc.yaml', lines))).toBe(
      `E_CONFIG vapc.yaml: unknown key "basee_url"; known keys: ${CONFIG_KEYS.join(', ')} (snake_case or camelCase) (line 4)`,
    );
    expect(outcome(() => settingsFromObject({ budget: 5 }, 'vapc.yaml', lines))).toBe(
      'E_CONFIG vapc.yaml: "budget" is not read from a config file; give --budget N (line 6)',
    );
    expect(outcome(() => settingsFromObject({ writeBaseline: 'b.yaml' }, 'vapc.yaml', lines))).toBe(
      'E_CONFIG vapc.yaml: "writeBaseline" is not read from a config file; give --write-baseline FILE (line 8)',
    );
    expect(outcome(() => settingsFromObject({ shard: '1/2' }, 'vapc.yaml'))).toMatch(
      /^E_CONFIG vapc\.yaml: unknown key "shard"; known keys: /,
    );
  });

  it('a bad value names the file and the key as written, and its line', () => {
    expect(outcome(() => settingsFromObject({ timeoutMs: 0 }, 'vapc.yaml', new Map([['timeoutMs', 3]])))).toBe(
      'E_CONFIG vapc.yaml: timeoutMs: expected a positive integer, got number 0 (line 3)',
    );
    expect(
      outcome(() =>
        settingsFromObject(
          { fixtures: { org_id: 'o', assistant_id: '' } },
          'vapc.yaml',
          new Map([
            ['fixtures', 2],
            ['fixtures.assistant_id', 4],
          ]),
          [],
          FIXTURES,
        ),
      ),
    ).toBe('E_CONFIG vapc.yaml: fixtures.assistant_id: expected an id (a non-empty string), got string "" (line 4)');
    expect(
      outcome(() => settingsFromObject({ fixtures: [] }, 'vapc.yaml', new Map([['fixtures', 2]]), [], FIXTURES)),
    ).toMatch(/^E_CONFIG vapc\.yaml: fixtures: expected a mapping of fixture ids \(.*\), got a list \(line 2\)$/);
  });
});

describe('mergeSettings', () => {
  it('sets only what a source or a default gives', () => {
    const merged = mergeSettings({}, {}, {}) as unknown as Record<string, unknown>;
    expect(Object.keys(merged).filter((k) => merged[k] === undefined)).toEqual([]);
    expect('seed' in merged).toBe(false);
  });

  it('fixtures: flag over env over file, key by key', () => {
    expect(
      mergeSettings(
        { fixtures: { org_id: 'flag' } },
        { fixtures: { org_id: 'env', assistant_id: 'env' } },
        { fixtures: { org_id: 'file', assistant_id: 'file', api_key_id: 'file' } },
      ).fixtures,
    ).toEqual({ org_id: 'flag', assistant_id: 'env', api_key_id: 'file' });
  });
});

describe("redactedSettings: report.json's config", () => {
  it('snake_case keys, credentials as "set", the gate flags and the ignored file left out', () => {
    const settings = {
      ...mergeSettings({ baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_secret', seed: 3, minCoverage: 50 }, {}, {}),
      configFile: 'vapc.yaml',
      configIgnored: '.vapc.yaml',
    } as RunSettings;
    expect(redactedSettings(settings)).toStrictEqual({
      base_url: 'http://127.0.0.1:1',
      embedded: false,
      api_key: 'set',
      seed: 3,
      include_destructive: false,
      report_dir: 'reports/latest',
      dry_run: false,
      strict_types: false,
      quiet: false,
      fixtures: {},
      config_file: 'vapc.yaml',
    });
    expect(redactedSettings({ ...settings, apiKey: undefined, userId: 'u' })).toMatchObject({
      api_key: undefined,
      user_id: 'set',
    });
    expect(JSON.stringify(redactedSettings(settings))).not.toContain('sk_secret');
  });
});

describe('the options of `vapc run` and their help, from the table', () => {
  // Called in each test: a mutation run switches a mutant on per test, not while the file is collected.
  const help = (flag: string) => runOptions(SUITES).find((o) => o.flags === flag)?.description;

  it('names the environment variable of a setting that has one, and the suites --suite knows', () => {
    expect(help('--base-url <url>')).toBe('the server under test; required unless --embedded (env VAPC_BASE_URL)');
    expect(help('--seed <n>')).toBe('fast-check seed (default: random, printed and written to report.json)');
    expect(help('--suite <list>')).toBe('only these suites: auth,cors,ranges');
    expect(runOptions([]).find((o) => o.flags === '--suite <list>')?.description).toBe('only these suites');
    expect(runOptions().find((o) => o.flags === '--suite <list>')?.description).toBe('only these suites');
    expect(runOptions().find((o) => o.flags === '--runs <n>')?.description).toBe(
      'generated cases per property (default: the most that fit the request budget)',
    );
  });

  it('the config options follow --user-id, in order, with their help derived from the table', () => {
    const flags = runOptions(SUITES).map((o) => o.flags);
    const at = flags.indexOf('--user-id <id>');
    expect(flags.slice(at, at + 5)).toEqual([
      '--user-id <id>',
      '--config <file>',
      '--no-config',
      '--trust-config',
      '--suite <list>',
    ]);
    expect(help('--config <file>')).toBe(
      'YAML file: base_url, api_key, user_id, suite, seed, runs, rpm, timeout_ms, deadline_ms, report_dir, arazzo, the booleans embedded, include_destructive, dry_run, strict_types, quiet (snake_case or camelCase) and fixtures:; other keys are refused (default: vapc.yaml or .vapc.yaml in the working directory, except with --embedded)',
    );
    expect(help('--no-config')).toBe(
      'read no config file, not even one in the working directory (the GitHub Action passes this unless its `config` input names a file)',
    );
    expect(help('--trust-config')).toBe(
      'under CI, also read base_url, embedded, suite, include_destructive, report_dir, dry_run, arazzo, fixtures from the config file (refused there by default: the pull request under test wrote it)',
    );
  });

  it('every option once; the settings without a flag (fixtures) are not options', () => {
    const options = runOptions(SUITES);
    expect(new Set(options.map((o) => o.flags)).size).toBe(options.length);
    expect(options.some((o) => /fixtures/.test(o.flags))).toBe(false);
    expect(options).toHaveLength(SETTINGS.filter((d) => d.flag).length + 3);
  });
});

describe('commandSettings: the rows another command shares', () => {
  it('keeps the help unless replaced, and reads only the given, or their defaults', () => {
    const shared = commandSettings(['minCoverage', 'quiet', 'coverageFloor'], { quiet: 'say less' });
    expect(shared.options).toEqual([
      {
        flags: '--min-coverage <n>',
        description: 'exit 1 when fewer than N percent of the coverage cells are judged, listing the cells missing',
      },
      { flags: '--quiet', description: 'say less' },
      {
        flags: '--coverage-floor <n>',
        description: expect.stringMatching(/^percent of the coverage cells a whole-plan run must judge/),
      },
    ]);
    expect(shared.read({ shard: 'bad', seed: '5' })).toStrictEqual({
      quiet: false,
      coverageFloor: DEFAULT_COVERAGE_FLOOR,
    });
    expect(shared.read({ minCoverage: '30', quiet: true })).toStrictEqual({
      minCoverage: 30,
      quiet: true,
      coverageFloor: DEFAULT_COVERAGE_FLOOR,
    });
  });
});
