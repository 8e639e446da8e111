/**
 * Issue 22's done-when: one sanitising pass at the source (each result, observation, the target,
 * config and run status as the runner makes them) and one on the write path (a report read from
 * disk). A secret with `+ / = & " < '` and non-ASCII is planted in every field of a result and of a
 * report; no output holds it, raw or in any encoded form, nor an 8-character piece of it: the
 * console (plain, live), the GitHub annotations and step summary, report.json, junit.xml,
 * report.html, report.sarif, the baseline file, for a run and for `vapc report` of a report on disk.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../../src/runner/conformance.js';
import { defineCheck } from '../../../src/checks/check.js';
import { loadSpec } from '../../../src/spec/load.js';
import {
  createConsoleReporter,
  createGitHubSink,
  renderSummary,
  sanitizeReport,
  writeReports,
} from '../../../src/reporters/index.js';
import { applyBaseline, entriesToWrite, parseBaseline, serializeBaseline } from '../../../src/baseline/index.js';
import { main } from '../../../src/cli/main.js';
import { composeEvents, type RunEvents } from '../../../src/results/events.js';
import { replayCommand } from '../../../src/reporters/text.js';
import { Secrets } from '../../../src/secrets/index.js';
import type { RunReport, CheckResult } from '../../../src/results/model.js';
import type { Exchange, HttpRequest, Transport } from '../../../src/transport/types.js';

const SECRET = `Kx7Qm2Vr9Tz+/=&"<'\u00e9\u6f22Lp4Ns8Wd`;
/** The forms a leak could take: raw, URL-, JSON-, HTML-encoded, and pieces of its plain core. */
const FORMS = [
  SECRET,
  encodeURIComponent(SECRET),
  JSON.stringify(SECRET).slice(1, -1),
  SECRET.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/'/g, '&#39;'),
  SECRET.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/'/g, '&apos;'),
  'Kx7Qm2Vr',
  'Lp4Ns8Wd',
];
const leaks = (label: string, text: string): string[] =>
  FORMS.filter((f) => text.includes(f)).map((f) => `${label}: ${JSON.stringify(f)}`);

