/**
 * The console's final summary: the table per suite, the causes, the failures with their bodies and
 * repros, the baseline, errors, skips, observations, what the verdict rests on, and the verdict line.
 */
import { inconclusiveHeadline } from '../../results/verdict.js';
import type { CheckResult, Failure, RunReport } from '../../results/model.js';
import { clip, printable } from '../../results/printable.js';
import { causeLabel, causesGroup, groupCauses, sharedCauseNotes, type Cause } from '../../results/causes.js';
import {
  countsBySuite,
  failuresOf,
  formatDuration,
  rateLimitNote,
  replayCommand,
  reproOf,
  ruleWithRef,
} from '../text.js';
import { palette, type Palette } from './palette.js';

/** Right-aligned table with a left-aligned first column. */
function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), ...rows.map(line)];
}

export function renderSummary(report: RunReport, opts: { color?: boolean; brief?: boolean } = {}): string {
  const p = palette(opts.color ?? false);
  const s = report.summary;
  const out: string[] = [];
  out.push(
    '',
    p.bold(`vapc conformance: ${report.target}`),
    `seed ${report.seed} · spec ${report.spec_version} · ${s.requests} requests · ${formatDuration(s.duration_ms)}`,
    '',
  );
  const replay = `replay: ${replayCommand(report)}`;
  const rows = countsBySuite(report).map((c) => [
    c.suite,
    String(c.passed),
    String(c.failed),
    String(c.skipped),
    String(c.error),
  ]);
  rows.push(['total', String(s.passed), String(s.failed), String(s.skipped), String(s.errors ?? 0)]);
  const lines = table(['suite', 'passed', 'failed', 'skipped', 'error'], rows);
  out.push(p.bold(lines[0]!), ...lines.slice(1, -1), p.bold(lines[lines.length - 1]!));

  // With --baseline, known findings are listed apart and only new ones count as failures.
  const failed = report.results.filter((r) => r.status === 'failed' && r.baseline?.known !== true);
  out.push(...causeLines(failed, p));
  out.push(...failureLines(failed, report, p, opts.brief === true));
  out.push(...baselineLines(report, p));
  const errors = report.results.filter((r) => r.status === 'error');
  if (errors.length > 0) {
    out.push('', p.red(`Could not check (${errors.length}): tool errors, not the server's fault`));
    for (const r of errors) out.push(`  - ${r.id}  ${r.operation}: ${r.message}`);
  }
  if (!opts.brief) {
    const skipped = report.results.filter((r) => r.status === 'skipped');
    if (skipped.length > 0) {
      const reasons = new Map<string, number>();
      for (const r of skipped) reasons.set(r.message, (reasons.get(r.message) ?? 0) + 1);
      out.push('', p.yellow(`Skipped (${skipped.length})`));
      for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) out.push(`  - ${n} × ${reason}`);
    }
    const obs = report.observations ?? [];
    if (obs.length > 0) {
      out.push('', p.dim(`Observations (${obs.length}): what the contract does not rule on, never failures`));
      for (const o of obs) out.push(`  - ${o.id}${o.operation ? ` ${o.operation}` : ''}: ${o.message}`);
    }
  }
  out.push(...evidenceLines(report, p));
  if (failed.length > 0 || errors.length > 0) out.push('', p.dim(replay));
  const window = rateLimitNote(report);
  if (window) out.push('', p.yellow(window));
  out.push('', verdictLine(report, failed.length, errors.length, p));
  return `${out.join('\n')}\n`;
}

/**
 * What the verdict rests on: the reasons of an inconclusive run, what the server kept from being
 * judged (grouped by cause), and how many answers the rate limit took.
 */
function evidenceLines(report: RunReport, p: Palette): string[] {
  const e = report.evidence;
  if (!e) return [];
  const out: string[] = [];
  if (e.reasons.length > 0) {
    out.push(
      '',
      p.yellow(
        p.bold(
          `Inconclusive: the run judged too little to pass (${e.reasons.length} reason${e.reasons.length === 1 ? '' : 's'})`,
        ),
      ),
    );
    for (const r of e.reasons) out.push(`  - ${printable(r.message)}`);
  }
  const counted = e.not_judged.filter((g) => g.counted);
  if (counted.length > 0) {
    out.push('', p.yellow("Not judged because of the server's answers"));
    for (const g of counted) out.push(`  - ${printable(g.message)}`);
  }
  if (e.rate_limited > 0)
    out.push('', p.dim(`rate limit: ${e.rate_limited} answer(s) were 429 (never judged, never failed)`));
  return out;
}

