/**
 * The console's progress while a run goes on: plain lines grouped by suite (CI, no TTY), or one
 * live cli-progress bar with failures printed above it (a TTY).
 */
import { createRequire } from 'node:module';
import type cliProgress from 'cli-progress';
import type { CheckResult, Suite } from '../../results/model.js';
import type { PacingInfo, RunEvents, RunPlan } from '../../results/events.js';
import { formatDuration } from '../text.js';
import type { Palette } from './palette.js';

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

/** What every mode shares: the writers (scrubbed, guarded), the palette and the run's progress so far. */
export interface ConsoleOut {
  /** Writes text after scrubbing secrets and neutralising workflow commands. */
  write: (text: string) => void;
  scrub: (text: string) => string;
  /** The raw sink (for the progress bar, which scrubs each chunk itself). */
  raw: (text: string) => void;
  p: Palette;
  env: Record<string, string | undefined>;
}

export interface Progress {
  plan: RunPlan | undefined;
  done: number;
  failures: number;
  requests: number;
  suite: Suite | '';
}

export type ModeEvents = Omit<RunEvents, 'onStart' | 'onEnd'> & { onStart?(): void; onEnd?(): void };

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
export function plainEvents(out: ConsoleOut, progress: Progress): ModeEvents {
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
export function liveEvents(out: ConsoleOut, progress: Progress): ModeEvents {
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
