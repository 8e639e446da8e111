/**
 * The one table of `vapc run`'s settings (issue 34): each setting once, with its flag, its
 * environment variable, its config-file key, its kind, its help, whether a config file in the
 * checkout may set it under CI (a gate setting) and whether it is a flag only. The commander
 * options, the three readers (flags, environment, file), the precedence, the `--config` help and
 * the lists docs/running.md prints are derived from it (src/config/settings.ts); a new setting is
 * one row here.
 */
import type { Fixtures } from '../results/fixtures.js';
import { DEFAULT_COVERAGE_FLOOR } from '../results/verdict.js';
import { VapcError } from '../errors.js';
import { excerpt } from '../files/checkout.js';
import { parsePercent, parseShard, type Kind } from './values.js';

/** The default report directory. */
export const DEFAULT_REPORT_DIR = 'reports/latest';

/** The effective options of `vapc run`, after flags, env and the config file are merged. */
export interface RunSettings {
  baseUrl?: string;
  embedded: boolean;
  apiKey?: string;
  userId?: string;
  suites?: string[];
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
  baseline?: string;
  writeBaseline?: string;
  pruneBaseline: boolean;
  strictBaseline: boolean;
  changedSince?: string;
  minCoverage?: number;
  failOnUnseenStatus: boolean;
  failOnUndocumentedStatus: boolean;
  sarifCoverage: boolean;
  allowInconclusive: boolean;
  coverageFloor: number;
  shard?: { index: number; count: number };
  /** --check ID,...: only these checks (a workflow's failure replays with it). */
  checks?: string[];
  /** --arazzo FILE (repeatable): a team's Arazzo workflow files, run as the `workflows` suite. */
  arazzo?: string[];
  /** The config file the settings came from (given with --config, or found in the working directory). */
  configFile?: string;
  /** A config file found in the working directory and not read (an embedded run without --config). */
  configIgnored?: string;
}

/** Settings as they come from one source (flags, env, file): all optional. */
export type PartialSettings = Partial<Omit<RunSettings, 'fixtures'>> & { fixtures?: Fixtures };

/** A setting's name: a member of RunSettings that a source sets. */
export type SettingName = Exclude<keyof RunSettings, 'configFile' | 'configIgnored'>;

export interface SettingDef {
  name: SettingName;
  /** The flag as commander declares it (`--base-url <url>`, `--embedded`); absent: not a flag. */
  flag?: string;
  /** What it does, for `--help` (the environment variable is added by the help). */
  help: string;
  kind: Kind;
  /** A value of its own making from the text of a flag (a shard, a percentage): wins over `kind`. */
  parse?: (text: string, flag: string) => unknown;
  /** The environment variable that sets it. */
  env?: string;
  /** The config-file key (snake_case; camelCase accepted), and its other spellings. */
  key?: string;
  aliases?: readonly string[];
  /** A flag only that a config file naming it is refused for, with what to give instead. */
  instead?: string;
  /**
   * A gate setting: it decides what the gate judges or where the key goes, so under CI a config file
   * of the checkout (the pull request's own) may not set it: what to use instead, on the command line
   * and as an input of the GitHub Action.
   */
  gate?: { cli: string; input: string };
  /** The value when no source sets it. */
  default?: unknown;
  /** A flag given more than once adds to a list (`--arazzo A --arazzo B`). */
  repeatable?: true;
  /** Left out of report.json's `config` (the gate's own flags: the report says what they did elsewhere). */
  unreported?: true;
  /** A credential: the report says where it came from, never its value. */
  secret?: true;
}

/** The options commander declares that are not settings: which config file is read, and whether it is trusted. */
export const META_OPTIONS: ReadonlyArray<{ flag: string; help: string; after: SettingName }> = [
  {
    flag: '--config <file>',
    help: '', // derived: the keys a config file accepts (configHelp)
    after: 'userId',
  },
  {
    flag: '--no-config',
    help: 'read no config file, not even one in the working directory (the GitHub Action passes this unless its `config` input names a file)',
    after: 'userId',
  },
  {
    flag: '--trust-config',
    help: '', // derived: the gate settings
    after: 'userId',
  },
];

/** `--check a,b`: check ids (`suite.name`), each once; anything else is a usage error. */
function checkIds(text: string, flag: string): string[] {
  const ids = text.split(',').map((s) => s.trim());
  if (ids.length === 0 || ids.length > 1000 || ids.some((id) => !/^[a-z][a-z0-9-]*\.[A-Za-z0-9_.-]{1,120}$/.test(id)))
    throw new VapcError('E_USAGE', `${flag} takes check ids separated by commas (suite.name), not ${excerpt(text)}`);
  return [...new Set(ids)];
}

