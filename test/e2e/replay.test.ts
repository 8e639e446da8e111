// Repro that reproduces: the replay line a run prints carries every option that shaped the run
// (config file, suites, runs, rpm, seed, opt-ins) with the credentials as $VAPC_* placeholders, and
// running it gives the same results; a rate-limit failure's repro is the loop that shows it.
// Also the working-directory config file (vapc.yaml / .vapc.yaml), found like redocly.yaml.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, resolveRunSettings } from '../../src/cli/commands/run.js';
import type { CliIo } from '../../src/cli/main.js';
import type { RunReport } from '../../src/results/model.js';
import { runConformance } from '../../src/runner/conformance.js';
import { startReferenceServer, type ReferenceServer } from '../../src/server/index.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { startFaultyServer } from '../catalog/faults/index.js';
import { runnerOptions, SMALL_LIMIT } from '../helpers/loopback-runs.js';

let spec: SpecModel;
const open: ReferenceServer[] = [];
beforeAll(async () => {
  spec = await loadSpec();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
const track = (s: ReferenceServer): ReferenceServer => (open.push(s), s);

function capture(env: Record<string, string> = {}): CliIo & { out: () => string } {
  let out = '';
  return {
    stdout: (t) => void (out += t),
    stderr: (t) => void (out += t),
    env: { NO_COLOR: '1', ...env },
    isTTY: false,
    out: () => out,
  };
}

/** Splits a replay line as a POSIX shell would: '...' literal, "$VAR" expanded from env. */
function shellWords(line: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  const re = /'((?:[^']|'\\'')*)'|"\$([A-Z_]+)"|(\S+)/g;
  for (const m of line.matchAll(re)) {
    if (m[1] !== undefined) words.push(m[1].replace(/'\\''/g, "'"));
    else if (m[2] !== undefined) words.push(env[m[2]] ?? '');
    else words.push(m[3]!);
  }
  return words;
}

/** The flags of `vapc run` as runCommand takes them, from argv (the few this test needs). */
function flagsOf(argv: string[]): Record<string, string | boolean> {
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i]!.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) flags[name] = true;
    else flags[name] = argv[++i]!;
  }
  return flags;
}

const verdicts = (report: RunReport) => report.results.map((r) => `${r.status} ${r.id} ${r.operation}`);

