import { createHash } from 'node:crypto';
import type { CheckResult, Failure, RecordedRequest, RecordedResponse, RunReport, Verdict } from '../results/model.js';
import {
  compactJson,
  countsBySuite,
  failuresOf,
  formatDuration,
  prettyBody,
  rateLimitNote,
  replayCommand,
  reproOf,
  ruleWithRef,
  VERDICTS,
} from './text.js';
import { COVERAGE_CSS, coverageHtml } from './coverage-html.js';
import { workflowsHtml } from './workflows-html.js';

/**
 * report.html: one self-contained page (inline CSS and JS, no network: a Content-Security-Policy
 * allows no fetches and only the page's own script, by hash). Rendered on the server side, so it
 * reads without JavaScript; the script only filters, and copies repro lines.
 * Every value from the report is HTML-escaped here, in one function, because response bodies
 * come from the server under test.
 */

export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STATUS_RANK: Record<Verdict, number> = { failed: 0, error: 1, skipped: 2, passed: 3 };

const CSS = `
:root{--fg:#1d2330;--muted:#5b6475;--bg:#f6f7f9;--card:#fff;--line:#dde1e8;--pass:#1a7f37;--fail:#c62828;--skip:#9a6700;--err:#8250df;--code:#f0f2f5}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Ubuntu,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1240px;margin:0 auto;padding:20px 24px 48px}
h1{font-size:22px;margin:0 0 4px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
h2{font-size:16px;margin:28px 0 10px}
code,pre{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.verdict{font-size:13px;padding:3px 10px;border-radius:12px;color:#fff}
.verdict.failed{background:var(--fail)}.verdict.passed{background:var(--pass)}.verdict.error{background:var(--err)}.verdict.inconclusive{background:var(--skip)}
.banner.inconclusive{border:2px solid var(--skip);border-radius:6px;padding:8px 14px;margin:12px 0}
.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:10px 0 0;color:var(--muted)}
.meta dt{font-weight:600}.meta dd{margin:0;color:var(--fg);overflow-wrap:anywhere}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:10px;margin-top:18px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;border-top:4px solid var(--line)}
.card .n{display:block;font-size:26px;font-weight:700}
.card .l{color:var(--muted)}
.card.passed{border-top-color:var(--pass)}.card.failed{border-top-color:var(--fail)}.card.skipped{border-top-color:var(--skip)}.card.error{border-top-color:var(--err)}
table.suites{border-collapse:collapse;background:var(--card);border:1px solid var(--line);border-radius:8px;min-width:520px}
table.suites th,table.suites td{padding:6px 14px;border-bottom:1px solid var(--line);text-align:right}
table.suites th:first-child,table.suites td:first-child{text-align:left}
table.suites tr:last-child td{border-bottom:0;font-weight:700}
.num-failed{color:var(--fail);font-weight:600}.zero{color:#aab}
.rerun{display:flex;gap:8px;align-items:flex-start;margin-top:12px}
.filters{position:sticky;top:0;z-index:2;background:var(--bg);padding:10px 0;display:flex;gap:14px;align-items:center;flex-wrap:wrap;border-bottom:1px solid var(--line)}
.filters select,.filters input[type=search]{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:6px;background:#fff}
.filters label{display:inline-flex;gap:5px;align-items:center;cursor:pointer}
#shown{color:var(--muted);margin-left:auto}
.result{scroll-margin-top:64px;background:var(--card);border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;margin:6px 0}
.result.failed{border-left-color:var(--fail)}.result.passed{border-left-color:var(--pass)}.result.skipped{border-left-color:var(--skip)}.result.error{border-left-color:var(--err)}
.row{display:grid;grid-template-columns:70px minmax(220px,2fr) minmax(130px,1fr) minmax(200px,3fr) 90px;gap:10px;padding:7px 12px;align-items:baseline}
.row .id{font-weight:600;overflow-wrap:anywhere}.row .op{overflow-wrap:anywhere}.row .msg{color:var(--muted);overflow-wrap:anywhere}.row .t{text-align:right;color:var(--muted);font-size:12px}
details>summary{cursor:pointer;list-style:none}
details>summary::-webkit-details-marker{display:none}
details[open]>summary{border-bottom:1px solid var(--line)}
.badge{display:inline-block;font-size:11px;font-weight:700;text-transform:uppercase;padding:1px 6px;border-radius:4px;color:#fff}
.badge.passed{background:var(--pass)}.badge.failed{background:var(--fail)}.badge.skipped{background:var(--skip)}.badge.error{background:var(--err)}
.badge.known{background:var(--skip);margin-left:4px}.result.known{border-left-color:var(--skip)}
.more::after{content:" ▸";color:var(--muted)}details[open] .more::after{content:" ▾"}
.body{padding:10px 14px 14px}
.rule{margin:0 0 8px}
.failure{border-top:1px dashed var(--line);padding-top:10px;margin-top:10px}
.failure>.k{font-size:12px;font-weight:700;color:var(--muted);margin-bottom:4px}
.failure:first-of-type{border-top:0;margin-top:0;padding-top:0}
.ea{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.ea div{background:var(--code);border-radius:6px;padding:6px 10px;overflow-wrap:anywhere}
.ea .k{font-size:11px;font-weight:700;text-transform:uppercase;color:var(--muted);display:block}
.exchange{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin-top:8px}
.exchange h4,.kv h4{margin:6px 0 4px;font-size:12px;text-transform:uppercase;color:var(--muted)}
pre{background:var(--code);border-radius:6px;padding:8px 10px;margin:0;white-space:pre-wrap;overflow-wrap:anywhere;max-height:360px;overflow:auto}
.kv pre.input{max-height:200px}
.copyline{display:flex;gap:8px;align-items:flex-start;margin-top:8px}
.copyline pre{flex:1}
button.copy{font:inherit;font-size:12px;padding:4px 10px;border:1px solid var(--line);border-radius:6px;background:#fff;cursor:pointer;white-space:nowrap}
button.copy:hover{background:var(--code)}
.obs li{margin:4px 0}
.empty{color:var(--muted);padding:12px}
footer{margin-top:36px;color:var(--muted);font-size:12px}
@media (max-width:900px){.row{grid-template-columns:60px 1fr}.row .msg,.row .op{grid-column:2}.row .t{display:none}.ea,.exchange{grid-template-columns:1fr}}
`;

