import { inconclusiveHeadline } from '../results/verdict.js';
import { createRequire } from 'node:module';
import type cliProgress from 'cli-progress';
import type { CheckResult, Failure, Observation, RunReport, Suite } from '../results/model.js';
import type { PacingInfo, RunEvents, RunPlan } from '../results/events.js';
import { clip, printable } from '../results/printable.js';
import { OutputGuard } from '../secrets/guard.js';
import { underCi } from '../results/ci.js';
import { Secrets, type SecretsOptions } from '../secrets/index.js';
import { causeLabel, causesGroup, groupCauses, sharedCauseNotes, type Cause } from '../results/causes.js';
import {
  countsBySuite,
  failuresOf,
  formatDuration,
  rateLimitNote,
  replayCommand,
  reproOf,
  ruleWithRef,
} from './text.js';

export interface ConsoleReporterOptions {
  /** Where output goes (stdout). Everything written passes the final redaction. */
  write: (text: string) => void;
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** Print only the final summary. */
  quiet?: boolean;
  /** The run's secrets (or the credentials to redact): scrubbed from all output. */
  secrets?: Secrets | SecretsOptions;
}

export type ConsoleMode = 'live' | 'plain' | 'quiet';

export interface ConsoleReporter extends RunEvents {
  readonly mode: ConsoleMode;
  readonly color: boolean;
  /** The final summary as text (table per suite, failures, errors, skipped reasons, observations). */
  summary(report: RunReport): string;
}

/** no-color.org: NO_COLOR set to any non-empty value disables colour. */
export function colorEnabled(isTTY: boolean, env: Record<string, string | undefined>): boolean {
  return isTTY && !(env.NO_COLOR !== undefined && env.NO_COLOR !== '') && env.TERM !== 'dumb';
}

/** Under CI (src/results/ci.ts, the one definition): the console prints plain lines, no live bar. */
export const isCi = underCi;

type Paint = (s: string) => string;
interface Palette {
  red: Paint;
  green: Paint;
  yellow: Paint;
  dim: Paint;
  bold: Paint;
  cyan: Paint;
}
const ansi =
  (open: number, close: number): Paint =>
  (s) =>
    `\x1b[${open}m${s}\x1b[${close}m`;
const plain: Paint = (s) => s;
function palette(color: boolean): Palette {
  if (!color) return { red: plain, green: plain, yellow: plain, dim: plain, bold: plain, cyan: plain };
  return {
    red: ansi(31, 39),
    green: ansi(32, 39),
    yellow: ansi(33, 39),
    dim: ansi(2, 22),
    bold: ansi(1, 22),
    cyan: ansi(36, 39),
  };
}

const STATUS_WORD: Record<CheckResult['status'], string> = {
  passed: 'PASS',
  failed: 'FAIL',
  skipped: 'SKIP',
  error: 'ERR ',
};

function paintStatus(p: Palette, status: CheckResult['status'], text: string): string {
  switch (status) {
    case 'passed':
      return p.green(text);
    case 'failed':
      return p.red(text);
    case 'skipped':
      return p.yellow(text);
    case 'error':
      return p.red(p.bold(text));
  }
}

export function pacingText(info: PacingInfo): string {
  const parts: string[] = [];
  if (info.rpm !== undefined) parts.push(`${Math.round(info.rpm)}/min`);
  if (info.limit !== undefined)
    parts.push(info.remaining !== undefined ? `${info.remaining}/${info.limit} left` : `limit ${info.limit}`);
  if (info.waitMs > 0) parts.push(`waiting ${formatDuration(info.waitMs)}${info.cause ? ` (${info.cause})` : ''}`);
  return parts.length > 0 ? `paced ${parts.join(', ')}` : '';
}

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

/** What every mode shares: the writers (scrubbed, guarded), the palette and the run's progress so far. */
interface ConsoleOut {
  /** Writes text after scrubbing secrets and neutralising workflow commands. */
  write: (text: string) => void;
  scrub: (text: string) => string;
  /** The raw sink (for the progress bar, which scrubs each chunk itself). */
  raw: (text: string) => void;
  p: Palette;
  env: Record<string, string | undefined>;
}

interface Progress {
  plan: RunPlan | undefined;
  done: number;
  failures: number;
  requests: number;
  suite: Suite | '';
}

type ModeEvents = Omit<RunEvents, 'onStart' | 'onEnd'> & { onStart?(): void; onEnd?(): void };

function statusLine(p: Palette, r: CheckResult, detail: string): string {
  return `${paintStatus(p, r.status, STATUS_WORD[r.status])} ${r.id}  ${r.operation}${detail}`;
}