describe('the replay line', () => {
  it('carries --config, --suite, --runs, --rpm, --seed and the credentials as placeholders, and reproduces the results', async () => {
    const server = track(
      await startFaultyServer('range-max-concurrency-above-max', { rateLimit: 100_000, rateWindowMs: 60_000 }),
    );
    const dir = mkdtempSync(join(tmpdir(), 'vapc-replay-'));
    const config = join(dir, 'target.yaml');
    writeFileSync(
      config,
      `base_url: ${server.url}\nfixtures:\n  recipient_list_id: ${server.fixtures.recipient_list_id}\n`,
    );
    const secrets = { VAPC_API_KEY: server.fixtures.api_key, VAPC_USER_ID: server.fixtures.user_id };

    const first = capture();
    const flags = {
      config,
      suite: 'ranges,auth',
      seed: '9',
      rpm: '6000',
      apiKey: secrets.VAPC_API_KEY,
      userId: secrets.VAPC_USER_ID,
      reportDir: join(dir, 'first'),
      quiet: true,
    };
    expect(await runCommand(flags, first)).toBe(1);
    expect(first.out().split('\n')[0]).toBe(`config: ${config}`);
    const replay = /^replay: (.+)$/m.exec(first.out())?.[1];
    expect(replay).toBeDefined();
    expect(replay).toMatch(
      new RegExp(
        `^npx --no-install vapc run --base-url ${server.url} --config ${config.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} --seed 9 --runs \\d+ --suite auth,ranges --rpm 6000 --api-key "\\$VAPC_API_KEY" --user-id "\\$VAPC_USER_ID"$`,
      ),
    );
    expect(replay).not.toContain(secrets.VAPC_API_KEY);
    expect(replay).not.toContain(secrets.VAPC_USER_ID);

    const argv = shellWords(replay!, secrets).slice(4); // after `npx --no-install vapc run`
    const second = capture(secrets);
    expect(await runCommand({ ...flagsOf(argv), reportDir: join(dir, 'second'), quiet: true }, second)).toBe(1);
    const a = JSON.parse(readFileSync(join(dir, 'first', 'report.json'), 'utf8')) as RunReport;
    const b = JSON.parse(readFileSync(join(dir, 'second', 'report.json'), 'utf8')) as RunReport;
    expect(verdicts(b)).toEqual(verdicts(a));
    expect(a.results.some((r) => r.status === 'failed' && r.id.startsWith('ranges.'))).toBe(true);
    expect(b.summary.requests).toBe(a.summary.requests);
    expect(b.config['rpm']).toBe(6000);
    expect(/^replay: (.+)$/m.exec(second.out())?.[1]).toBe(replay);
  });

  it('names no credential flags for credentials that came from the config file', async () => {
    const server = track(
      await startFaultyServer('range-max-concurrency-above-max', { rateLimit: 100_000, rateWindowMs: 60_000 }),
    );
    const dir = mkdtempSync(join(tmpdir(), 'vapc-replay-'));
    writeFileSync(
      join(dir, 'vapc.yaml'),
      `base_url: ${server.url}\napi_key: ${server.fixtures.api_key}\nuser_id: ${server.fixtures.user_id}\nsuite: ranges\n`,
    );
    const io = capture();
    expect(await runCommand({ seed: '3', reportDir: join(dir, 'r'), quiet: true }, io, { cwd: dir })).toBe(1);
    const replay = /^replay: (.+)$/m.exec(io.out())?.[1];
    expect(replay).toMatch(
      /^npx --no-install vapc run --base-url \S+ --config vapc.yaml --seed 3 --runs \d+ --suite ranges$/,
    );
    expect(io.out()).not.toContain(server.fixtures.api_key);
  });
});

describe('the repro of a rate-limit failure is the loop that shows it', () => {
  // Asynchronous: the servers answering the loop live in this process.
  const bash = async (script: string, env: Record<string, string>) =>
    (
      await promisify(execFile)('bash', ['-c', script], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
        // One curl process per request: ~40 of them take seconds on a busy machine.
        timeout: 120_000,
      })
    ).stdout;

  it(
    'ratelimit.burst-429 on a server that never limits: a loop of every request the burst sent, and running it shows no 429',
    { timeout: 300_000 },
    async () => {
      const faulty = track(await startFaultyServer('ratelimit-never-429', SMALL_LIMIT));
      const { report } = await runConformance(runnerOptions(faulty, spec, { suites: ['ratelimit'] }));
      const burst = report.results.find((r) => r.id === 'ratelimit.burst-429')!;
      expect(burst.status).toBe('failed');
      const m =
        /^for i in \$\(seq 1 (\d+)\); do curl .*\| grep -iE '\^\(HTTP\/\|X-RateLimit-Remaining:\)'; done; curl /.exec(
          burst.repro ?? '',
        );
      expect(m, burst.repro).not.toBeNull();
      expect(Number(m![1]) + 1).toBe(burst.requests);
      expect(burst.repro).toContain('"$VAPC_API_KEY"');
      expect(burst.repro).not.toContain(faulty.fixtures.api_key);

      // Run on a fresh faulty server: the loop shows the fault (no 429 at all) ...
      const fresh = track(await startFaultyServer('ratelimit-never-429', { rateLimit: 5, rateWindowMs: 60_000 }));
      const env = { VAPC_API_KEY: fresh.fixtures.api_key, VAPC_USER_ID: fresh.fixtures.user_id };
      const onFaulty = await bash(burst.repro!.replaceAll(faulty.url, fresh.url), env);
      expect(onFaulty.match(/^HTTP\/\S+ 200/gm)?.length).toBe(burst.requests);
      expect(onFaulty).not.toMatch(/^HTTP\/\S+ 429/m);
      // ... and on a correct server with the same limit the same loop ends in a 429.
      const correct = track(
        await startReferenceServer({
          port: 0,
          spec,
          rateLimit: 5,
          rateWindowMs: 60_000,
          apiKey: fresh.fixtures.api_key,
        }),
      );
      const onCorrect = await bash(burst.repro!.replaceAll(faulty.url, correct.url), env);
      expect(onCorrect).toMatch(/^HTTP\/\S+ 429/m);
    },
  );

  it('ratelimit.remaining-decreases: the repro is a loop printing Remaining and Reset', async () => {
    const faulty = track(await startFaultyServer('remaining-stuck', SMALL_LIMIT));
    const { report } = await runConformance(runnerOptions(faulty, spec, { suites: ['ratelimit'] }));
    const failed = report.results.filter((r) => r.status === 'failed' && r.id === 'ratelimit.remaining-decreases');
    expect(failed).toHaveLength(1);
    for (const r of failed)
      expect(r.repro).toMatch(
        /^for i in \$\(seq 1 3\); do curl .*X-RateLimit-Remaining:\|X-RateLimit-Reset:\)'; done$/,
      );
  });
});

