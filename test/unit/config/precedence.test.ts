/**
 * Flag > environment > config file > default, for every setting of `vapc run`, through the path
 * the CLI takes (resolveRunSettings: flags as commander gives them, env, a vapc.yaml found in the
 * working directory). Reversing the order anywhere fails a case here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunSettings, type RunFlags } from '../../../src/cli/commands/run.js';
import { DEFAULT_REPORT_DIR, mergeSettings, type RunSettings } from '../../../src/config/settings.js';
import { DEFAULT_COVERAGE_FLOOR } from '../../../src/results/verdict.js';

/** A vapc.yaml setting every key to a value no flag or env below uses. */
const FILE_YAML = `
base_url: http://127.0.0.1:1111
api_key: file-key
user_id: file-user
suites: cors
seed: 11
runs: 12
rpm: 13
timeout_ms: 14000
deadline_ms: 15000
report_dir: file-reports
include_destructive: true
dry_run: true
strict_types: true
quiet: true
fixtures:
  org_id: file-org
`;

const ENV = { VAPC_BASE_URL: 'http://127.0.0.1:2222', VAPC_API_KEY: 'env-key', VAPC_USER_ID: 'env-user' };

const FLAGS: RunFlags = {
  baseUrl: 'http://127.0.0.1:3333',
  apiKey: 'flag-key',
  userId: 'flag-user',
  suite: 'auth',
  seed: '31',
  runs: '32',
  rpm: '33',
  timeoutMs: '34000',
  deadlineMs: '35000',
  reportDir: 'flag-reports',
};

/** What each source sets, per setting (undefined: the source cannot set it). */
const TABLE: ReadonlyArray<{ setting: keyof RunSettings; file: unknown; env?: unknown; flag: unknown }> = [
  { setting: 'baseUrl', file: 'http://127.0.0.1:1111', env: 'http://127.0.0.1:2222', flag: 'http://127.0.0.1:3333' },
  { setting: 'apiKey', file: 'file-key', env: 'env-key', flag: 'flag-key' },
  { setting: 'userId', file: 'file-user', env: 'env-user', flag: 'flag-user' },
  { setting: 'suites', file: ['cors'], flag: ['auth'] },
  { setting: 'seed', file: 11, flag: 31 },
  { setting: 'runs', file: 12, flag: 32 },
  { setting: 'rpm', file: 13, flag: 33 },
  { setting: 'timeoutMs', file: 14000, flag: 34000 },
  { setting: 'deadlineMs', file: 15000, flag: 35000 },
  { setting: 'reportDir', file: 'file-reports', flag: 'flag-reports' },
];

describe('vapc run settings: flag > env > config file > default', () => {
  let withFile: string;
  let empty: string;

  beforeAll(() => {
    withFile = mkdtempSync(join(tmpdir(), 'vapc-precedence-'));
    empty = mkdtempSync(join(tmpdir(), 'vapc-precedence-'));
    writeFileSync(join(withFile, 'vapc.yaml'), FILE_YAML);
  });
  afterAll(() => {
    rmSync(withFile, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  });

  it('a flag wins over the environment and the file, for every setting', async () => {
    const settings = await resolveRunSettings(FLAGS, ENV, withFile);
    for (const row of TABLE) expect([row.setting, settings[row.setting]]).toEqual([row.setting, row.flag]);
  });

  it('the environment wins over the file where it can set a value (base URL and credentials)', async () => {
    const settings = await resolveRunSettings({}, ENV, withFile);
    for (const row of TABLE) expect([row.setting, settings[row.setting]]).toEqual([row.setting, row.env ?? row.file]);
  });

  it('the file wins over the defaults, for every setting and the fixtures', async () => {
    const settings = await resolveRunSettings({}, {}, withFile);
    for (const row of TABLE) expect([row.setting, settings[row.setting]]).toEqual([row.setting, row.file]);
    expect(settings).toMatchObject({
      includeDestructive: true,
      dryRun: true,
      strictTypes: true,
      quiet: true,
      configFile: 'vapc.yaml',
    });
    expect(settings.fixtures).toEqual({ org_id: 'file-org' });
  });

  it('with nothing given, the defaults', async () => {
    const settings = await resolveRunSettings({ baseUrl: 'http://127.0.0.1:3333' }, {}, empty);
    expect(settings).toEqual({
      baseUrl: 'http://127.0.0.1:3333',
      embedded: false,
      includeDestructive: false,
      reportDir: DEFAULT_REPORT_DIR,
      dryRun: false,
      strictTypes: false,
      quiet: false,
      fixtures: {},
      pruneBaseline: false,
      strictBaseline: false,
      failOnUnseenStatus: false,
      failOnUndocumentedStatus: false,
      sarifCoverage: false,
      allowInconclusive: false,
      coverageFloor: DEFAULT_COVERAGE_FLOOR,
    });
  });

  it('an empty environment variable is not a value: the file still counts', async () => {
    const settings = await resolveRunSettings({}, { VAPC_BASE_URL: '', VAPC_API_KEY: '', VAPC_USER_ID: '' }, withFile);
    expect([settings.baseUrl, settings.apiKey, settings.userId]).toEqual([
      'http://127.0.0.1:1111',
      'file-key',
      'file-user',
    ]);
  });

  it('each boolean: false in one source, true in a higher one, comes out true; true in the file alone stays true', () => {
    for (const key of ['embedded', 'includeDestructive', 'dryRun', 'strictTypes', 'quiet'] as const) {
      expect(mergeSettings({ [key]: true }, {}, { [key]: false })[key]).toBe(true);
      expect(mergeSettings({}, { [key]: true }, { [key]: false })[key]).toBe(true);
      expect(mergeSettings({ [key]: false }, {}, { [key]: true })[key]).toBe(false);
      expect(mergeSettings({}, {}, { [key]: true })[key]).toBe(true);
      expect(mergeSettings({}, {}, {})[key]).toBe(false);
    }
  });

  it('fixtures: a flag-given fixture wins over the same key in the file, the others are kept', () => {
    const settings = mergeSettings(
      { fixtures: { org_id: 'flag-org' } },
      {},
      { fixtures: { org_id: 'file-org', assistant_id: 'file-assistant' } },
    );
    expect(settings.fixtures).toEqual({ org_id: 'flag-org', assistant_id: 'file-assistant' });
  });
});