const coverageFloor = (text: string, flag: string) => parsePercent(text, flag, ' (0 turns the floor off)');

/** Every setting, in the order `--help` lists them. */
export const SETTINGS: readonly SettingDef[] = [
  {
    name: 'baseUrl',
    flag: '--base-url <url>',
    env: 'VAPC_BASE_URL',
    key: 'base_url',
    kind: 'string',
    help: 'the server under test; required unless --embedded',
    gate: { cli: 'give --base-url URL on the command line or set VAPC_BASE_URL', input: 'set the input `base-url`' },
  },
  {
    name: 'embedded',
    flag: '--embedded',
    key: 'embedded',
    kind: 'boolean',
    default: false,
    help: 'start the bundled reference server on a free loopback port and test it',
    gate: { cli: 'give --embedded on the command line', input: 'add --embedded to the input `args`' },
  },
  {
    name: 'apiKey',
    flag: '--api-key <key>',
    env: 'VAPC_API_KEY',
    key: 'api_key',
    kind: 'string',
    secret: true,
    help: 'bearer value',
  },
  {
    name: 'userId',
    flag: '--user-id <id>',
    env: 'VAPC_USER_ID',
    key: 'user_id',
    kind: 'string',
    secret: true,
    help: 'X-User-ID value',
  },
  {
    name: 'suites',
    flag: '--suite <list>',
    key: 'suite',
    aliases: ['suites'],
    kind: 'suites',
    help: 'only these suites',
    gate: { cli: 'give --suite LIST on the command line', input: 'set the input `suites`' },
  },
  {
    name: 'checks',
    flag: '--check <ids>',
    kind: 'string',
    parse: (text, flag) => checkIds(text, flag),
    instead: '--check ID',
    help: 'only these checks (comma-separated ids, e.g. workflows.create-campaign): what a failure of a workflow replays with',
  },
  {
    name: 'seed',
    flag: '--seed <n>',
    key: 'seed',
    kind: 'int',
    help: 'fast-check seed (default: random, printed and written to report.json)',
  },
  {
    name: 'runs',
    flag: '--runs <n>',
    key: 'runs',
    kind: 'positiveInt',
    help: 'generated cases per property (default: the most that fit the request budget)',
  },
  {
    name: 'rpm',
    flag: '--rpm <n>',
    key: 'rpm',
    kind: 'positiveNumber',
    help: 'client-side cap on requests per minute (default: follow X-RateLimit-*)',
  },
  {
    name: 'budget',
    flag: '--budget <n>',
    kind: 'positiveInt',
    instead: '--budget N',
    help: 'plan at most N requests, the checks catching most catalogue faults per request first; the report lists what was left out',
  },
  {
    name: 'timeoutMs',
    flag: '--timeout-ms <n>',
    key: 'timeout_ms',
    kind: 'positiveInt',
    help: 'per-request timeout in milliseconds (default 10000)',
  },
  {
    name: 'deadlineMs',
    flag: '--deadline-ms <n>',
    key: 'deadline_ms',
    kind: 'positiveInt',
    help: 'whole-run deadline in milliseconds, report writing included (default 1200000)',
  },
  {
    name: 'includeDestructive',
    flag: '--include-destructive',
    key: 'include_destructive',
    kind: 'boolean',
    default: false,
    help: 'also exercise operations with effects outside test data (key regeneration, invites)',
    gate: {
      cli: 'give --include-destructive on the command line',
      input: 'add --include-destructive to the input `args`',
    },
  },
  {
    name: 'reportDir',
    flag: '--report-dir <dir>',
    key: 'report_dir',
    kind: 'string',
    default: DEFAULT_REPORT_DIR,
    help: `where report.json, junit.xml, report.html and report.sarif go (default ${DEFAULT_REPORT_DIR})`,
    gate: { cli: 'give --report-dir DIR on the command line', input: 'set the input `report-dir`' },
  },
  {
    name: 'dryRun',
    flag: '--dry-run',
    key: 'dry_run',
    kind: 'boolean',
    default: false,
    help: 'print the planned requests and projected time; send only read-only discovery requests',
    gate: { cli: 'give --dry-run on the command line', input: 'add --dry-run to the input `args`' },
  },
  {
    name: 'arazzo',
    flag: '--arazzo <file>',
    key: 'arazzo',
    kind: 'paths',
    repeatable: true,
    help: "a team's Arazzo 1.0.x workflow file, run as the workflows suite with inputs varied within the spec's schemas (repeatable; docs/arazzo.md)",
    gate: { cli: 'give --arazzo FILE on the command line', input: 'add --arazzo FILE to the input `args`' },
  },
  {
    name: 'strictTypes',
    flag: '--strict-types',
    key: 'strict_types',
    kind: 'boolean',
    default: false,
    help: 'also judge framework leniency (coercion of "5", "true", null as absent)',
  },
  {
    name: 'quiet',
    flag: '--quiet',
    key: 'quiet',
    kind: 'boolean',
    default: false,
    help: 'print only the final summary',
  },
  {
    name: 'fixtures',
    env: 'VAPC_FIXTURES',
    key: 'fixtures',
    kind: 'fixtures',
    help: 'the ids the checks need, discovered from the API where possible',
    gate: { cli: 'set VAPC_FIXTURES to a JSON object of the ids', input: 'set the input `fixtures`' },
  },
  {
    name: 'baseline',
    flag: '--baseline <file>',
    kind: 'string',
    instead: '--baseline FILE (Action input `baseline`)',
    unreported: true,
    help: 'known findings (YAML): fail only on findings not in it; expired entries fail again',
  },
  {
    name: 'writeBaseline',
    flag: '--write-baseline <file>',
    kind: 'string',
    instead: '--write-baseline FILE',
    unreported: true,
    help: "record this run's failures as known findings (YAML, sorted; reasons kept from --baseline)",
  },
  {
    name: 'pruneBaseline',
    flag: '--prune-baseline',
    kind: 'boolean',
    default: false,
    unreported: true,
    help: 'with --baseline: drop entries whose check and operation ran and passed',
  },
  {
    name: 'strictBaseline',
    flag: '--strict-baseline',
    kind: 'boolean',
    default: false,
    unreported: true,
    help: 'with --baseline: exit 2 when an entry has a placeholder reason or no expires within 90 days (otherwise a warning)',
  },
  {
    name: 'changedSince',
    flag: '--changed-since <base>',
    kind: 'string',
    unreported: true,
    help: 'only the checks of operations that changed since BASE (a spec file, directory or git revision), plus a smoke set',
  },
  {
    name: 'minCoverage',
    flag: '--min-coverage <n>',
    kind: 'string',
    parse: (text, flag) => parsePercent(text, flag),
    unreported: true,
    help: 'exit 1 when fewer than N percent of the coverage cells are judged, listing the cells missing',
  },
  {
    name: 'failOnUnseenStatus',
    flag: '--fail-on-unseen-status',
    kind: 'boolean',
    default: false,
    unreported: true,
    help: 'fail the run when a documented status was never observed (an observation otherwise)',
  },
  {
    name: 'failOnUndocumentedStatus',
    flag: '--fail-on-undocumented-status',
    kind: 'boolean',
    default: false,
    unreported: true,
    help: 'fail the run when a status the operation does not document was observed (an observation otherwise)',
  },
  {
    name: 'sarifCoverage',
    flag: '--sarif-coverage',
    kind: 'boolean',
    default: false,
    unreported: true,
    help: 'also write a note on the spec line of each coverage cell not judged into report.sarif',
  },
  {
    name: 'allowInconclusive',
    flag: '--allow-inconclusive',
    kind: 'boolean',
    default: false,
    unreported: true,
    help: 'exit 0 when the run is inconclusive (nothing failed, but it judged too little to pass); every report still says so',
  },
  {
    name: 'coverageFloor',
    flag: '--coverage-floor <n>',
    kind: 'string',
    parse: coverageFloor,
    default: DEFAULT_COVERAGE_FLOOR,
    unreported: true,
    help: `percent of the coverage cells a whole-plan run must judge to pass, else it is inconclusive (default ${DEFAULT_COVERAGE_FLOOR}; 0 turns it off)`,
  },
  {
    name: 'shard',
    flag: '--shard <i/n>',
    kind: 'string',
    parse: (text) => parseShard(text),
    unreported: true,
    help: 'run only the I-th of N deterministic parts of the plan (merge them with `vapc report merge`)',
  },
];

/** The attribute commander gives a flag's value under: `--base-url <url>` → `baseUrl`, `--suite` → `suite`. */
export const attributeOf = (flag: string): string =>
  flag
    .split(' ')[0]!
    .replace(/^--(no-)?/, '')
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The flag's name without its argument: `--base-url`. */
export const flagName = (flag: string): string => flag.split(' ')[0]!;