/** The failed results (with --baseline, the new ones), numbered, each with its failures; `brief`: the first failure's body and repro only. */
function failureLines(failed: readonly CheckResult[], report: RunReport, p: Palette, brief: boolean): string[] {
  if (failed.length === 0) return [];
  const out: string[] = [];
  out.push('', p.red(p.bold(`${report.baseline ? 'New failures' : 'Failures'} (${failed.length})`)));
  failed.forEach((r, i) => {
    out.push('', `${i + 1}. ${p.red(r.id)}  ${r.operation}  [${r.severity}]`);
    const why = baselineNote(r);
    if (why) out.push(`   ${p.yellow(why)}`);
    if (brief) {
      out.push(`   ${r.message}`);
      const first = failuresOf(r)[0]!;
      const body = bodyLine(first);
      if (body) out.push(`   body:  ${body}`);
      const repro = reproOf(first, r);
      if (repro) out.push(`   repro: ${repro}`);
      return;
    }
    out.push(`   ${r.message}`, `   rule:     ${ruleWithRef(r)}`);
    const fs = failuresOf(r);
    fs.slice(0, 3).forEach((f, j) => {
      if (fs.length > 1) out.push(p.dim(`   (${j + 1}/${fs.length})`));
      out.push(`   expected: ${f.expected}`, `   actual:   ${f.actual}`);
      if (f.input !== undefined) out.push(`   input:    ${oneLine(f.input)}`);
      const body = bodyLine(f);
      if (body) out.push(`   body:     ${body}`);
      if (f.seed !== undefined) out.push(`   seed:     ${f.seed}${f.path ? ` path ${f.path}` : ''}`);
      const repro = reproOf(f, r);
      if (repro) out.push(`   repro:    ${p.cyan(repro)}`);
    });
    if (fs.length > 3) out.push(p.dim(`   ... ${fs.length - 3} more in report.html`));
  });
  return out;
}

/** The last line: FAILED, NO FAILURES but some checks could not run, ABORTED or PASSED, with the counts. */
function verdictLine(report: RunReport, failed: number, errors: number, p: Palette): string {
  const s = report.summary;
  const known = report.baseline ? `, ${report.baseline.known} known (baseline)` : '';
  return failed > 0
    ? p.red(p.bold(`FAILED: ${failed} of ${report.results.length} checks failed${known ? ` (new)${known}` : ''}`))
    : errors > 0
      ? p.yellow(p.bold(`NO FAILURES, but ${errors} check${errors === 1 ? '' : 's'} could not run`))
      : report.run?.status === 'aborted'
        ? p.yellow(p.bold(`ABORTED: the run stopped early; ${s.passed} passed before it stopped, ${s.skipped} skipped`))
        : report.verdict === 'inconclusive'
          ? p.yellow(
              p.bold(
                `INCONCLUSIVE: ${printable(inconclusiveHeadline(report.evidence!))}; ${s.passed} passed, ${s.skipped} skipped${report.evidence?.allow_inconclusive ? ' (exit 0 only because of --allow-inconclusive)' : ''}`,
              ),
            )
          : p.green(p.bold(`PASSED: ${s.passed} passed, ${s.skipped} skipped${known}`));
}

/** At most `max` items joined, then how many more. */
function listSome(items: readonly string[], max = 6): string {
  const shown = items.slice(0, max).map((i) => printable(i));
  return items.length > max ? `${shown.join(', ')} (+${items.length - max} more)` : shown.join(', ');
}

/**
 * The failures grouped by cause (src/results/causes.ts), each cause once with the checks and
 * operations it touched, and a note under the suite table for a suite whose failures all share a
 * cause with other suites. Nothing when no cause touches two failed results (the list says it all).
 */
