/**
 * The coverage part of the GitHub step summary: the one-line summary, a table per dimension, and
 * the cells not judged (at most MAX_LISTED, then a count) with their spec line and reason. Every
 * value goes through the step summary's own cell escaper, passed in.
 */
import type { Coverage } from '../results/coverage.js';
import { coverageByDimension, coverageLine } from '../coverage/gate.js';

const MAX_LISTED = 50;

export function coverageMarkdown(coverage: Coverage | undefined, cell: (s: string) => string): string[] {
  if (!coverage) return [];
  const lines = [
    '',
    '### Coverage',
    '',
    cell(coverageLine(coverage)),
    '',
    '| dimension | judged | sent only | cells |',
    '|---|---:|---:|---:|',
  ];
  for (const d of coverageByDimension(coverage))
    lines.push(`| ${cell(d.dimension)} | ${d.judged} | ${d.sent} | ${d.cells} |`);
  const missing = coverage.cells.filter((c) => c.state === 'sent' || c.state === 'not-sent');
  if (missing.length > 0) {
    lines.push(
      '',
      `<details><summary>${missing.length} cell(s) not judged</summary>`,
      '',
      '| operation | dimension | cell | state | spec line | why |',
      '|---|---|---|---|---|---|',
    );
    for (const c of missing.slice(0, MAX_LISTED)) {
      const at = c.spec_line === null ? '' : `${c.spec_file ?? 'spec'}:${c.spec_line}`;
      lines.push(
        `| ${cell(c.operation)} | ${cell(c.dimension)} | ${cell(c.item)} | ${cell(c.state)} | ${cell(at)} | ${cell(c.reason ?? '')} |`,
      );
    }
    if (missing.length > MAX_LISTED)
      lines.push('', `and ${missing.length - MAX_LISTED} more in report.json and report.html`);
    lines.push('', '</details>');
  }
  return lines;
}