const work = mkdtempSync(join(tmpdir(), 'vapc-planted-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The console reporter (plain and live) and the GitHub sink, with what each printed or appended. */
function sinksOf(secrets: Secrets): { events: RunEvents; outputs: () => Array<[string, string]> } {
  const text = { plain: '', live: '', annotations: '', summary: '' };
  const env = { NO_COLOR: '1', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/step-summary' };
  const events = composeEvents(
    createConsoleReporter({ write: (t) => void (text.plain += t), isTTY: false, env: { NO_COLOR: '1' }, secrets }),
    createConsoleReporter({ write: (t) => void (text.live += t), isTTY: true, env: { NO_COLOR: '1' }, secrets }),
    createGitHubSink({
      write: (t) => void (text.annotations += t),
      env,
      secrets,
      appendFile: (_p, t) => void (text.summary += t),
    }),
  );
  return {
    events,
    outputs: () => [
      ['console (plain)', text.plain],
      ['console (live)', text.live],
      ['github annotations', text.annotations],
      ['step summary', text.summary],
    ],
  };
}

/** Every file writeReports wrote, as text. */
const filesOf = (dir: string): Array<[string, string]> =>
  readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]);

/** A target that answers every request 200 with the secret in its headers and body. */
function echoingTransport(): Transport {
  return {
    baseUrl: `http://127.0.0.1:9/${encodeURIComponent(SECRET)}`,
    async send(request: HttpRequest): Promise<Exchange> {
      const text = JSON.stringify({ echo: SECRET, [SECRET]: [SECRET] });
      return {
        request: {
          method: request.method,
          url: `http://127.0.0.1:9${request.path}?k=${encodeURIComponent(SECRET)}`,
          headers: { ...request.headers, 'x-echo': SECRET },
          body: text,
        },
        response: {
          status: 200,
          headers: { 'x-echo': SECRET, 'set-cookie': SECRET },
          text,
          json: JSON.parse(text),
          truncated: false,
        },
        durationMs: 1,
      };
    },
    async close() {},
  };
}

/** A check that puts the secret in every field it can: its own id and rule, the message, each failure field (kind and field too), an observation. */
const planted = defineCheck({
  id: `schema.planted-${SECRET}`,
  suite: 'schema',
  rule: `rule ${SECRET}`,
  contractRef: `ref ${SECRET}`,
  severity: 'minor',
  appliesTo: (op) => op.id === 'listCalls',
  async run(ctx, op) {
    const exchange = await ctx.send({
      method: op.method,
      path: op.path,
      operation: op,
      headers: { 'x-planted': SECRET },
    });
    ctx.observe({ operation: `GET ${SECRET}`, message: `observed ${SECRET}` });
    const failure = ctx.failure(exchange, {
      kind: 'mismatch',
      expected: `expected ${SECRET}`,
      actual: `actual ${SECRET}`,
      input: { [SECRET]: [SECRET, { deep: SECRET }] },
      path: `0:${SECRET}`,
    });
    const field = { location: `body ${SECRET}`, pointer: `/${SECRET}/0`, status: `4${SECRET}` };
    return {
      status: 'failed',
      message: `message ${SECRET}`,
      failures: [
        {
          ...failure,
          kind: `kind-${SECRET}`,
          field,
          repro: `curl ${SECRET}`,
          expected: `${failure.expected} ${SECRET}`,
        },
      ],
    };
  },
});

describe('a secret planted everywhere reaches no output', () => {
  it('a run: every result, observation, the target, config and run status are safe from the source, in every file and line', async () => {
    const live: unknown[] = [];
    // The console (plain and live) and the GitHub sink, as vapc run composes them: fed the safe results and report, never sanitising again.
    const sinks = sinksOf(new Secrets({ apiKeys: [SECRET] }));
    const result = await runConformance({
      baseUrl: 'http://127.0.0.1:9',
      transport: echoingTransport(),
      spec: await loadSpec(),
      checks: [planted],
      suites: ['schema'],
      seed: 1,
      runs: 1,
      credentials: { apiKey: SECRET, userId: `user-${SECRET}` },
      config: { planted: SECRET, nested: { list: [SECRET] }, [`key ${SECRET}`]: 1 },
      validateRequest: false,
      events: composeEvents(sinks.events, { onCheckDone: (r) => void live.push(r), onEnd: (r) => void live.push(r) }),
    });
    const report = result.report;
    expect(report.results.map((r) => r.status)).toEqual(['failed']);
    expect(report.observations.length).toBeGreaterThan(0);
    const dir = join(work, 'run');
    const written = await writeReports(report, dir);
    expect(written.errors).toEqual([]);
    const outputs: Array<[string, string]> = [
      ...filesOf(dir),
      ['report object', JSON.stringify(report)],
      ['live events', JSON.stringify(live)],
      ['summary', renderSummary(report)],
      ['replay line', replayCommand(report)],
      ...sinks.outputs(),
      ['baseline written', serializeBaseline(entriesToWrite(report))],
      [
        'baselined report',
        JSON.stringify(
          applyBaseline(report, parseBaseline(serializeBaseline(entriesToWrite(report)), 'b.yaml'), {
            file: 'b.yaml',
            today: '2026-01-01',
          }),
        ),
      ],
    ];
    expect(sinks.outputs().map(([label]) => label)).toEqual([
      'console (plain)',
      'console (live)',
      'github annotations',
      'step summary',
    ]);
    expect(sinks.outputs().every(([, text]) => text.includes('planted'))).toBe(true);
    expect(outputs.flatMap(([label, text]) => leaks(label, text))).toEqual([]);
    // The test can fail: the planted text did reach the run (redacted where it stood).
    expect(JSON.stringify(report)).toContain('message ');
    expect(leaks('planted check', JSON.stringify(planted.id))).not.toEqual([]);
  });

  it('a report read from disk: writeReports sanitises it once, whatever field holds the secret', async () => {
    const base = JSON.parse(readFileSync(join(work, 'run', 'report.json'), 'utf8')) as RunReport;
    const plant = (v: unknown, key?: string): unknown => {
      // Verdicts, suites and severities keep their values so the renderers still know them.
      if (typeof v === 'string')
        return key && ['status', 'suite', 'severity', 'dimension', 'state', 'this_run'].includes(key)
          ? v
          : `${v} ${SECRET}`;
      if (Array.isArray(v)) return v.map((x) => plant(x));
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plant(x, k)]));
      return v;
    };
    const result: CheckResult = base.results[0]!;
    const report = plant({
      ...base,
      results: [result, { ...result, status: 'passed', failures: undefined }],
    }) as RunReport;
    expect(JSON.stringify(report)).toContain(JSON.stringify(SECRET).slice(1, -1));
    const dir = join(work, 'disk');
    const written = await writeReports(report, dir, { secrets: new Secrets({ apiKeys: [SECRET] }) });
    expect(written.errors).toEqual([]);
    expect(filesOf(dir).flatMap(([label, text]) => leaks(label, text))).toEqual([]);
    const baseline = serializeBaseline(entriesToWrite(sanitizeReport(report, new Secrets({ apiKeys: [SECRET] }))));
    expect(leaks('baseline written', baseline)).toEqual([]);
    expect(baseline).toContain('planted');

    // vapc report: the report read from disk is sanitised once, and the console, the annotations,
    // the step summary and every file it writes get that one report.
    const again = join(work, 'again');
    mkdirSync(again);
    writeFileSync(join(again, 'report.json'), JSON.stringify(report));
    const summaryFile = join(work, 'step-summary.md');
    let stdout = '';
    let stderr = '';
    const env = { NO_COLOR: '1', VAPC_API_KEY: SECRET, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile };
    const code = await main(['report', again], {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env,
      isTTY: false,
    });
    expect({ code, stderr }).toEqual({ code: 1, stderr: '' });
    const outputs: Array<[string, string]> = [
      ['stdout', stdout],
      ['stderr', stderr],
      ['step summary', readFileSync(summaryFile, 'utf8')],
      ...filesOf(again).filter(([name]) => name !== 'report.json'),
    ];
    // report.json is the input here (vapc report writes the other three files from it).
    expect(outputs.map(([label]) => label).sort()).toEqual(
      ['report.html', 'report.sarif', 'junit.xml', 'stderr', 'stdout', 'step summary'].sort(),
    );
    expect(outputs.flatMap(([label, text]) => leaks(label, text))).toEqual([]);
    expect(stdout).toContain('::error');
  });
});
