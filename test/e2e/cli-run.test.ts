import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { startReferenceServer, type ReferenceServer } from '../../src/server/index.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { defineCheck, type CheckDefinition } from '../../src/checks/check.js';
import { runCommand } from '../../src/cli/commands/run.js';
import { VapcError } from '../../src/errors.js';
import { captureIo } from '../helpers/captured-io.js';

const capture = captureIo;

const STACK = /\n\s+at .+:\d+:\d+/;
const dir = mkdtempSync(join(tmpdir(), 'vapc-cli-run-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

let spec: SpecModel;
let server: ReferenceServer;
beforeAll(async () => {
  spec = await loadSpec();
  server = await startReferenceServer({ port: 0, spec, rateLimit: 100_000, rateWindowMs: 60_000 });
});
afterAll(async () => {
  await server.close();
});

/** `vapc run` in-process, writing into a report dir of its own unless the case names one: a run that
 * cannot start marks its report dir aborted, and the default is the person's reports/latest. */
async function run(argv: string[], env: Record<string, string> = {}) {
  const io = capture(env);
  const own = argv.includes('--report-dir')
    ? []
    : ['--report-dir', join(mkdtempSync(join(tmpdir(), 'vapc-cli-run-')), 'r')];
  const code = await main(['run', ...argv, ...own], io);
  return { code, out: io.out(), err: io.err() };
}

describe('vapc run: usage and config errors exit 2 with a clear message', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['no target', [], /no target/],
    ['an invalid URL', ['--base-url', 'not a url'], /invalid base URL/],
    ['a non-http URL', ['--base-url', 'ftp://example.com'], /only http and https/],
    ['an unknown suite', ['--base-url', 'http://127.0.0.1:1', '--suite', 'auth,bogus'], /unknown suite "bogus"/],
    ['a non-integer seed', ['--base-url', 'http://127.0.0.1:1', '--seed', 'abc'], /--seed: expected an integer/],
    ['zero runs', ['--base-url', 'http://127.0.0.1:1', '--runs', '0'], /--runs: expected a positive integer/],
    ['a missing config file', ['--config', join(dir, 'nope.yaml')], /config file .*nope\.yaml: no such file/],
    [
      'both --base-url and --embedded',
      ['--embedded', '--base-url', 'http://127.0.0.1:1'],
      /either --base-url or --embedded/,
    ],
  ];
  for (const [what, argv, message] of cases) {
    it(`refuses ${what}`, async () => {
      const r = await run(argv);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err + r.out).not.toMatch(STACK);
    });
  }

  it('refuses a YAML alias bomb in the config, naming file and line, without expanding it', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [prev, name] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'f'],
      ['f', 'g'],
    ])
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
    const r = await run(['--config', file('bomb.yaml', `${levels.join('\n')}\n`)]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/config file .*bomb\.yaml is refused: its aliases expand too far .*first alias at line 2/);
    expect(r.err).not.toMatch(/internal error/);
  });

  it('refuses a --report-dir that names a file before sending any request', async () => {
    let requests = 0;
    const target = createServer((_req, res) => {
      requests++;
      res.end();
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
      const r = await run([
        '--base-url',
        url,
        '--api-key',
        'k_123456',
        '--user-id',
        'u_12345',
        '--report-dir',
        file('occupied.txt', 'x'),
      ]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--report-dir .*occupied\.txt is a file, not a directory/);
      expect(requests).toBe(0);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it('refuses an unknown config key, naming it', async () => {
    const r = await run(['--config', file('unknown.yaml', 'base_url: http://127.0.0.1:1\nrpmm: 5\n')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown key "rpmm"/);
  });

  it('refuses a wrong type in the config, naming key and type', async () => {
    const r = await run(['--config', file('type.yaml', 'base_url: http://127.0.0.1:1\nruns: many\n')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/runs: expected a positive integer, got string "many"/);
  });

  it('refuses malformed YAML with a line number', async () => {
    const r = await run(['--config', file('bad.yaml', 'base_url: [unclosed\n')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not valid YAML at line \d+/);
  });

  it('refuses an unknown fixture and a malformed channels list', async () => {
    const a = await run(['--config', file('fx1.yaml', 'base_url: http://127.0.0.1:1\nfixtures:\n  orgid: x\n')]);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/unknown fixture/);
    const b = await run([
      '--config',
      file('fx2.yaml', 'base_url: http://127.0.0.1:1\nfixtures:\n  channels: provider-a\n'),
    ]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/channels: expected a list/);
  });

  it('exits 2 when the target is unreachable', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const r = await run([
      '--base-url',
      `http://127.0.0.1:${port}`,
      '--seed',
      '1',
      '--report-dir',
      join(dir, 'unreach'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot reach .*connection failed/);
    expect(r.err + r.out).not.toMatch(STACK);
  });
});

describe('vapc run: settings from flags, env and config', () => {
  it('reads the config file in camelCase and snake_case, with fixtures winning over discovery (dry run)', async () => {
    const path = file(
      'ok.yaml',
      [
        `baseUrl: ${server.url}`,
        `api_key: ${server.fixtures.api_key}`,
        `userId: ${server.fixtures.user_id}`,
        'suite: [schema]',
        'fixtures:',
        '  assistant_id: asst_from_config',
        '  channels: [x1, x2]',
        '',
      ].join('\n'),
    );
    const r = await run(['--config', path, '--dry-run', '--seed', '7']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/seed 7/);
    expect(r.out).toMatch(/assistant_id=asst_from_config \(config\)/);
    expect(r.out).toMatch(/channels=x1\/x2 \(config\)/);
    expect(r.out).toMatch(/planned requests/);
    expect(r.out).toMatch(/schema\s+GET \/calls/);
    expect(r.out).not.toContain(server.fixtures.api_key);
  });

  it('takes the target and credentials from VAPC_* env vars, and prints a random seed up front', async () => {
    const r = await run(['--dry-run', '--suite', 'cors'], {
      VAPC_BASE_URL: server.url,
      VAPC_API_KEY: server.fixtures.api_key,
      VAPC_USER_ID: server.fixtures.user_id,
    });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/seed \d+ \(random; replay with --seed \d+\)/);
    expect(r.out).toMatch(/GET \/users\/me: answered 200/);
    expect(r.out).not.toContain(server.fixtures.api_key);
    // Discovered phone numbers are shown with the channel each pairs with, not as "[object Object]".
    expect(r.out).toMatch(/phone_numbers=[^ ,]+:[^ ,]+/);
    expect(r.out).not.toContain('[object Object]');
  });
});

describe('vapc run: exit statuses of a run', () => {
  const pass: CheckDefinition = defineCheck({
    id: 'schema.health-answers',
    suite: 'schema',
    rule: 'health answers',
    contractRef: '4.10',
    severity: 'minor',
    appliesTo: (op) => op.id === 'getHealth',
    async run(ctx, op) {
      const ex = await ctx.send({ method: op.method, path: op.path, operation: op });
      return ex.response?.status === 200
        ? { status: 'passed', message: 'ok' }
        : {
            status: 'failed',
            message: 'no',
            failures: [ctx.failure(ex, { expected: '200', actual: String(ex.response?.status), kind: 'status' })],
          };
    },
  });
  const failing: CheckDefinition = defineCheck({
    ...pass,
    id: 'schema.always-fails',
    async run(ctx, op) {
      const ex = await ctx.send({ method: 'GET', path: '/protected', operation: op });
      return {
        status: 'failed',
        message: 'forced',
        failures: [ctx.failure(ex, { expected: 'x', actual: 'y', kind: 'mismatch' })],
      };
    },
  });
  const throwing: CheckDefinition = defineCheck({
    ...pass,
    id: 'schema.throws',
    run: async () => {
      throw new Error('boom');
    },
  });

  it('exits 0 when no check failed and writes report.json with the seed', async () => {
    const io = capture();
    const reportDir = join(dir, 'pass');
    const code = await runCommand(
      { baseUrl: server.url, apiKey: server.fixtures.api_key, userId: server.fixtures.user_id, seed: '3', reportDir },
      io,
      { checks: [pass] },
    );
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
    expect(report.seed).toBe(3);
    expect(report.summary).toMatchObject({ passed: 1, failed: 0 });
    expect(report.target).toBe(server.url);
  });

  it('prints what it says besides the reporters through the one output guard: a report directory named with control characters is shown escaped', async () => {
    const io = capture();
    const reportDir = join(dir, 'odd\u001b[2J\u202e');
    const code = await runCommand(
      { baseUrl: server.url, apiKey: server.fixtures.api_key, userId: server.fixtures.user_id, seed: '3', reportDir },
      io,
      { checks: [pass] },
    );
    expect(code).toBe(0);
    expect(io.out()).toContain('odd\\x1b[2J\\u202e');
    expect(io.out()).not.toMatch(/[\u001b\u202e]/);
  });

  it('exits 2 when a report file could not be written, passing or failing, naming the file; the others are written', async () => {
    for (const [checks, verdict] of [
      [[pass], 'passing'],
      [[pass, failing], 'failing'],
    ] as const) {
      const io = capture();
      const reportDir = join(dir, `unwritable-html-${verdict}`);
      mkdirSync(join(reportDir, 'report.html'), { recursive: true }); // report.html cannot replace a directory
      const code = await runCommand(
        { baseUrl: server.url, apiKey: server.fixtures.api_key, userId: server.fixtures.user_id, seed: '3', reportDir },
        io,
        { checks: [...checks] },
      );
      expect(code, verdict).toBe(2);
      expect(io.err()).toContain(`vapc: could not write ${join(reportDir, 'report.html')}`);
      expect(io.err()).toContain(
        `1 report file(s) could not be written to --report-dir ${reportDir}: exit 2, whatever the verdict above`,
      );
      expect(io.err()).not.toMatch(STACK);
      expect(JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')).summary.passed).toBe(1);
    }
  });

  it('exits 1 when a check failed, with a curl repro free of secrets', async () => {
    const io = capture();
    const reportDir = join(dir, 'fail');
    const code = await runCommand(
      { baseUrl: server.url, apiKey: server.fixtures.api_key, userId: server.fixtures.user_id, seed: '3', reportDir },
      io,
      { checks: [pass, failing] },
    );
    expect(code).toBe(1);
    const text = readFileSync(join(reportDir, 'report.json'), 'utf8');
    const report = JSON.parse(text);
    expect(report.results.find((r: { id: string }) => r.id === 'schema.always-fails').repro).toMatch(
      /^curl .*\$VAPC_API_KEY/,
    );
    for (const f of ['report.json', 'junit.xml', 'report.html']) {
      const body = readFileSync(join(reportDir, f), 'utf8');
      expect(body).not.toContain(server.fixtures.api_key);
    }
    expect(io.out()).not.toContain(server.fixtures.api_key);
  });

  it('exits 1 when a check could not run (tool error): a gate that cannot check does not pass', async () => {
    const io = capture();
    const code = await runCommand(
      {
        baseUrl: server.url,
        apiKey: server.fixtures.api_key,
        userId: server.fixtures.user_id,
        seed: '3',
        reportDir: join(dir, 'err'),
      },
      io,
      { checks: [throwing] },
    );
    expect(code).toBe(1);
    expect(io.err()).toMatch(/could not run/);
  });

  it('stops at a fault of the tool a check meets (E_TOOL_FAILED, exit 2 in main), judged actively or passively', async () => {
    const missing = () => {
      throw new VapcError('E_TOOL_FAILED', 'the precompiled validator op_x is missing; rebuild with npm run build');
    };
    const active = defineCheck({ ...pass, id: 'schema.tool-fault', run: async () => missing() });
    const passive = defineCheck({ ...pass, id: 'schema.tool-fault-passive', judgeExchange: missing });
    for (const checks of [
      [active, pass],
      [pass, passive],
    ]) {
      const reportDir = join(dir, `tool-fault-${checks[0]!.id}`);
      const run = runCommand(
        { baseUrl: server.url, apiKey: server.fixtures.api_key, userId: server.fixtures.user_id, seed: '3', reportDir },
        capture(),
        { checks },
      );
      await expect(run).rejects.toMatchObject({ code: 'E_TOOL_FAILED' });
      const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as { run: { status: string } };
      expect(report.run.status).toBe('aborted');
    }
  });

  it('--embedded --include-destructive: no bearer, regenerated key or invite token in any output or report', async () => {
    const io = capture();
    const reportDir = join(dir, 'embedded-destructive');
    const code = await runCommand(
      { embedded: true, includeDestructive: true, suite: 'auth,stateful', runs: '2', seed: '9', reportDir },
      io,
    );
    expect(code).toBe(0);
    const everything = [
      io.out(),
      io.err(),
      ...['report.json', 'junit.xml', 'report.html'].map((f) => readFileSync(join(reportDir, f), 'utf8')),
    ].join('\n');
    expect(everything).toMatch(/regenerate/);
    expect(everything).not.toMatch(/vapc_ref_[A-Za-z0-9_-]{8}/);
    expect(everything).not.toMatch(/inv_tok_[A-Za-z0-9_-]{8}/);
  });
});

describe('vapc run: time is bounded by --deadline-ms, rate-limit waits included', () => {
  const FAR = 3 * 3600_000;

  it('a limit whose reset is hours away stops the run at a small deadline: exit 2, partial report, run.status aborted', async () => {
    // A limit the validation suite's requests exceed (it sends ~30 since its cases are packed).
    const limited = await startReferenceServer({ port: 0, spec, rateLimit: 12, rateWindowMs: FAR });
    try {
      const io = capture();
      const reportDir = join(dir, 'deadline-mid-run');
      const code = await runCommand(
        {
          baseUrl: limited.url,
          apiKey: limited.fixtures.api_key,
          userId: limited.fixtures.user_id,
          suite: 'validation',
          runs: '2',
          seed: '1',
          deadlineMs: '3000',
          reportDir,
        },
        io,
      );
      expect(code).toBe(2);
      expect(io.err()).toMatch(
        /the run stopped early: a rate-limit wait of \d+ s would pass the run deadline \(--deadline-ms\)/,
      );
      expect(io.err()).not.toMatch(/E_UNREACHABLE|cannot reach/);
      const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
      expect(report.run).toMatchObject({ status: 'aborted', reason: expect.stringMatching(/deadline/) });
      expect(report.config.aborted).toBeUndefined();
      expect(report.summary.passed).toBeGreaterThan(0);
      expect(report.results.some((r: { message: string }) => /^not run: /.test(r.message))).toBe(true);
      // Neither the console nor the page calls a stopped run a pass.
      expect(io.out()).toMatch(/^ABORTED: the run stopped early/m);
      expect(io.out()).not.toMatch(/^PASSED/m);
      expect(readFileSync(join(reportDir, 'report.html'), 'utf8')).toMatch(
        /id="verdict">aborted: the run stopped early</,
      );
    } finally {
      await limited.close();
    }
  });

  it('429s with X-RateLimit-Reset three hours ahead during discovery: exit 2 E_RUN_ABORTED within the deadline, not E_UNREACHABLE', async () => {
    const target = createServer((_req, res) => {
      res.writeHead(429, {
        'content-type': 'application/json',
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.floor((Date.now() + FAR) / 1000)),
        'retry-after': '10800',
      });
      res.end('{"detail":"slow down"}');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    try {
      const reportDir = join(dir, 'deadline-discovery');
      const r = await run([
        '--base-url',
        `http://127.0.0.1:${(target.address() as AddressInfo).port}`,
        '--api-key',
        'k_1234567890',
        '--user-id',
        'u_12345',
        '--seed',
        '1',
        '--deadline-ms',
        '2000',
        '--report-dir',
        reportDir,
      ]);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^vapc: the run stopped during discovery: a rate-limit wait of \d+ s would pass the run deadline .*\[E_RUN_ABORTED\]$/,
        ),
      ]);
      expect(JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')).run).toMatchObject({ status: 'aborted' });
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });
});

describe('vapc run: a config file serves the run it was written for', () => {
  const STAGING = (url: string) =>
    `base_url: ${url}\nfixtures:\n  recipient_list_id: rl_staging_404\n  org_id: org_staging\n`;

  it('--embedded ignores a vapc.yaml found on disk (written for staging) and says so', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'vapc-embedded-'));
    writeFileSync(join(cwd, 'vapc.yaml'), STAGING('https://staging.example.com'));
    const io = capture();
    const reportDir = join(cwd, 'reports');
    const code = await runCommand({ embedded: true, suite: 'auth', runs: '1', seed: '1', quiet: true, reportDir }, io, {
      cwd,
    });
    expect(code, io.err()).toBe(0);
    expect(io.out()).toMatch(
      /^config: vapc\.yaml ignored \(the embedded run reads a config file only when --config names it\)$/m,
    );
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
    expect(report.config.fixtures).toEqual({});
    expect(JSON.stringify(report)).not.toMatch(/rl_staging_404|org_staging/);
  });

  it('a configured fixture the target does not have (404) is a setup error naming the key, exit 2', async () => {
    const r = await run([
      '--config',
      file('staging.yaml', STAGING(server.url)),
      '--api-key',
      server.fixtures.api_key,
      '--user-id',
      server.fixtures.user_id,
      '--suite',
      'schema',
      '--runs',
      '1',
      '--seed',
      '1',
      '--report-dir',
      join(dir, 'fixture-404'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^vapc: the configured fixtures\.recipient_list_id "rl_staging_404" is not on the target: POST \/recipient-lists\/\{recipient_list_id\}\/recipients answered 404 .*\[E_FIXTURE_NOT_FOUND\]$/,
      ),
    ]);
    expect(r.out).not.toMatch(/refused a valid request/);
  });

  it('under CI, dry_run/suite/include_destructive in a config file are refused with the key and line; --trust-config reads them', async () => {
    const path = file('ci.yaml', `rpm: 600\n\nsuite: cors\n`);
    const ci = await run(
      ['--config', path, '--base-url', server.url, '--seed', '1', '--report-dir', join(dir, 'ci-refused')],
      { CI: 'true' },
    );
    expect(ci.code).toBe(2);
    expect(ci.err).toMatch(
      /config file .*ci\.yaml line 3: "suite" is not read from a config file under CI \(the pull request under test could change it\); give --suite LIST on the command line \(or pass --trust-config/,
    );
    const trusted = await run(
      ['--config', path, '--base-url', server.url, '--trust-config', '--dry-run', '--seed', '1'],
      {
        CI: 'true',
        VAPC_API_KEY: server.fixtures.api_key,
        VAPC_USER_ID: server.fixtures.user_id,
      },
    );
    expect(trusted.code, trusted.err).toBe(0);
    expect(trusted.out).toMatch(/cors\s+/);
    const local = await run(['--config', path, '--base-url', server.url, '--dry-run', '--seed', '1'], {
      VAPC_API_KEY: server.fixtures.api_key,
      VAPC_USER_ID: server.fixtures.user_id,
    });
    expect(local.code, local.err).toBe(0);
    // `embedded: true` would swap the target for the bundled server, which passes.
    const swap = await run(
      ['--config', file('swap.yaml', 'embedded: true\n'), '--seed', '1', '--report-dir', join(dir, 'ci-swap')],
      { GITHUB_ACTIONS: 'true', VAPC_BASE_URL: server.url },
    );
    expect(swap.code).toBe(2);
    expect(swap.err).toMatch(/swap\.yaml line 1: "embedded" is not read from a config file under CI/);
  });

  it('--no-config reads no vapc.yaml from the working directory', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'vapc-noconfig-'));
    writeFileSync(join(cwd, 'vapc.yaml'), 'dry_run: true\n');
    const io = capture();
    // The report dir named: a run that cannot start marks its report dir, by default reports/latest here.
    const reportDir = join(cwd, 'reports');
    await expect(runCommand({ config: false, reportDir }, io, { cwd })).rejects.toThrow(/no target/);
    await expect(runCommand({ reportDir }, io, { cwd })).rejects.toThrow(/no target: .*base_url in vapc\.yaml/);
  });

  it('a wrong type in a config file names the file and the line', async () => {
    const r = await run(['--config', file('typed.yaml', `base_url: ${server.url}\n\nrpm: fast\n`)]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/config file .*typed\.yaml: rpm: expected a positive number, got string "fast" \(line 3\)/);
  });

  it('https on a plain-HTTP port: one readable sentence naming the http:// URL', async () => {
    const port = new URL(server.url).port;
    const r = await run([
      '--base-url',
      `https://127.0.0.1:${port}`,
      '--api-key',
      'k_1234567890',
      '--user-id',
      'u_12345',
      '--seed',
      '1',
      '--report-dir',
      join(dir, 'tls'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/the server answered plain HTTP, not TLS; use http:\/\/127\.0\.0\.1:\d+/);
    expect(r.err).not.toMatch(/SSL routines|\\n/);
  });
});