const SCRIPT = `(function(){
var suite=document.getElementById('filter-suite');
var text=document.getElementById('filter-text');
var boxes=[].slice.call(document.querySelectorAll('input[name=status]'));
var rows=[].slice.call(document.querySelectorAll('.result'));
var shown=document.getElementById('shown');
var empty=document.getElementById('no-match');
function apply(){
  var s=suite.value, q=text.value.trim().toLowerCase(), on={}, n=0;
  boxes.forEach(function(b){on[b.value]=b.checked;});
  rows.forEach(function(r){
    var ok=(!s||r.getAttribute('data-suite')===s)&&on[r.getAttribute('data-status')]&&(!q||r.getAttribute('data-search').indexOf(q)>=0);
    r.hidden=!ok; if(ok)n++;
  });
  shown.textContent='showing '+n+' of '+rows.length;
  empty.hidden=n>0;
}
suite.addEventListener('change',apply);text.addEventListener('input',apply);
boxes.forEach(function(b){b.addEventListener('change',apply);});
[].slice.call(document.querySelectorAll('[data-filter-suite]')).forEach(function(a){
  a.addEventListener('click',function(e){e.preventDefault();suite.value=a.getAttribute('data-filter-suite');apply();document.getElementById('results').scrollIntoView();});
});
[].slice.call(document.querySelectorAll('button.copy')).forEach(function(b){
  b.addEventListener('click',function(){
    var t=document.getElementById(b.getAttribute('data-target')).textContent;
    function done(){var o=b.textContent;b.textContent='Copied';setTimeout(function(){b.textContent=o;},1200);}
    function fallback(){var a=document.createElement('textarea');a.value=t;document.body.appendChild(a);a.select();try{document.execCommand('copy');}catch(e){}document.body.removeChild(a);done();}
    if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(t).then(done,fallback);}else{fallback();}
  });
});
apply();
})();`;

const SCRIPT_HASH = createHash('sha256').update(SCRIPT, 'utf8').digest('base64');
const CSP = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'`;

class Ids {
  private n = 0;
  next(prefix: string): string {
    this.n += 1;
    return `${prefix}-${this.n}`;
  }
}

function copyBlock(ids: Ids, text: string, label = 'Copy'): string {
  const id = ids.next('copy');
  return `<div class="copyline"><pre id="${id}">${esc(text)}</pre><button type="button" class="copy" data-target="${id}">${esc(label)}</button></div>`;
}

function requestText(req: RecordedRequest): string {
  const lines = [`${req.method} ${req.url}`];
  for (const [k, v] of Object.entries(req.headers ?? {})) lines.push(`${k}: ${v}`);
  if (req.body !== undefined && req.body !== '') lines.push('', prettyBody(req.body));
  return lines.join('\n');
}

