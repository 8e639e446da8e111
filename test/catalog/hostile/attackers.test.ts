import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { startFaultyServer } from '../faults/index.js';
import { API_KEY, USER_ID, startAttacker, type Attack, type AttackerServer } from './attackers.js';

/**
 * The server under test is untrusted input (issue 11). Each attacker runs under a simulated GitHub
 * Actions environment; the test then reads everything vapc wrote (stdout, stderr, the step
 * summary, report.json, junit.xml, report.html) and asserts that the attacker steered none of it.
 */
const root = mkdtempSync(join(tmpdir(), 'vapc-attackers-'));

interface Outputs {
  code: number;
  stdout: string;
  stderr: string;
  summary: string;
  files: Record<'report.json' | 'junit.xml' | 'report.html', string>;
  dir: string;
}

async function runAgainst(
  server: Pick<AttackerServer, 'url'>,
  name: string,
  extra: string[] = [],
  credentials = { apiKey: API_KEY, userId: USER_ID },
): Promise<Outputs> {
  const dir = join(root, name);
  const summaryFile = join(root, `${name}.summary.md`);
  writeFileSync(summaryFile, '');
  let stdout = '';
  let stderr = '';
  const code = await main(
    [
      'run',
      '--base-url',
      server.url,
      '--api-key',
      credentials.apiKey,
      '--user-id',
      credentials.userId,
      '--seed',
      '7',
      '--runs',
      '2',
      '--timeout-ms',
      '5000',
      '--report-dir',
      dir,
      ...extra,
    ],
    {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile, CI: 'true' },
      isTTY: false,
    },
  );
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  return {
    code,
    stdout,
    stderr,
    summary: readFileSync(summaryFile, 'utf8'),
    files: { 'report.json': read('report.json'), 'junit.xml': read('junit.xml'), 'report.html': read('report.html') },
    dir,
  };
}

/** Workflow commands vapc itself writes: an annotation titled with a check id (or "vapc ..."). */
const OWN_COMMAND = /^::(?:error|warning) title=(?:vapc[ %]|[a-z]+\.[a-z0-9-]+ )[^\n]*$/;

