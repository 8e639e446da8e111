import type { CheckResult, Failure, RunReport, Suite, Verdict } from '../results/model.js';

/** Small helpers shared by the renderers. */

export const VERDICTS: readonly Verdict[] = ['passed', 'failed', 'skipped', 'error'];

export interface SuiteCounts {
  suite: Suite;
  passed: number;
  failed: number;
  skipped: number;
  error: number;
  total: number;
  requests: number;
  duration_ms: number;
}

/** The suites in run order (the report's, as the contract's profile ordered them), then any other its results name. */
function suiteOrderOf(report: RunReport): string[] {
  const named = [report.config?.all_suites, report.config?.suites].flatMap((l) =>
    Array.isArray(l) ? l.filter((s): s is string => typeof s === 'string') : [],
  );
  return [...new Set([...named, ...report.results.map((r) => r.suite)])];
}

/** Per-suite counts in the report's suite order, suites without results left out. */
export function countsBySuite(report: RunReport): SuiteCounts[] {
  const order = suiteOrderOf(report);
  const rows: SuiteCounts[] = [];
  for (const suite of order) {
    const results = report.results.filter((r) => r.suite === suite);
    if (results.length === 0) continue;
    const row: SuiteCounts = {
      suite,
      passed: 0,
      failed: 0,
      skipped: 0,
      error: 0,
      total: results.length,
      requests: 0,
      duration_ms: 0,
    };
    for (const r of results) {
      row[r.status] += 1;
      row.requests += r.requests ?? 0;
      row.duration_ms += r.duration_ms ?? 0;
    }
    rows.push(row);
  }
  return rows;
}

/** The failures of a result; a failed result without details still yields one from its message. */
export function failuresOf(result: CheckResult): Failure[] {
  if (result.failures && result.failures.length > 0) return result.failures;
  if (result.status !== 'failed') return [];
  return [{ expected: result.rule, actual: result.message, ...(result.repro ? { repro: result.repro } : {}) }];
}

/** "rule (contract 4.2)" */
export function ruleWithRef(result: CheckResult): string {
  const rule = result.rule?.trim() ?? '';
  const ref = result.contract_ref?.trim() ?? '';
  if (!ref) return rule;
  if (!rule) return `contract ${ref}`;
  return `${rule} (contract ${ref})`;
}

/** The repro line of a failure: its own, else the result's. */
export function reproOf(failure: Failure, result: CheckResult): string | undefined {
  return failure.repro ?? result.repro;
}

/**
 * When the rate-limit window the run ended in reopens, if it was spent (Remaining 0, or none
 * advertised) or nearly so (under a tenth of the limit) at the end of the run: repro lines sent
 * before then may meet the burst's 429. Read from report.json's `rate_limit`; the time in UTC and
 * counted from the run's end (started_at + duration), so re-rendering says the same.
 */
export function rateLimitNote(report: RunReport): string | undefined {
  const w = report.rate_limit;
  if (!w || typeof w.reset_at !== 'string') return undefined;
  const at = Date.parse(w.reset_at);
  const end = Date.parse(report.started_at) + (report.summary?.duration_ms ?? 0);
  if (!Number.isFinite(at) || !Number.isFinite(end) || at <= end) return undefined;
  const { limit, remaining } = w;
  const spent = remaining === undefined || remaining <= 0;
  const low = !spent && limit !== undefined && remaining! < limit / 10;
  if (!spent && !low) return undefined;
  // Whole seconds, rounded up: "reopens at" never names a second the window is still closed in.
  const when = `${new Date(Math.ceil(at / 1000) * 1000).toISOString().slice(11, 19)} UTC (in ${Math.ceil((at - end) / 1000)} s)`;
  return spent
    ? `rate-limit window reopens at ${when}; repro lines sent before then may get 429`
    : `rate-limit window: ${remaining} of ${limit} requests left until ${when}; more repro lines than that before then may get 429`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '0 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m} min ${s} s`;
}

/** A value shown as compact JSON (inputs of failures). */
export function compactJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}

/** Pretty-prints a body when it is JSON, else returns it as is. */
export function prettyBody(body: string): string {
  const t = body.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return body;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return body;
  }
}

