/**
 * The coverage section of report.html: a summary bar, a table per dimension, then one table per
 * operation (a row per cell: green judged-pass, red judged-fail, amber sent but not judged, grey
 * not sent) with the spec line and the reason of every cell not judged. Self-contained (inline
 * style, no script, no network). Every value goes through the page's own escaper, passed in.
 */
import type { Coverage, CoverageCell, UndocumentedStatus } from '../results/coverage.js';
import { coverageByDimension, coverageLine, unseenStatuses } from '../coverage/gate.js';

export const COVERAGE_CSS = `
#coverage h2{scroll-margin-top:64px}
#coverage .covbar{display:flex;height:14px;border-radius:7px;overflow:hidden;border:1px solid var(--line);max-width:720px;margin:6px 0 10px}
#coverage .covbar span{display:block;height:100%}
.cov-judged-pass{background:#d6f5dd}.cov-judged-fail{background:#fbd9d7}.cov-sent{background:#fdecc8}.cov-not-sent{background:#eceef2}
#coverage .covbar .cov-judged-pass{background:var(--pass)}#coverage .covbar .cov-judged-fail{background:var(--fail)}#coverage .covbar .cov-sent{background:#d4a72c}#coverage .covbar .cov-not-sent{background:#c5cad3}
table.cov{border-collapse:collapse;background:var(--card);border:1px solid var(--line);margin:4px 0 14px;min-width:520px}
table.cov th,table.cov td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
table.cov td.num{text-align:right}
#coverage details{background:var(--card);border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 10px}
#coverage details>summary{padding:4px 0}
#coverage .legend span{display:inline-block;padding:1px 8px;border-radius:4px;margin-right:6px}
`;

type Escape = (value: unknown) => string;

const LABEL: Record<CoverageCell['state'], string> = {
  'judged-pass': 'judged, passed',
  'judged-fail': 'judged, failed',
  sent: 'sent, not judged',
  'not-sent': 'not sent',
};

const specAt = (c: CoverageCell): string => (c.spec_line === null ? '' : `${c.spec_file ?? 'spec'}:${c.spec_line}`);

function cellRow(esc: Escape, c: CoverageCell): string {
  const judged = c.state === 'judged-pass' || c.state === 'judged-fail';
  return (
    `<tr class="cov-${esc(c.state)}" data-state="${esc(c.state)}" data-dimension="${esc(c.dimension)}">` +
    `<td>${esc(c.dimension)}</td><td><code>${esc(c.item)}</code></td><td>${esc(LABEL[c.state])}</td><td class="num">${esc(c.requests)}</td>` +
    `<td>${judged ? esc(c.checks.join(', ')) : esc(c.reason ?? '')}</td><td><code class="spec-line">${esc(specAt(c))}</code></td></tr>`
  );
}

/** Green: every cell judged and passed; red: a judged cell failed; amber: some judged; grey: none. */
function tone(cells: readonly CoverageCell[]): CoverageCell['state'] {
  const judged = cells.filter((c) => c.state === 'judged-pass' || c.state === 'judged-fail').length;
  if (cells.some((c) => c.state === 'judged-fail')) return 'judged-fail';
  return judged === cells.length ? 'judged-pass' : judged === 0 ? 'not-sent' : 'sent';
}

/** Why an undocumented status does not count for --fail-on-undocumented-status, when it does not (docs/coverage.md). */
function undocumentedNote(esc: Escape, u: UndocumentedStatus): string {
  if (u.left_open !== undefined) return `; left open by the contract: ${esc(u.left_open)}`;
  const unknown = u.unknown_id_requests ?? 0;
  if (unknown === 0) return '';
  return unknown === u.requests ? '; only to ids the run made up' : `; ${unknown} to ids the run made up`;
}

