// A wrong setup is diagnosed as a wrong setup: no credentials, refused credentials (a wrong user id)
// and a base URL where the contract is not found each stop `vapc run` with exit 2 and one sentence
// naming the problem and the flag or env var that fixes it, before any check is judged.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import { isVapcError } from '../../src/errors.js';
import { runConformance } from '../../src/runner/conformance.js';
import { diagnoseSetup, type DiscoveryAnswer } from '../../src/runner/discovery.js';
import { startReferenceServer, type ReferenceServer } from '../../src/server/index.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { loopbackServers, runnerOptions, type LoopbackServer } from '../helpers/loopback-runs.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start as strict } from '../catalog/independent/strict/server.mjs';
// @ts-expect-error plain JavaScript module without type declarations
import { start as fastapiLike } from '../catalog/independent/fastapi-like/server.mjs';

const STACK = /\n\s+at .+:\d+:\d+/;
const dir = mkdtempSync(join(tmpdir(), 'vapc-setup-'));

let spec: SpecModel;
let server: ReferenceServer;
beforeAll(async () => {
  spec = await loadSpec();
  server = await startReferenceServer({ port: 0, spec, rateLimit: 100_000, rateWindowMs: 60_000 });
});
afterAll(async () => {
  await server.close();
});

async function run(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: { NO_COLOR: '1', ...env },
    isTTY: false,
  };
  const reportDir = join(dir, `r${Math.random().toString(36).slice(2)}`);
  const code = await main(['run', '--base-url', ...argv, '--seed', '5', '--report-dir', reportDir], io);
  const file = join(reportDir, 'report.json');
  const report = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
  // A run that judged nothing leaves only the mark of an aborted run, never a verdict.
  const reportWritten = report !== undefined && report.run?.status !== 'aborted';
  return { code, out, err, reportWritten, report };
}

