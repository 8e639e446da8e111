import {
  applyBaseline,
  baselineHygiene,
  entriesToWrite,
  hygieneLine,
  MAX_EXPIRY_DAYS,
  markResult,
  signatureOf,
  parseBaseline,
  prunedEntries,
  serializeBaseline,
  TODO_REASON,
  type Baseline,
} from '../baseline/index.js';
import { VapcError } from '../errors.js';
import { readCheckoutFile, shownName } from '../files/checkout.js';
import { writeAtomic } from '../files/write.js';
import type { RunEvents } from '../results/events.js';
import type { RunReport } from '../results/model.js';
import { printable } from '../results/printable.js';

/** The baseline flags of `vapc run` (names fixed in shared/runner-interface.md). */
export interface BaselineFlags {
  baseline?: string;
  writeBaseline?: string;
  pruneBaseline?: boolean;
  /** With --baseline: an entry with a placeholder reason or no expires within MAX_EXPIRY_DAYS fails the run (exit 2). */
  strictBaseline?: boolean;
}

/** How loadBaselineFlags reports entries that break the hygiene rules without --strict-baseline. */
export interface BaselineCheckOptions {
  /** Today, YYYY-MM-DD (default the UTC date). */
  today?: string;
  /** Receives each warning line (printable, ending in a newline); default: none printed. */
  warn?: (line: string) => void;
}

/** Entries named in one refusal at most; the rest are counted. */
const MAX_NAMED = 5;

/** Today in UTC, YYYY-MM-DD (entries expire at the end of their `expires` day, UTC). */
export const todayUtc = (now = new Date()): string => now.toISOString().slice(0, 10);

/**
 * Reads and checks --baseline FILE before any request is sent; a bad file is E_BASELINE (exit 2).
 * Entries without a real reason or a near enough expiry (hygiene.ts) are warned about through
 * `options.warn`, or refused (E_BASELINE naming them) with --strict-baseline.
 */
export async function loadBaselineFlags(
  flags: BaselineFlags,
  options: BaselineCheckOptions = {},
): Promise<Baseline | undefined> {
  if (flags.pruneBaseline && flags.baseline === undefined)
    throw new VapcError('E_USAGE', '--prune-baseline needs --baseline FILE (the baseline to prune)');
  if (flags.strictBaseline && flags.baseline === undefined)
    throw new VapcError('E_USAGE', '--strict-baseline needs --baseline FILE (the baseline to hold to its rules)');
  if (flags.baseline === undefined) return undefined;
  const baseline = readBaseline(flags.baseline);
  checkHygiene(baseline, flags, options);
  return baseline;
}

function checkHygiene(baseline: Baseline, flags: BaselineFlags, options: BaselineCheckOptions): void {
  const problems = baselineHygiene(baseline, options.today ?? todayUtc());
  if (problems.length === 0) return;
  const file = printable(flags.baseline ?? '');
  const rule = `each entry needs a reason that is not a placeholder and an expires within ${MAX_EXPIRY_DAYS} days`;
  if (flags.strictBaseline) {
    const named = problems.slice(0, MAX_NAMED).map(hygieneLine).join(' | ');
    const more = problems.length > MAX_NAMED ? ` | and ${problems.length - MAX_NAMED} more` : '';
    throw new VapcError(
      'E_BASELINE',
      `baseline ${file}: ${problems.length} entr${problems.length === 1 ? 'y breaks' : 'ies break'} the rules (--strict-baseline: ${rule}): ${named}${more}`,
    );
  }
  options.warn?.(
    `vapc: warning: baseline ${file}: ${problems.length} entr${problems.length === 1 ? 'y' : 'ies'} without a real reason or a near enough expiry (${rule}; --strict-baseline fails on this):\n`,
  );
  for (const p of problems.slice(0, 20)) options.warn?.(`  - ${hygieneLine(p)}\n`);
  if (problems.length > 20) options.warn?.(`  - and ${problems.length - 20} more\n`);
}

/** A baseline file is at most this large (a thousand entries take about 200 KB). */
export const MAX_BASELINE_BYTES = 4 * 1024 * 1024;