/** The heat map: an operation per row, a dimension per column, judged/total in each cell, coloured by tone. */
function heatMap(esc: Escape, coverage: Coverage, operations: readonly string[]): string {
  const dims = coverageByDimension(coverage).map((d) => d.dimension);
  const rows = operations.map((op) => {
    const mine = coverage.cells.filter((c) => c.operation === op);
    const tds = dims.map((d) => {
      const cells = mine.filter((c) => c.dimension === d);
      if (cells.length === 0) return '<td class="num"></td>';
      const judged = cells.filter((c) => c.state === 'judged-pass' || c.state === 'judged-fail').length;
      return `<td class="num cov-${tone(cells)}" data-dimension="${esc(d)}">${judged}/${cells.length}</td>`;
    });
    return `<tr data-operation="${esc(op)}"><td><code>${esc(op)}</code></td>${tds.join('')}</tr>`;
  });
  return `<table class="cov" id="coverage-map"><thead><tr><th>operation</th>${dims.map((d) => `<th>${esc(d)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function operationBlock(esc: Escape, operation: string, cells: readonly CoverageCell[]): string {
  const judged = cells.filter((c) => c.state === 'judged-pass' || c.state === 'judged-fail').length;
  return (
    `<details class="cov-op" data-operation="${esc(operation)}"><summary><span class="badge cov-${tone(cells)}" style="color:var(--fg)">${judged}/${cells.length}</span> <code>${esc(operation)}</code></summary>` +
    `<table class="cov"><thead><tr><th>dimension</th><th>cell</th><th>state</th><th>requests</th><th>judged by / why not</th><th>spec line</th></tr></thead><tbody>` +
    cells.map((c) => cellRow(esc, c)).join('') +
    `</tbody></table></details>`
  );
}

export function coverageHtml(coverage: Coverage | undefined, esc: Escape): string {
  if (!coverage) return '';
  const s = coverage.summary;
  const count = (state: CoverageCell['state']) => coverage.cells.filter((c) => c.state === state).length;
  const bar = (['judged-pass', 'judged-fail', 'sent', 'not-sent'] as const)
    .map((state) =>
      s.cells === 0
        ? ''
        : `<span class="cov-${state}" style="width:${((count(state) * 100) / s.cells).toFixed(2)}%" title="${esc(LABEL[state])}: ${count(state)}"></span>`,
    )
    .join('');
  const operations = [...new Set(coverage.cells.map((c) => c.operation))];
  const unseen = unseenStatuses(coverage);
  const undocumented = coverage.undocumented_statuses ?? [];
  return `<section id="coverage">
<h2>Coverage</h2>
<p id="coverage-line">${esc(coverageLine(coverage))}</p>
<div class="covbar" aria-hidden="true">${bar}</div>
<p class="legend">${(['judged-pass', 'judged-fail', 'sent', 'not-sent'] as const).map((state) => `<span class="cov-${state}">${esc(LABEL[state])}: ${count(state)}</span>`).join('')}</p>
<table class="cov" id="coverage-dimensions"><thead><tr><th>dimension</th><th>judged</th><th>sent only</th><th>cells</th></tr></thead><tbody>
${coverageByDimension(coverage)
  .map(
    (d) =>
      `<tr data-dimension="${esc(d.dimension)}"><td>${esc(d.dimension)}</td><td class="num">${d.judged}</td><td class="num">${d.sent}</td><td class="num">${d.cells}</td></tr>`,
  )
  .join('\n')}
</tbody></table>
${unseen.length > 0 ? `<p id="coverage-unseen">Documented statuses never observed: ${unseen.map((c) => `<code>${esc(c.operation)} ${esc(c.item)}</code>`).join(', ')}.</p>` : ''}
${undocumented.length > 0 ? `<p id="coverage-undocumented">Undocumented statuses observed: ${undocumented.map((u) => `<code>${esc(u.operation)} ${esc(u.status)}</code> (${esc(u.requests)}${undocumentedNote(esc, u)})`).join(', ')}.</p>` : ''}
<p>Per operation (judged/cells; green: all judged, red: a judged cell failed, amber: partly judged, grey: none); open an operation for its cells, the spec line and why each is not judged.</p>
${heatMap(esc, coverage, operations)}
${operations
  .map((op) =>
    operationBlock(
      esc,
      op,
      coverage.cells.filter((c) => c.operation === op),
    ),
  )
  .join('\n')}
</section>
`;
}