describe('vapc run: a wrong setup ends in exit 2 with one sentence, and no check is judged', () => {
  const cases: Array<{ what: string; argv: () => string[]; code: string; says: RegExp[] }> = [
    {
      what: 'no credentials at all',
      argv: () => [server.url],
      code: 'E_NO_CREDENTIALS',
      says: [
        /no API key \(Authorization\) and user id \(X-User-ID\) were given/,
        /--api-key \(VAPC_API_KEY\) and --user-id \(VAPC_USER_ID\)/,
      ],
    },
    {
      what: 'an API key without a user id',
      argv: () => [server.url, '--api-key', server.fixtures.api_key],
      code: 'E_NO_CREDENTIALS',
      says: [/no user id \(X-User-ID\) was given/, /pass --user-id \(VAPC_USER_ID\)$/m],
    },
    {
      what: 'a wrong user id (the login name, as `--user-id $USER` gives)',
      argv: () => [server.url, '--api-key', server.fixtures.api_key, '--user-id', 'root'],
      code: 'E_CREDENTIALS_REFUSED',
      says: [
        /the credentials were refused: .*answered 401/,
        /--api-key \(VAPC_API_KEY\) and --user-id \(VAPC_USER_ID\)/,
        /X-User-ID must name the user the key belongs to/,
      ],
    },
    {
      what: 'a wrong API key',
      argv: () => [server.url, '--api-key', 'not-the-key', '--user-id', server.fixtures.user_id],
      code: 'E_CREDENTIALS_REFUSED',
      says: [/the credentials were refused/],
    },
    {
      what: 'a base URL with an extra path prefix',
      argv: () => [`${server.url}/api/v1`, '--api-key', server.fixtures.api_key, '--user-id', server.fixtures.user_id],
      code: 'E_CONTRACT_NOT_FOUND',
      says: [
        /the contract was not found at http:\/\/127\.0\.0\.1:\d+\/api\/v1: GET \/assistants, GET \/users\/me and GET \/calls all answered 404/,
        /--base-url \(VAPC_BASE_URL\)/,
      ],
    },
  ];
  for (const c of cases) {
    it(`${c.what}: exit 2, ${c.code}`, async () => {
      const r = await run(c.argv());
      expect(r.code).toBe(2);
      const lines = r.err.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^vapc: .*\\[${c.code}\\]$`));
      for (const re of c.says) expect(lines[0]!.replace(` [${c.code}]`, '')).toMatch(re);
      // One sentence: no full stop inside it.
      expect(lines[0]).not.toMatch(/\.\s+[A-Z]/);
      expect(r.out).not.toMatch(/FAIL|PASS|failed|passed/);
      expect(r.reportWritten).toBe(false);
      expect(r.report?.run).toEqual({ status: 'aborted', reason: expect.stringMatching(/\S/) });
      expect(r.out + r.err).not.toMatch(STACK);
      expect(r.out + r.err).not.toContain(server.fixtures.api_key);
    });
  }

  it('an exit 2 replaces the previous green run in the report directory: report.json aborted, report.html says so, no report.sarif', async () => {
    const reportDir = join(dir, 'stale');
    const io = (): CliIo => ({
      stdout: () => undefined,
      stderr: () => undefined,
      env: { NO_COLOR: '1' },
      isTTY: false,
    });
    const good = await main(
      [
        'run',
        '--base-url',
        server.url,
        '--api-key',
        server.fixtures.api_key,
        '--user-id',
        server.fixtures.user_id,
        '--suite',
        'auth',
        '--runs',
        '1',
        '--seed',
        '5',
        '--quiet',
        '--report-dir',
        reportDir,
      ],
      io(),
    );
    expect(good).toBe(0);
    expect(existsSync(join(reportDir, 'report.sarif'))).toBe(true);
    const bad = await main(
      [
        'run',
        '--base-url',
        server.url,
        '--api-key',
        'not-the-key',
        '--user-id',
        server.fixtures.user_id,
        '--seed',
        '5',
        '--report-dir',
        reportDir,
      ],
      io(),
    );
    expect(bad).toBe(2);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
    expect(report.run).toMatchObject({ status: 'aborted', reason: expect.stringMatching(/credentials were refused/) });
    expect(report.results).toEqual([]);
    expect(readFileSync(join(reportDir, 'report.html'), 'utf8')).toMatch(/aborted, nothing judged/);
    expect(readFileSync(join(reportDir, 'report.html'), 'utf8')).not.toMatch(/auth\./);
    expect(readFileSync(join(reportDir, 'junit.xml'), 'utf8')).toMatch(/errors="1"[\s\S]*E_CREDENTIALS_REFUSED/);
    expect(existsSync(join(reportDir, 'report.sarif'))).toBe(false);
    // `vapc report` has no verdict to re-render from it: it does not draw a green page.
    let err = '';
    expect(await main(['report', reportDir], { ...io(), stderr: (t) => void (err += t) })).toBe(2);
    expect(err).toMatch(/is from a run that judged nothing \(aborted: the credentials were refused/);
    expect(readFileSync(join(reportDir, 'report.html'), 'utf8')).toMatch(/aborted, nothing judged/);
  });

  it('--dry-run reports the same setup problem', async () => {
    const r = await run([
      `${server.url}/nope`,
      '--api-key',
      server.fixtures.api_key,
      '--user-id',
      server.fixtures.user_id,
      '--dry-run',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/E_CONTRACT_NOT_FOUND/);
    expect(r.out).not.toMatch(/planned|requests/);
  });

  it('under GitHub Actions leaves exactly one ::error annotation naming the fix', async () => {
    const r = await run([server.url, '--api-key', server.fixtures.api_key, '--user-id', 'root'], {
      GITHUB_ACTIONS: 'true',
      CI: 'true',
    });
    expect(r.code).toBe(2);
    const annotations = r.out.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(
      /^::error title=vapc run could not start::the credentials were refused.*--user-id \(VAPC_USER_ID\).*\[E_CREDENTIALS_REFUSED\]$/,
    );
    expect(r.out).not.toContain(server.fixtures.api_key);
  });

  it('the right credentials at the right URL still run and judge the checks (no false alarm)', async () => {
    const r = await run([
      server.url,
      '--api-key',
      server.fixtures.api_key,
      '--user-id',
      server.fixtures.user_id,
      '--suite',
      'auth',
      '--runs',
      '1',
      '--quiet',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.reportWritten).toBe(true);
  });
});

describe('the independent implementations: the same diagnosis from the outside', () => {
  for (const [name, start] of [
    ['strict', strict],
    ['FastAPI-like', fastapiLike],
  ] as const) {
    const serverOf = loopbackServers(
      start as (o: { rateLimit?: number; rateWindowMs?: number }) => Promise<LoopbackServer>,
    );
    const codeOf = async (
      s: LoopbackServer,
      over: Parameters<typeof runnerOptions>[2],
    ): Promise<string | undefined> => {
      try {
        await runConformance(runnerOptions(s, spec, { dryRun: true, ...over }));
        return undefined;
      } catch (error) {
        return isVapcError(error) ? error.code : String(error);
      }
    };
    it(`${name}: no credentials, a wrong user id and a wrong base path are setup errors; the right setup is not`, async () => {
      const s = await serverOf();
      expect(await codeOf(s, { credentials: {} })).toBe('E_NO_CREDENTIALS');
      expect(await codeOf(s, { credentials: { apiKey: s.fixtures.api_key, userId: `${s.fixtures.user_id}-x` } })).toBe(
        'E_CREDENTIALS_REFUSED',
      );
      expect(await codeOf(s, { baseUrl: `${s.url}/v2` })).toBe('E_CONTRACT_NOT_FOUND');
      expect(await codeOf(s, {})).toBeUndefined();
    });
  }
});

describe('diagnoseSetup: only the discovery answers decide', () => {
  const answers = (statuses: number[]): DiscoveryAnswer[] =>
    ['listAssistants', 'getCurrentUser', 'listCalls'].map((id, i) => ({
      operation: spec.operation(id),
      status: statuses[i]!,
    }));
  const both = { apiKey: 'key-1234', userId: 'user-1234' };

  it('a 403 for every read is refused credentials too', () => {
    expect(diagnoseSetup({ answers: answers([403, 403, 403]) }, spec, both, 'http://x')?.code).toBe(
      'E_CREDENTIALS_REFUSED',
    );
  });
  it('one read served is enough: the rest is for the checks to judge', () => {
    expect(diagnoseSetup({ answers: answers([401, 200, 401]) }, spec, both, 'http://x')).toBeUndefined();
    expect(diagnoseSetup({ answers: answers([404, 200, 404]) }, spec, both, 'http://x')).toBeUndefined();
    expect(diagnoseSetup({ answers: answers([401, 500, 401]) }, spec, both, 'http://x')).toBeUndefined();
  });
  it('a server that serves without credentials is not a setup error (the auth suite judges it)', () => {
    expect(diagnoseSetup({ answers: answers([200, 200, 200]) }, spec, {}, 'http://x')).toBeUndefined();
  });
  it('no answer at all is left to the unreachable diagnosis', () => {
    expect(
      diagnoseSetup({ answers: [{ operation: spec.operation('getCurrentUser') }] }, spec, {}, 'http://x'),
    ).toBeUndefined();
  });
});