/** A word for a POSIX shell: as it is when it is plain, else single-quoted. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Each credential's flag and env var, by the report.config key saying where it came from. */
const CREDENTIAL_FLAGS: Array<[source: string, flag: string, env: string]> = [
  ['api_key_from', '--api-key', 'VAPC_API_KEY'],
  ['user_id_from', '--user-id', 'VAPC_USER_ID'],
];

/**
 * The command that replays the run: same target (or --embedded), same config file, seed,
 * generated-case count, suites, pacing, timeouts and opt-ins, read from the report's redacted
 * config. Credentials given by flag or env var are written as "$VAPC_API_KEY" / "$VAPC_USER_ID"
 * placeholders, never their values; those from the config file come with --config.
 */
/**
 * The command that judges recorded traffic again: `vapc drift` on the recording (a proxy's own
 * `--record` file when it wrote one), or undefined for a report that is not of traffic.
 */
function trafficReplay(c: RunReport['config']): string | undefined {
  const recording = c.source === 'proxy' ? c.record : c.source === 'drift' ? c.recording : undefined;
  if (c.source === 'proxy' && typeof recording !== 'string')
    return typeof c.target_url === 'string'
      ? `npx --no-install vapc proxy --target ${shellQuote(c.target_url)}`
      : undefined;
  if (typeof recording !== 'string') return undefined;
  const parts = ['npx --no-install vapc drift', recording === 'standard input' ? '-' : shellQuote(recording)];
  if (c.source === 'drift' && typeof c.format === 'string' && /^[a-z]+$/.test(c.format))
    parts.push(`--format ${c.format}`);
  if (typeof c.base_path === 'string') parts.push(`--base-path ${shellQuote(c.base_path)}`);
  return parts.join(' ');
}

export function replayCommand(report: RunReport): string {
  const c = report.config ?? {};
  const traffic = trafficReplay(c);
  if (traffic !== undefined) return traffic;
  const parts = [
    'npx --no-install vapc run',
    c.embedded === true ? '--embedded' : `--base-url ${shellQuote(report.target)}`,
  ];
  if (typeof c.config_file === 'string' && c.config_file) parts.push(`--config ${shellQuote(c.config_file)}`);
  parts.push(`--seed ${report.seed}`);
  if (typeof c.runs === 'number') parts.push(`--runs ${c.runs}`);
  const suites: unknown = c.suites;
  // Only names a suite may have: a report read back may carry anything in its config, and this
  // line is made to be copied into a shell. Left out when the run selected every suite.
  const list = (
    Array.isArray(suites) ? suites.map(String) : typeof suites === 'string' && suites ? suites.split(',') : []
  ).filter((s): s is Suite => /^[a-z]{1,64}$/.test(s));
  const all = Array.isArray(c.all_suites) ? c.all_suites.map(String) : [];
  if (list.length > 0 && !(all.length > 0 && all.every((s) => list.includes(s))))
    parts.push(`--suite ${list.join(',')}`);
  for (const [key, flag] of [
    ['rpm', '--rpm'],
    ['timeout_ms', '--timeout-ms'],
    ['deadline_ms', '--deadline-ms'],
  ] as const) {
    if (typeof c[key] === 'number') parts.push(`${flag} ${c[key]}`);
  }
  if (c.include_destructive === true) parts.push('--include-destructive');
  // Workflow files and check ids as a report read back may carry them: only plain paths and ids go into a shell line.
  for (const file of Array.isArray(c.arazzo) ? c.arazzo : [])
    if (typeof file === 'string' && /^[\w@%+=:,./-]{1,300}$/.test(file)) parts.push(`--arazzo ${file}`);
  const ids = Array.isArray(c.checks)
    ? c.checks.filter((id) => typeof id === 'string' && /^[\w.-]{1,200}$/.test(id))
    : [];
  if (ids.length) parts.push(`--check ${ids.join(',')}`);
  if (c.strict_types === true) parts.push('--strict-types');
  for (const [source, flag, env] of CREDENTIAL_FLAGS) {
    if (c.embedded !== true && (c[source] === 'flag' || c[source] === 'env')) parts.push(`${flag} "$${env}"`);
  }
  return parts.join(' ');
}
