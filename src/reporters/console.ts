import type { CheckResult, Observation, RunReport, Suite } from '../results/model.js';
import type { PacingInfo, RunEvents, RunPlan } from '../results/events.js';
import { OutputGuard } from '../secrets/guard.js';
import { underCi } from '../results/ci.js';
import { Secrets, type SecretsOptions } from '../secrets/index.js';
import { palette } from './console/palette.js';
import { renderSummary } from './console/summary.js';
import { liveEvents, plainEvents, type ConsoleOut, type ModeEvents, type Progress } from './console/progress.js';

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

// The console in parts: colours (console/palette.ts), the progress while a run goes on
// (console/progress.ts) and the final summary (console/summary.ts).
export { bodyLine, causeLines, CONSOLE_BODY_MAX, renderSummary } from './console/summary.js';
export { pacingText } from './console/progress.js';

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
