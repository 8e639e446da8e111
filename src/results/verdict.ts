/**
 * The run's verdict, of three (STYLE.md 15; shared/runner-interface.md, 2026-11-28): `failed` when a
 * check failed (or could not run: a tool error), else `passed` only when the run judged enough, else
 * `inconclusive`, with the reasons as data. A skipped check never fails a run, so without this a
 * server refusing everything for a reason the contract leaves open (a read-only key, a 403 where a
 * 422 is due, only 429s) ended green: a green verdict now needs the evidence a green one claims.
 *
 * "Enough", from the contract (the rules are data, VerdictRules, made from the checks' registry):
 * - every operation a check expecting a success answer ran on was judged on at least one success
 *   answer, unless nothing the server did kept it from it (a refusal, a 429, no record to send to);
 * - every core check of the plan was judged on at least one operation it ran on;
 * - with the whole plan (every suite, no focus, no budget cut, not a shard), the coverage floor.
 * Pure: a report and the rules in, the verdict out; `vapc run`, `vapc report` and `report merge`
 * all decide through it.
 */
import type {
  CheckResult,
  NotJudged,
  NotJudgedCause,
  NotJudgedGroup,
  RunEvidence,
  RunReport,
  RunVerdict,
  VerdictReason,
} from './model.js';

export type { NotJudgedGroup, RunEvidence, RunVerdict, VerdictReason, VerdictReasonKind } from './model.js';

/**
 * The causes of "not judged" that can make a run inconclusive: the server's own answers kept the run
 * from judging (a refusal the contract leaves open, a 429, no record to send to). Not the plan's
 * choices, the runner's limits, the machine's speed, nor what another check judged.
 */
export const COUNTED_CAUSES: ReadonlySet<NotJudgedCause> = new Set(['refused', 'rate-limited', 'no-record']);

/** The default coverage floor (percent of cells judged) for a run of the whole plan: docs/coverage.md. */
export const DEFAULT_COVERAGE_FLOOR = 50;

export interface VerdictRules {
  /** Checks whose requests are valid and expect a success answer (`expects: 'success'`). */
  successChecks: ReadonlySet<string>;
  /** Checks that must be judged on at least one operation they run on (`core: true`). */
  coreChecks: ReadonlySet<string>;
  /** The contract's suites (its profile's, and any its checks add): checks of every one, all selected (and not cut), hold a run to the floor. */
  suites: readonly string[];
  /** The suites the run's checks belong to. */
  checkedSuites: readonly string[];
  /** The coverage floor in percent; 0 turns it off. */
  floor: number;
}

const keyOf = (n: NotJudged): string => `${n.cause}\u0000${n.status ?? ''}\u0000${n.loc ?? ''}`;

/** The words of a cause, for people: "403 (on every write)", "422 naming body.x", "a 429". */
export function causeWords(n: NotJudged): string {
  switch (n.cause) {
    case 'refused':
      return n.status === undefined
        ? 'refused'
        : `refused with ${n.status}${n.loc ? ` naming ${n.loc}${n.status === 422 ? ', a field the contract does not name or not the one under test' : ''}` : ''}`;
    case 'rate-limited':
      return 'rate limited (429 after every resend)';
    case 'no-record':
      return 'no record to send to (the create that would make one was refused)';
    case 'untestable':
      return "the target's data or design leaves the rule untestable here";
    case 'timing':
      return "the machine's speed or the deadline cut the evidence short";
    case 'runner':
      return "the runner's own limit or setting";
    case 'covered':
      return "judged on other checks' answers";
    case 'elsewhere':
      return 'the answer is another check’s to judge';
    case 'plan':
      return 'not in the plan (destructive not enabled, a fixture missing)';
    case 'aborted':
      return 'the run stopped before it';
    case 'no-traffic':
      return 'the recorded traffic held no exchange it judges';
  }
}

/** Skipped results whose skip is the run's own doing at run time (not the plan's, not an abort). */
const ranButUnjudged = (r: CheckResult): boolean =>
  r.status === 'skipped' &&
  r.not_judged !== undefined &&
  r.not_judged.cause !== 'plan' &&
  r.not_judged.cause !== 'aborted';

