import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, type TestSuites } from 'junit2json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import type { ReferenceServer } from '../../src/server/index.js';
import type { RunReport } from '../../src/results/model.js';
import { startFaultyServer } from '../catalog/faults/index.js';

const sh = promisify(execFile);
const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * A failing run against a faulty server shows, in each format, enough to reproduce the failure
 * without rerunning: the check, the rule, expected vs actual and a repro line that, run as is
 * with the credentials in the environment, gets the same wrong answer again.
 */
describe('reports of a failing run against a faulty server', () => {
  let server: ReferenceServer;
  const dir = mkdtempSync(join(tmpdir(), 'vapc-e2e-'));
  const stepSummary = join(dir, 'step-summary.md');
  let code: number;
  let console = '';
  let report: RunReport;

  beforeAll(async () => {
    server = await startFaultyServer('range-max-concurrency-above-max', { rateLimit: 100_000, rateWindowMs: 60_000 });
    writeFileSync(stepSummary, '');
    const io: CliIo = {
      stdout: (t) => void (console += t),
      stderr: (t) => void (console += t),
      env: { CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary },
      isTTY: false,
    };
    const argv = [
      'run',
      '--base-url',
      server.url,
      '--api-key',
      server.fixtures.api_key,
      '--user-id',
      server.fixtures.user_id,
    ];
    code = await main([...argv, '--suite', 'ranges', '--seed', '7', '--runs', '5', '--report-dir', dir], io);
    report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunReport;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('exits 1 and every output names the failed check with its rule, expected, actual and repro', async () => {
    expect(code).toBe(1);
    const failed = report.results.filter((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    const f = failed.find((r) => r.operation === 'POST /campaign')!;
    expect(f).toBeDefined();
    const repro = f.failures![0]!.repro!;
    expect(repro).toMatch(/^curl /);

    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    const cases = (((await parse(junit)) as TestSuites).testsuite ?? []).flatMap((s) => s.testcase ?? []);
    const tc = cases.find((c) => c.name === f.id && c.classname === `ranges.${f.operation}`)!;
    expect(tc.failure![0]!.inner).toContain(`repro: ${repro}`);
    expect(tc.failure![0]!.inner).toContain(`expected: ${f.failures![0]!.expected}`);

    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    const escaped = repro
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;');
    expect(html).toContain(escaped);

    expect(console).toContain(`repro:    ${repro}`);
    expect(console).toContain(`rule:     ${f.rule} (contract ${f.contract_ref})`);
    expect(console).toMatch(new RegExp(`::error title=${f.id.replace(/\./g, '\\.')} `));
    expect(readFileSync(stepSummary, 'utf8')).toContain(repro);
  });

  it('writes neither the API key nor the user id anywhere', () => {
    for (const text of [
      console,
      readFileSync(stepSummary, 'utf8'),
      ...['report.json', 'junit.xml', 'report.html'].map((f) => readFileSync(join(dir, f), 'utf8')),
    ]) {
      expect(text).not.toContain(server.fixtures.api_key);
      expect(text).not.toContain(server.fixtures.user_id);
    }
  });

  it.skipIf(!hasCurl)(
    'the repro line, run as is with the credentials in the environment, gets the wrong answer again',
    async () => {
      const f = report.results.find((r) => r.status === 'failed' && r.operation === 'POST /campaign')!;
      const { stdout } = await sh('sh', ['-c', f.failures![0]!.repro!], {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          VAPC_API_KEY: server.fixtures.api_key,
          VAPC_USER_ID: server.fixtures.user_id,
        },
        timeout: 10_000,
      });
      const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(stdout)?.[1]);
      expect(status).toBeGreaterThanOrEqual(200);
      expect(status).toBeLessThan(300);
      expect(stdout).toContain('"max_concurrency":201');
    },
  );
});
