import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import {
  applyBaseline,
  entriesToWrite,
  kindOfIssue,
  kindsOfResult,
  parseBaseline,
  prunable,
  serializeBaseline,
  TODO_REASON,
  type Baseline,
} from '../../../src/baseline/index.js';
import { main } from '../../../src/cli/main.js';
import { isVapcError } from '../../../src/errors.js';
import type { CheckResult, RunReport } from '../../../src/results/model.js';
import type { ReferenceServer } from '../../../src/server/index.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import { faultByName, startFaultyServer } from '../../catalog/faults/index.js';
import { captureIo } from '../../helpers/captured-io.js';

const result = (over: Partial<CheckResult>): CheckResult => ({
  id: 'ranges.max-concurrency-above-maximum',
  suite: 'ranges',
  operation: 'POST /campaign',
  status: 'failed',
  message: 'm',
  rule: 'r',
  contract_ref: '4',
  severity: 'major',
  duration_ms: 1,
  requests: 1,
  failures: [{ expected: 'e', actual: 'accepted with 201' }],
  ...over,
});
const report = (results: CheckResult[]): RunReport => ({
  tool: { name: 'voice-agent-contract', version: '0' },
  spec_version: '2.0.1',
  target: 'http://x',
  seed: 1,
  started_at: '',
  summary: {
    passed: 0,
    failed: results.filter((r) => r.status === 'failed').length,
    skipped: 0,
    errors: 0,
    requests: 0,
    duration_ms: 0,
    observations: 0,
  },
  results,
  observations: [],
  config: {},
});
const entry = (check: string, operation: string, kind: string, extra: { reason?: string; expires?: string } = {}) => ({
  check,
  operation,
  kind,
  reason: 'known',
  ...extra,
});

describe('baseline: the kind of a failure names what went wrong, not the generated values', () => {
  it('keeps the status class and drops the code', () => {
    expect(kindOfIssue('accepted with 201')).toBe('status:2xx');
    expect(kindOfIssue('status 400')).toBe('status:4xx');
    expect(kindOfIssue('status 500')).toBe('status:5xx');
  });
  it('keeps a schema issue with array indices and the offending value stripped', () => {
    expect(kindOfIssue('body /3/duration_seconds must be integer or null, got "192"')).toBe(
      'body /*/duration_seconds must be integer or null',
    );
    expect(kindOfIssue("/ must have required property 'detail'")).toBe("/ must have required property 'detail'");
    expect(kindOfIssue('header /X-RateLimit-Limit must be integer, got "1.5"')).toBe(
      'header /X-RateLimit-Limit must be integer',
    );
  });
  it('gives data-dependent descriptions one kind', () => {
    expect(kindOfIssue('name: "stale name"')).toBe('mismatch');
    expect(kindOfIssue('120 calls')).toBe('mismatch');
  });
  it('gives two runs that differ only in generated values the same kinds', () => {
    const a = result({
      failures: [
        {
          expected: 'max_concurrency=201',
          actual:
            'body /0/duration_seconds must be integer or null, got "0"; body /1/duration_seconds must be integer or null, got "238"',
        },
      ],
    });
    const b = result({
      failures: [
        { expected: 'max_concurrency=0', actual: 'body /7/duration_seconds must be integer or null, got "9"' },
      ],
    });
    expect(kindsOfResult(a)).toEqual(kindsOfResult(b));
    expect(kindsOfResult(a)).toEqual(['body /*/duration_seconds must be integer or null']);
  });
});

