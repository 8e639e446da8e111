import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { FIXTURES, leaks } from '../../helpers/reports.js';

function io(env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  const cli: CliIo = { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t), env, isTTY: false };
  return { cli, out };
}

function dirWith(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vapc-report-cmd-'));
  copyFileSync(join(FIXTURES, `${name}.json`), join(dir, 'report.json'));
  return dir;
}

describe('vapc report DIR', () => {
  it('re-renders console, junit.xml and report.html from report.json; exit 1 when the report has failures', async () => {
    const dir = dirWith('failing-run');
    const before = readFileSync(join(dir, 'report.json'), 'utf8');
    const { cli, out } = io();
    expect(await main(['report', dir], cli)).toBe(1);
    expect(out.stdout).toContain('FAILED: 6 of 15 checks failed');
    expect(out.stdout).toContain('ranges.max-concurrency-above-maximum');
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<testsuite name="ranges"');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('id="count-failed" data-count="failed">6<');
    expect(readFileSync(join(dir, 'report.json'), 'utf8')).toBe(before);
    expect(out.stderr).toBe('');
  });

  it('exit 0 for a passing report; --format limits what is rendered', async () => {
    const dir = dirWith('passing-run');
    const { cli, out } = io();
    expect(await main(['report', dir, '--format', 'junit'], cli)).toBe(0);
    expect(out.stdout).not.toContain('PASSED');
    expect(existsSync(join(dir, 'junit.xml'))).toBe(true);
    expect(existsSync(join(dir, 'report.html'))).toBe(false);
  });

  it('--quiet prints the brief summary only', async () => {
    const { cli, out } = io();
    expect(await main(['report', dirWith('failing-run'), '--format', 'console', '--quiet'], cli)).toBe(1);
    expect(out.stdout).toContain('FAILED: 6 of 15 checks failed');
    expect(out.stdout).not.toContain('Observations');
  });

  it('never prints a secret from the report', async () => {
    const dir = dirWith('secrets-run');
    const { cli, out } = io();
    await main(['report', dir], cli);
    expect(leaks(out.stdout + out.stderr)).toEqual([]);
    expect(leaks(readFileSync(join(dir, 'report.html'), 'utf8'))).toEqual([]);
  });

  it('never prints a token of the environment that the report quotes (as diff and lint do not either)', async () => {
    const token = 'ghs_ReportQuotedToken0123456789';
    const dir = dirWith('failing-run');
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      results: Array<{ message: string }>;
    };
    for (const r of report.results) r.message = `${r.message} ${token}`;
    writeFileSync(join(dir, 'report.json'), JSON.stringify(report));
    const { cli, out } = io({ GITHUB_TOKEN: token });
    await main(['report', dir], cli);
    expect(out.stdout + out.stderr).not.toContain(token);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).not.toContain(token);
  });

  it('exit 2 with a clear message when report.json is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vapc-report-empty-'));
    const { cli, out } = io();
    expect(await main(['report', dir], cli)).toBe(2);
    expect(out.stderr).toMatch(
      /report\.json: does not exist; run `npx --no-install vapc run --report-dir .*` first \[E_CONFIG\]/,
    );
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });

  it('exit 2 with a clear message when report.json is not JSON or not a report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vapc-report-bad-'));
    writeFileSync(join(dir, 'report.json'), '{"target": "http://x", ');
    const a = io();
    expect(await main(['report', dir], a.cli)).toBe(2);
    expect(a.out.stderr).toMatch(/report\.json is not valid JSON/);
    writeFileSync(
      join(dir, 'report.json'),
      JSON.stringify({
        target: 'http://x',
        seed: 1,
        summary: {},
        results: [{ id: 'a.b', suite: 'auth', operation: 'GET /x', status: 'maybe', message: '' }],
      }),
    );
    const b = io();
    expect(await main(['report', dir], b.cli)).toBe(2);
    expect(b.out.stderr).toMatch(/results\[0\]\.status must be one of passed, failed, skipped, error/);
  });

  it('accepts the minimal documented report.json shape of runner-interface.md', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vapc-report-min-'));
    writeFileSync(
      join(dir, 'report.json'),
      JSON.stringify({
        tool: { name: 'voice-agent-contract', version: '0.1.0' },
        spec_version: '2.0.1',
        target: 'http://127.0.0.1:4010',
        seed: 42,
        summary: { passed: 0, failed: 1, skipped: 0, requests: 3, duration_ms: 10 },
        results: [
          {
            id: 'ranges.max-concurrency-above-maximum',
            suite: 'ranges',
            operation: 'POST /campaign',
            status: 'failed',
            message: 'max_concurrency=201 was accepted (200)',
            repro: 'curl -X POST ...',
          },
        ],
      }),
    );
    const { cli, out } = io();
    expect(await main(['report', dir], cli)).toBe(1);
    expect(out.stdout).toContain('repro:    curl -X POST ...');
    expect(out.stderr).toBe('');
  });

  it('exit 2 for an unknown --format', async () => {
    const { cli, out } = io();
    expect(await main(['report', dirWith('passing-run'), '--format', 'pdf'], cli)).toBe(2);
    expect(out.stderr).toMatch(/unknown: pdf/);
  });
});
