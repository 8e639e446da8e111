/**
 * `voice-agent-contract/reporters`: the renderers of a RunReport (JSON, JUnit, HTML, SARIF, the
 * console summary, GitHub annotations and step summary), `writeReports` that writes them all made
 * safe (secrets redacted, server text escaped), and `loadReport` that reads a report.json back.
 */
export {
  writeReports,
  renderJson,
  renderJunit,
  renderHtml,
  renderSarif,
  buildSarif,
  renderSummary,
  githubAnnotations,
  githubStepSummary,
  sanitizeReport,
  REPORT_FILES,
  type ReportFormat,
  type WriteReportsOptions,
  type WrittenReports,
  type SarifOptions,
} from '../reporters/index.js';
export { loadReport, parseReport } from '../reporters/load.js';
export type { RunReport } from '../results/model.js';
