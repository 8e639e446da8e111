import type { RunReport } from '../results/model.js';

/** report.json: the result model serialised as is (its top-level shape is fixed by runner-interface.md). */
export function renderJson(report: RunReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