export function causeLines(failed: readonly CheckResult[], p: Palette = palette(false)): string[] {
  const causes = groupCauses(failed);
  if (!causesGroup(causes)) return [];
  const total = causes.reduce((n, c) => n + c.failures, 0);
  const out: string[] = [];
  for (const n of sharedCauseNotes(failed, causes)) {
    const others = n.cause.suites.filter((s) => s !== n.suite);
    out.push(
      p.dim(
        `note: ${printable(n.suite)}: ${n.failed} failed, all from 1 cause shared with ${listSome(others)}: ${printable(causeLabel(n.cause))}`,
      ),
    );
  }
  out.push(
    '',
    p.red(p.bold(`Causes (${causes.length}) of ${total} failure${total === 1 ? '' : 's'} in ${failed.length} checks`)),
  );
  causes.forEach((c: Cause, i) => {
    out.push(
      `${i + 1}. ${printable(causeLabel(c))}: ${c.failures} failure${c.failures === 1 ? '' : 's'} in ${c.suites.length} suite${c.suites.length === 1 ? '' : 's'}`,
    );
    out.push(`   checks:     ${listSome(c.checks)}`, `   operations: ${listSome(c.operations)}`);
  });
  return out;
}

/** Why a failed result is new although a baseline is in use (expired entry, kinds not covered). */
function baselineNote(r: CheckResult): string | undefined {
  const b = r.baseline;
  if (!b || b.known) return undefined;
  if (b.expired) return `baseline entry expired on ${b.expires}: fails again (reason was: ${b.reason ?? ''})`;
  return `new finding: ${(b.new_kinds ?? b.kinds).join('; ')}`;
}

/** The known findings and the baseline entries not observed this run (nothing without --baseline). */
function baselineLines(report: RunReport, p: Palette): string[] {
  const b = report.baseline;
  if (!b) return [];
  const out: string[] = [];
  const known = report.results.filter((r) => r.status === 'failed' && r.baseline?.known === true);
  if (known.length > 0) {
    out.push('', p.yellow(p.bold(`Known findings (${known.length}, in baseline ${b.file}; reported, not failing)`)));
    for (const r of known)
      out.push(
        `  - ${r.id}  ${r.operation}: ${r.message}`,
        p.dim(
          `    reason: ${r.baseline?.reason ?? ''}${r.baseline?.expires ? ` · expires ${r.baseline.expires}` : ''}`,
        ),
      );
  }
  if (b.not_observed.length > 0) {
    out.push(
      '',
      p.dim(
        `Not observed this run (${b.not_observed.length} baseline entr${b.not_observed.length === 1 ? 'y' : 'ies'}; not seen is not fixed)`,
      ),
    );
    for (const e of b.not_observed) {
      const hint =
        e.this_run === 'passed'
          ? 'ran and passed; --prune-baseline drops it'
          : e.this_run === 'not-run'
            ? 'not run'
            : `this run: ${e.this_run}`;
      out.push(`  - ${e.check}  ${e.operation}  ${e.kind} (${hint})`);
    }
  }
  if (b.pruned !== undefined) out.push('', p.dim(`Pruned from the baseline: ${b.pruned}`));
  return out;
}

/** The longest response body the console shows of one failure (report.json keeps more). */
export const CONSOLE_BODY_MAX = 400;

/**
 * The answer of a failure as report.json records it: status and body on one line, control
 * characters escaped, cut at CONSOLE_BODY_MAX; undefined when nothing was answered.
 */
export function bodyLine(f: Failure): string | undefined {
  const res = f.response;
  if (!res || typeof res.status !== 'number') return undefined;
  const text = typeof res.body === 'string' && res.body !== '' ? printable(res.body) : '(empty body)';
  const note =
    text.length > CONSOLE_BODY_MAX
      ? ' [cut here; report.json has the recorded body]'
      : res.truncated === true
        ? ' [cut at the recorded size cap]'
        : '';
  return `${res.status} ${clip(text, CONSOLE_BODY_MAX)}${note}`;
}

function oneLine(v: unknown): string {
  let t: string;
  try {
    t = JSON.stringify(v) ?? String(v);
  } catch {
    t = String(v);
  }
  return t.length > 300 ? `${t.slice(0, 300)}…` : t;
}