function responseText(res: RecordedResponse): string {
  const lines = [`HTTP ${res.status}  (${formatDuration(res.duration_ms)})`];
  for (const [k, v] of Object.entries(res.headers ?? {})) lines.push(`${k}: ${v}`);
  if (res.body !== undefined && res.body !== '') lines.push('', prettyBody(res.body));
  if (res.truncated) lines.push('', '[body truncated at the size cap]');
  return lines.join('\n');
}

function failureHtml(ids: Ids, f: Failure, r: CheckResult, index: number, total: number): string {
  const parts: string[] = [`<div class="failure">`];
  if (total > 1) parts.push(`<div class="k">failure ${index + 1} of ${total}</div>`);
  parts.push(
    `<div class="ea"><div><span class="k">expected</span>${esc(f.expected)}</div><div><span class="k">actual</span>${esc(f.actual)}</div></div>`,
  );
  const extra: string[] = [];
  if (f.input !== undefined)
    extra.push(`<h4>minimal input</h4><pre class="input">${esc(prettyBody(compactJson(f.input)))}</pre>`);
  if (f.seed !== undefined)
    extra.push(`<h4>replay</h4><pre>seed ${esc(f.seed)}${f.path ? `  path ${esc(f.path)}` : ''}</pre>`);
  if (extra.length) parts.push(`<div class="kv">${extra.join('')}</div>`);
  const repro = reproOf(f, r);
  if (repro) parts.push(`<div class="kv"><h4>repro</h4>${copyBlock(ids, repro, 'Copy repro')}</div>`);
  if (f.request || f.response) {
    parts.push(
      `<div class="exchange"><div><h4>request</h4>${f.request ? `<pre>${esc(requestText(f.request))}</pre>` : '<pre>(not recorded)</pre>'}</div>` +
        `<div><h4>response</h4>${f.response ? `<pre>${esc(responseText(f.response))}</pre>` : '<pre>(no response)</pre>'}</div></div>`,
    );
  }
  parts.push('</div>');
  return parts.join('');
}

function resultHtml(ids: Ids, r: CheckResult): string {
  const search = `${r.id} ${r.operation} ${r.message}`.toLowerCase();
  const known = r.status === 'failed' && r.baseline?.known === true;
  const attrs = `class="result ${esc(r.status)}${known ? ' known' : ''}"${r.baseline ? ` data-baseline="${known ? 'known' : 'new'}"` : ''} data-suite="${esc(r.suite)}" data-status="${esc(r.status)}" data-id="${esc(r.id)}" data-search="${esc(search)}"`;
  const fs = failuresOf(r);
  const expandable = r.status === 'failed' || r.status === 'error' || fs.length > 0;
  const row = (more: boolean) =>
    `<div class="row"><span><span class="badge ${esc(r.status)}">${esc(r.status)}</span>${known ? '<span class="badge known">known</span>' : r.baseline ? '<span class="badge failed">new</span>' : ''}</span>` +
    `<code class="id${more ? ' more' : ''}">${esc(r.id)}</code><span class="op">${esc(r.operation)}</span>` +
    `<span class="msg">${esc(r.message)}</span><span class="t">${esc(formatDuration(r.duration_ms))} · ${esc(r.requests)} req</span></div>`;
  if (!expandable) return `<div ${attrs}>${row(false)}</div>`;
  const body: string[] = [
    ...baselineNoteHtml(r),
    `<p class="rule"><b>Rule:</b> ${esc(ruleWithRef(r))} · <b>severity:</b> ${esc(r.severity)}</p>`,
    ...fs.map((f, i) => failureHtml(ids, f, r, i, fs.length)),
  ];
  if (fs.length === 0 && r.repro) body.push(copyBlock(ids, r.repro, 'Copy repro'));
  return `<details ${attrs}><summary>${row(true)}</summary><div class="body">${body.join('')}</div></details>`;
}

const cell = (n: number, cls = '') => `<td class="${n === 0 ? 'zero' : cls}">${n}</td>`;

/** The per-suite counts with a total row; a suite name filters the results below. */
function suiteTableHtml(report: RunReport): string {
  const s = report.summary;
  const suites = countsBySuite(report);
  const byStatus = (v: Verdict) => report.results.filter((r) => r.status === v).length;
  return `<table class="suites" id="suites">
<thead><tr><th>suite</th><th>passed</th><th>failed</th><th>skipped</th><th>error</th><th>requests</th><th>time</th></tr></thead>
<tbody>
${suites
  .map(
    (c) =>
      `<tr data-suite="${esc(c.suite)}"><td><a href="#results" data-filter-suite="${esc(c.suite)}">${esc(c.suite)}</a></td>${cell(c.passed)}${cell(c.failed, 'num-failed')}${cell(c.skipped)}${cell(c.error, 'num-failed')}<td>${c.requests}</td><td>${esc(formatDuration(c.duration_ms))}</td></tr>`,
  )
  .join('\n')}
<tr><td>total</td>${cell(byStatus('passed'))}${cell(byStatus('failed'), 'num-failed')}${cell(byStatus('skipped'))}${cell(byStatus('error'), 'num-failed')}<td>${esc(s.requests)}</td><td>${esc(formatDuration(s.duration_ms))}</td></tr>
</tbody>
</table>`;
}

