/**
 * Runner benchmark (npm run bench -- runner): ratios measured in one run, no thresholds enforced.
 *
 * 1. The full default run (every suite but the rate-limit burst, default --runs, pacing off)
 *    against an in-process reference server with a limit too high to matter: wall time and
 *    requests per second, as a ratio to a plain undici loop sending the same requests (the wire
 *    requests that very run recorded, replayed one at a time like the runner) to the same server.
 *    Target: >= 0.5. Both sides are measured in the same JIT state: rounds alternate runner and
 *    loop (which goes first alternates too), the first rounds warm up, and the medians of the
 *    measured rounds are compared. Measured only after warm-up, the loop would otherwise be timed
 *    against a server the runner's rounds had already warmed.
 * 2. The same comparison cold: each side once, first thing in a fresh process (JIT warm-up of the
 *    runner, undici and the server included), for what a single `vapc run` pays at start.
 * 3. `vapc run --embedded` as a child process (what `npm start` runs, burst included): wall time
 *    and peak RSS (server and runner in one process). Target: <= 200 MB.
 * 4. The projected time of the default run at 100 requests/minute (dry run). Target: about 3 min
 *    (issue 25: <= 3 min 10 s measured, `npm run bench -- verdict`).
 * 5. Start-up included: `vapc run` (the pre-burst suites, reports written) as a child process,
 *    spawn to exit, against a plain loop replaying the same requests in a child process (node's
 *    start and undici's import included), both to the bench's in-process server: the ratio of
 *    their wall times (the throughput ratio for the same requests). Target: >= 0.5 (issue 25).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { runConformance } from '../src/runner/conformance.js';
import { validateWireRequest } from '../src/checks/wire.js';
import { startReferenceServer } from '../src/server/index.js';
import { loadSpec } from '../src/spec/load.js';
import { checks } from '../suites/index.js';
import { profile } from '../suites/profile.js';
import type { Suite } from '../src/results/model.js';
import type { WireRequest } from '../src/transport/types.js';
import { packageRoot } from '../src/paths.js';

const PRE_BURST: Suite[] = ['auth', 'validation', 'ranges', 'schema', 'stateful', 'cors', 'robustness'];

/** Sends the given wire requests one at a time with a bare undici pool, reading each body. */
async function rawLoop(url: string, requests: readonly WireRequest[]): Promise<number> {
  const pool = new Pool(url, { connections: 8 });
  const started = performance.now();
  for (const r of requests) {
    const u = new URL(r.url);
    const res = await pool.request({
      method: r.method as 'GET',
      path: `${u.pathname}${u.search}`,
      headers: r.headers,
      body: r.body ?? null,
    });
    await res.body.text();
  }
  const ms = performance.now() - started;
  await pool.close();
  return ms;
}

const dist = (p: string) => JSON.stringify(join(packageRoot, 'dist', p));

async function childRun(): Promise<{ ms: number; maxRssMb: number; code: number | null }> {
  const reportDir = mkdtempSync(join(tmpdir(), 'vapc-bench-'));
  const script = `
    const { main } = await import(${dist('src/cli/main.js')});
    const code = await main(['run', '--embedded', '--seed', '1', '--quiet', '--report-dir', ${JSON.stringify(reportDir)}], { stdout: () => {}, stderr: (t) => process.stderr.write(t), env: {}, isTTY: false });
    process.stdout.write(JSON.stringify({ code, maxRssKb: process.resourceUsage().maxRSS }));
  `;
  const started = performance.now();
  const parsed = await childJson<{ code: number; maxRssKb: number }>(script);
  return { ms: performance.now() - started, maxRssMb: parsed.maxRssKb / 1024, code: parsed.code };
}

/** Runs `script` (an ES module body) in a fresh node process; its stdout parsed as JSON. */
function childJson<T>(script: string, stdin?: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve(JSON.parse(out) as T);
      } catch {
        reject(new Error(`child failed: ${err.slice(-500)}`));
      }
    });
    child.stdin.end(stdin ?? '');
  });
}