/** Reads --baseline FILE through the one reader of checkout files (src/files/checkout.ts). */
function readBaseline(file: string): Baseline {
  const shown = shownName(file);
  const text = readCheckoutFile(file, {
    label: `baseline file ${shown}`,
    maxBytes: MAX_BASELINE_BYTES,
    capOf: 'a baseline',
    code: 'E_BASELINE',
    missing: `no such file (write one with --write-baseline ${shown})`,
  });
  return parseBaseline(text, shown);
}

/**
 * The console reporter's events during the run with the baseline's word on each live line: a
 * failure the baseline knows says so as it is printed. The report itself is marked after the run
 * (`baselinedReport`), and the CLI hands that to `onEnd`.
 */
export function markKnownLive(events: RunEvents, baseline: Baseline, today: string): RunEvents {
  const index = new Map(baseline.findings.map((e) => [signatureOf(e), e]));
  return {
    ...events,
    onCheckDone(result) {
      const known = result.status === 'failed' && markResult(result, index, today).known;
      events.onCheckDone?.(known ? { ...result, message: `known finding (baseline): ${result.message}` } : result);
    },
  };
}

/**
 * The second step of the pipeline (runConformance → baselinedReport → writeReports): a new report
 * with each failure marked known, expired or new and the baseline's counts, the entries
 * --prune-baseline drops counted in. The run's report is left as it is.
 */
export function baselinedReport(
  report: RunReport,
  baseline: Baseline,
  options: { file: string; today: string; prune: boolean },
): RunReport {
  const applied = applyBaseline(report, baseline, { file: options.file, today: options.today });
  if (!options.prune || !applied.baseline) return applied;
  return { ...applied, baseline: { ...applied.baseline, pruned: prunedEntries(baseline, applied).dropped.length } };
}

/**
 * Writes --write-baseline FILE (this run's findings, reasons kept from --baseline) or, with
 * --prune-baseline alone, rewrites the --baseline file without the prunable entries. Returns the
 * lines to print. A write that fails is E_BASELINE.
 */
export async function saveBaseline(
  flags: BaselineFlags,
  report: RunReport,
  previous: Baseline | undefined,
): Promise<string[]> {
  const lines: string[] = [];
  try {
    if (flags.writeBaseline !== undefined) {
      const entries = entriesToWrite(report, previous, flags.pruneBaseline === true);
      await writeAtomic(flags.writeBaseline, serializeBaseline(entries));
      const todo = entries.filter((e) => e.reason === TODO_REASON).length;
      const causes = new Set(entries.map((e) => e.cause).filter((c) => c !== undefined)).size;
      const notes = [
        ...(todo > 0 ? [`${todo} with a TODO reason to fill in`] : []),
        ...(causes > 0 ? [`${causes} cause${causes === 1 ? '' : 's'}`] : []),
      ];
      lines.push(
        `baseline: wrote ${entries.length} finding${entries.length === 1 ? '' : 's'} to ${flags.writeBaseline}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`,
      );
      if (previous && flags.pruneBaseline) {
        const dropped = prunedEntries(previous, report).dropped;
        lines.push(
          `baseline: pruned ${dropped.length} entr${dropped.length === 1 ? 'y' : 'ies'} whose check and operation ran and passed`,
        );
      }
    } else if (flags.pruneBaseline && previous && flags.baseline !== undefined) {
      const { kept, dropped } = prunedEntries(previous, report);
      if (dropped.length > 0) await writeAtomic(flags.baseline, serializeBaseline(kept));
      lines.push(
        `baseline: pruned ${dropped.length} entr${dropped.length === 1 ? 'y' : 'ies'} whose check and operation ran and passed; ${kept.length} kept in ${flags.baseline}`,
      );
      for (const e of dropped) lines.push(`  - ${e.check}  ${e.operation}  ${e.kind}`);
    }
  } catch (e) {
    if (e instanceof VapcError) throw e;
    const file = flags.writeBaseline ?? flags.baseline;
    throw new VapcError(
      'E_BASELINE',
      `cannot write baseline file ${file}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  return lines;
}