function observationsHtml(obs: NonNullable<RunReport['observations']>): string {
  return obs.length === 0
    ? '<p class="empty">None.</p>'
    : `<p>What the contract does not rule on: reported, never a failure.</p><ul class="obs" id="observations">${obs
        .map(
          (o) =>
            `<li><code>${esc(o.id)}</code>${o.operation ? ` <span class="op">${esc(o.operation)}</span>` : ''}: ${esc(o.message)}</li>`,
        )
        .join('')}</ul>`;
}

/** The verdict badge: its class and its words. With --baseline it counts new findings only; known ones are shown apart. */
function verdictOf(report: RunReport): {
  verdict: 'failed' | 'error' | 'passed' | 'inconclusive';
  verdictText: string;
} {
  const failed = report.results.filter((r) => r.status === 'failed' && r.baseline?.known !== true).length;
  const errors = report.results.filter((r) => r.status === 'error').length;
  const aborted = failed === 0 && errors === 0 && report.run?.status === 'aborted';
  const inconclusive = failed === 0 && errors === 0 && !aborted && report.verdict === 'inconclusive';
  const verdict = failed > 0 ? 'failed' : errors > 0 || aborted ? 'error' : inconclusive ? 'inconclusive' : 'passed';
  const knownText = report.baseline ? ` · ${report.baseline.known} known` : '';
  const verdictText =
    (failed > 0
      ? `${failed} ${report.baseline ? 'new ' : ''}failed`
      : errors > 0
        ? `${errors} could not run`
        : aborted
          ? 'aborted: the run stopped early'
          : inconclusive
            ? `inconclusive${report.evidence?.allow_inconclusive ? ' (allowed)' : ''}`
            : 'passed') + knownText;
  return { verdict, verdictText };
}

/**
 * The banner of an inconclusive run: why, in one line each, and what the server kept from being
 * judged. Nothing for a run that judged enough.
 */
function evidenceHtml(report: RunReport): string {
  const e = report.evidence;
  if (!e || (e.reasons.length === 0 && !e.not_judged.some((g) => g.counted))) return '';
  const reasons = e.reasons.length
    ? `<p><strong>Inconclusive: the run judged too little to pass.</strong>${e.allow_inconclusive ? ' The run exited 0 only because of <code>--allow-inconclusive</code>.' : ''}</p><ul>${e.reasons.map((r) => `<li>${esc(r.message)}</li>`).join('')}</ul>`
    : '';
  const groups = e.not_judged.filter((g) => g.counted);
  const notJudged = groups.length
    ? `<p>Not judged because of the server's answers:</p><ul>${groups.map((g) => `<li>${esc(g.message)}</li>`).join('')}</ul>`
    : '';
  return `<section class="banner inconclusive" id="inconclusive" role="status">${reasons}${notJudged}</section>\n`;
}

/** The summary cards: one count per verdict, the requests and the observations. */
function cardsHtml(report: RunReport, byStatus: (v: Verdict) => number): string {
  return `<section class="cards" id="summary" aria-label="summary">
${(['passed', 'failed', 'skipped', 'error'] as const)
  .map(
    (v) =>
      `<div class="card ${v}"><span class="n" id="count-${v}" data-count="${v}">${byStatus(v)}</span><span class="l">${v === 'error' ? 'errors (tool)' : v}</span></div>`,
  )
  .join('\n')}
<div class="card"><span class="n" id="count-requests">${esc(report.summary.requests)}</span><span class="l">requests</span></div>
<div class="card"><span class="n" id="count-observations">${(report.observations ?? []).length}</span><span class="l">observations</span></div>
</section>`;
}

