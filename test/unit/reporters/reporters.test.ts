import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createGitHubSink,
  createConsoleReporter,
  escapeData,
  escapeProperty,
  githubAnnotations,
  githubStepSummary,
  renderHtml,
  renderJunit,
  sanitizeReport,
  writeReports,
} from '../../../src/reporters/index.js';
import { replayCommand } from '../../../src/reporters/text.js';
import { composeEvents } from '../../../src/results/events.js';
import type { CheckResult } from '../../../src/results/model.js';
import { hideLocalSecrets, type SecretsOptions } from '../../../src/secrets/index.js';
import { fixture, leaks, PLANTED_SECRETS } from '../../helpers/reports.js';

/**
 * What the runner of that fixture's run would know: the credentials it was given (the old key and
 * the user id), the key it rotated to, and the invite token it was sent back; every other planted
 * secret is hidden where it stands (secret-named header, cookie, query parameter or field).
 */
const RUN_SECRETS: SecretsOptions = {
  apiKeys: ['sk_live_OldKey9876543210', 'sk_live_RotatedKey0123456789'],
  userIds: ['usr_secret_4242'],
  learned: ['inv_tok_InviteSecret999'],
};

const tmp = mkdtempSync(join(tmpdir(), 'vapc-reporters-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const ANSI = /\x1b\[/;

describe('writeReports', () => {
  it('writes report.json, junit.xml and report.html; report.json is the model unchanged when it holds no secret', async () => {
    const report = fixture('passing-run');
    const dir = join(tmp, 'all');
    const out = await writeReports(report, dir);
    expect(out.errors).toEqual([]);
    expect(JSON.parse(readFileSync(out.json, 'utf8'))).toEqual(report);
    expect(readFileSync(out.junit, 'utf8')).toMatch(/^<\?xml/);
    expect(readFileSync(out.html, 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('keeps the runner placeholders ($VAPC_API_KEY, $VAPC_USER_ID) so repro lines still work (no false positive)', async () => {
    const report = fixture('failing-run');
    const out = await writeReports(report, join(tmp, 'failing'));
    expect(JSON.parse(readFileSync(out.json, 'utf8'))).toEqual(report);
    expect(readFileSync(out.html, 'utf8')).toContain('Authorization: Bearer $VAPC_API_KEY');
    expect(readFileSync(out.junit, 'utf8')).toContain('X-User-ID: $VAPC_USER_ID');
  });

  it('still writes report.json and junit.xml when report.html cannot be written', async () => {
    const dir = join(tmp, 'html-blocked');
    mkdirSync(join(dir, 'report.html', 'occupied'), { recursive: true });
    const out = await writeReports(fixture('failing-run'), dir);
    expect(out.errors.map((e) => e.format)).toEqual(['html']);
    expect(JSON.parse(readFileSync(out.json, 'utf8')).seed).toBe(42);
    expect(readFileSync(out.junit, 'utf8')).toContain('<testsuites');
  });

  it('still writes junit.xml and report.html when report.json cannot be written', async () => {
    const dir = join(tmp, 'json-blocked');
    mkdirSync(join(dir, 'report.json', 'occupied'), { recursive: true });
    const out = await writeReports(fixture('failing-run'), dir);
    expect(out.errors.map((e) => e.format)).toEqual(['json']);
    expect(readFileSync(out.junit, 'utf8')).toContain('<testsuites');
    expect(readFileSync(out.html, 'utf8')).toContain('</html>');
  });

  it('writes only the formats asked for', async () => {
    const dir = join(tmp, 'only-junit');
    const out = await writeReports(fixture('passing-run'), dir, { formats: ['junit'] });
    expect(() => readFileSync(out.json)).toThrow();
    expect(readFileSync(out.junit, 'utf8')).toContain('<testsuites');
  });
});

describe('redaction: a secret-looking value is never written', () => {
  const report = fixture('secrets-run');

  it('the fixture really plants every secret (the test can fail)', () => {
    expect(leaks(JSON.stringify(report)).sort()).toEqual([...PLANTED_SECRETS].sort());
  });

  it('report.json, junit.xml and report.html carry none of them, and say [redacted] or the placeholder instead', async () => {
    const out = await writeReports(report, join(tmp, 'secrets'), { secrets: RUN_SECRETS });
    for (const file of [out.json, out.junit, out.html]) {
      const text = readFileSync(file, 'utf8');
      expect(leaks(text), file).toEqual([]);
      expect(text).toContain('[redacted]');
    }
    const json = JSON.parse(readFileSync(out.json, 'utf8'));
    expect(json.results[0].failures[0].request.headers.Authorization).toBe('Bearer $VAPC_API_KEY');
    expect(json.results[0].failures[0].request.headers['X-User-ID']).toBe('$VAPC_USER_ID');
    expect(json.config.api_key).toBe('[redacted]');
    expect(JSON.parse(json.results[1].failures[0].response.body).token).toBe('[redacted]');
    // Structured fields are vapc's own: never redacted.
    expect(json.results.map((r: { status: string }) => r.status)).toEqual(['failed', 'failed']);
    expect(json.summary).toEqual(report.summary);
  });

  it('console (plain, live, quiet) and GitHub output carry none of them, fed as the pipeline feeds them (a report made safe once)', () => {
    // The sinks never sanitise again: they get the runner's report, or one from disk passed through sanitizeReport once.
    const safe = sanitizeReport(report, RUN_SECRETS);
    for (const [isTTY, quiet] of [
      [false, false],
      [true, false],
      [false, true],
    ] as const) {
      let out = '';
      let summary = '';
      const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/step-summary' };
      const r = createConsoleReporter({ write: (t) => (out += t), isTTY, env, quiet, secrets: RUN_SECRETS });
      const events = composeEvents(
        r,
        createGitHubSink({
          write: (t) => (out += t),
          env,
          secrets: RUN_SECRETS,
          appendFile: (_p, t) => (summary += t),
        }),
      );
      events.onStart?.({ target: safe.target, seed: 7, suites: ['auth', 'stateful'], checksPerSuite: {}, total: 2 });
      for (const result of safe.results) events.onCheckDone?.(result);
      for (const o of safe.observations) events.onObservation?.(o);
      events.onEnd?.(safe);
      expect(leaks(out), `isTTY=${isTTY} quiet=${quiet}`).toEqual([]);
      expect(leaks(summary)).toEqual([]);
      expect(out).toContain('::error');
      expect(leaks(r.summary(safe))).toEqual([]);
    }
  });

  it('hideLocalSecrets handles curl lines, escaped JSON, HTML-escaped JSON and query parameters', () => {
    expect(hideLocalSecrets(`curl -H 'Authorization: Bearer abc.def-123' -H 'X-User-ID: u-998877'`)).toBe(
      `curl -H 'Authorization: Bearer [redacted]' -H 'X-User-ID: [redacted]'`,
    );
    expect(hideLocalSecrets('{"body":"{\\"token\\":\\"t0k3n-value\\"}"}')).toBe(
      '{"body":"{\\"token\\":\\"[redacted]\\"}"}',
    );
    expect(hideLocalSecrets('&quot;api_key&quot;: &quot;k-123456&quot;')).toBe(
      '&quot;api_key&quot;: &quot;[redacted]&quot;',
    );
    expect(hideLocalSecrets('GET /x?api_key=k123456&limit=5')).toBe('GET /x?api_key=[redacted]&limit=5');
    expect(hideLocalSecrets('sent Bearer eyJhbGciOi.x.y')).toBe('sent Bearer [redacted]');
  });

  it('leaves ordinary prose and placeholders alone (no false positive)', () => {
    const prose = 'the contract requires a Bearer token and an X-User-ID header; key regeneration is destructive';
    expect(hideLocalSecrets(prose)).toBe(prose);
    const curl = `curl -H 'Authorization: Bearer $VAPC_API_KEY' -H 'X-User-ID: $VAPC_USER_ID' -H 'Authorization: Bearer [redacted]'`;
    expect(hideLocalSecrets(curl)).toBe(curl);
    const runnerCurl = `curl -sS -i -X POST http://127.0.0.1:1/campaign -H 'authorization: Bearer '"$VAPC_API_KEY" -H 'x-user-id: '"$VAPC_USER_ID"`;
    expect(hideLocalSecrets(runnerCurl)).toBe(runnerCurl);
    expect(hideLocalSecrets(JSON.stringify(runnerCurl))).toBe(JSON.stringify(runnerCurl));
    expect(hideLocalSecrets('{"key_id":"key_1","monkey":"x","max_concurrency":201}')).toBe(
      '{"key_id":"key_1","monkey":"x","max_concurrency":201}',
    );
  });
});

const countBySuite = (results: readonly CheckResult[]): Partial<Record<CheckResult['suite'], number>> => {
  const counts: Partial<Record<CheckResult['suite'], number>> = {};
  for (const r of results) counts[r.suite] = (counts[r.suite] ?? 0) + 1;
  return counts;
};

function run(reporterEnv: Record<string, string | undefined>, isTTY: boolean, quiet = false) {
  let out = '';
  const report = fixture('failing-run');
  const r = createConsoleReporter({ write: (t) => (out += t), isTTY, env: reporterEnv, quiet });
  r.onStart?.({
    target: report.target,
    seed: report.seed,
    suites: [...new Set(report.results.map((r) => r.suite))],
    checksPerSuite: countBySuite(report.results),
    total: report.results.length,
  });
  let requests = 0;
  let suite = '';
  for (const result of report.results) {
    if (result.suite !== suite) {
      if (suite) r.onSuiteEnd?.(suite as CheckResult['suite']);
      suite = result.suite;
      r.onSuiteStart?.(result.suite, 2);
    }
    requests += result.requests;
    r.onRequest?.(requests);
    r.onCheckDone?.(result);
  }
  r.onPacing?.({ waitMs: 1500, limit: 120, remaining: 0, rpm: 120 });
  r.onSuiteEnd?.(suite as CheckResult['suite']);
  const beforeEnd = out;
  r.onEnd?.(report);
  return { out, beforeEnd, reporter: r };
}

describe('console reporter', () => {
  it('prints plain lines without colour when there is no TTY', () => {
    const { out, reporter } = run({}, false);
    expect(reporter.mode).toBe('plain');
    expect(out).not.toMatch(ANSI);
    expect(out).toContain('FAIL ranges.max-concurrency-above-maximum  POST /campaign');
    expect(out).toContain('PASS auth.missing-credentials  GET /calls');
    expect(out).toMatch(/paced 120\/min, 0\/120 left, waiting 1\.5 s/);
  });

  it('prints plain lines grouped under one header per suite when the run comes back to a suite', () => {
    const results = fixture('failing-run').results;
    const auth = results.filter((r) => r.suite === 'auth').slice(0, 2);
    const ranges = results.find((r) => r.suite === 'ranges')!;
    for (const counts of [{ auth: 2, ranges: 1 }, {}]) {
      let out = '';
      const r = createConsoleReporter({ write: (t) => (out += t), isTTY: false, env: {} });
      r.onStart?.({ target: 't', seed: 1, suites: ['auth', 'ranges'], checksPerSuite: counts, total: 3 });
      // The runner's order: auth, then ranges, then back to auth (a passive pair's late turn).
      r.onSuiteStart?.('auth', 1);
      r.onObservation?.({ id: 'auth.note', message: 'made while auth ran' });
      r.onCheckDone?.(auth[0]!);
      r.onSuiteEnd?.('auth');
      r.onSuiteStart?.('ranges', 1);
      r.onCheckDone?.(ranges);
      r.onSuiteEnd?.('ranges');
      r.onSuiteStart?.('auth', 1);
      r.onPacing?.({ waitMs: 1500, rpm: 60 });
      r.onCheckDone?.(auth[1]!);
      r.onSuiteEnd?.('auth');
      const beforeEnd = out;
      r.onEnd?.(fixture('failing-run'));
      const live = out.slice(0, out.indexOf('vapc conformance:'));
      // With the plan's counts a suite is printed when its last result is in; without them, at the end in suite order.
      const headers =
        Object.keys(counts).length > 0
          ? ['[ranges] 1 check', '[auth] 2 checks']
          : ['[auth] 2 checks', '[ranges] 1 check'];
      expect(live.match(/^\[\w+\] \d+ checks?$/gm), JSON.stringify(counts)).toEqual(headers);
      const authBlock = live.slice(live.indexOf('[auth] 2 checks'), live.indexOf('[auth] done'));
      expect(authBlock).toContain('NOTE auth.note: made while auth ran');
      expect(authBlock).toContain(`${auth[0]!.id}  ${auth[0]!.operation}`);
      expect(authBlock).toContain(`${auth[1]!.id}  ${auth[1]!.operation}`);
      // Pacing is said when it happens, not held with a suite.
      expect(beforeEnd).toMatch(/^paced 60\/min, waiting 1\.5 s$/m);
      if (Object.keys(counts).length > 0) expect(beforeEnd).toContain('[auth] done · 3/3 checks');
      else expect(beforeEnd).not.toContain('[auth]');
    }
  });

  it('prints plain lines in CI even on a TTY', () => {
    const { reporter, out } = run({ CI: 'true' }, true);
    expect(reporter.mode).toBe('plain');
    expect(out).not.toContain('\x1b[?25l');
  });

  it('shows a live progress bar with colour on a TTY', () => {
    const { out, reporter } = run({}, true);
    expect(reporter.mode).toBe('live');
    expect(reporter.color).toBe(true);
    expect(out).toMatch(ANSI);
    expect(out).toMatch(/\d+\/15 checks \| \d+ requests \| .*failed/);
  });

  it('never colours with NO_COLOR, even on a TTY', () => {
    const { out, reporter } = run({ NO_COLOR: '1' }, true);
    expect(reporter.color).toBe(false);
    expect(
      out.replace(/\x1b\[\?25[hl]|\x1b\[\d*[GKAB]|\x1b\[\?7[hl]|\x1b\[0J|\x1b\[\d+;\d+H|\x1b7|\x1b8/g, ''),
    ).not.toMatch(/\x1b\[\d+m/);
  });

  it('--quiet prints nothing until the end, then only the summary', () => {
    const { out, beforeEnd } = run({}, false, true);
    expect(beforeEnd).toBe('');
    expect(out).toContain('FAILED: 6 of 15 checks failed');
    expect(out).not.toContain('Observations');
    expect(out).not.toContain('PASS auth.missing-credentials');
  });

  it('the summary has a table per suite, each failure with rule, contract section, expected, actual and repro, and observations', () => {
    const report = fixture('failing-run');
    const text = createConsoleReporter({ write: () => {}, isTTY: false, env: {} }).summary(report);
    expect(text).toMatch(/ranges\s+1\s+1\s+0\s+0/);
    expect(text).toMatch(/total\s+6\s+6\s+2\s+1/);
    expect(text).toContain('rule:     4.2: max_concurrency 1..200 (contract 4.2)');
    expect(text).toContain('expected: 422 with a detail array naming body.max_concurrency');
    expect(text).toContain('actual:   200 and the campaign was created with max_concurrency 201');
    expect(text).toContain(`repro:    ${report.results[2]!.repro}`);
    expect(text).toContain('Observations (3)');
    expect(text).toContain('Could not check (1)');
  });
});

describe('replay command', () => {
  it('replays the same target, seed and runs; --embedded for the embedded server; --suite only for a subset', () => {
    const report = fixture('failing-run');
    expect(replayCommand(report)).toBe(
      'npx --no-install vapc run --base-url http://127.0.0.1:43117 --seed 42 --runs 40',
    );
    report.config = { embedded: true, suites: ['ranges', 'auth'], include_destructive: true };
    expect(replayCommand(report)).toBe(
      'npx --no-install vapc run --embedded --seed 42 --suite ranges,auth --include-destructive',
    );
    expect(renderHtml(report)).toContain(
      'npx --no-install vapc run --embedded --seed 42 --suite ranges,auth --include-destructive',
    );
    // A report that does not say which suites the contract has: the selected list is given, which replays the same run.
    report.config = { embedded: true, suites: ['auth', 'ranges'] };
    expect(replayCommand(report)).toBe('npx --no-install vapc run --embedded --seed 42 --suite auth,ranges');
    // Names no suite may have are never pasted into the command.
    report.config = { embedded: true, suites: ['auth', '$(rm -rf ~)'], all_suites: ['auth', 'ranges'] };
    expect(replayCommand(report)).toBe('npx --no-install vapc run --embedded --seed 42 --suite auth');
  });
});

describe('GitHub Actions', () => {
  it('escapes workflow command data and properties by GitHub rules', () => {
    expect(escapeData('50% done\r\nnext')).toBe('50%25 done%0D%0Anext');
    expect(escapeProperty('a: b, c%')).toBe('a%3A b%2C c%25');
  });

  it('emits one ::error per failure and a ::warning per tool error, each on one line', () => {
    const report = fixture('failing-run');
    const lines = githubAnnotations(report).trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('::error ')).length).toBe(
      report.results.filter((r) => r.status === 'failed').length,
    );
    expect(lines.filter((l) => l.startsWith('::warning ')).length).toBe(1);
    const rate = lines.find((l) => l.includes('ratelimit.burst-answers-429'))!;
    expect(rate).toContain('title=ratelimit.burst-answers-429 GET /calls::');
    expect(rate).toContain('%{http_code}'.replace('%', '%25'));
    expect(rate).toContain('%0Arepro: for i in');
  });

  it('appends a Markdown summary to $GITHUB_STEP_SUMMARY only under GitHub Actions', () => {
    const file = join(tmp, 'step-summary.md');
    writeFileSync(file, '# earlier step\n');
    const report = fixture('failing-run');
    createGitHubSink({ write: () => {}, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file } }).onEnd?.(report);
    const md = readFileSync(file, 'utf8');
    expect(md.startsWith('# earlier step\n')).toBe(true);
    expect(md).toContain('## vapc conformance: ❌ 6 checks failed');
    expect(md).toContain('| ranges | 1 | 1 | 0 | 0 |');
    expect(md).toContain('&lt;h1&gt;Unprocessable&lt;/h1&gt;');
    let out = '';
    const env = { GITHUB_STEP_SUMMARY: file };
    composeEvents(
      createConsoleReporter({ write: (t) => (out += t), isTTY: false, env }),
      createGitHubSink({ write: (t) => (out += t), env }),
    ).onEnd?.(report);
    expect(out).not.toContain('::error');
    expect(readFileSync(file, 'utf8')).toBe(md);
  });

  it('the step summary of a passing run says so', () => {
    expect(githubStepSummary(fixture('passing-run'))).toContain('✅ no check failed');
  });
});

describe('escaping of server-controlled text', () => {
  it('report.html never contains raw markup from a response body', () => {
    const html = renderHtml(fixture('failing-run'));
    expect(html).not.toContain('<script>fetch(');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;fetch(');
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  it('junit.xml replaces characters XML cannot carry', () => {
    const report = fixture('failing-run');
    report.results[1]!.message = 'NUL\u0000 and ESC\u001b and ]]> and "quotes"';
    const xml = renderJunit(report);
    expect(xml).not.toMatch(/[\u0000\u001b]/);
    expect(xml).toContain('NUL\uFFFD and ESC\uFFFD and ]]&gt; and &quot;quotes&quot;');
  });
});
