/**
 * Issue 22's done-when: one sanitising pass at the source (each result, observation, the target,
 * config and run status as the runner makes them) and one on the write path (a report read from
 * disk). A secret with `+ / = & " < '` and non-ASCII is planted in every field of a result and of a
 * report; no output holds it, raw or in any encoded form, nor an 8-character piece of it.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../../src/runner/conformance.js';
import { defineCheck } from '../../../src/checks/check.js';
import { loadSpec } from '../../../src/spec/load.js';
import { renderSummary, writeReports } from '../../../src/reporters/index.js';
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
const leaks = (label: string, text: string): string[] => FORMS.filter((f) => text.includes(f)).map((f) => `${label}: ${JSON.stringify(f)}`);

const work = mkdtempSync(join(tmpdir(), 'vapc-planted-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every file writeReports wrote, as text. */
const filesOf = (dir: string): Array<[string, string]> => readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]);

/** A target that answers every request 200 with the secret in its headers and body. */
function echoingTransport(): Transport {
  return {
    baseUrl: `http://127.0.0.1:9/${encodeURIComponent(SECRET)}`,
    async send(request: HttpRequest): Promise<Exchange> {
      const text = JSON.stringify({ echo: SECRET, [SECRET]: [SECRET] });
      return {
        request: { method: request.method, url: `http://127.0.0.1:9${request.path}?k=${encodeURIComponent(SECRET)}`, headers: { ...request.headers, 'x-echo': SECRET }, body: text },
        response: { status: 200, headers: { 'x-echo': SECRET, 'set-cookie': SECRET }, text, json: JSON.parse(text), truncated: false },
        durationMs: 1,
      };
    },
    async close() {},
  };
}

/** A check that puts the secret in every field it can: its own id and rule, the message, each failure field, an observation. */
const planted = defineCheck({
  id: `schema.planted-${SECRET}`,
  suite: 'schema',
  rule: `rule ${SECRET}`,
  contractRef: `ref ${SECRET}`,
  severity: 'minor',
  appliesTo: (op) => op.id === 'listCalls',
  async run(ctx, op) {
    const exchange = await ctx.send({ method: op.method, path: op.path, operation: op, headers: { 'x-planted': SECRET } });
    ctx.observe({ operation: `GET ${SECRET}`, message: `observed ${SECRET}` });
    const failure = ctx.failure(exchange, { expected: `expected ${SECRET}`, actual: `actual ${SECRET}`, input: { [SECRET]: [SECRET, { deep: SECRET }] }, path: `0:${SECRET}` });
    return { status: 'failed', message: `message ${SECRET}`, failures: [{ ...failure, repro: `curl ${SECRET}`, expected: `${failure.expected} ${SECRET}` }] };
  },
});

describe('a secret planted everywhere reaches no output', () => {
  it('a run: every result, observation, the target, config and run status are safe from the source, in every file and line', async () => {
    const live: unknown[] = [];
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
      events: { onCheckDone: (r) => void live.push(r), onEnd: (r) => void live.push(r) },
    });
    const report = result.report;
    expect(report.results.map((r) => r.status)).toEqual(['failed']);
    expect(report.observations.length).toBeGreaterThan(0);
    const dir = join(work, 'run');
    const written = await writeReports(report, dir, { sanitized: true });
    expect(written.errors).toEqual([]);
    const outputs: Array<[string, string]> = [
      ...filesOf(dir),
      ['report object', JSON.stringify(report)],
      ['live events', JSON.stringify(live)],
      ['summary', renderSummary(report)],
      ['replay line', replayCommand(report)],
    ];
    expect(outputs.flatMap(([label, text]) => leaks(label, text))).toEqual([]);
    // The test can fail: the planted text did reach the run (redacted where it stood).
    expect(JSON.stringify(report)).toContain('message ');
    expect(leaks('planted check', JSON.stringify(planted.id))).not.toEqual([]);
  });

  it('a report read from disk: writeReports sanitises it once, whatever field holds the secret', async () => {
    const base = JSON.parse(readFileSync(join(work, 'run', 'report.json'), 'utf8')) as RunReport;
    const plant = (v: unknown, key?: string): unknown => {
      // Verdicts, suites and severities keep their values so the renderers still know them.
      if (typeof v === 'string') return key && ['status', 'suite', 'severity'].includes(key) ? v : `${v} ${SECRET}`;
      if (Array.isArray(v)) return v.map((x) => plant(x));
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plant(x, k)]));
      return v;
    };
    const result: CheckResult = base.results[0]!;
    const report = plant({ ...base, results: [result, { ...result, status: 'passed', failures: undefined }] }) as RunReport;
    expect(JSON.stringify(report)).toContain(JSON.stringify(SECRET).slice(1, -1));
    const dir = join(work, 'disk');
    const written = await writeReports(report, dir, { secrets: new Secrets({ apiKeys: [SECRET] }) });
    expect(written.errors).toEqual([]);
    expect(filesOf(dir).flatMap(([label, text]) => leaks(label, text))).toEqual([]);
  });
});
