// vapc drift FILE|DIR|- (docs/drift.md): recorded traffic of loopback servers judged by the runner's
// passive judges, through the reports, baseline, coverage gate and verdict of `vapc run`.
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startReferenceServer, type ReferenceServer } from '../../src/server/index.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import type { RunReport } from '../../src/results/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { startFaultyServer } from '../catalog/faults/index.js';
import { driftCommand } from '../../src/cli/commands/drift.js';
import { ANSWER_HEADERS, cli, lineOf, ndjsonOf, runTraffic, tempDir } from '../helpers/traffic.js';

const STACK = /\n\s+at .+:\d+:\d+/;
let spec: SpecModel;
let correct: Exchange[];
let faulty: Exchange[];
const dir = tempDir('vapc-drift-');

const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const reportOf = (reportDir: string): RunReport => JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));

async function drift(args: string[]) {
  const reportDir = join(tempDir('vapc-drift-r-'), 'r');
  const r = await cli(['drift', ...args, '--report-dir', reportDir]);
  return { ...r, reportDir, report: () => reportOf(reportDir) };
}

beforeAll(async () => {
  spec = await loadSpec();
  const suites = ['schema', 'stateful', 'robustness', 'cors'] as const;
  const server: ReferenceServer = await startReferenceServer({ port: 0, spec, rateLimit: 1e6, rateWindowMs: 60_000 });
  const broken = await startFaultyServer('call-duration-string', { rateLimit: 1e6, rateWindowMs: 60_000 });
  try {
    [correct, faulty] = await Promise.all([
      runTraffic(server, spec, { runs: 2, suites: [...suites] }),
      runTraffic(broken, spec, { runs: 2, suites: [...suites] }),
    ]);
  } finally {
    await Promise.all([server.close(), broken.close()]);
  }
});