describe('baseline: the file', () => {
  const entries = [
    entry('b.check', 'GET /x', 'status:5xx', { expires: '2030-01-31' }),
    entry('a.check', 'POST /y', "/ must have required property 'detail'"),
  ];
  it('is written sorted, and a rewrite of what it reads is byte-identical', () => {
    const text = serializeBaseline(entries);
    expect(text.indexOf('a.check')).toBeLessThan(text.indexOf('b.check'));
    expect(text).toMatch(/expires: 2030-01-31\n/);
    const parsed = parseBaseline(text, 'f.yaml');
    expect(parsed.findings).toHaveLength(2);
    expect(serializeBaseline(parsed.findings)).toBe(text);
    expect(serializeBaseline([...entries].reverse())).toBe(text);
  });
  const bad: Array<[string, string, RegExp]> = [
    [
      'an unknown key in an entry',
      'version: 1\nfindings:\n  - check: a\n    operation: GET /x\n    kind: k\n    reason: r\n    reasn: typo\n',
      /f\.yaml:7: finding 1: unknown key "reasn"/,
    ],
    [
      'a date that is not YYYY-MM-DD',
      'findings:\n  - check: a\n    operation: GET /x\n    kind: k\n    reason: r\n    expires: 31/01/2030\n',
      /f\.yaml:6: finding 1: expires must be a date YYYY-MM-DD/,
    ],
    [
      'an impossible date',
      'findings:\n  - check: a\n    operation: GET /x\n    kind: k\n    reason: r\n    expires: 2030-02-30\n',
      /expires must be a date/,
    ],
    [
      'a missing reason',
      'findings:\n  - check: a\n    operation: GET /x\n    kind: k\n',
      /f\.yaml:2: finding 1: missing reason/,
    ],
    [
      'an empty reason',
      'findings:\n  - check: a\n    operation: GET /x\n    kind: k\n    reason: ""\n',
      /f\.yaml:5: finding 1: reason must be a non-empty text/,
    ],
    [
      'a repeated signature',
      'findings:\n  - {check: a, operation: GET /x, kind: k, reason: r}\n  - {check: a, operation: GET /x, kind: k, reason: s}\n',
      /f\.yaml:3: finding 2 repeats finding 1/,
    ],
    ['broken YAML', 'findings:\n  - check: [a\n', /f\.yaml:\d+: not valid YAML/],
    ['a list at the top', '- a\n', /f\.yaml:1: expected a mapping/],
    ['an unknown top-level key', 'version: 1\nfinding: []\n', /f\.yaml:2: unknown key "finding"/],
    ['another version', 'version: 2\nfindings: []\n', /f\.yaml:1: version must be 1/],
  ];
  for (const [what, text, message] of bad) {
    it(`refuses ${what}, naming file and line`, () => {
      let error: unknown;
      try {
        parseBaseline(text, 'f.yaml');
      } catch (e) {
        error = e;
      }
      expect(isVapcError(error) && error.code).toBe('E_BASELINE');
      expect((error as Error).message).toMatch(message);
    });
  }
  it('reads an empty file as an empty baseline', () => {
    expect(parseBaseline('', 'f.yaml').findings).toEqual([]);
  });
});