export function renderHtml(report: RunReport): string {
  const ids = new Ids();
  const s = report.summary;
  const results = report.results
    .map((r, i) => ({ r, i }))
    .sort((a, b) => STATUS_RANK[a.r.status] - STATUS_RANK[b.r.status] || a.i - b.i)
    .map(({ r }) => r);
  const { verdict, verdictText } = verdictOf(report);
  const suites = countsBySuite(report);
  const byStatus = (v: Verdict) => report.results.filter((r) => r.status === v).length;
  const obs = report.observations ?? [];

  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="referrer" content="no-referrer">
<title>vapc report · ${esc(verdictText)} · ${esc(report.target)}</title>
<style>${CSS}${COVERAGE_CSS}</style>
</head>
<body>
<main>
<header>
<h1>Voice-Agent Platform API conformance <span class="verdict ${verdict}" id="verdict">${esc(verdictText)}</span></h1>
<dl class="meta">
<dt>target</dt><dd><code id="target">${esc(report.target)}</code></dd>
<dt>seed</dt><dd><code id="seed">${esc(report.seed)}</code></dd>
<dt>contract</dt><dd>Voice-Agent Platform API ${esc(report.spec_version)} · ${esc(report.tool?.name)} ${esc(report.tool?.version)}</dd>
<dt>started</dt><dd>${esc(report.started_at)} · took ${esc(formatDuration(s.duration_ms))} · ${esc(s.requests)} requests</dd>${rateLimitNote(report) ? `\n<dt>rate limit</dt><dd id="rate-limit">${esc(rateLimitNote(report))}</dd>` : ''}
</dl>
<div class="rerun">${copyBlock(ids, replayCommand(report), 'Copy rerun command')}</div>
</header>
${evidenceHtml(report)}${cardsHtml(report, byStatus)}
<h2>By suite</h2>
${suiteTableHtml(report)}
<h2 id="results">Results</h2>
<div class="filters" role="search">
<label>Suite <select id="filter-suite"><option value="">all suites</option>${suites.map((c) => `<option value="${esc(c.suite)}">${esc(c.suite)} (${c.total})</option>`).join('')}</select></label>
<span>${VERDICTS.map((v) => `<label><input type="checkbox" name="status" value="${v}" checked> ${v} (${byStatus(v)})</label>`).join(' ')}</span>
<input type="search" id="filter-text" placeholder="filter by check id, operation or message" aria-label="text filter" size="34">
<span id="shown">showing ${report.results.length} of ${report.results.length}</span>
</div>
<div id="result-list">
${results.map((r) => resultHtml(ids, r)).join('\n')}
<p class="empty" id="no-match" hidden>No result matches the filters.</p>
</div>
${baselineSectionHtml(report)}${coverageHtml(report.coverage, esc)}${workflowsHtml(report.workflows, esc)}<h2>Observations</h2>
${observationsHtml(obs)}
<h2>Configuration</h2>
<pre id="config">${esc(JSON.stringify(report.config ?? {}, null, 2))}</pre>
<footer>Generated by ${esc(report.tool?.name)} ${esc(report.tool?.version)}. Secrets are replaced by placeholders ($VAPC_API_KEY, $VAPC_USER_ID) or [redacted].</footer>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
  return html;
}

/** The baseline note on a failed result: known (with its reason) or why it is new. */
function baselineNoteHtml(r: CheckResult): string[] {
  const b = r.baseline;
  if (!b || r.status !== 'failed') return [];
  if (b.known)
    return [
      `<p class="rule"><b>Known finding (baseline):</b> ${esc(b.reason ?? '')}${b.expires ? ` · expires ${esc(b.expires)}` : ''}</p>`,
    ];
  if (b.expired)
    return [
      `<p class="rule"><b>Baseline entry expired</b> on ${esc(b.expires ?? '')}: this finding fails again (reason was: ${esc(b.reason ?? '')})</p>`,
    ];
  return [`<p class="rule"><b>New finding:</b> ${esc((b.new_kinds ?? b.kinds).join('; '))}</p>`];
}

/** The Baseline section: counts and the entries not observed this run (never called fixed). */
function baselineSectionHtml(report: RunReport): string {
  const b = report.baseline;
  if (!b) return '';
  const rows = b.not_observed
    .map(
      (e) =>
        `<li><code>${esc(e.check)}</code> <span class="op">${esc(e.operation)}</span> ${esc(e.kind)}: ${esc(e.reason)} (this run: ${esc(e.this_run)})</li>`,
    )
    .join('');
  return `<h2 id="baseline">Baseline</h2>
<p>File <code>${esc(b.file)}</code>: ${esc(b.entries)} entries · <span id="baseline-known">${esc(b.known)}</span> known · <span id="baseline-new">${esc(b.new_failures)}</span> new · ${esc(b.expired)} expired${b.pruned !== undefined ? ` · ${esc(b.pruned)} pruned` : ''}</p>
${b.not_observed.length === 0 ? '' : `<p>Not observed this run (not seen is not fixed):</p><ul class="obs" id="not-observed">${rows}</ul>`}
`;
}
