import { inconclusiveHeadline } from '../results/verdict.js';
import type { CheckResult, RunReport } from '../results/model.js';
import { mdCell, mdCode, mdFence as fence } from '../results/printable.js';
import { causeLabel, causesGroup, groupCauses, sharedCauseNotes } from '../results/causes.js';
import { countsBySuite, failuresOf, formatDuration, replayCommand, reproOf, ruleWithRef } from './text.js';
import { coverageMarkdown } from './coverage-markdown.js';

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

/**
 * GitHub shows at most 10 error and 10 warning annotations per step; the rest are dropped. So
 * only the first 10 are emitted, and the step summary lists every failure with "and N more".
 */
export const MAX_ANNOTATIONS_PER_KIND = 10;

/** Failed results that fail the run: all of them, or with --baseline the new (and expired) ones. */
export const newFailures = (report: RunReport): CheckResult[] =>
  report.results.filter((r) => r.status === 'failed' && r.baseline?.known !== true);

/**
 * One `::error` line per failed result (new ones only, with --baseline) and one `::warning` per
 * tool error, each ending in a newline, at most MAX_ANNOTATIONS_PER_KIND of each.
 */
export function githubAnnotations(report: RunReport): string {
  let out = '';
  for (const r of newFailures(report).slice(0, MAX_ANNOTATIONS_PER_KIND)) {
    out += `::error title=${escapeProperty(`${r.id} ${r.operation}`)}::${escapeData(annotationText(r))}\n`;
  }
  for (const r of report.results.filter((x) => x.status === 'error').slice(0, MAX_ANNOTATIONS_PER_KIND)) {
    out += `::warning title=${escapeProperty(`vapc could not check ${r.id} ${r.operation}`)}::${escapeData(r.message)}\n`;
  }
  // An inconclusive run is not a pass: one annotation says why (an error unless allowed).
  if (report.verdict === 'inconclusive' && report.evidence) {
    const level = report.evidence.allow_inconclusive ? 'warning' : 'error';
    out += `::${level} title=${escapeProperty('vapc run inconclusive')}::${escapeData(`nothing failed, but the run judged too little to pass: ${inconclusiveHeadline(report.evidence)}`)}\n`;
  }
  return out;
}

/** The shared Markdown escapers live in src/results/printable.ts; mdCell is re-exported for the diff layer. */
export { mdCell };

/** The reasons of an inconclusive run and what the server kept from being judged, as Markdown. */
function evidenceMarkdown(report: RunReport): string[] {
  const e = report.evidence;
  if (!e) return [];
  const out: string[] = [];
  if (e.reasons.length) out.push('', '### Inconclusive: why', '', ...e.reasons.map((r) => `- ${mdCell(r.message)}`));
  const groups = e.not_judged.filter((g) => g.counted);
  if (groups.length)
    out.push('', "### Not judged because of the server's answers", '', ...groups.map((g) => `- ${mdCell(g.message)}`));
  return out;
}

