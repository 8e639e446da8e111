import { escapeData, escapeProperty } from '../reporters/github.js';
import type { Bump } from './rules.js';
import type { Change, DiffSummary } from './types.js';
import type { SourceLocation } from './locate.js';

/** What --format json prints (runner-interface.md, additions). */
export interface DiffReport {
  base: string;
  head: string;
  changes: Change[];
  summary: DiffSummary;
}

/** A Markdown table cell: no HTML, no pipe, one line; `code` spans are kept (they come from the messages). */
const mdCell = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

const LEVEL_RANK = { breaking: 0, warning: 1, info: 2 } as const;
const DOCUMENT = '(whole document)';

/** Changes grouped by operation, groups with breaking changes first. */
function byOperation(changes: readonly Change[]): Array<[string, Change[]]> {
  const groups = new Map<string, Change[]>();
  for (const c of changes) {
    const key = c.operation || DOCUMENT;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const worst = (list: Change[]) => Math.min(...list.map((c) => LEVEL_RANK[c.level]));
  return [...groups.entries()].sort(([a, x], [b, y]) => worst(x) - worst(y) || a.localeCompare(b));
}

const breaksText = (c: Change): string => (c.breaks.length > 0 ? ` [breaks ${c.breaks.join(' and ')}]` : '');

export function summaryLine(summary: DiffSummary, bump: Bump | 'none'): string {
  const needs = bump === 'none' ? 'no version bump needed' : `needs a ${bump} version bump`;
  return `${summary.breaking} breaking, ${summary.warning} warning, ${summary.info} info; ${needs}`;
}

export function renderText(report: DiffReport, bump: Bump | 'none'): string {
  const lines = [`vapc diff ${report.base} -> ${report.head}`];
  if (report.changes.length === 0) lines.push('  no changes');
  for (const [operation, changes] of byOperation(report.changes)) {
    lines.push('', operation);
    for (const c of changes) lines.push(`  ${c.level.padEnd(8)} ${c.id}: ${c.message}${breaksText(c)}`);
  }
  lines.push('', summaryLine(report.summary, bump));
  return `${lines.join('\n')}\n`;
}

export function renderJson(report: DiffReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** Markdown for a pull-request comment or the job summary: a headline, then one table per operation. */
export function renderMarkdown(report: DiffReport, bump: Bump | 'none'): string {
  const icon = report.summary.breaking > 0 ? '❌' : report.summary.warning > 0 ? '⚠️' : '✅';
  const out = [`### ${icon} API contract changes: \`${mdCell(report.base)}\` → \`${mdCell(report.head)}\``, '', summaryLine(report.summary, bump), ''];
  if (report.changes.length === 0) out.push('No changes.', '');
  for (const [operation, changes] of byOperation(report.changes)) {
    out.push(`#### ${mdCell(operation)}`, '', '| level | rule | change | breaks |', '|---|---|---|---|');
    for (const c of changes) out.push(`| ${c.level} | \`${c.id}\` | ${mdCell(c.message)} | ${c.breaks.join(', ') || '–'} |`);
    out.push('');
  }
  return out.join('\n');
}

/** GitHub workflow commands: ::error for breaking, ::warning for warning, ::notice for info, on the changed line when known. */
export function renderAnnotations(changes: readonly Change[], locate: (c: Change) => SourceLocation | undefined): string {
  let out = '';
  for (const c of changes) {
    const command = c.level === 'breaking' ? 'error' : c.level === 'warning' ? 'warning' : 'notice';
    const where = locate(c);
    const props = [where ? `file=${escapeProperty(where.file)},line=${where.line}` : '', `title=${escapeProperty(`${c.id} ${c.operation}`.trim())}`]
      .filter(Boolean)
      .join(',');
    out += `::${command} ${props}::${escapeData(`${c.message}${breaksText(c)}`)}\n`;
  }
  return out;
}
