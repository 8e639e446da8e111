/**
 * Verdict benchmark (npm run bench -- verdict): what a default run costs against a server on the
 * development plan, 100 requests a minute (issue 25: <= 300 requests, <= 3 min 10 s, 0 failures).
 *
 * Starts `vapc serve --rate-limit 100` (real one-minute windows) as a child process on loopback,
 * then a default `vapc run` against it (seed 1, its fixtures through a config file, every suite,
 * default --runs), and prints the requests sent, the wall time of the run (start-up included),
 * the failed checks and the pacing waits the run reported. One run takes 3-5 minutes.
 *
 * BENCH_BEFORE=/path/to/another/checkout (built) runs that checkout's `vapc` instead, for a
 * before/after (the two cannot share a server: each needs fresh windows). BENCH_RATE_LIMIT=N
 * changes the limit; BENCH_SEED=N the seed. The load average is printed; no threshold is enforced.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';

const root = process.env['BENCH_BEFORE'] ?? packageRoot;
const limit = Number(process.env['BENCH_RATE_LIMIT'] ?? 100);
const seed = process.env['BENCH_SEED'] ?? '1';
const vapc = join(root, 'bin', 'vapc.js');

interface Served {
  child: ChildProcess;
  url: string;
  fixtures: Record<string, unknown> & { api_key: string; user_id: string };
}

/** Starts `vapc serve` on a free loopback port and reads its URL and fixtures lines. */
function serve(): Promise<Served> {
  const child = spawn(process.execPath, [vapc, 'serve', '--port', '0', '--rate-limit', String(limit)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`vapc serve exited ${code} before it listened: ${out}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /listening (\S+)/.exec(out)?.[1];
      const fixtures = /fixtures (\{.*\})/.exec(out)?.[1];
      if (url && fixtures) resolve({ child, url, fixtures: JSON.parse(fixtures) });
    });
  });
}

/** Runs `vapc run` to its end; its exit code, stdout and wall time (ms). */
function run(args: string[]): Promise<{ code: number | null; out: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [vapc, 'run', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, ms: performance.now() - started }));
  });
}

const minutes = (ms: number): string => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

const dir = mkdtempSync(join(tmpdir(), 'vapc-verdict-'));
const server = await serve();
try {
  const { api_key, user_id, ...fixtures } = server.fixtures;
  const config = join(dir, 'vapc.yaml');
  writeFileSync(config, `fixtures: ${JSON.stringify(fixtures)}\n`);
  const loadBefore = loadavg()[0]!;
  const args = [
    '--base-url',
    server.url,
    '--api-key',
    api_key,
    '--user-id',
    user_id,
    '--config',
    config,
    '--seed',
    seed,
    '--report-dir',
    join(dir, 'report'),
  ];
  const result = await run(args);
  const report = JSON.parse(readFileSync(join(dir, 'report', 'report.json'), 'utf8'));
  const failed = (report.results as Array<{ status: string; id: string; operation: string }>).filter(
    (r) => r.status === 'failed' || r.status === 'error',
  );
  const waits = result.out.split('\n').filter((l) => /\bwait/i.test(l));
  console.log(
    `verdict: vapc serve --rate-limit ${limit} (1-minute windows) + a default vapc run (seed ${seed}), ${root === packageRoot ? 'this checkout' : `BENCH_BEFORE=${root}`}`,
  );
  console.log(`  load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (2 cores)`);
  console.log(
    `  exit ${result.code}; requests ${report.summary.requests}; wall ${minutes(result.ms)} (${Math.round(result.ms)} ms, start-up included); runs ${report.config?.runs}; request budget ${report.config?.request_budget}`,
  );
  console.log(
    `  passed ${report.summary.passed}, failed ${report.summary.failed}, skipped ${report.summary.skipped}, errors ${report.summary.errors}`,
  );
  const perSuite = new Map<string, number>();
  for (const r of report.results as Array<{ id: string; requests?: number }>)
    perSuite.set(r.id.split('.')[0]!, (perSuite.get(r.id.split('.')[0]!) ?? 0) + (r.requests ?? 0));
  console.log(`  requests per suite: ${[...perSuite].map(([s, n]) => `${s} ${n}`).join(', ')}`);
  for (const f of failed) console.log(`  ${f.status} ${f.id} ${f.operation}`);
  for (const w of waits) console.log(`  ${w.trim()}`);
  console.log('  target (issue 25): <= 300 requests, <= 3 min 10 s, 0 failures');
} finally {
  server.child.kill();
  rmSync(dir, { recursive: true, force: true });
}