describe('baseline: applied to a report', () => {
  const op = 'POST /campaign';
  const id = 'ranges.max-concurrency-above-maximum';
  const base: Baseline = {
    version: 1,
    findings: [
      entry(id, op, 'status:2xx', { reason: 'ticket 1' }),
      entry('cors.preflight-answered', 'OPTIONS /x', 'status:4xx'),
      entry('auth.bearer-only', 'GET /y', 'status:4xx'),
    ],
  };
  const today = '2026-11-23';
  it('marks a covered failure known, keeps it failed, and counts it apart', () => {
    const out = applyBaseline(report([result({}), result({ id: 'schema.other', suite: 'schema' })]), base, {
      file: 'b.yaml',
      today,
    });
    expect(out.results[0]!.status).toBe('failed');
    expect(out.results[0]!.baseline).toMatchObject({ known: true, reason: 'ticket 1', kinds: ['status:2xx'] });
    expect(out.results[1]!.baseline).toMatchObject({ known: false, new_kinds: ['status:2xx'] });
    expect(out.summary).toMatchObject({ failed: 2, known: 1, new_failures: 1 });
  });
  it('calls a failure with one more kind new, naming only that kind', () => {
    const r = result({
      failures: [
        { expected: 'e', actual: 'accepted with 201' },
        { expected: 'e', actual: "/ must have required property 'detail'" },
      ],
    });
    const mark = applyBaseline(report([r]), base, { file: 'b.yaml', today }).results[0]!.baseline!;
    expect(mark.known).toBe(false);
    expect(mark.new_kinds).toEqual(["/ must have required property 'detail'"]);
  });
  it('fails an expired entry again, and keeps one that expires today', () => {
    const expired = { version: 1 as const, findings: [entry(id, op, 'status:2xx', { expires: '2026-11-22' })] };
    expect(applyBaseline(report([result({})]), expired, { file: 'b.yaml', today }).results[0]!.baseline).toMatchObject({
      known: false,
      expired: true,
    });
    const lastDay = { version: 1 as const, findings: [entry(id, op, 'status:2xx', { expires: today })] };
    expect(applyBaseline(report([result({})]), lastDay, { file: 'b.yaml', today }).results[0]!.baseline!.known).toBe(
      true,
    );
  });
  it('lists entries not seen as not observed, with what their check did this run', () => {
    const out = applyBaseline(
      report([
        result({}),
        result({
          id: 'cors.preflight-answered',
          suite: 'cors',
          operation: 'OPTIONS /x',
          status: 'passed',
          failures: [],
        }),
      ]),
      base,
      { file: 'b.yaml', today },
    );
    expect(out.baseline!.not_observed.map((e) => [e.check, e.this_run])).toEqual([
      ['cors.preflight-answered', 'passed'],
      ['auth.bearer-only', 'not-run'],
    ]);
  });
  it('prunes only entries whose check and operation ran and passed', () => {
    const rep = report([
      result({ id: 'cors.preflight-answered', suite: 'cors', operation: 'OPTIONS /x', status: 'passed', failures: [] }),
      result({ id: 'auth.bearer-only', suite: 'auth', operation: 'GET /y', status: 'skipped', failures: [] }),
      result({ failures: [{ expected: 'e', actual: 'status 500' }] }),
    ]);
    expect(prunable(base, rep).map((e) => e.check)).toEqual(['cors.preflight-answered']);
  });
  it("writes this run's findings with reasons kept and TODO for new ones", () => {
    const written = entriesToWrite(report([result({}), result({ id: 'schema.other', suite: 'schema' })]), base);
    expect(written.find((e) => e.check === id)!.reason).toBe('ticket 1');
    expect(written.find((e) => e.check === 'schema.other')!.reason).toBe(TODO_REASON);
    expect(written).toHaveLength(4);
  });
});

// ---- end to end: vapc run against servers with known deviations ---------------------------------

const capture = () => captureIo();

/** The known deviations: two ranges faults on the reference server; `extra` adds one more fault. */
const KNOWN = ['range-max-concurrency-above-max', 'range-machine-detection-below-min'];
const NEW_FAULT = 'cors-preflight-no-allow-origin';
const SUITES = 'ranges,cors';

let spec: SpecModel;
const servers: ReferenceServer[] = [];
async function serverWith(faults: string[]): Promise<ReferenceServer> {
  const [first, ...rest] = faults;
  const s = await startFaultyServer(first!, {
    spec,
    rateLimit: 1_000_000,
    rateWindowMs: 60_000,
    configure: async (app, internals) => {
      for (const name of rest) await faultByName(name).configure(app, internals);
    },
  });
  servers.push(s);
  return s;
}
const dir = mkdtempSync(join(tmpdir(), 'vapc-baseline-'));
const XSD = readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'reports', 'junit-10.xsd'), 'utf8');
const junitErrors = async (xml: string) =>
  (
    await validateXML({
      xml: [{ fileName: 'junit.xml', contents: xml }],
      schema: [{ fileName: 'junit-10.xsd', contents: XSD }],
    })
  ).errors;
async function vapcRun(server: ReferenceServer, args: string[], seed = 1) {
  const io = capture();
  const reportDir = join(dir, `r${Math.random().toString(36).slice(2)}`);
  const argv = [
    'run',
    '--base-url',
    server.url,
    '--api-key',
    server.fixtures.api_key,
    '--user-id',
    server.fixtures.user_id,
    '--suite',
    SUITES,
    '--runs',
    '2',
    '--seed',
    String(seed),
    '--report-dir',
    reportDir,
    ...args,
  ];
  const code = await main(argv, io);
  const json = (): RunReport => JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
  return {
    code,
    out: io.out(),
    err: io.err(),
    json,
    reportDir,
    file: (name: string) => readFileSync(join(reportDir, name), 'utf8'),
  };
}