/** The runner's first run and the loop's first replay, each in a fresh process with a fresh server. */
async function coldRuns(): Promise<{ runnerMs: number; rawMs: number; requests: number }> {
  const serverSetup = `
    const { startReferenceServer } = await import(${dist('src/server/index.js')});
    const { loadSpec } = await import(${dist('src/spec/load.js')});
    const spec = await loadSpec();
    const server = await startReferenceServer({ port: 0, spec, apiKey: ${JSON.stringify(COLD_KEY)}, rateLimit: 100000000, rateWindowMs: 60000 });`;
  const runner = await childJson<{ ms: number; wire: WireRequest[]; base: string }>(`${serverSetup}
    const { runConformance } = await import(${dist('src/runner/conformance.js')});
    const { validateWireRequest } = await import(${dist('src/checks/wire.js')});
    const { checks } = await import(${dist('suites/index.js')});
    const { profile } = await import(${dist('suites/profile.js')});
    const { api_key, user_id, org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
    const wire = [];
    const started = performance.now();
    await runConformance({ baseUrl: server.url, checks, profile, spec, seed: 1, credentials: { apiKey: api_key, userId: user_id },
      fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] }, validateRequest: validateWireRequest,
      suites: ${JSON.stringify(PRE_BURST)}, followRateLimit: false, onExchange: (e) => void wire.push(e.request) });
    const ms = performance.now() - started;
    await server.close();
    process.stdout.write(JSON.stringify({ ms, wire, base: server.url }));`);
  const raw = await childJson<{ ms: number }>(
    `${serverSetup}
    const { Pool } = await import('undici');
    let input = '';
    for await (const c of process.stdin) input += c;
    const { wire, base } = JSON.parse(input);
    const pool = new Pool(server.url, { connections: 8 });
    const started = performance.now();
    for (const r of wire) {
      const u = new URL(r.url);
      const res = await pool.request({ method: r.method, path: u.pathname + u.search, headers: r.headers, body: r.body ?? null });
      await res.body.text();
    }
    const ms = performance.now() - started;
    await pool.close();
    await server.close();
    process.stdout.write(JSON.stringify({ ms, base }));`,
    JSON.stringify({ wire: runner.wire, base: runner.base }),
  );
  return { runnerMs: runner.ms, rawMs: raw.ms, requests: runner.wire.length };
}

/** Spawns `node args`, feeding `stdin`; resolves with the wall time from spawn to exit (ms). */
function wallOf(args: string[], stdin = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 || code === 1
        ? resolve(performance.now() - started)
        : reject(new Error(`exit ${code}: ${err.slice(-500)}`)),
    );
    child.stdin.end(stdin);
  });
}

/**
 * Start-up included: `vapc run` of the pre-burst suites as a process, against a process that
 * starts node, imports undici and replays the same requests. Alternating, `rounds` each; medians.
 */
async function processRuns(
  url: string,
  fixtures: typeof server.fixtures,
  wire: readonly WireRequest[],
  rounds: number,
): Promise<{ vapcMs: number; loopMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'vapc-bench-process-'));
  const { api_key, user_id, ...rest } = fixtures;
  writeFileSync(join(dir, 'vapc.yaml'), `fixtures: ${JSON.stringify(rest)}\n`);
  const vapc = [
    join(packageRoot, 'bin', 'vapc.js'),
    'run',
    '--base-url',
    url,
    '--api-key',
    api_key,
    '--user-id',
    user_id,
    '--config',
    join(dir, 'vapc.yaml'),
    '--seed',
    '1',
    '--quiet',
    '--suite',
    PRE_BURST.join(','),
    '--report-dir',
    join(dir, 'report'),
  ];
  const loop = `const { Pool } = await import(${JSON.stringify(import.meta.resolve('undici'))});
    let input = '';
    for await (const c of process.stdin) input += c;
    const pool = new Pool(${JSON.stringify(url)}, { connections: 8 });
    for (const r of JSON.parse(input)) {
      const u = new URL(r.url);
      const res = await pool.request({ method: r.method, path: u.pathname + u.search, headers: r.headers, body: r.body ?? null });
      await res.body.text();
    }
    await pool.close();`;
  const vapcTimes: number[] = [];
  const loopTimes: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const sides = [
      async () => vapcTimes.push(await wallOf(vapc)),
      async () => loopTimes.push(await wallOf(['--input-type=module', '-e', loop], JSON.stringify(wire))),
    ];
    for (const side of i % 2 ? sides.reverse() : sides) await side();
  }
  return { vapcMs: median(vapcTimes), loopMs: median(loopTimes) };
}

const spec = await loadSpec();
const server = await startReferenceServer({ port: 0, spec, rateLimit: 100_000_000, rateWindowMs: 60_000 });
const { api_key, user_id, org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
const common = {
  baseUrl: server.url,
  checks,
  profile,
  spec,
  seed: 1,
  credentials: { apiKey: api_key, userId: user_id },
  fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] },
  validateRequest: validateWireRequest,
  suites: PRE_BURST,
  followRateLimit: false,
};

