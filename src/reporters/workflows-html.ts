/**
 * The workflows section of report.html (`vapc run --arazzo`): per file and workflow, the runs, the
 * steps run and judged, the success criteria evaluated, held and failed, and the onSuccess/onFailure
 * actions taken by name. Present only when the report has `workflows`. Every value goes through the
 * page's own escaper, passed in.
 */
import { workflowsLine, type WorkflowCoverage, type WorkflowTally } from '../results/workflows.js';

type Escape = (value: unknown) => string;

const actions = (esc: Escape, w: WorkflowTally): string =>
  w.actions.length === 0
    ? '<span class="zero">none</span>'
    : w.actions
        .map((a) => `<code>${esc(a.step)}</code> on ${esc(a.on)}: ${esc(a.name)} (${esc(a.type)}) ×${a.taken}`)
        .join('<br>');

function row(esc: Escape, file: string, w: WorkflowTally): string {
  const failed = w.criteria_failed > 0 ? ' class="num-failed"' : '';
  return `<tr data-check="${esc(w.check)}"><td>${esc(file)}</td><td>${esc(w.id)}</td><td>${w.runs}</td><td>${w.steps_run}/${w.steps}</td><td>${w.steps_judged}</td><td>${w.criteria_evaluated}</td><td>${w.criteria_held}</td><td${failed}>${w.criteria_failed}</td><td>${actions(esc, w)}</td></tr>`;
}

export function workflowsHtml(workflows: WorkflowCoverage | undefined, esc: Escape): string {
  if (!workflows) return '';
  const rows = workflows.files.flatMap((f) => f.workflows.map((w) => row(esc, f.file, w)));
  return `<section id="workflows">
<h2>Workflows (Arazzo)</h2>
<p id="workflows-line">${esc(workflowsLine(workflows))}</p>
<table class="suites" id="workflows-table"><thead><tr><th>file</th><th>workflow</th><th>runs</th><th>steps run/declared</th><th>steps judged</th><th>criteria evaluated</th><th>held</th><th>failed</th><th>actions taken</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
</section>
`;
}
