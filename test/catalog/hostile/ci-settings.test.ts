/**
 * Issue 32, attack 4: under CI, a checkout `vapc.yaml`'s `base_url` received the key from
 * VAPC_API_KEY (38 requests with `Authorization: Bearer <secret>` to a host the pull request named),
 * and its `report_dir: ../outside` wrote the reports outside the checkout. Under CI, `base_url`,
 * `report_dir` and `fixtures` come only from flags, the environment or Action inputs: a checkout
 * file that sets them is refused (exit 2, the file, the line and the input to use) unless
 * --trust-config. "Under CI" is one definition (src/results/ci.ts): `CI` true in any case or `1`, or
 * a CI provider's own variable (issue 34: `CI=1` and `CI=True` were not refused before).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunSettings, runCommand } from '../../../src/cli/commands/run.js';
import { underCi } from '../../../src/results/ci.js';
import { createConsoleReporter } from '../../../src/reporters/console.js';
import type { CliIo } from '../../../src/cli/main.js';

const KEY = 'sk_live_Ci5ettings9Q2w8E7r6T5y4U3';
let root: string;
let attacker: Server;
let attackerUrl: string;
const seen: string[] = [];

const io = (env: Record<string, string>): CliIo => ({
  stdout: () => undefined,
  stderr: () => undefined,
  env,
  isTTY: false,
});

/** A checkout holding `vapc.yaml` with `text`; returns its directory. */
function checkout(name: string, text: string): string {
  const dir = join(root, name, 'checkout');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'vapc.yaml'), text);
  return dir;
}