export function githubStepSummary(report: RunReport): string {
  const s = report.summary;
  const failed = newFailures(report);
  const errors = report.results.filter((r) => r.status === 'error');
  const known = report.baseline ? ` (${report.baseline.known} known, in the baseline)` : '';
  const verdict =
    (failed.length > 0
      ? `❌ ${failed.length} ${report.baseline ? 'new ' : ''}check${failed.length === 1 ? '' : 's'} failed`
      : report.verdict === 'inconclusive'
        ? `⚠️ inconclusive: nothing failed, but the run judged too little to pass${report.evidence?.allow_inconclusive ? ' (allowed by --allow-inconclusive)' : ''}`
        : '✅ no check failed') + known;
  const lines: string[] = [
    `## vapc conformance: ${verdict}`,
    '',
    `Target \`${mdCode(report.target)}\` · seed \`${report.seed}\` · spec ${mdCell(report.spec_version)} · ${s.requests} requests · ${formatDuration(s.duration_ms)}`,
    '',
    '| suite | passed | failed | skipped | error |',
    '|---|---:|---:|---:|---:|',
    ...countsBySuite(report).map(
      (c) => `| ${mdCell(c.suite)} | ${c.passed} | ${c.failed} | ${c.skipped} | ${c.error} |`,
    ),
    `| **total** | **${s.passed}** | **${s.failed}** | **${s.skipped}** | **${s.errors ?? 0}** |`,
  ];
  lines.push(...causeMarkdown(failed), ...evidenceMarkdown(report));
  if (failed.length > 0) {
    lines.push('', report.baseline ? '### New failures' : '### Failures', '');
    const hidden = failed.length - MAX_ANNOTATIONS_PER_KIND;
    if (hidden > 0)
      lines.push(
        `Annotations show the first ${MAX_ANNOTATIONS_PER_KIND} failures (GitHub's limit per step), and ${hidden} more are listed here.`,
        '',
      );
    lines.push('| check | operation | rule | expected | actual |', '|---|---|---|---|---|');
    for (const r of failed) {
      const f = failuresOf(r)[0]!;
      lines.push(
        `| \`${mdCode(r.id)}\` | ${mdCell(r.operation)} | ${mdCell(ruleWithRef(r))} | ${mdCell(f.expected)} | ${mdCell(f.actual)} |`,
      );
    }
    lines.push('', '<details><summary>Repro lines</summary>', '');
    for (const r of failed) {
      const repro = reproOf(failuresOf(r)[0]!, r);
      if (repro) lines.push(`\`${mdCode(r.id)}\``, '', fence(repro, 'sh'), '');
    }
    lines.push(
      '</details>',
      '',
      'Replay the whole run (same seed, same requests):',
      '',
      fence(replayCommand(report), 'sh'),
    );
  }
  lines.push(...baselineSummaryLines(report));
  if (errors.length > 0) {
    lines.push('', '### Could not check (tool errors)', '');
    for (const r of errors) lines.push(`- \`${mdCode(r.id)}\` ${mdCell(r.operation)}: ${mdCell(r.message)}`);
  }
  if (report.observations && report.observations.length > 0) {
    lines.push('', `### Observations (${report.observations.length}, never failures)`, '');
    for (const o of report.observations)
      lines.push(`- \`${mdCode(o.id)}\`${o.operation ? ` ${mdCell(o.operation)}` : ''}: ${mdCell(o.message)}`);
  }
  lines.push(...coverageMarkdown(report.coverage, mdCell));
  lines.push('', 'Full details: `report.html`, `junit.xml`, `report.json` in the report directory.', '');
  return lines.join('\n');
}

/** At most `max` items as Markdown, then how many more. */
function mdSome(items: readonly string[], max = 6): string {
  const shown = items.slice(0, max).map((i) => mdCell(i));
  return items.length > max ? `${shown.join(', ')} (+${items.length - max} more)` : shown.join(', ');
}

/**
 * The failures grouped by cause (src/results/causes.ts): a note per suite whose failures all share
 * a cause with other suites, then one row per cause. Nothing when no cause touches two failed results.
 */
export function causeMarkdown(failed: readonly CheckResult[]): string[] {
  const causes = groupCauses(failed);
  if (!causesGroup(causes)) return [];
  const total = causes.reduce((n, c) => n + c.failures, 0);
  const lines: string[] = [];
  const notes = sharedCauseNotes(failed, causes);
  if (notes.length > 0) lines.push('');
  for (const n of notes) {
    const others = n.cause.suites.filter((x) => x !== n.suite);
    lines.push(
      `- ${mdCell(n.suite)}: ${n.failed} failed, all from 1 cause shared with ${mdSome(others)}: ${mdCell(causeLabel(n.cause))}`,
    );
  }
  lines.push(
    '',
    `### Causes (${causes.length}) of ${total} failure${total === 1 ? '' : 's'} in ${failed.length} checks`,
    '',
  );
  lines.push('| cause | failures | suites | checks | operations |', '|---|---:|---|---|---|');
  for (const c of causes) {
    lines.push(
      `| ${mdCell(causeLabel(c))} | ${c.failures} | ${mdSome(c.suites)} | ${mdSome(c.checks)} | ${mdSome(c.operations)} |`,
    );
  }
  return lines;
}

/** Known findings and baseline entries not observed (nothing without --baseline). */
function baselineSummaryLines(report: RunReport): string[] {
  const b = report.baseline;
  if (!b) return [];
  const lines: string[] = [];
  const known = report.results.filter((r) => r.status === 'failed' && r.baseline?.known === true);
  if (known.length > 0) {
    lines.push(
      '',
      `### Known findings (${known.length}, baseline \`${mdCode(b.file)}\`)`,
      '',
      '| check | operation | reason | expires |',
      '|---|---|---|---|',
    );
    for (const r of known)
      lines.push(
        `| \`${mdCode(r.id)}\` | ${mdCell(r.operation)} | ${mdCell(r.baseline?.reason ?? '')} | ${mdCell(r.baseline?.expires ?? '')} |`,
      );
  }
  if (b.not_observed.length > 0) {
    lines.push('', `### Not observed this run (${b.not_observed.length}; not seen is not fixed)`, '');
    for (const e of b.not_observed)
      lines.push(`- \`${mdCode(e.check)}\` ${mdCell(e.operation)} ${mdCell(e.kind)} (this run: ${mdCell(e.this_run)})`);
  }
  return lines;
}
