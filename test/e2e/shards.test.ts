/**
 * `vapc run --shard I/N` and `vapc report merge`: three shards run side by side against one server
 * (each with its own API key, as CI matrix jobs would), merged, equal one unsharded run with the
 * same seed: the same results (check id, operation) in the same order with the same verdicts.
 *
 * What is not compared, and why: messages and failure details may quote ids the server generated
 * (a created campaign's id) and so differ from run to run; durations, request counts (a 429 resent
 * after a wait adds requests) and timestamps are measurements, not verdicts.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import type { ReferenceServer } from '../../src/server/index.js';
import type { RunReport, Suite } from '../../src/results/model.js';
import { SUITE_NAMES } from '../../suites/profile.js';
import { mergeShardResults, shardAssignments, shardPositions, type PlanCost } from '../../src/results/shard.js';
import { entriesToWrite, serializeBaseline } from '../../src/baseline/index.js';
import { startFaultyServer } from '../catalog/faults/index.js';
import { acceptExtraKeys } from '../helpers/multi-key.js';

const SHARD_KEYS = ['vapc_shard_key_one_1111', 'vapc_shard_key_two_2222', 'vapc_shard_key_three_333'];

/**
 * A server that accepts three more API keys, each with its own rate-limit window, and has one
 * known deviation (a 422 body of the wrong shape), so the comparison covers failed verdicts too.
 */
function startMultiKeyServer(): Promise<ReferenceServer> {
  return startFaultyServer('error-422-wrong-shape', {
    rateLimit: 1000,
    rateWindowMs: 10_000,
    configure: acceptExtraKeys(SHARD_KEYS),
  });
}

interface Captured {
  io: CliIo;
  text: () => string;
}
function capture(): Captured {
  let text = '';
  return {
    io: { stdout: (t) => void (text += t), stderr: (t) => void (text += t), env: {}, isTTY: false },
    text: () => text,
  };
}

const SUITE_LIST = 'auth,validation,ranges,schema,stateful,cors,ratelimit';
const read = (dir: string): RunReport => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunReport;
/**
 * The results' verdicts in order. A check whose evidence depends on the machine's speed (a rate-limit
 * window reset while it was spent) may pass in one run and skip as `timing` in another on a busy
 * machine: such a check, named in `timing`, shows as judged either way.
 */
const verdicts = (r: RunReport, timing: ReadonlySet<string> = new Set()) =>
  r.results.map((x) => {
    const key = `${x.id} | ${x.operation}`;
    return `${key} | ${timing.has(key) && (x.status === 'passed' || x.status === 'skipped') ? 'passed or timing' : x.status}`;
  });
const timingSkips = (...reports: RunReport[]): Set<string> =>
  new Set(
    reports.flatMap((r) =>
      r.results
        .filter((x) => x.status === 'skipped' && x.not_judged?.cause === 'timing')
        .map((x) => `${x.id} | ${x.operation}`),
    ),
  );
/**
 * The summary's counts, not what depends on time: the durations, the requests, and the 429 answers
 * (how many a burst meets depends on where in the window it starts); with a timing skip in either
 * run, passed and skipped together.
 */
const counts = (r: RunReport, timing: ReadonlySet<string>) => {
  const steady = { ...r.summary, requests: 0, duration_ms: 0, rate_limited: 0 };
  return timing.size === 0 ? steady : { ...steady, passed: steady.passed + steady.skipped, skipped: 0 };
};