async function refusal(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    return (error as Error).message;
  }
  return 'not refused';
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'vapc-ci-settings-'));
  attacker = createServer((req, res) => {
    seen.push(String(req.headers.authorization ?? ''));
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => attacker.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

describe('attack 4: a checkout vapc.yaml names the target under CI', () => {
  const envs: Array<Record<string, string>> = [
    { CI: 'true' },
    { CI: '1' },
    { CI: 'True' },
    { GITHUB_ACTIONS: 'true' },
    { GITLAB_CI: 'true' },
    { BUILDKITE: 'true' },
    { JENKINS_URL: 'https://jenkins.example/' },
  ];
  for (const env of envs) {
    it(`${JSON.stringify(env)}: base_url is refused with the file, the line and what to use; the key goes nowhere`, async () => {
      const cwd = checkout(
        `base-${Object.values(env)[0]}-${Object.keys(env)[0]}`,
        `seed: 1\nbase_url: ${attackerUrl}\n`,
      );
      const message = await refusal(runCommand({}, io({ ...env, VAPC_API_KEY: KEY }), { cwd }));
      expect(message).toBe(
        `config file vapc.yaml line 2: "base_url" is not read from a config file under CI (the pull request under test could change it); give --base-url URL on the command line or set VAPC_BASE_URL (or pass --trust-config if the file is trusted)`,
      );
      expect(seen).toEqual([]);
    });
  }

  it('under the Action the refusal names the input to set', async () => {
    const cwd = checkout('action', `base_url: ${attackerUrl}\n`);
    const message = await refusal(
      runCommand({ config: join(cwd, 'vapc.yaml') }, io({ GITHUB_ACTIONS: 'true', VAPC_ACTION: 'true' }), { cwd }),
    );
    expect(message).toMatch(
      /line 1: "base_url" is not read .*; set the input `base-url` \(or add --trust-config to `args`/,
    );
    expect(seen).toEqual([]);
  });

  it('report_dir: ../outside is refused under CI, and nothing is written outside the checkout', async () => {
    const cwd = checkout('report-dir', `report_dir: ../outside\n`);
    const message = await refusal(runCommand({ baseUrl: attackerUrl }, io({ CI: 'true', VAPC_API_KEY: KEY }), { cwd }));
    expect(message).toMatch(
      /vapc\.yaml line 1: "report_dir" is not read .*; give --report-dir DIR on the command line/,
    );
    expect(existsSync(join(root, 'report-dir', 'outside'))).toBe(false);
    expect(seen).toEqual([]);
  });

  it('fixtures are refused under CI with their line; VAPC_FIXTURES gives them instead', async () => {
    const cwd = checkout('fixtures', `rpm: 60\nfixtures:\n  org_id: org_pr\n`);
    const message = await refusal(resolveRunSettings({ baseUrl: attackerUrl }, { CI: '1' }, cwd));
    expect(message).toMatch(
      /vapc\.yaml line 2: "fixtures" is not read .*; set VAPC_FIXTURES to a JSON object of the ids/,
    );
    const settings = await resolveRunSettings(
      { baseUrl: attackerUrl, config: false },
      { CI: '1', VAPC_FIXTURES: '{"org_id": "org_ci"}' },
      cwd,
    );
    expect(settings.fixtures).toEqual({ org_id: 'org_ci' });
  });

  it('--trust-config reads them; outside CI the file is read as before', async () => {
    const cwd = checkout('trusted', `base_url: ${attackerUrl}\nreport_dir: reports/pr\nfixtures:\n  org_id: org_1\n`);
    for (const [flags, env] of [
      [{ trustConfig: true }, { CI: 'true' }],
      [{}, {}],
      [{}, { CI: 'false' }],
      [{}, { CI: '0' }],
    ] as const) {
      const settings = await resolveRunSettings(flags, env, cwd);
      expect(settings.baseUrl).toBe(attackerUrl);
      expect(settings.reportDir).toBe('reports/pr');
      expect(settings.fixtures).toEqual({ org_id: 'org_1' });
    }
  });

  it('a report directory that a committed symlink leads out of the checkout is never written', async () => {
    const cwd = checkout('symlinked', 'seed: 1\n');
    mkdirSync(join(root, 'symlinked', 'elsewhere'));
    symlinkSync(join(root, 'symlinked', 'elsewhere'), join(cwd, 'reports'));
    const before = process.cwd();
    process.chdir(cwd);
    try {
      const message = await refusal(
        runCommand({ baseUrl: attackerUrl, reportDir: 'reports/latest', config: false }, io({ CI: 'true' }), { cwd }),
      );
      expect(message).toMatch(/--report-dir reports\/latest leads outside .* \(symlinks resolved\)/);
    } finally {
      process.chdir(before);
    }
    expect(existsSync(join(root, 'symlinked', 'elsewhere', 'latest'))).toBe(false);
  });
});

describe('issue 34: one definition of "under CI"', () => {
  it('the console follows it too: CI=1 and CI=True print plain lines on a TTY, as CI=true does', () => {
    const mode = (env: Record<string, string>) =>
      createConsoleReporter({ write: () => undefined, isTTY: true, env }).mode;
    expect(mode({ CI: '1' })).toBe('plain');
    expect(mode({ CI: 'True' })).toBe('plain');
    expect(mode({ GITLAB_CI: 'true' })).toBe('plain');
    expect(mode({})).toBe('live');
    expect(mode({ CI: 'false' })).toBe('live');
  });

  it('CI true in any case or 1, or a provider variable; not empty, false or 0', () => {
    for (const env of [
      { CI: 'true' },
      { CI: 'True' },
      { CI: 'TRUE' },
      { CI: '1' },
      { TF_BUILD: 'True' },
      { CIRCLECI: 'true' },
    ])
      expect(underCi(env), JSON.stringify(env)).toBe(true);
    const no: Array<Record<string, string>> = [
      {},
      { CI: '' },
      { CI: 'false' },
      { CI: 'False' },
      { CI: '0' },
      { GITHUB_ACTIONS: 'false' },
    ];
    for (const env of no) expect(underCi(env), JSON.stringify(env)).toBe(false);
  });
});