function expectNoForgedCommands(stdout: string): void {
  for (const line of stdout.split(/\r?\n|\r/)) {
    // The forged text may be quoted as data inside a line; no line may begin as its command.
    if (/^\s*::/.test(line)) {
      expect(line).toMatch(OWN_COMMAND);
      expect(line).not.toMatch(/^::[a-z]+ title=(?:INJECTED|FORGED)/);
    }
    expect(line).not.toMatch(/##\[/);
  }
  expect(stdout).not.toContain('\x1b');
  expect(stdout).not.toContain('\x07');
  expect(stdout).not.toContain('\u202e');
}

/** Every 8-character piece of a secret, to prove not even a fragment leaked. */
function pieces(secret: string, size = 8): string[] {
  const out: string[] = [];
  for (let i = 0; i + size <= secret.length; i++) out.push(secret.slice(i, i + size));
  return out;
}

function expectNoKeyPieces(o: Outputs, key = API_KEY): void {
  const all = [o.stdout, o.stderr, o.summary, ...Object.values(o.files)].join('\n');
  const leaked = pieces(key).filter((p) => all.includes(p));
  expect(leaked).toEqual([]);
}

/** Failures are the same number everywhere, counts are numbers, statuses are verdicts. */
function expectConsistentVerdicts(o: Outputs): number {
  const report = JSON.parse(o.files['report.json']);
  for (const field of ['passed', 'failed', 'skipped', 'requests', 'duration_ms'])
    expect(typeof report.summary[field]).toBe('number');
  const statuses = new Set(report.results.map((r: { status: string }) => r.status));
  for (const s of statuses) expect(['passed', 'failed', 'skipped', 'error']).toContain(s);
  const failed = report.results.filter((r: { status: string }) => r.status === 'failed').length;
  expect(failed).toBeGreaterThan(0);
  expect(report.summary.failed).toBe(failed);
  expect(o.code).toBe(1);
  expect(o.stdout).toContain(`FAILED: ${failed} of ${report.results.length} checks failed`);
  expect(o.stdout).not.toMatch(/^PASSED/m);
  expect(o.summary).toContain(`${failed} check${failed === 1 ? '' : 's'} failed`);
  expect(o.files['junit.xml']).toMatch(new RegExp(`<testsuites[^>]* failures="${failed}"`));
  return failed;
}

async function reportReadsBack(dir: string): Promise<number> {
  let err = '';
  const code = await main(['report', dir, '--format', 'console'], {
    stdout: () => undefined,
    stderr: (t) => void (err += t),
    env: {},
    isTTY: false,
  });
  expect(err).toBe('');
  return code;
}

describe('hostile servers that attack the judge', () => {
  const servers = new Map<Attack, AttackerServer>();
  beforeAll(async () => {
    for (const kind of ['injection', 'teach-failed', 'secret-bomb', 'echo-key', 'hostile-discovery'] as const)
      servers.set(kind, await startAttacker(kind));
  });
  afterAll(async () => {
    for (const s of servers.values()) await s.close();
  });

  it(
    'injection: no forged workflow command, no escape byte, Markdown inert, every report agrees',
    { timeout: 120_000 },
    async () => {
      const o = await runAgainst(servers.get('injection')!, 'injection');
      expectNoForgedCommands(o.stdout);
      expectConsistentVerdicts(o);
      // The step summary renders no link, image or HTML the server wrote.
      expect(o.summary).not.toMatch(/(?<!\\)\]\(/);
      expect(o.summary).not.toMatch(/<img/i);
      expect(o.summary).not.toContain('\x1b');
      // The evidence is still there, as visible escapes.
      expect(o.files['report.json']).toContain('\\\\x1b[2J');
      expect(o.files['junit.xml']).not.toContain('\x1b');
      expect(o.files['report.html']).not.toContain('\x1b');
      expect(o.files['report.html']).not.toMatch(/<img src=x/);
      expectNoKeyPieces(o);
      expect(await reportReadsBack(o.dir)).toBe(1);
    },
  );

  it(
    'a word taught as a secret ("failed") erases no verdict and garbles no rule text',
    { timeout: 120_000 },
    async () => {
      const o = await runAgainst(servers.get('teach-failed')!, 'teach-failed');
      expectConsistentVerdicts(o);
      const report = JSON.parse(o.files['report.json']);
      for (const r of report.results) expect(r.rule).not.toMatch(/redacted/i);
      expect(o.files['report.json']).not.toMatch(/"status":\s*"\[redacted\]"/i);
      expectNoForgedCommands(o.stdout);
      expectNoKeyPieces(o);
      expect(await reportReadsBack(o.dir)).toBe(1);
    },
  );

  it(
    'a secret bomb (30,000 token-like values per body) ends with every report written',
    { timeout: 120_000 },
    async () => {
      // Two suites are enough to record hundreds of failures carrying the bomb; the whole run's time is
      // measured outside the tests (docs/untrusted-servers.md), never asserted here.
      const o = await runAgainst(servers.get('secret-bomb')!, 'secret-bomb', ['--suite', 'auth,schema']);
      expectConsistentVerdicts(o);
      expectNoForgedCommands(o.stdout);
      expectNoKeyPieces(o);
      expect(await reportReadsBack(o.dir)).toBe(1);
    },
  );

  it(
    'a server that echoes the key behind 100 characters of padding leaks not even 8 characters of it',
    { timeout: 120_000 },
    async () => {
      const o = await runAgainst(servers.get('echo-key')!, 'echo-key');
      expectConsistentVerdicts(o);
      expectNoKeyPieces(o);
      const all = [o.stdout, o.summary, ...Object.values(o.files)].join('\n');
      expect(all).not.toContain(USER_ID);
      expect(await reportReadsBack(o.dir)).toBe(1);
    },
  );

  it(
    'a mock answering "string" as the invite token and the regenerated key: rule texts read normally, the key leaks nowhere',
    { timeout: 120_000 },
    async () => {
      // The reference server with the fault that makes it answer like a mock of the schema's examples
      // (test/catalog/faults): the word "string" is not distinctive, so it is never learned as a secret.
      const server = await startFaultyServer('example-string-secrets', { rateLimit: 1_000_000, rateWindowMs: 60_000 });
      try {
        const { api_key, user_id, recipient_list_id, api_key_id } = server.fixtures;
        const config = join(root, 'example-string.yaml');
        writeFileSync(config, `fixtures:\n  recipient_list_id: ${recipient_list_id}\n  api_key_id: ${api_key_id}\n`);
        // Under CI a config file's fixtures are read only with --trust-config (this one is the test's own).
        const o = await runAgainst(
          server,
          'example-string',
          ['--include-destructive', '--config', config, '--trust-config'],
          {
            apiKey: api_key,
            userId: user_id,
          },
        );
        expectConsistentVerdicts(o);
        const report = JSON.parse(o.files['report.json']);
        const failed = report.results.filter((r: { status: string }) => r.status === 'failed');
        // The one breach: the key it returned does not work. The checks after it that need a key are
        // skipped naming it, not failed for it.
        expect(failed.map((r: { id: string }) => r.id)).toEqual(['stateful.regenerate-key']);
        for (const r of report.results) {
          expect(r.rule).not.toMatch(/redacted|\$VAPC_/i);
          expect(r.message).not.toMatch(/redacted|\$VAPC_/i);
        }
        // The garbling this guards against: the rotated key "string" scrubbed from `{detail: string}`.
        expect(report.results.find((r: { id: string }) => r.id === 'auth.missing-credentials').rule).toContain(
          'is answered 401 {detail: string}',
        );
        expect(o.stdout).not.toMatch(/\$VAPC_API_KEY\}/);
        expectNoForgedCommands(o.stdout);
        expectNoKeyPieces(o, api_key);
        expect(await reportReadsBack(o.dir)).toBe(1);
      } finally {
        await server.close();
      }
    },
  );

  it('hostile discovered values print as data in --dry-run', { timeout: 60_000 }, async () => {
    const o = await runAgainst(servers.get('hostile-discovery')!, 'hostile-discovery', ['--dry-run']);
    expect(o.code).toBe(0);
    expectNoForgedCommands(o.stdout);
    expect(o.stdout).toContain('org_1\\n::error title=FORGED');
  });
});