/** The skipped results grouped by cause, the largest group first. */
export function notJudgedGroups(results: readonly CheckResult[]): NotJudgedGroup[] {
  const groups = new Map<string, NotJudgedGroup>();
  for (const r of results) {
    if (r.status !== 'skipped' || !r.not_judged) continue;
    const key = keyOf(r.not_judged);
    let g = groups.get(key);
    if (!g) {
      g = { ...r.not_judged, checks: 0, operations: [], message: '', counted: COUNTED_CAUSES.has(r.not_judged.cause) };
      groups.set(key, g);
    }
    g.checks++;
    if (!g.operations.includes(r.operation)) g.operations.push(r.operation);
  }
  const list = [...groups.values()].sort((a, b) => b.checks - a.checks);
  for (const g of list) g.message = `${causeWords(g)}: ${g.checks} check(s) not judged on ${listOf(g.operations)}`;
  return list;
}

const listOf = (items: readonly string[], max = 4): string =>
  items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;

/** Whether a success answer of `operation` was judged (its 2xx status cells in the coverage block). */
function successJudged(report: Pick<RunReport, 'coverage'>, operation: string): boolean {
  return (report.coverage?.cells ?? []).some(
    (c) =>
      c.operation === operation &&
      c.dimension === 'status' &&
      /^2/.test(c.item) &&
      (c.state === 'judged-pass' || c.state === 'judged-fail'),
  );
}

/** Operations a success-expecting check ran on, judged on no success answer, for a counted cause: grouped by that cause. */
function operationReasons(report: RunReport, rules: VerdictRules): VerdictReason[] {
  const byCause = new Map<string, { cause: NotJudged; ops: string[]; checks: number }>();
  const ops = new Set(report.results.filter((r) => rules.successChecks.has(r.id)).map((r) => r.operation));
  for (const op of ops) {
    if (successJudged(report, op)) continue;
    const blocked = report.results.filter(
      (r) =>
        r.operation === op &&
        rules.successChecks.has(r.id) &&
        ranButUnjudged(r) &&
        COUNTED_CAUSES.has(r.not_judged!.cause),
    );
    if (blocked.length === 0) continue;
    const cause = dominant(blocked.map((r) => r.not_judged!));
    const key = keyOf(cause);
    const entry = byCause.get(key) ?? { cause, ops: [], checks: 0 };
    entry.ops.push(op);
    entry.checks += report.results.filter((r) => r.operation === op && ranButUnjudged(r)).length;
    byCause.set(key, entry);
  }
  return [...byCause.values()].map(({ cause, ops: items, checks }) => ({
    kind: 'operations-unjudged',
    items,
    cause,
    message: `no success answer judged on ${listOf(items)}: ${causeWords(cause)} (${checks} check(s) not judged)`,
  }));
}

/** Core checks run on some operation and judged on none, for a counted cause. */
function checkReasons(report: RunReport, rules: VerdictRules): VerdictReason[] {
  const out: VerdictReason[] = [];
  for (const id of rules.coreChecks) {
    const pairs = report.results.filter((r) => r.id === id && !(r.status === 'skipped' && !ranButUnjudged(r)));
    if (pairs.length === 0 || pairs.some((r) => r.status !== 'skipped')) continue;
    const counted = pairs.filter((r) => COUNTED_CAUSES.has(r.not_judged!.cause));
    if (counted.length === 0) continue;
    const cause = dominant(counted.map((r) => r.not_judged!));
    out.push({
      kind: 'check-unjudged',
      items: [id],
      cause,
      message: `${id} was judged on none of its ${pairs.length} operation(s): ${causeWords(cause)}`,
    });
  }
  return out;
}