/** One runner run, its wall time and the wire requests it sent. */
async function runnerRound(): Promise<{
  ms: number;
  report: Awaited<ReturnType<typeof runConformance>>['report'];
  wire: WireRequest[];
}> {
  const wire: WireRequest[] = [];
  const started = performance.now();
  const result = await runConformance({ ...common, onExchange: (e) => void wire.push(e.request) });
  return { ms: performance.now() - started, report: result.report, wire };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const loadAtStart = loadavg()[0]!;
// Rounds of (runner run, loop replaying that run's requests); the order within a round alternates.
const WARM_ROUNDS = 5;
const MEASURED_ROUNDS = 7;
const runnerTimes: number[] = [];
const rawTimes: number[] = [];
let last!: Awaited<ReturnType<typeof runnerRound>>;
for (let round = 0; round < WARM_ROUNDS + MEASURED_ROUNDS; round++) {
  let rawMs: number;
  if (round % 2 === 0) {
    last = await runnerRound();
    rawMs = await rawLoop(server.url, last.wire);
  } else {
    rawMs = await rawLoop(server.url, last.wire);
    last = await runnerRound();
  }
  if (round >= WARM_ROUNDS) {
    runnerTimes.push(last.ms);
    rawTimes.push(rawMs);
  }
}
const processes = await processRuns(server.url, server.fixtures, last.wire, 5);
await server.close();

const { report } = last;
const n = report.summary.requests;
const runnerMs = median(runnerTimes);
const rawMs = median(rawTimes);
const runnerRps = (n / runnerMs) * 1000;
const rawRps = (n / rawMs) * 1000;
const rounds = `median of ${MEASURED_ROUNDS} alternating rounds after ${WARM_ROUNDS} warm-up rounds`;
console.log(
  `full default run (pre-burst suites, runs=${report.config['runs']}, pacing off, ${rounds}): ${n} requests in ${(runnerMs / 1000).toFixed(3)} s = ${runnerRps.toFixed(0)} req/s; failed ${report.summary.failed}, errors ${report.summary.errors}`,
);
console.log(
  `plain undici loop replaying the same ${n} requests (${rounds}): ${(rawMs / 1000).toFixed(3)} s = ${rawRps.toFixed(0)} req/s`,
);
console.log(`ratio runner/raw throughput: ${(runnerRps / rawRps).toFixed(2)} (target >= 0.5)`);
console.log(
  `start-up included (each a child process, spawn to exit, median of 5 alternating): vapc run ${processes.vapcMs.toFixed(0)} ms, plain loop process ${processes.loopMs.toFixed(0)} ms for the same ${n} requests; ratio ${(processes.loopMs / processes.vapcMs).toFixed(2)} (target >= 0.5)`,
);

// Cold: each side first thing in a fresh process (same key, so the replay is let in; the campaign
// ids in the replayed paths were made by the runner's server and are unknown to the loop's: 404s).
const COLD_KEY = 'vapc_bench_cold_key_0123456789';
const cold = await coldRuns();
console.log(
  `cold, first thing in a fresh process (JIT warm-up included): runner ${cold.runnerMs.toFixed(0)} ms for ${cold.requests} requests, loop ${cold.rawMs.toFixed(0)} ms; ratio ${(cold.rawMs / cold.runnerMs).toFixed(2)} (informational)`,
);

// The default run at the development plan's 100 requests/minute, projected by a dry run.
const slow = await startReferenceServer({ port: 0, spec, rateLimit: 100, rateWindowMs: 60_000 });
const dry = await runConformance({
  ...common,
  baseUrl: slow.url,
  credentials: { apiKey: slow.fixtures.api_key, userId: slow.fixtures.user_id },
  suites: undefined,
  followRateLimit: true,
  dryRun: true,
});
await slow.close();
console.log(
  `default run at 100 requests/minute: runs=${dry.dryRun!.runs}, ${dry.dryRun!.total} planned requests, projected ${dry.dryRun!.projectedMinutes!.toFixed(1)} min burst included (target about 3)`,
);

const child = await childRun();
console.log(
  `vapc run --embedded (npm start, burst included): ${(child.ms / 1000).toFixed(1)} s, exit ${child.code}, peak RSS ${child.maxRssMb.toFixed(0)} MB (target <= 200)`,
);
console.log(`load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (2 cores)`);