describe('vapc drift: the runner judges, on recorded traffic', () => {
  it("passes the reference server's traffic, and writes every report with the traffic and coverage blocks", async () => {
    const r = await drift([write('correct.ndjson', ndjsonOf(correct))]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const report = r.report();
    expect(report.verdict).toBe('passed');
    expect(report.summary.failed).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(10);
    expect(report.traffic).toMatchObject({ source: 'drift', exchanges: correct.length, on_contract: correct.length });
    expect(report.coverage!.summary.judged).toBeGreaterThan(0);
    expect(report.coverage!.cells.some((c) => c.state === 'not-sent' && /never exercised/.test(c.reason ?? ''))).toBe(
      true,
    );
    expect(readdirSync(r.reportDir).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.sarif']);
    expect(r.out).toMatch(/traffic: \d+ exchange\(s\), \d+ on the contract/);
  });

  it("fails a faulty server's traffic with the runner's own finding: the check, the kind and the field", async () => {
    const r = await drift([write('faulty.ndjson', ndjsonOf(faulty))]);
    expect(r.code).toBe(1);
    const failed = r.report().results.filter((x) => x.status === 'failed');
    expect(failed.map((x) => `${x.id} ${x.operation}`)).toEqual(['schema.response-conforms GET /calls']);
    const failure = failed[0]!.failures![0]!;
    expect(failure).toMatchObject({ kind: 'schema', field: { location: 'response', pointer: '/0/duration_seconds' } });
    expect(failure.recorded_at).toMatch(/faulty\.ndjson line \d+$/);
    expect(failure.repro).toMatch(/^curl /);
    expect(failed[0]!.message).toMatch(/recorded answer\(s\) judged failed/);
  });

  it('the baseline of the runner holds: known findings pass, a --write-baseline file round-trips', async () => {
    const file = write('faulty-b.ndjson', ndjsonOf(faulty));
    const baseline = join(dir, 'drift-baseline.yaml');
    const first = await drift([file, '--write-baseline', baseline]);
    expect(first.code).toBe(1);
    expect(first.out).toMatch(/baseline: wrote 1 finding/);
    const second = await drift([file, '--baseline', baseline]);
    expect(second.code).toBe(0);
    expect(second.report().summary.known).toBe(1);
  });

  it('--min-coverage gates on what the traffic judged, listing what it never exercised', async () => {
    const r = await drift([write('gate.ndjson', ndjsonOf(correct)), '--min-coverage', '99']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/coverage/i);
  });

  it('`vapc report` on a drift report gives the same verdict, and its replay line is a vapc drift', async () => {
    const r = await drift([write('again.ndjson', ndjsonOf(faulty))]);
    const again = await cli(['report', r.reportDir, '--format', 'console']);
    expect(again.code).toBe(r.code);
    expect(again.out).toMatch(/vapc drift .*again\.ndjson/);
  });

  it('judges under --base-path: recorded URLs with a prefix before the contract paths', async () => {
    const prefixed = correct.map((e) => {
      const url = new URL(e.request.url);
      url.pathname = `/v2${url.pathname}`;
      return { ...e, request: { ...e.request, url: url.href } };
    });
    const without = await drift([write('prefixed.ndjson', ndjsonOf(prefixed))]);
    expect(without.code).toBe(3);
    expect(without.report().traffic!.on_contract).toBe(0);
    const withBase = await drift([write('prefixed2.ndjson', ndjsonOf(prefixed)), '--base-path', '/v2']);
    expect(withBase.code).toBe(0);
    expect(withBase.report().traffic!.on_contract).toBe(prefixed.length);
  });
});

describe('vapc drift: what is not traffic to judge', () => {
  it('traffic no judge judged is inconclusive (exit 3), exit 0 with --allow-inconclusive, said in the report', async () => {
    const elsewhere = lineOf({ method: 'GET', url: 'http://x.test/not-the-contract' }, { status: 200, body: '{}' });
    const r = await drift([write('elsewhere.ndjson', `${elsewhere}\n`)]);
    expect(r.code).toBe(3);
    expect(r.report().verdict).toBe('inconclusive');
    expect(r.report().evidence!.reasons[0]!.kind).toBe('traffic-unjudged');
    const allowed = await drift([write('elsewhere2.ndjson', `${elsewhere}\n`), '--allow-inconclusive']);
    expect(allowed.code).toBe(0);
    expect(allowed.err).toMatch(/INCONCLUSIVE/);
  });

  const good = lineOf(
    { method: 'GET', url: 'http://x.test/health' },
    { status: 200, headers: ANSWER_HEADERS, body: '{"status":"ok"}' },
  );
  const refusals: Array<[string, string, RegExp]> = [
    ['a line that is not JSON', `${good}\n${good}\n{"request": nope\n`, /line 3: not JSON/],
    [
      'a line without a response',
      `${good}\n{"request":{"method":"GET","url":"/health"}}\n`,
      /line 2: no "response" object/,
    ],
    [
      'a status that is no status',
      `${lineOf({ method: 'GET', url: '/health' }, { status: 9000 })}\n`,
      /line 1: the response status is missing or not a status/,
    ],
    [
      'a header value that is an object',
      `${JSON.stringify({ request: { method: 'GET', url: '/health', headers: { a: { b: 1 } } }, response: { status: 200 } })}\n`,
      /line 1: the request headers: the value of a header is not a string/,
    ],
    [
      'a request body nested 5000 levels deep',
      `${lineOf({ method: 'POST', url: '/campaign', body: '['.repeat(5000) + ']'.repeat(5000) }, { status: 200 })}\n`,
      /line 1: the request body is nested deeper than 1000 levels/,
    ],
    ['a HAR without entries', '{"log": {"version": "1.2"}}', /not a HAR 1\.2 document/],
    [
      'a URL that is not http',
      `${lineOf({ method: 'GET', url: 'file:///etc/passwd' }, { status: 200 })}\n`,
      /not http or https/,
    ],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses ${what}: one line, exit 2, nothing written`, async () => {
      const name = what.includes('HAR') ? 'bad.har' : 'bad.ndjson';
      const path = join(tempDir(), name);
      writeFileSync(path, text);
      const r = await drift([path]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err).toMatch(/\[E_TRAFFIC\]\n$/);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err + r.out).not.toMatch(STACK);
      expect(existsSync(join(r.reportDir, 'report.json'))).toBe(false);
    });
  }

  it('refuses a missing file, an empty directory and a symlink leading out of the checkout (exit 2)', async () => {
    expect((await drift([join(dir, 'nope.ndjson')])).err).toMatch(/no such file/);
    const empty = join(dir, 'empty-dir');
    mkdirSync(empty);
    expect((await drift([empty])).err).toMatch(/a directory with no recording in it/);
    // A recording in the checkout that links out of it (to a file the pull request did not write).
    const checkout = tempDir('vapc-drift-checkout-');
    symlinkSync(write('outside.ndjson', ndjsonOf(correct.slice(0, 2))), join(checkout, 'traffic.ndjson'));
    const io = { stdout: () => undefined, stderr: () => undefined, env: {}, isTTY: false };
    await expect(
      driftCommand('traffic.ndjson', { reportDir: join(tempDir(), 'r') }, io, { cwd: checkout }),
    ).rejects.toThrow(/recording traffic\.ndjson: refused: it leads outside/);
  });
});

describe('vapc drift: formats', () => {
  const health = { method: 'GET', url: 'http://api.test/health', headers: { authorization: 'Bearer k' } };

  it('reads HAR 1.2: base64 bodies, header lists, and counts an entry without an answer (not judged)', async () => {
    const entry = (status: number, text: string, encoding?: string) => ({
      request: { method: 'GET', url: health.url, headers: [{ name: 'Authorization', value: 'Bearer k' }] },
      response: {
        status,
        headers: Object.entries({ ...ANSWER_HEADERS, 'content-type': 'text/html' }).map(([name, value]) => ({
          name,
          value,
        })),
        content: { size: text.length, text, ...(encoding ? { encoding } : {}) },
      },
    });
    const har = {
      log: {
        version: '1.2',
        entries: [entry(200, Buffer.from('<p>hi</p>').toString('base64'), 'base64'), entry(0, '')],
      },
    };
    const r = await drift([write('traffic.har', JSON.stringify(har))]);
    expect(r.code).toBe(1);
    const report = r.report();
    expect(report.traffic).toMatchObject({ exchanges: 1, unanswered: 1 });
    const failed = report.results.find((x) => x.status === 'failed')!;
    expect(failed.failures![0]).toMatchObject({ kind: 'content-type' });
  });

  it('reads a Kong log (no bodies): the status and headers are judged, the body is not', async () => {
    const kong = (status: number, type: string) =>
      JSON.stringify({
        request: {
          method: 'GET',
          uri: '/health',
          url: 'http://kong.test:8000/health',
          headers: { host: 'kong.test:8000' },
        },
        response: { status, headers: { ...ANSWER_HEADERS, 'content-type': type } },
        latencies: { request: 3, kong: 1, proxy: 2 },
        route: { id: 'r' },
        service: { id: 's' },
      });
    const ok = await drift([write('kong.log', `${kong(200, 'application/json')}\n`)]);
    expect(ok.code).toBe(0);
    expect(ok.report().config['format']).toBe('ndjson');
    const bad = await drift([write('kong-500.log', `${kong(503, 'application/json')}\n`), '--format', 'kong']);
    expect(bad.code).toBe(1);
    expect(bad.report().results.find((x) => x.status === 'failed')!.id).toBe('robustness.no-5xx-valid');
  });

  it('reads standard input (-), streamed', async () => {
    const io = { stdout: () => undefined, stderr: () => undefined, env: {}, isTTY: false };
    const text = ndjsonOf(faulty);
    const chunks = async function* () {
      for (let i = 0; i < text.length; i += 4096) yield Buffer.from(text.slice(i, i + 4096));
    };
    const reportDir = join(tempDir(), 'r');
    const code = await driftCommand('-', { reportDir }, io, { stdin: chunks() });
    expect(code).toBe(1);
    expect(reportOf(reportDir).traffic!.exchanges).toBe(faulty.length);
    expect(reportOf(reportDir).config['recording']).toBe('standard input');
  });

  it('reads a directory of recordings in name order', async () => {
    const sub = join(dir, 'many');
    mkdirSync(sub);
    writeFileSync(join(sub, 'a.ndjson'), ndjsonOf(correct.slice(0, 20)));
    writeFileSync(join(sub, 'b.jsonl'), ndjsonOf(faulty));
    writeFileSync(join(sub, 'notes.txt'), 'not read');
    const r = await drift([sub]);
    expect(r.code).toBe(1);
    expect(r.report().traffic!.exchanges).toBe(20 + faulty.length);
    expect(r.report().results.find((x) => x.status === 'failed')!.failures![0]!.recorded_at).toMatch(/^b\.jsonl line/);
  });
});

describe('vapc drift: the credentials of a recording never reach an output', () => {
  it('the bearer value, the user id, cookies, a token in a body and an x-secret field: in no stream and no file', async () => {
    const secrets = {
      bearer: 'sk_live_4f9aQ27xZpLm88vRtY31',
      user: 'usr_7d1e0a59c2b34f6e',
      cookie: 'sess_9a8b7c6d5e4f3a2b1c0d',
      bodyToken: 'tok_3c2b1a0f9e8d7c6b5a4f',
      invite: 'inv_8e7d6c5b4a3f2e1d0c9b',
    };
    const headers = {
      authorization: `Bearer ${secrets.bearer}`,
      'x-user-id': secrets.user,
      cookie: `session=${secrets.cookie}`,
      'content-type': 'application/json',
    };
    const lines = [
      // A valid invite create answered with its x-secret token (a success: judged, passes)...
      lineOf(
        {
          method: 'POST',
          url: 'http://api.test/orgs/org-1/invites',
          headers,
          body: JSON.stringify({ email: 'a@example.com', role: 'member', token: secrets.bodyToken }),
        },
        {
          status: 201,
          headers: ANSWER_HEADERS,
          body: JSON.stringify({ id: 'i-1', email: 'a@example.com', token: secrets.invite }),
        },
      ),
      // ...then answers that fail and echo every credential back, to be shown as evidence.
      lineOf(
        { method: 'GET', url: `http://api.test/calls?limit=5&note=${secrets.invite}`, headers },
        {
          status: 500,
          headers: { ...ANSWER_HEADERS, 'set-cookie': `session=${secrets.cookie}; HttpOnly` },
          body: JSON.stringify({
            detail: `boom for ${secrets.user} with ${secrets.bearer} ${secrets.cookie} ${secrets.bodyToken} ${secrets.invite}`,
          }),
        },
      ),
      lineOf(
        { method: 'GET', url: 'http://api.test/users/me', headers },
        {
          status: 200,
          headers: { ...ANSWER_HEADERS, 'content-type': 'text/plain' },
          body: `you are ${secrets.user} (${secrets.bearer})`,
        },
      ),
    ];
    const r = await drift([write('secrets.ndjson', `${lines.join('\n')}\n`)]);
    expect(r.code).toBe(1);
    const failed = r.report().results.filter((x) => x.status === 'failed');
    expect(failed.length).toBeGreaterThanOrEqual(2);
    const outputs = [r.out, r.err, ...readdirSync(r.reportDir).map((f) => readFileSync(join(r.reportDir, f), 'utf8'))];
    for (const text of outputs)
      for (const [name, value] of Object.entries(secrets)) {
        expect(text.includes(value), `${name} in an output`).toBe(false);
        expect(text.includes(value.slice(4, 16)), `a piece of ${name} in an output`).toBe(false);
      }
    // The evidence is still there, the credentials replaced.
    expect(readFileSync(join(r.reportDir, 'report.json'), 'utf8')).toMatch(/\$VAPC_USER_ID/);
  });
});