beforeAll(async () => {
  spec = await loadSpec();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('vapc run --write-baseline / --baseline against servers with known deviations', () => {
  const file = join(dir, 'sub', 'baseline.yaml');
  let known: ReferenceServer;

  it('the first run with --write-baseline exits 1 and writes a sorted file with TODO reasons', async () => {
    known = await serverWith(KNOWN);
    const r = await vapcRun(known, ['--write-baseline', file]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/baseline: wrote \d+ findings to .*baseline\.yaml \(\d+ with a TODO reason/);
    const written = parseBaseline(readFileSync(file, 'utf8'), file);
    const checks = [...new Set(written.findings.map((e) => e.check))].sort();
    expect(checks).toEqual([
      'ranges.machine-detection-timeout-seconds-below-minimum',
      'ranges.max-concurrency-above-maximum',
    ]);
    expect(written.findings.every((e) => e.reason === TODO_REASON)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(serializeBaseline(written.findings));
  });

  it('the second run with --baseline (another seed) exits 0 and shows them as known', async () => {
    const r = await vapcRun(known, ['--baseline', file], 2);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/Known findings \(\d+, in baseline/);
    expect(r.out).toMatch(/PASSED: .*known \(baseline\)/);
    expect(r.out).toMatch(
      /FAIL ranges\.max-concurrency-above-maximum {2}POST \/campaign · known finding \(baseline\): /,
    );
    const json = r.json();
    const failed = json.results.filter((x) => x.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((x) => x.baseline?.known === true && x.baseline.reason === TODO_REASON)).toBe(true);
    expect(json.summary).toMatchObject({ new_failures: 0, known: failed.length, failed: failed.length });
    expect(json.baseline).toMatchObject({ known: failed.length, new_failures: 0, not_observed: [] });
    const junit = r.file('junit.xml');
    expect(junit).toMatch(/<testsuites [^>]*failures="0"/);
    expect(junit).toContain('known finding (baseline)');
    expect(await junitErrors(junit)).toEqual([]);
    const html = r.file('report.html');
    expect(html).toContain('<span class="badge known">known</span>');
    expect(html).toMatch(/<h2 id="baseline">Baseline<\/h2>/);
    // `vapc report --baseline FILE` re-renders the run and, like the run, does not fail on known
    // findings; without the file it does not take the artefact's word for them.
    const io = capture();
    expect(await main(['report', r.reportDir, '--format', 'console', '--baseline', file], io)).toBe(0);
    expect(io.out()).toMatch(/Known findings/);
    const bare = capture();
    expect(await main(['report', r.reportDir, '--format', 'console'], bare)).toBe(1);
    expect(bare.err()).toMatch(/pass --baseline FILE to recompute them/);
  });

  it('a server with one more fault exits 1 naming only the new finding', async () => {
    const more = await serverWith([...KNOWN, NEW_FAULT]);
    const r = await vapcRun(more, ['--baseline', file]);
    expect(r.code).toBe(1);
    const json = r.json();
    const fresh = json.results.filter((x) => x.status === 'failed' && !x.baseline?.known);
    expect(fresh.length).toBeGreaterThan(0);
    expect(fresh.every((x) => x.id === 'cors.preflight-allow-origin')).toBe(true);
    const section = r.out.slice(r.out.indexOf('New failures'), r.out.indexOf('Known findings'));
    expect(section).toContain('cors.preflight-allow-origin');
    expect(section).not.toContain('ranges.');
    expect(r.out).toMatch(/FAILED: \d+ of \d+ checks failed \(new\), \d+ known/);
  });

  it('an expired entry exits 1 and says it expired', async () => {
    const text = readFileSync(file, 'utf8').replace(
      /(kind: status:2xx\n\s+reason: .*\n)/,
      '$1    expires: 2001-01-01\n',
    );
    expect(text).toContain('expires: 2001-01-01');
    const expired = join(dir, 'expired.yaml');
    writeFileSync(expired, text);
    const r = await vapcRun(known, ['--baseline', expired], 3);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/baseline entry expired on 2001-01-01/);
    expect(r.json().baseline!.expired).toBeGreaterThan(0);
  });

  it('on a server without the deviations, lists the entries as not observed (not fixed) and exits 0', async () => {
    const clean = await serverWith(['range-max-concurrency-above-max']);
    const r = await vapcRun(clean, ['--baseline', file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Not observed this run \(\d+ baseline entr(y|ies); not seen is not fixed\)/);
    expect(r.out).toContain('ranges.machine-detection-timeout-seconds-below-minimum');
    expect(r.out.replaceAll('not seen is not fixed', '')).not.toMatch(/fixed/i);
    const entries = r.json().baseline!.not_observed;
    expect(entries.length).toBeGreaterThan(0);
    expect(
      entries.every(
        (e) => e.check === 'ranges.machine-detection-timeout-seconds-below-minimum' && e.this_run === 'passed',
      ),
    ).toBe(true);
    expect(r.file('junit.xml')).toMatch(
      /<testsuite name="baseline" tests="0"[^]*not observed: ranges\.machine-detection-timeout-seconds-below-minimum POST \/campaign status:2xx \(this run: passed\)/,
    );
    expect(r.file('report.html')).toContain('<ul class="obs" id="not-observed">');
    expect(await junitErrors(r.file('junit.xml'))).toEqual([]);
  });

  it('--prune-baseline drops only entries whose check and operation ran and passed', async () => {
    const pruneFile = join(dir, 'prune.yaml');
    const extra = entry('auth.bearer-only', 'GET /users/me', 'status:2xx');
    writeFileSync(pruneFile, serializeBaseline([...parseBaseline(readFileSync(file, 'utf8'), file).findings, extra]));
    const clean = await serverWith(['range-max-concurrency-above-max']);
    const r = await vapcRun(clean, ['--baseline', pruneFile, '--prune-baseline']);
    expect(r.code).toBe(0);
    const kept = parseBaseline(readFileSync(pruneFile, 'utf8'), pruneFile).findings;
    expect(kept.some((e) => e.check === 'ranges.machine-detection-timeout-seconds-below-minimum')).toBe(false);
    expect(kept.some((e) => e.check === 'ranges.max-concurrency-above-maximum')).toBe(true);
    // auth did not run (--suite ranges,cors): its entry stays.
    expect(kept).toContainEqual(extra);
    expect(r.out).toMatch(/baseline: pruned \d+ entr(y|ies) whose check and operation ran and passed/);
    expect(r.json().baseline!.pruned).toBeGreaterThan(0);
  });
});

describe('vapc run --baseline: bad input exits 2 before any request', () => {
  // A report dir of the test's own: a run that cannot start marks its report dir aborted (by default the person's reports/latest).
  const ownReportDir = () => ['--report-dir', join(dir, `reports-${Math.random().toString(36).slice(2)}`)];

  it('names the file and line of a bad baseline', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'version: 1\nfindings:\n  - check: a\n    operation: GET /x\n    kind: k\n    reason: r\n    expires: soon\n',
    );
    const io = capture();
    const code = await main(['run', '--base-url', 'http://127.0.0.1:1', ...ownReportDir(), '--baseline', bad], io);
    expect(code).toBe(2);
    expect(io.err()).toMatch(
      /baseline .*bad\.yaml:7: finding 1: expires must be a date YYYY-MM-DD, got "soon" \[E_BASELINE\]/,
    );
  });
  it('refuses a missing baseline file', async () => {
    const io = capture();
    const code = await main(
      ['run', '--base-url', 'http://127.0.0.1:1', ...ownReportDir(), '--baseline', join(dir, 'nope.yaml')],
      io,
    );
    expect(code).toBe(2);
    expect(io.err()).toMatch(/baseline file .*nope\.yaml: no such file/);
  });
  it('refuses --prune-baseline without --baseline', async () => {
    const io = capture();
    const code = await main(['run', '--base-url', 'http://127.0.0.1:1', ...ownReportDir(), '--prune-baseline'], io);
    expect(code).toBe(2);
    expect(io.err()).toMatch(/--prune-baseline needs --baseline FILE/);
  });
});
