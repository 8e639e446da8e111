import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunReport } from '../results/model.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { redactReport, redactText } from './redact.js';

export { createConsoleReporter, renderSummary, colorEnabled, isCi, pacingText } from './console.js';
export type { ConsoleReporter, ConsoleReporterOptions, ConsoleMode } from './console.js';
export { githubAnnotations, githubStepSummary, escapeData, escapeProperty } from './github.js';
export { renderHtml } from './html.js';
export { renderJson } from './json.js';
export { renderJunit } from './junit.js';
export { redactText, redactValue, redactReport, harvestSecrets, REDACTED } from './redact.js';

export type ReportFormat = 'json' | 'junit' | 'html';
export const REPORT_FILES: Record<ReportFormat, string> = { json: 'report.json', junit: 'junit.xml', html: 'report.html' };

export interface WriteReportsOptions {
  /** Which files to write (default all three); `vapc report` re-renders junit/html only. */
  formats?: readonly ReportFormat[];
  /** Literal secret values (API key, user id) scrubbed from every file as a second line of defence. */
  secrets?: readonly string[];
}

export interface WriterError {
  format: ReportFormat;
  file: string;
  message: string;
}

export interface WrittenReports {
  json: string;
  junit: string;
  html: string;
  /** Writers that failed; the others were still written. Empty when all went well. */
  errors: WriterError[];
}

const RENDERERS: Record<ReportFormat, (r: RunReport) => string> = { json: renderJson, junit: renderJunit, html: renderHtml };

/** Writes via a temporary file and a rename, so a reader never sees half a report. */
async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, text, 'utf8');
  await rename(tmp, file);
}

/**
 * Writes report.json first, then junit.xml and report.html, into `dir` (created if missing).
 * The report is redacted as data and every rendered file again as text before it is written.
 * A failing writer (a renderer bug, a full disk) never stops the others: its error is returned in
 * `errors`, and report.json, written first, survives. Returns the absolute paths.
 */
export async function writeReports(report: RunReport, dir: string, options: WriteReportsOptions = {}): Promise<WrittenReports> {
  const root = resolve(dir);
  const formats = options.formats ?? (['json', 'junit', 'html'] as const);
  const out: WrittenReports = {
    json: join(root, REPORT_FILES.json),
    junit: join(root, REPORT_FILES.junit),
    html: join(root, REPORT_FILES.html),
    errors: [],
  };
  await mkdir(root, { recursive: true });
  const { report: safe, secrets } = redactReport(report, options.secrets ?? []);
  for (const format of (['json', 'junit', 'html'] as const).filter((f) => formats.includes(f))) {
    const file = out[format];
    try {
      await writeAtomic(file, redactText(RENDERERS[format](safe), secrets));
    } catch (e) {
      out.errors.push({ format, file, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
