import { escapeData, escapeProperty } from '../reporters/github.js';
import { mdCell, printable } from '../results/printable.js';
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

/**
 * Text from a spec (names, paths, values quoted in messages) is untrusted: in text and
 * annotations its control characters become visible escapes (`printable`), and in Markdown it
 * also goes through the project's one Markdown escaper (`mdCell` of src/results/printable.ts), so
 * no link, image, HTML or emphasis of the spec's making renders in a step summary.
 */
const md = (s: string): string => mdCell(printable(s));
const plain = (s: string): string => printable(s);

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

/** One change (same rule, same words) that a shared definition made in several operations. */
export interface SpreadChange {
  change: Change;
  operations: string[];
}

/** A change said in at least this many operations is printed once, with the operations listed. */
export const SPREAD_MIN_OPERATIONS = 3;

/**
 * Splits the changes into those a shared definition made in several operations (a component
 * header, a response used everywhere: the same rule and words in 3 or more operations), each
 * printed once with its operations, and the rest, printed per operation. Counts are not touched.
 */
export function spreadChanges(changes: readonly Change[]): { spread: SpreadChange[]; rest: Change[] } {
  const groups = new Map<string, Change[]>();
  for (const c of changes) {
    if (!c.operation) continue;
    const key = `${c.id}\0${c.message}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const spread: SpreadChange[] = [];
  const inSpread = new Set<Change>();
  for (const group of groups.values()) {
    const operations = [...new Set(group.map((c) => c.operation))].sort();
    if (operations.length < SPREAD_MIN_OPERATIONS) continue;
    spread.push({ change: group[0]!, operations });
    for (const c of group) inSpread.add(c);
  }
  spread.sort(
    (a, b) =>
      LEVEL_RANK[a.change.level] - LEVEL_RANK[b.change.level] || a.change.message.localeCompare(b.change.message),
  );
  return { spread, rest: changes.filter((c) => !inSpread.has(c)) };
}

const SPREAD_HEADING = 'The same change in several operations (a shared definition changed)';

export function summaryLine(summary: DiffSummary, bump: Bump | 'none'): string {
  const needs = bump === 'none' ? 'no version bump needed' : `needs a ${bump} version bump`;
  return `${summary.breaking} breaking, ${summary.warning} warning, ${summary.info} info; ${needs}`;
}

export function renderText(report: DiffReport, bump: Bump | 'none'): string {
  const lines = [`vapc diff ${plain(report.base)} -> ${plain(report.head)}`];
  if (report.changes.length === 0) lines.push('  no changes');
  const { spread, rest } = spreadChanges(report.changes);
  if (spread.length > 0) lines.push('', SPREAD_HEADING);
  for (const { change: c, operations } of spread) {
    lines.push(
      `  ${c.level.padEnd(8)} ${c.id}: ${plain(c.message)}${breaksText(c)}`,
      `           in ${operations.length} operations: ${plain(operations.join(', '))}`,
    );
  }
  for (const [operation, changes] of byOperation(rest)) {
    lines.push('', plain(operation));
    for (const c of changes) lines.push(`  ${c.level.padEnd(8)} ${c.id}: ${plain(c.message)}${breaksText(c)}`);
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
  const out = [
    `### ${icon} API contract changes: ${md(report.base)} → ${md(report.head)}`,
    '',
    summaryLine(report.summary, bump),
    '',
  ];
  if (report.changes.length === 0) out.push('No changes.', '');
  const { spread, rest } = spreadChanges(report.changes);
  if (spread.length > 0)
    out.push(`#### ${SPREAD_HEADING}`, '', '| level | rule | change | operations | breaks |', '|---|---|---|---|---|');
  for (const { change: c, operations } of spread) {
    out.push(
      `| ${c.level} | \`${c.id}\` | ${md(c.message)} | ${operations.length}: ${md(operations.join(', '))} | ${c.breaks.join(', ') || '–'} |`,
    );
  }
  if (spread.length > 0) out.push('');
  for (const [operation, changes] of byOperation(rest)) {
    out.push(`#### ${md(operation)}`, '', '| level | rule | change | breaks |', '|---|---|---|---|');
    for (const c of changes)
      out.push(`| ${c.level} | \`${c.id}\` | ${md(c.message)} | ${c.breaks.join(', ') || '–'} |`);
    out.push('');
  }
  return out.join('\n');
}

/** `message (operation, operation, ...)` for each distinct message of the changes. */
function byMessage(changes: readonly Change[]): string[] {
  const operations = new Map<string, Set<string>>();
  for (const c of changes)
    operations.set(c.message, (operations.get(c.message) ?? new Set<string>()).add(c.operation || DOCUMENT));
  return [...operations].map(([message, ops]) => `${message} (${[...ops].join(', ')})`);
}

/**
 * GitHub workflow commands: ::error for breaking, ::warning for warning, ::notice for info, on the
 * changed line when known. Changes of one rule on one line (a shared component used by many
 * operations) make one annotation naming them all: GitHub shows only the first ten errors of a
 * step, and one changed header must not hide the other changes.
 */
export function renderAnnotations(
  changes: readonly Change[],
  locate: (c: Change) => SourceLocation | undefined,
): string {
  const groups = new Map<string, { where: SourceLocation | undefined; changes: Change[] }>();
  changes.forEach((c, i) => {
    const where = locate(c);
    const key = where ? `${where.file}\0${where.line}\0${c.id}` : `#${i}`;
    const group = groups.get(key) ?? { where, changes: [] };
    group.changes.push(c);
    groups.set(key, group);
  });
  let out = '';
  for (const { where, changes: group } of groups.values()) {
    const c = group[0]!;
    const command = c.level === 'breaking' ? 'error' : c.level === 'warning' ? 'warning' : 'notice';
    const operations = [...new Set(group.map((x) => x.operation))];
    const title = group.length === 1 ? `${c.id} ${c.operation}`.trim() : `${c.id} in ${operations.length} operations`;
    const props = [
      where ? `file=${escapeProperty(plain(where.file))},line=${where.line}` : '',
      `title=${escapeProperty(plain(title))}`,
    ]
      .filter(Boolean)
      .join(',');
    const text = group.length === 1 ? `${c.message}${breaksText(c)}` : `${byMessage(group).join('; ')}${breaksText(c)}`;
    out += `::${command} ${props}::${escapeData(plain(text))}\n`;
  }
  return out;
}
