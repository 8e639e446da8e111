/**
 * The settings table (src/config/table.ts) is the one place a setting of `vapc run` is declared.
 * For every row: its flag is an option of the command, its readers give it a value from each
 * source it names, the precedence is flag > environment > config file > default, a bad value is
 * refused naming where it came from, and `vapc report` / `vapc report merge` read the rows they share
 * with the same parser. A row added to the table is walked here without a line of this file changing.
 */
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/main.js';
import {
  commandSettings,
  mergeSettings,
  runOptions,
  settingsFromEnv,
  settingsFromFlags,
  settingsFromObject,
} from '../../../src/config/settings.js';
import { attributeOf, flagName, SETTINGS, type SettingDef } from '../../../src/config/table.js';
import { isVapcError } from '../../../src/errors.js';
import { SUITE_NAMES } from '../../../suites/profile.js';
import { FIXTURES } from '../../../suites/fixtures.js';

/** Three distinct valid values of a setting, as text (flags, env) and as parsed; index 0 file, 1 env, 2 flag. */
function samples(def: SettingDef): Array<{ text: string; value: unknown }> {
  if (def.name === 'shard') return [1, 2, 3].map((i) => ({ text: `${i}/3`, value: { index: i, count: 3 } }));
  if (def.name === 'minCoverage' || def.name === 'coverageFloor')
    return [11, 22, 33].map((n) => ({ text: String(n), value: n }));
  if (def.name === 'checks')
    return ['file', 'env', 'flag'].map((s) => ({ text: `workflows.${s}`, value: [`workflows.${s}`] }));
  if (def.name === 'baseUrl')
    return [1111, 2222, 3333].map((p) => ({ text: `http://127.0.0.1:${p}`, value: `http://127.0.0.1:${p}` }));
  switch (def.kind) {
    case 'string':
      return ['file', 'env', 'flag'].map((s) => ({ text: `${s}-value`, value: `${s}-value` }));
    case 'int':
    case 'positiveInt':
    case 'positiveNumber':
      return [11, 22, 33].map((n) => ({ text: String(n), value: n }));
    case 'boolean':
      return [0, 1, 2].map(() => ({ text: 'true', value: true }));
    case 'suites':
      return SUITE_NAMES.slice(0, 3).map((s) => ({ text: s, value: [s] }));
    case 'fixtures':
      return ['file', 'env', 'flag'].map((s) => ({ text: `{"org_id":"${s}-org"}`, value: { org_id: `${s}-org` } }));
    case 'paths':
      return ['file', 'env', 'flag'].map((s) => ({ text: `${s}.arazzo.yaml`, value: [`${s}.arazzo.yaml`] }));
  }
}

const flagValue = (def: SettingDef, text: string): unknown => (def.kind === 'boolean' ? true : text);