/**
 * Plain mode (CI, or no TTY): one line per result, grouped by suite, no cursor tricks. The runner
 * does the pairs in value order and a passive pair's turn after the last pair on its operation
 * (ARCHITECTURE.md, "Passive checks"), so it comes back to a suite several times: each suite's
 * lines (and the notes made while it ran) are held and printed under one header once its last
 * planned result is in (the rest at the end). Pacing is said at once, when it changes.
 */
function plainEvents(out: ConsoleOut, progress: Progress): ModeEvents {
  const { write, p } = out;
  let lastPacingPrinted = '';
  let lastPacingAt = 0;
  /** Each suite's lines not printed yet, and how many of them are results. */
  const held = new Map<Suite, { lines: string[]; results: number }>();
  const printed = new Set<Suite>();
  const left = new Map<Suite, number>();
  const hold = (s: Suite, line: string, result: boolean): void => {
    const block = held.get(s) ?? { lines: [], results: 0 };
    block.lines.push(line);
    if (result) block.results += 1;
    held.set(s, block);
  };
  const flush = (s: Suite): void => {
    const { lines, results } = held.get(s) ?? { lines: [], results: 0 };
    held.delete(s);
    printed.add(s);
    const count = progress.plan?.checksPerSuite[s] ?? results;
    const { done, plan, requests, failures } = progress;
    write(
      `\n${p.bold(`[${s}]`)} ${count} check${count === 1 ? '' : 's'}\n${lines.join('')}` +
        `${p.dim(`[${s}] done · ${done}${plan ? `/${plan.total}` : ''} checks · ${requests} requests · ${failures} failed so far`)}\n`,
    );
  };
  return {
    onStart() {
      for (const [s, n] of Object.entries(progress.plan?.checksPerSuite ?? {})) if (n !== undefined) left.set(s, n);
    },
    onCheckDone(r) {
      const line = `  ${statusLine(p, r, r.status === 'passed' ? '' : ` · ${r.message}`)}\n`;
      // A result beyond its suite's planned count (a plan event that did not count it) is said at once.
      if (printed.has(r.suite)) return write(line);
      hold(r.suite, line, true);
      const n = (left.get(r.suite) ?? 0) - 1;
      left.set(r.suite, n);
      if (n === 0) flush(r.suite);
    },
    onPacing(info) {
      const pacing = pacingText(info);
      if (!pacing) return;
      const key = `${info.rpm ?? ''}/${info.limit ?? ''}`;
      const now = Date.now();
      // Say it when the pace changes or a long wait starts, at most every 10 s otherwise.
      if (key !== lastPacingPrinted || (info.waitMs >= 1000 && now - lastPacingAt >= 10_000)) {
        lastPacingPrinted = key;
        lastPacingAt = now;
        write(`${p.dim(pacing)}\n`);
      }
    },
    onObservation(o) {
      // A note goes with the suite that was running when it was made (before any suite: at once).
      const line = `  ${p.dim(`NOTE ${o.id}${o.operation ? ` ${o.operation}` : ''}: ${o.message}`)}\n`;
      const s = progress.suite;
      if (s === '' || printed.has(s)) write(line);
      else hold(s, line, false);
    },
    onEnd() {
      // What no planned count closed (results fed without a plan's counts), in the plan's suite order.
      const order = [...(progress.plan?.suites ?? []), ...held.keys()];
      for (const s of new Set(order)) if (held.has(s)) flush(s);
    },
  };
}

/** cli-progress, loaded when a live bar is first drawn: a run without a TTY (CI, --quiet, a pipe) never pays for it. */
const progressBars = (): typeof cliProgress => createRequire(import.meta.url)('cli-progress') as typeof cliProgress;

function createMultibar(out: ConsoleOut): cliProgress.MultiBar {
  const bars = progressBars();
  const stream = {
    isTTY: true,
    columns: Number(out.env.COLUMNS) || 100,
    write: (chunk: string) => {
      out.raw(out.scrub(chunk));
      return true;
    },
  } as unknown as NodeJS.WriteStream;
  const multibar = new bars.MultiBar(
    {
      stream,
      format: `${out.p.cyan('{suite}')} {bar} {value}/{total} checks | {requests} requests | {failures} failed{pacing}`,
      barsize: 24,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      noTTYOutput: false,
      fps: 10,
      barCompleteChar: '█',
      barIncompleteChar: '░',
    },
    bars.Presets.shades_classic,
  );
  // The redraw timer must not keep the process alive if a run ends without onEnd.
  const unref = () => (multibar as unknown as { timer?: NodeJS.Timeout | null }).timer?.unref?.();
  multibar.on('start', unref);
  multibar.on('update-post', unref);
  return multibar;
}