describe('vapc run --shard I/N and vapc report merge', () => {
  let server: ReferenceServer;
  const root = mkdtempSync(join(tmpdir(), 'vapc-shards-'));
  const single = join(root, 'single');
  const shardDirs = [1, 2, 3].map((i) => join(root, `shard-${i}`));
  const merged = join(root, 'merged');
  const codes: number[] = [];
  let singleCode = -1;

  beforeAll(async () => {
    server = await startMultiKeyServer();
    const base = [
      'run',
      '--base-url',
      server.url,
      '--user-id',
      server.fixtures.user_id,
      '--suite',
      SUITE_LIST,
      '--seed',
      '11',
      '--runs',
      '2',
      '--quiet',
    ];
    // All four at once, as CI jobs would run beside a nightly unsharded run: each key has its own
    // window, so none waits on another's (and the run takes one wait for a window, not two).
    const [one, ...shards] = await Promise.all([
      main([...base, '--api-key', server.fixtures.api_key, '--report-dir', single], capture().io),
      ...shardDirs.map((dir, i) =>
        main([...base, '--api-key', SHARD_KEYS[i]!, '--shard', `${i + 1}/3`, '--report-dir', dir], capture().io),
      ),
    ]);
    singleCode = one!;
    codes.push(...shards);
  }, 240_000);
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('each shard runs its own part, records shard {index, count}, and all of them add up to the plan', () => {
    expect(singleCode).toBe(1);
    expect(codes.every((c) => c === 0 || c === 1)).toBe(true);
    const parts = shardDirs.map(read);
    expect(parts.map((p) => [p.shard!.index, p.shard!.count, p.shard!.plan_size])).toEqual(
      [1, 2, 3].map((i) => [i, 3, read(single).results.length]),
    );
    for (const p of parts) expect(p.shard!.positions.length).toBe(p.results.length);
    const keys = parts.flatMap((p) => p.results.map((r) => `${r.id} ${r.operation}`));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.length).toBe(read(single).results.length);
    // Only one shard ran the rate-limit burst.
    expect(parts.filter((p) => p.results.some((r) => r.suite === 'ratelimit')).length).toBe(1);
    // Every shard got a share of the work, and each found its fixtures itself.
    for (const p of parts) {
      // (Shards are cut by planned requests: the one with the burst gets few other pairs.)
      expect(p.results.filter((r) => r.status !== 'skipped').length).toBeGreaterThanOrEqual(3);
      expect((p.config['fixtures_sources'] as Record<string, string>)['org_id']).toBe('discovered');
    }
  });

  it('merged, the shards equal one unsharded run with the same seed: same results, same order, same verdicts', async () => {
    const out = capture();
    const code = await main(['report', 'merge', ...shardDirs, '--report-dir', merged, '--quiet'], out.io);
    expect(code, out.text()).toBe(1);
    const one = read(single);
    const all = read(merged);
    const timing = timingSkips(one, all);
    expect(verdicts(all, timing)).toEqual(verdicts(one, timing));
    expect(all.results.some((r) => r.status === 'failed')).toBe(true);
    expect(all.shard).toBeUndefined();
    expect(all.seed).toBe(one.seed);
    expect(counts(all, timing)).toEqual(counts(one, timing));
    const sarif = JSON.parse(readFileSync(join(merged, 'report.sarif'), 'utf8')) as {
      runs: Array<{ results: unknown[] }>;
    };
    expect(sarif.runs[0]!.results.length).toBe(one.results.filter((r) => r.status === 'failed').length);
    for (const f of ['junit.xml', 'report.html'])
      expect(readFileSync(join(merged, f), 'utf8').length).toBeGreaterThan(100);
    expect(readFileSync(join(merged, 'report.json'), 'utf8')).not.toContain(SHARD_KEYS[0]);
  });

  /** A copy of the shard dirs with shard `i`'s report.json changed by `edit`. */
  function tampered(i: number, edit: (r: RunReport) => void): string[] {
    const dir = mkdtempSync(join(root, 'tampered-'));
    return shardDirs.map((src, k) => {
      const dst = join(dir, `s${k}`);
      cpSync(src, dst, { recursive: true });
      if (k === i) {
        const r = read(dst);
        edit(r);
        writeFileSync(join(dst, 'report.json'), JSON.stringify(r));
      }
      return dst;
    });
  }

  const refusals: Array<[string, () => string[], RegExp]> = [
    ['a shard of another seed', () => tampered(1, (r) => void (r.seed = 12)), /differ in seed/],
    [
      'a shard of another spec version',
      () => tampered(2, (r) => void (r.spec_version = '2.0.0')),
      /differ in spec version/,
    ],
    [
      'a shard of another shard count',
      () => tampered(0, (r) => void (r.shard = { ...r.shard!, count: 4 })),
      /differ in shard count/,
    ],
    [
      'a shard whose pair another shard also ran',
      () => tampered(1, (r) => void (r.shard!.positions[0] = read(shardDirs[0]!).shard!.positions[0]!)),
      /run by two shards/,
    ],
    [
      'a shard run with other suites',
      () => tampered(0, (r) => void (r.config['suites'] = ['auth'])),
      /differ in the option suites/,
    ],
    ['a shard given twice', () => [shardDirs[0]!, shardDirs[1]!, shardDirs[1]!], /shard 2\/3 is given twice/],
    ['a missing shard', () => [shardDirs[0]!, shardDirs[2]!], /shard 2\/3 missing/],
    ['a report that is not a shard', () => [shardDirs[0]!, single, shardDirs[2]!], /is not a shard report/],
    ['a shard with a result dropped', () => tampered(1, (r) => void r.results.shift()), /do not split one plan/],
  ];
  for (const [what, dirs, message] of refusals) {
    it(`refuses ${what} (exit 2, clear message)`, async () => {
      const out = capture();
      const code = await main(['report', 'merge', ...dirs(), '--report-dir', join(root, 'refused')], out.io);
      expect(code).toBe(2);
      expect(out.text()).toMatch(message);
      expect(out.text()).not.toMatch(/\n\s+at /);
    });
  }

  it('merge --baseline FILE recomputes known findings from the file, never from a shard', async () => {
    // The baseline of this run's own findings, with real reasons and near expiries.
    const today = new Date().toISOString().slice(0, 10);
    const entries = entriesToWrite(read(single)).map((e) => ({
      ...e,
      reason: 'Accepted while API-9 is open',
      expires: today,
    }));
    const file = join(root, 'baseline.yaml');
    writeFileSync(file, serializeBaseline(entries));
    const out = capture();
    const dir = join(root, 'merged-baseline');
    expect(
      await main(['report', 'merge', ...shardDirs, '--report-dir', dir, '--quiet', '--baseline', file], out.io),
      out.text(),
    ).toBe(0);
    const all = read(dir);
    const failed = all.results.filter((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((r) => r.baseline?.known === true)).toBe(true);
    expect(all.baseline).toMatchObject({ known: failed.length, new_failures: 0 });
    // The same shards without the file: every failure is new again, whatever a shard claimed.
    const bare = capture();
    expect(
      await main(
        [
          'report',
          'merge',
          ...tampered(0, (r) => r.results.forEach((x) => (x.baseline = { known: true, kinds: [] }))),
          '--report-dir',
          join(root, 'merged-bare'),
          '--quiet',
        ],
        bare.io,
      ),
    ).toBe(1);
  });

  /** A report dir of the test's own: a run that cannot start marks its report dir aborted (by default the user's reports/latest). */
  const ownReportDir = () => ['--report-dir', join(mkdtempSync(join(tmpdir(), 'vapc-shard-refused-')), 'reports')];

  it('rejects a malformed --shard before it starts anything (exit 2)', async () => {
    for (const bad of ['0/3', '4/3', '3', 'a/b', '1/0']) {
      const out = capture();
      expect(await main(['run', '--embedded', '--seed', '1', '--shard', bad, ...ownReportDir()], out.io)).toBe(2);
      expect(out.text()).toContain('--shard takes I/N');
    }
  });

  it('refuses --shard without a fixed seed (exit 2): random seeds per shard would not merge', async () => {
    const out = capture();
    expect(await main(['run', '--embedded', '--shard', '1/2', ...ownReportDir()], out.io)).toBe(2);
    expect(out.text()).toContain('--shard needs a fixed --seed');
  });
});