describe('the settings table', () => {
  it('every row with a flag is an option of `vapc run`, once, and the command has no option outside the table', async () => {
    const io = { stdout: () => {}, stderr: () => {}, env: {}, isTTY: false };
    const run = (await buildProgram({ io, exit: () => {} })).commands.find((c) => c.name() === 'run')!;
    const declared = run.options.map((o) => o.flags);
    expect(declared).toEqual(runOptions(SUITE_NAMES).map((o) => o.flags));
    for (const def of SETTINGS.filter((d) => d.flag)) expect(declared.filter((f) => f === def.flag)).toHaveLength(1);
  });

  it('every row: the sources it names give it a value, and flag > environment > config file > default', () => {
    let walked = 0;
    for (const def of SETTINGS) {
      const [file, env, flag] = samples(def);
      const fromFile = def.key
        ? settingsFromObject(
            { [def.key]: def.kind === 'fixtures' ? file!.value : fileValue(def, file!) },
            'vapc.yaml',
            new Map(),
            SUITE_NAMES,
            FIXTURES,
          )
        : {};
      const fromEnv = def.env ? settingsFromEnv({ [def.env]: env!.text }, SUITE_NAMES, FIXTURES) : {};
      const fromFlags = def.flag
        ? settingsFromFlags({ [attributeOf(def.flag)]: flagValue(def, flag!.text) }, SUITE_NAMES)
        : {};
      const name = def.name;
      if (def.key) expect([name, fromFile[name]]).toEqual([name, file!.value]);
      if (def.env) expect([name, fromEnv[name]]).toEqual([name, env!.value]);
      if (def.flag) expect([name, fromFlags[name]]).toEqual([name, flag!.value]);
      const top = def.flag ? flag : def.env ? env : def.key ? file : undefined;
      expect(top, `${name} has no source`).toBeDefined();
      expect([name, mergeSettings(fromFlags, fromEnv, fromFile)[name]]).toEqual([name, top!.value]);
      if (def.env && def.key) expect([name, mergeSettings({}, fromEnv, fromFile)[name]]).toEqual([name, env!.value]);
      const none = mergeSettings({}, {}, {})[name];
      expect([name, none]).toEqual([name, def.kind === 'fixtures' ? {} : def.default]);
      walked += 1;
    }
    expect(walked).toBe(SETTINGS.length);
  });

  it('every row that takes a value refuses a bad one, naming the flag, the variable or the key', () => {
    for (const def of SETTINGS) {
      // A path list takes any text as one path; its refusals are tested below.
      if (def.kind === 'boolean' || def.kind === 'paths' || (def.kind === 'string' && !def.parse)) continue;
      const bad = 'not-a-value-\u001b[31m';
      if (def.flag)
        expect(refusal(() => settingsFromFlags({ [attributeOf(def.flag!)]: bad }, SUITE_NAMES))).toMatch(
          new RegExp(`^E_USAGE ${flagName(def.flag)}`),
        );
      if (def.env)
        expect(refusal(() => settingsFromEnv({ [def.env!]: bad }, SUITE_NAMES, FIXTURES))).toContain(def.env);
      if (def.key)
        expect(
          refusal(() => settingsFromObject({ [def.key!]: bad }, 'vapc.yaml', new Map(), SUITE_NAMES, FIXTURES)),
        ).toContain(`vapc.yaml`);
    }
  });

  it('--arazzo is repeatable (commander collects the files) and arazzo: in a file is a list or one path', () => {
    const option = runOptions(SUITE_NAMES).find((o) => o.flags === '--arazzo <file>')!;
    expect(option.collect!('b.yaml', option.collect!('a.yaml', undefined))).toEqual(['a.yaml', 'b.yaml']);
    expect(settingsFromFlags({ arazzo: ['a.yaml', 'b.yaml', 'a.yaml'] }, SUITE_NAMES).arazzo).toEqual([
      'a.yaml',
      'b.yaml',
    ]);
    expect(settingsFromObject({ arazzo: 'one.yaml' }, 'vapc.yaml').arazzo).toEqual(['one.yaml']);
    expect(refusal(() => settingsFromObject({ arazzo: [1] }, 'vapc.yaml'))).toBe(
      'E_CONFIG vapc.yaml: arazzo: expected a file path or a list of file paths, got a list',
    );
    expect(refusal(() => settingsFromObject({ arazzo: [] }, 'vapc.yaml'))).toMatch(
      /^E_CONFIG vapc\.yaml: arazzo: expected a file path/,
    );
    expect(refusal(() => settingsFromFlags({ check: 'workflows.a,not an id' }))).toMatch(
      /^E_USAGE --check takes check ids/,
    );
    expect(settingsFromFlags({ check: 'workflows.a, workflows.b' }).checks).toEqual(['workflows.a', 'workflows.b']);
  });

  it('`vapc report` and `vapc report merge` read the rows they share with the same parser and default', () => {
    const shared = commandSettings(['minCoverage', 'coverageFloor', 'allowInconclusive', 'baseline']);
    expect(shared.options.map((o) => o.flags)).toEqual([
      '--min-coverage <n>',
      '--coverage-floor <n>',
      '--allow-inconclusive',
      '--baseline <file>',
    ]);
    expect(shared.read({})).toEqual(
      Object.fromEntries(
        SETTINGS.filter((d) => ['coverageFloor', 'allowInconclusive'].includes(d.name)).map((d) => [d.name, d.default]),
      ),
    );
    expect(shared.read({ minCoverage: '40', coverageFloor: '0', allowInconclusive: true })).toMatchObject({
      minCoverage: 40,
      coverageFloor: 0,
      allowInconclusive: true,
    });
    expect(refusal(() => shared.read({ coverageFloor: '101' }))).toBe(
      'E_USAGE --coverage-floor takes a percentage from 0 to 100 (0 turns the floor off), not "101"',
    );
  });
});

/** A file's value for a row: YAML gives numbers and booleans as such, and a suite list as a list. */
function fileValue(def: SettingDef, sample: { text: string; value: unknown }): unknown {
  return def.kind === 'string' ? sample.text : sample.value;
}

function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (isVapcError(error)) return `${error.code} ${error.message}`;
    throw error;
  }
  return 'accepted';
}