/** Live mode (a TTY, not CI): one progress bar (suite, checks, requests, failures, pacing), failures printed above it. */
function liveEvents(out: ConsoleOut, progress: Progress): ModeEvents {
  const p = out.p;
  let pacingInfo: PacingInfo | undefined;
  let pacingAt = 0;
  let multibar: cliProgress.MultiBar | undefined;
  let bar: cliProgress.SingleBar | undefined;
  /** The pacing shown on the bar: the rate, and a countdown while a wait is on. */
  const livePacing = (): string => {
    if (!pacingInfo) return '';
    const left = Math.max(0, pacingInfo.waitMs - (Date.now() - pacingAt));
    const text = pacingText({ ...pacingInfo, waitMs: left >= 100 ? left : 0 });
    return text ? ` | ${p.yellow(text)}` : '';
  };
  const payload = () => ({
    suite: progress.suite || '-',
    requests: progress.requests,
    failures: progress.failures > 0 ? p.red(String(progress.failures)) : '0',
    pacing: livePacing(),
  });
  const update = () => bar?.update(progress.done, payload());
  return {
    onStart() {
      if (bar) return;
      multibar = createMultibar(out);
      bar = multibar.create(progress.plan?.total ?? 0, progress.done, payload());
    },
    onSuiteStart: update,
    onCheckDone(r) {
      if (r.status === 'failed' || r.status === 'error') {
        const text = statusLine(p, r, ` · ${r.message}`);
        if (multibar) multibar.log(`${out.scrub(text)}\n`);
        else out.write(`${text}\n`);
      }
      update();
    },
    onRequest: update,
    onPacing(info) {
      pacingInfo = info;
      pacingAt = Date.now();
      update();
    },
    onEnd() {
      if (!multibar) return;
      update();
      // Flush lines logged since the last redraw, then leave the final bar on screen.
      (multibar as unknown as { update(): void }).update();
      multibar.stop();
      multibar = undefined;
      bar = undefined;
    },
  };
}

/**
 * The console reporter: live progress while a run goes on, then the final summary.
 * - live (a TTY, not CI): one cli-progress bar (suite, checks done/total, requests, failures,
 *   pacing), failures printed above it as they happen;
 * - plain (CI=true or no TTY): one line per event, no cursor tricks;
 * - quiet: nothing until the end, then a brief summary.
 * Colour only on a TTY and never with NO_COLOR. GitHub Actions output is its own sink
 * (`createGitHubSink`), composed next to this one by the CLI.
 * onEnd writes the summary; `summary(report)` returns the full text without writing it.
 */
export function createConsoleReporter(options: ConsoleReporterOptions): ConsoleReporter {
  const { env } = options;
  // Results and the final report arrive already made safe (by the runner at their source, or by
  // sanitizeReport once when read from disk): nothing here sanitises them again. Every write still
  // passes the one output guard (src/secrets/guard.ts): the run's secrets, no forged workflow command.
  const secrets = options.secrets instanceof Secrets ? options.secrets : new Secrets(options.secrets ?? {});
  const guard = new OutputGuard(secrets);
  const scrub = (text: string) => guard.stream(text);
  const write = (text: string) => options.write(scrub(text));
  const mode: ConsoleMode = options.quiet ? 'quiet' : options.isTTY && !isCi(env) ? 'live' : 'plain';
  const color = colorEnabled(options.isTTY, env);
  const p = palette(color);
  const out: ConsoleOut = { write, scrub, raw: options.write, p, env };
  const progress: Progress = { plan: undefined, done: 0, failures: 0, requests: 0, suite: '' };
  const events: ModeEvents =
    mode === 'live' ? liveEvents(out, progress) : mode === 'plain' ? plainEvents(out, progress) : {};

  return {
    mode,
    color,
    onStart(plan: RunPlan) {
      progress.plan = plan;
      if (mode === 'quiet') return;
      write(
        `${p.bold('vapc')} testing ${plan.target} · seed ${plan.seed} · ${plan.total} checks in ${plan.suites.join(', ')}\n`,
      );
      events.onStart?.();
    },
    onSuiteStart(s: Suite, checks: number) {
      progress.suite = s;
      events.onSuiteStart?.(s, checks);
    },
    onCheckDone(r: CheckResult) {
      progress.done += 1;
      if (r.status === 'failed') progress.failures += 1;
      events.onCheckDone?.(r);
    },
    onRequest(total: number) {
      progress.requests = total;
      events.onRequest?.(total);
    },
    onPacing: (info: PacingInfo) => events.onPacing?.(info),
    onObservation: (o: Observation) => events.onObservation?.(o),
    onSuiteEnd: (s: Suite) => events.onSuiteEnd?.(s),
    onEnd(full: RunReport) {
      events.onEnd?.();
      write(renderSummary(full, { color, brief: mode === 'quiet' }));
    },
    summary(full: RunReport) {
      return scrub(renderSummary(full, { color }));
    },
  };
}
