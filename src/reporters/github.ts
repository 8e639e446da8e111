import type { CheckResult, RunReport } from '../results/model.js';
import { countsBySuite, failuresOf, formatDuration, replayCommand, reproOf, ruleWithRef } from './text.js';

/**
 * GitHub Actions output: `::error` workflow commands (one per failure, shown as annotations on
 * the run) and a Markdown job summary for $GITHUB_STEP_SUMMARY.
 */

/** Escapes the message part of a workflow command (GitHub's rules: %, CR, LF). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a property value of a workflow command (data rules plus ':' and ','). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function annotationText(result: CheckResult): string {
  const lines = [result.message, `rule: ${ruleWithRef(result)}`];
  const f = failuresOf(result)[0];
  if (f) {
    lines.push(`expected: ${f.expected}`, `actual: ${f.actual}`);
    const repro = reproOf(f, result);
    if (repro) lines.push(`repro: ${repro}`);
  }
  const more = failuresOf(result).length - 1;
  if (more > 0) lines.push(`(+${more} more failure${more === 1 ? '' : 's'} in report.html)`);
  return lines.join('\n');
}

/** One `::error` line per failed result and one `::warning` per tool error, each ending in a newline. */
export function githubAnnotations(report: RunReport): string {
  let out = '';
  for (const r of report.results) {
    if (r.status === 'failed') {
      out += `::error title=${escapeProperty(`${r.id} ${r.operation}`)}::${escapeData(annotationText(r))}\n`;
    } else if (r.status === 'error') {
      out += `::warning title=${escapeProperty(`vapc could not check ${r.id} ${r.operation}`)}::${escapeData(r.message)}\n`;
    }
  }
  return out;
}

/**
 * Escapes text for a Markdown table cell or list item: no HTML, no pipes, one line, and every
 * Markdown punctuation character backslash-escaped, so a server's text renders as the text it is
 * (no link, image, emphasis or heading of its making).
 */
export function mdCell(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_{}[\]()#+!|~]/g, '\\$&')
    .replace(/\r?\n/g, ' ');
}

/** Text inside a code span (nothing renders there): no backtick to close it, one line, no table pipe. */
function mdCode(s: string): string {
  return s.replace(/`/g, "'").replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
}

/** A code fence longer than any backtick run inside `s`, so content cannot close it. */
function fence(s: string, lang = ''): string {
  const longest = Math.max(2, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${s}\n${f}`;
}

export function githubStepSummary(report: RunReport): string {
  const s = report.summary;
  const failed = report.results.filter((r) => r.status === 'failed');
  const errors = report.results.filter((r) => r.status === 'error');
  const verdict = failed.length > 0 ? `❌ ${failed.length} check${failed.length === 1 ? '' : 's'} failed` : '✅ no check failed';
  const lines: string[] = [
    `## vapc conformance: ${verdict}`,
    '',
    `Target \`${mdCode(report.target)}\` · seed \`${report.seed}\` · spec ${mdCell(report.spec_version)} · ${s.requests} requests · ${formatDuration(s.duration_ms)}`,
    '',
    '| suite | passed | failed | skipped | error |',
    '|---|---:|---:|---:|---:|',
    ...countsBySuite(report).map((c) => `| ${c.suite} | ${c.passed} | ${c.failed} | ${c.skipped} | ${c.error} |`),
    `| **total** | **${s.passed}** | **${s.failed}** | **${s.skipped}** | **${s.errors ?? 0}** |`,
  ];
  if (failed.length > 0) {
    lines.push('', '### Failures', '', '| check | operation | rule | expected | actual |', '|---|---|---|---|---|');
    for (const r of failed) {
      const f = failuresOf(r)[0]!;
      lines.push(`| \`${mdCode(r.id)}\` | ${mdCell(r.operation)} | ${mdCell(ruleWithRef(r))} | ${mdCell(f.expected)} | ${mdCell(f.actual)} |`);
    }
    lines.push('', '<details><summary>Repro lines</summary>', '');
    for (const r of failed) {
      const repro = reproOf(failuresOf(r)[0]!, r);
      if (repro) lines.push(`\`${mdCode(r.id)}\``, '', fence(repro, 'sh'), '');
    }
    lines.push('</details>', '', 'Replay the whole run (same seed, same requests):', '', fence(replayCommand(report), 'sh'));
  }
  if (errors.length > 0) {
    lines.push('', '### Could not check (tool errors)', '');
    for (const r of errors) lines.push(`- \`${mdCode(r.id)}\` ${mdCell(r.operation)}: ${mdCell(r.message)}`);
  }
  if (report.observations && report.observations.length > 0) {
    lines.push('', `### Observations (${report.observations.length}, never failures)`, '');
    for (const o of report.observations) lines.push(`- \`${mdCode(o.id)}\`${o.operation ? ` ${mdCell(o.operation)}` : ''}: ${mdCell(o.message)}`);
  }
  lines.push('', 'Full details: `report.html`, `junit.xml`, `report.json` in the report directory.', '');
  return lines.join('\n');
}
