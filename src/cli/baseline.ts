import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  applyBaseline,
  entriesToWrite,
  markResult,
  signatureOf,
  parseBaseline,
  prunedEntries,
  serializeBaseline,
  TODO_REASON,
  type Baseline,
} from '../baseline/index.js';
import { VapcError } from '../errors.js';
import type { RunEvents } from '../results/events.js';
import type { RunReport } from '../results/model.js';

/** The baseline flags of `vapc run` (names fixed in shared/runner-interface.md). */
export interface BaselineFlags {
  baseline?: string;
  writeBaseline?: string;
  pruneBaseline?: boolean;
}

/** Today in UTC, YYYY-MM-DD (entries expire at the end of their `expires` day, UTC). */
export const todayUtc = (now = new Date()): string => now.toISOString().slice(0, 10);

/** Reads and checks --baseline FILE before any request is sent; a bad file is E_BASELINE (exit 2). */
export async function loadBaselineFlags(flags: BaselineFlags): Promise<Baseline | undefined> {
  if (flags.pruneBaseline && flags.baseline === undefined) throw new VapcError('E_USAGE', '--prune-baseline needs --baseline FILE (the baseline to prune)');
  if (flags.baseline === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(flags.baseline, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : e instanceof Error ? e.message : String(e);
    throw new VapcError('E_BASELINE', `cannot read baseline file ${flags.baseline}: ${reason} (write one with --write-baseline ${flags.baseline})`);
  }
  return parseBaseline(text, flags.baseline);
}

/**
 * The console reporter's events with the baseline applied at the end, so the summary, the GitHub
 * annotations and the step summary already tell known findings from new ones. `applied` returns
 * the annotated report (or undefined before the end).
 */
export function withBaseline(events: RunEvents, baseline: Baseline, file: string, today: string): { events: RunEvents; applied: () => RunReport | undefined } {
  let applied: RunReport | undefined;
  const index = new Map(baseline.findings.map((e) => [signatureOf(e), e]));
  return {
    events: {
      ...events,
      // Live lines already say which failures are known; the report itself is marked at the end.
      onCheckDone(result) {
        const known = result.status === 'failed' && markResult(result, index, today).known;
        events.onCheckDone?.(known ? { ...result, message: `known finding (baseline): ${result.message}` } : result);
      },
      onEnd(report) {
        applied = applyBaseline(report, baseline, { file, today });
        events.onEnd?.(applied);
      },
    },
    applied: () => applied,
  };
}

async function writeAtomic(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text, 'utf8');
  await rename(tmp, file);
}

/**
 * Writes --write-baseline FILE (this run's findings, reasons kept from --baseline) or, with
 * --prune-baseline alone, rewrites the --baseline file without the prunable entries. Returns the
 * lines to print. A write that fails is E_BASELINE.
 */
export async function saveBaseline(flags: BaselineFlags, report: RunReport, previous: Baseline | undefined): Promise<string[]> {
  const lines: string[] = [];
  try {
    if (flags.writeBaseline !== undefined) {
      const entries = entriesToWrite(report, previous, flags.pruneBaseline === true);
      await writeAtomic(flags.writeBaseline, serializeBaseline(entries));
      const todo = entries.filter((e) => e.reason === TODO_REASON).length;
      lines.push(`baseline: wrote ${entries.length} finding${entries.length === 1 ? '' : 's'} to ${flags.writeBaseline}${todo > 0 ? ` (${todo} with a TODO reason to fill in)` : ''}`);
      if (previous && flags.pruneBaseline) {
        const dropped = prunedEntries(previous, report).dropped;
        lines.push(`baseline: pruned ${dropped.length} entr${dropped.length === 1 ? 'y' : 'ies'} whose check and operation ran and passed`);
      }
    } else if (flags.pruneBaseline && previous && flags.baseline !== undefined) {
      const { kept, dropped } = prunedEntries(previous, report);
      if (dropped.length > 0) await writeAtomic(flags.baseline, serializeBaseline(kept));
      lines.push(`baseline: pruned ${dropped.length} entr${dropped.length === 1 ? 'y' : 'ies'} whose check and operation ran and passed; ${kept.length} kept in ${flags.baseline}`);
      for (const e of dropped) lines.push(`  - ${e.check}  ${e.operation}  ${e.kind}`);
    }
  } catch (e) {
    if (e instanceof VapcError) throw e;
    const file = flags.writeBaseline ?? flags.baseline;
    throw new VapcError('E_BASELINE', `cannot write baseline file ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return lines;
}
