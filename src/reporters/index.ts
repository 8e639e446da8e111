import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunReport } from '../results/model.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderJunit } from './junit.js';
import { Secrets, type SecretsOptions } from '../secrets/index.js';
import { isSafeReport, sanitizeReport, type SafeReport } from '../secrets/report.js';
import { renderSarif, type SarifOptions } from './sarif.js';
import { specLocator } from '../spec/source.js';
import { writeAtomic } from '../files/write.js';

export { createConsoleReporter, renderSummary, colorEnabled, isCi, pacingText } from './console.js';
export { createGitHubSink, type GitHubSinkOptions } from './github-sink.js';
export type { ConsoleReporter, ConsoleReporterOptions, ConsoleMode } from './console.js';
export { githubAnnotations, githubStepSummary, escapeData, escapeProperty } from './github.js';
export { renderHtml } from './html.js';
export { renderJson } from './json.js';
export { renderJunit } from './junit.js';
export { REDACTED, Secrets } from '../secrets/index.js';
export { isSafeReport, sanitizeReport, type SafeReport } from '../secrets/report.js';
export { buildSarif, renderSarif, failureField, SARIF_SCHEMA_URI } from './sarif.js';
export type { SarifOptions, SarifLocator, SarifPosition, SarifRuleSource, FailureField } from './sarif.js';

export type ReportFormat = 'json' | 'junit' | 'html' | 'sarif';
export const REPORT_FILES: Record<ReportFormat, string> = {
  json: 'report.json',
  junit: 'junit.xml',
  html: 'report.html',
  sarif: 'report.sarif',
};
const ALL_FORMATS = ['json', 'junit', 'html', 'sarif'] as const;

export interface WriteReportsOptions {
  /** Which files to write (default all four); `vapc report` re-renders junit/html/sarif only. */
  formats?: readonly ReportFormat[];
  /**
   * The secrets (or the credentials to redact) a report that is not a `SafeReport` is sanitised with.
   * Given, each file's text is also cleared of them (a report from disk may hold a learned secret
   * in a field sanitizeReport keeps as vapc's own, an id), sanitised here or not.
   */
  secrets?: Secrets | SecretsOptions;
  /** report.sarif: the checks as rules (default: those in the report) and the spec locator (default: spec/). */
  sarif?: SarifOptions;
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
  sarif: string;
  /** Writers that failed; the others were still written. Empty when all went well. */
  errors: WriterError[];
}

const RENDERERS: Record<ReportFormat, (r: RunReport, o: WriteReportsOptions) => string> = {
  json: renderJson,
  junit: renderJunit,
  html: renderHtml,
  sarif: (r, o) => renderSarif(r, { locator: specLocator(), ...o.sarif }),
};

/**
 * Writes report.json first, then junit.xml, report.html and report.sarif, into `dir` (created if missing).
 * A report that is not a `SafeReport` (what `sanitizeReport` returned: a run's, read from disk, built by
 * hand) is made safe as data first (evidence redacted, escaped, capped; verdicts untouched): no
 * caller can declare a report safe but `sanitizeReport`.
 * A failing writer (a renderer bug, a full disk) never stops the others: its error is returned in
 * `errors`, and report.json, written first, survives. Returns the absolute paths.
 */
export async function writeReports(
  report: RunReport | SafeReport,
  dir: string,
  options: WriteReportsOptions = {},
): Promise<WrittenReports> {
  const root = resolve(dir);
  const formats = options.formats ?? ALL_FORMATS;
  const out: WrittenReports = {
    json: join(root, REPORT_FILES.json),
    junit: join(root, REPORT_FILES.junit),
    html: join(root, REPORT_FILES.html),
    sarif: join(root, REPORT_FILES.sarif),
    errors: [],
  };
  await mkdir(root, { recursive: true });
  const given = options.secrets ?? (isSafeReport(report) ? undefined : {});
  const secrets = given === undefined ? undefined : given instanceof Secrets ? given : new Secrets(given);
  const safe = isSafeReport(report) ? report : sanitizeReport(report, secrets);
  for (const format of ALL_FORMATS.filter((f) => formats.includes(f))) {
    const file = out[format];
    try {
      // A report from disk may hold a secret in a field sanitizeReport keeps as vapc's own (an id):
      // its files are scrubbed as text too. A run's report was made safe field by field at the source.
      // Redacted after rendering: a renderer that pretty-prints a body (junit.xml, report.html)
      // decodes what the recorded text held escaped (`\u0073k-...`), so the file is scrubbed as written.
      const text = RENDERERS[format](safe, options);
      await writeAtomic(file, secrets ? secrets.scrub(text) : text);
    } catch (e) {
      out.errors.push({ format, file, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