describe('vapc.yaml in the working directory', () => {
  it('is read when --config is not given (vapc.yaml, else .vapc.yaml), and named in the settings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vapc-cwd-'));
    writeFileSync(join(dir, '.vapc.yaml'), 'base_url: http://127.0.0.1:9\nrpm: 30\n');
    let s = await resolveRunSettings({}, {}, dir);
    expect(s.configFile).toBe('.vapc.yaml');
    expect(s.rpm).toBe(30);
    writeFileSync(join(dir, 'vapc.yaml'), 'base_url: http://127.0.0.1:10\n');
    s = await resolveRunSettings({}, {}, dir);
    expect(s.configFile).toBe('vapc.yaml');
    expect(s.baseUrl).toBe('http://127.0.0.1:10');
    // --config wins and the working-directory file is not read.
    const other = join(dir, 'other.yaml');
    writeFileSync(other, 'base_url: http://127.0.0.1:11\n');
    s = await resolveRunSettings({ config: other }, {}, dir);
    expect(s.baseUrl).toBe('http://127.0.0.1:11');
    expect(s.rpm).toBeUndefined();
  });

  it('a broken vapc.yaml is a config error naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vapc-cwd-'));
    writeFileSync(join(dir, 'vapc.yaml'), 'rpmm: 3\n');
    await expect(resolveRunSettings({}, {}, dir)).rejects.toThrow(/vapc\.yaml: unknown key "rpmm"/);
  });

  it('"no target" names --config and the working-directory file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vapc-cwd-'));
    await expect(resolveRunSettings({}, {}, dir)).rejects.toThrow(
      /no target: give --base-url URL \(or VAPC_BASE_URL, or base_url in a config file \(--config FILE, or vapc\.yaml in the working directory\)\), or --embedded/,
    );
    writeFileSync(join(dir, 'vapc.yaml'), 'rpm: 3\n');
    await expect(resolveRunSettings({}, {}, dir)).rejects.toThrow(/no target: .*base_url in vapc\.yaml/);
  });

  it('the first line of output says which config file was read', async () => {
    const server = track(await startReferenceServer({ port: 0, spec, rateLimit: 100_000, rateWindowMs: 60_000 }));
    const dir = mkdtempSync(join(tmpdir(), 'vapc-cwd-'));
    writeFileSync(join(dir, 'vapc.yaml'), `base_url: ${server.url}\n`);
    const io = capture({ VAPC_API_KEY: server.fixtures.api_key, VAPC_USER_ID: server.fixtures.user_id });
    expect(await runCommand({ dryRun: true, suite: 'cors', seed: '1' }, io, { cwd: dir })).toBe(0);
    expect(io.out().split('\n')[0]).toBe('config: vapc.yaml');
    expect(io.out()).toContain(`vapc run: ${server.url}`);
  });
});