describe('the shard partition', () => {
  // A plan of 7 pairs per suite with uneven costs (some checks send far more requests than others).
  const plan: Array<PlanCost & { suite: Suite }> = [
    ...SUITE_NAMES.filter((s) => s !== 'ratelimit').flatMap((suite, k) =>
      Array.from({ length: 7 }, (_, j) => ({
        suite,
        burst: false,
        requests: ((j * 7 + k * 3) % 11) + (j === 0 ? 25 : 1),
      })),
    ),
    ...Array.from({ length: 4 }, () => ({ suite: 'ratelimit' as Suite, burst: true, requests: 3 })),
  ];
  const total = plan.filter((p) => !p.burst).reduce((n, p) => n + p.requests, 0) + 12;

  it('puts each pair in exactly one shard, balances planned requests and keeps the ratelimit suite whole in shard 1', () => {
    for (const count of [1, 2, 3, 5]) {
      const owner = shardAssignments(plan, count);
      expect(owner.every((o) => o >= 1 && o <= count)).toBe(true);
      const load = Array.from({ length: count }, (_, k) =>
        plan.reduce((n, p, i) => n + (owner[i] === k + 1 ? p.requests : 0), 0),
      );
      expect(load.reduce((a, b) => a + b, 0)).toBe(total);
      // Greedy balance: no shard is more than the largest pair above the fair share.
      expect(Math.max(...load)).toBeLessThanOrEqual(total / count + 35);
      expect(new Set(owner.filter((_, i) => plan[i]!.burst))).toEqual(new Set([1]));
      const positions = Array.from({ length: count }, (_, k) => shardPositions(plan, { index: k + 1, count }));
      expect(positions.flat().sort((a, b) => a - b)).toEqual(plan.map((_, i) => i));
    }
  });

  it('puts merged results back in plan order by the recorded positions, and refuses gaps', () => {
    const results = plan.map(
      (p, i) => ({ id: `${p.suite}.c${i}`, suite: p.suite, operation: 'GET /x' }) as RunReport['results'][number],
    );
    const parts = [1, 2, 3].map((index) => {
      const positions = shardPositions(plan, { index, count: 3 });
      return {
        shard: { index, count: 3, plan_size: plan.length, positions },
        results: positions.map((i) => results[i]!),
      };
    });
    expect(mergeShardResults(parts)).toEqual(results);
    expect(mergeShardResults([parts[0]!, parts[2]!])).toMatch(/run by no shard/);
  });
});