/**
 * A run of which no check judged anything (every result skipped, whatever the causes: a deadline
 * that cut every check, the plan's own choices) is no evidence for a pass: measured on a busy
 * machine, a server answering only 429 ended green once its deadline had aborted every check that
 * would have counted the 429s. Recorded traffic (`vapc drift`, `vapc proxy`) judges what it was
 * given, and what it never exercised is the coverage block's to say, not a reason to be
 * inconclusive; but traffic of which no judge judged a single answer (nothing on the contract, an
 * empty file, only refusals) is the same nothing, said in its words.
 */
function nothingJudgedReasons(report: RunReport): VerdictReason[] {
  const results = report.results;
  if (results.length === 0 || results.some((r) => r.status !== 'skipped')) return [];
  if (results.some((r) => r.not_judged?.cause === 'no-traffic'))
    return [
      {
        kind: 'traffic-unjudged',
        items: [],
        message: `no judge judged any answer of the traffic (${report.summary.requests} exchange(s) read): nothing to pass on`,
      },
    ];
  return [
    {
      kind: 'nothing-judged',
      items: [],
      message: `no check judged anything (${results.length} result(s), every one skipped): nothing to pass on`,
    },
  ];
}

/** The cause most pairs had. */
function dominant(causes: readonly NotJudged[]): NotJudged {
  const counts = new Map<string, { n: number; cause: NotJudged }>();
  for (const c of causes) {
    const e = counts.get(keyOf(c));
    if (e) e.n++;
    else counts.set(keyOf(c), { n: 1, cause: c });
  }
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]!.cause;
}

/**
 * Whether the report holds the whole plan: checks of every suite of the contract, every suite
 * selected, no --changed-since focus, no budget cut, no shard (a run of a few checks of one's own
 * cannot reach the floor, nor is it meant to).
 */
function wholePlan(report: RunReport, rules: VerdictRules): boolean {
  const selected = new Set(report.config?.suites ?? []);
  const checked = new Set(rules.checkedSuites);
  return (
    !report.focus &&
    !report.budget &&
    !report.shard &&
    rules.suites.length > 0 &&
    rules.suites.every((s) => checked.has(s) && selected.has(s))
  );
}

export interface Verdict {
  verdict: RunVerdict;
  evidence: RunEvidence;
}

/**
 * Decides a report's verdict. `failed` comes from the results (with a baseline: the new findings);
 * `rateLimited` is the count of 429 answers the run got (the summary's).
 */
export function decideVerdict(
  report: RunReport,
  rules: VerdictRules,
  options: { allowInconclusive?: boolean } = {},
): Verdict {
  const failed = report.summary.new_failures ?? report.summary.failed;
  const floor = rules.floor > 0 && wholePlan(report, rules) ? rules.floor : null;
  const reasons = [...operationReasons(report, rules), ...checkReasons(report, rules), ...nothingJudgedReasons(report)];
  const percent = report.coverage?.summary.percent;
  if (floor !== null && percent !== undefined && percent < floor)
    reasons.push({
      kind: 'coverage-floor',
      items: [],
      message: `${percent}% of the coverage cells judged, below the floor of ${floor}% (docs/coverage.md)`,
    });
  const evidence: RunEvidence = {
    reasons,
    not_judged: notJudgedGroups(report.results),
    floor,
    rate_limited: report.summary.rate_limited ?? 0,
  };
  if (options.allowInconclusive) evidence.allow_inconclusive = true;
  const verdict: RunVerdict =
    failed > 0 || report.summary.errors > 0 ? 'failed' : reasons.length > 0 ? 'inconclusive' : 'passed';
  return { verdict, evidence };
}

/** The report with its verdict (replacing one it had). */
export const withVerdict = (
  report: RunReport,
  rules: VerdictRules,
  options: { allowInconclusive?: boolean } = {},
): RunReport => ({ ...report, ...decideVerdict(report, rules, options) });

/** One line saying why a run is inconclusive: its first reason, and how many more. */
export function inconclusiveHeadline(evidence: Pick<RunEvidence, 'reasons'>): string {
  const [first, ...rest] = evidence.reasons;
  if (!first) return '';
  return `${first.message}${rest.length ? ` (and ${rest.length} more reason${rest.length > 1 ? 's' : ''})` : ''}`;
}
