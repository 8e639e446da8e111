/**
 * A run that stops before judging (a usage or setup error, an unreachable target, a deadline during
 * discovery) must not leave the previous run's verdict in the report directory: report.html would
 * still show the old green page. It replaces report.json with `run: {status: "aborted", reason}`,
 * report.html with a page that says the run judged nothing, junit.xml with one errored test case,
 * and removes report.sarif (an empty SARIF run would tell code scanning every alert was fixed).
 */
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { esc } from '../reporters/html.js';
import { xmlAttr } from '../reporters/junit.js';
import { REPORT_FILES } from '../reporters/index.js';
import type { RunReport } from '../results/model.js';
import { packageVersion } from '../paths.js';
import { directoryRefusal } from '../files/checkout.js';

export interface AbortedRun {
  /** One sentence, already scrubbed of secrets and made printable. */
  reason: string;
  /** The error's code (E_UNREACHABLE, E_CREDENTIALS_REFUSED, ...). */
  code: string;
  target?: string;
  seed?: number;
  startedAt: string;
}

/** The report.json of a run that judged nothing. */
export function abortedReport(run: AbortedRun): RunReport & { error_code: string } {
  return {
    tool: { name: 'voice-agent-contract', version: packageVersion() },
    spec_version: '',
    target: run.target ?? '',
    seed: run.seed ?? 0,
    started_at: run.startedAt,
    summary: { passed: 0, failed: 0, skipped: 0, errors: 0, requests: 0, duration_ms: 0, observations: 0 },
    results: [],
    observations: [],
    config: {},
    run: { status: 'aborted', reason: run.reason },
    error_code: run.code,
  };
}

function abortedHtml(run: AbortedRun): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>vapc: run aborted</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}.aborted{border-left:6px solid #b00020;padding:.5rem 1rem;background:#fdecee}</style></head>
<body><h1>vapc run: aborted, nothing judged</h1>
<div class="aborted"><p><strong>The run stopped before any check was judged</strong> (${esc(run.code)}): ${esc(run.reason)}</p>
<p>No verdict of an earlier run is shown here. Fix the cause above and run again.</p></div>
<p>Target: ${esc(run.target ?? '(none)')} · started ${esc(run.startedAt)}</p>
</body></html>
`;
}

function abortedJunit(run: AbortedRun): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="vapc" tests="1" failures="0" errors="1">
  <testsuite name="vapc run" tests="1" failures="0" errors="1" skipped="0">
    <testcase classname="vapc" name="run"><error type="${xmlAttr(run.code)}" message="${xmlAttr(run.reason)}"/></testcase>
  </testsuite>
</testsuites>
`;
}

/**
 * Marks `dir` as holding an aborted run. Only a directory that already exists is touched (a run
 * that never got so far as to make it has nothing stale to replace), and none that leads out of its
 * confinement (src/files/checkout.ts); failures are ignored, since
 * the run is already failing with its own message.
 */
export async function markAborted(dir: string, run: AbortedRun): Promise<boolean> {
  // A directory that leads out of the checkout (a committed symlink) is never written into.
  if (directoryRefusal(dir) !== undefined) return false;
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) return false;
  try {
    await writeFile(join(dir, REPORT_FILES.json), `${JSON.stringify(abortedReport(run), null, 2)}\n`);
    await writeFile(join(dir, REPORT_FILES.html), abortedHtml(run));
    await writeFile(join(dir, REPORT_FILES.junit), abortedJunit(run));
    await rm(join(dir, REPORT_FILES.sarif), { force: true });
    return true;
  } catch {
    return false;
  }
}
