/**
 * Runner benchmark (npm run bench -- runner): ratios measured in one run, no thresholds enforced.
 *
 * 1. The full default run (every suite but the rate-limit burst, default --runs, pacing off)
 *    against an in-process reference server with a limit too high to matter: wall time and
 *    requests per second, as a ratio to a plain undici loop sending the same requests (the wire
 *    requests the run recorded, replayed one at a time like the runner) to the same server.
 *    Target: >= 0.5.
 * 2. `vapc run --embedded` as a child process (what `npm start` runs, burst included): wall time
 *    and peak RSS (server and runner in one process). Target: <= 200 MB.
 * 3. The projected time of the default run at 100 requests/minute (dry run). Target: < 6 min.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { runConformance } from '../src/runner/conformance.js';
import { validateWireRequest } from '../src/runner/wire.js';
import { startReferenceServer } from '../src/server/index.js';
import { loadSpec } from '../src/spec/load.js';
import { checks } from '../suites/index.js';
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
    const res = await pool.request({ method: r.method as 'GET', path: `${u.pathname}${u.search}`, headers: r.headers, body: r.body ?? null });
    await res.body.text();
  }
  const ms = performance.now() - started;
  await pool.close();
  return ms;
}

async function childRun(): Promise<{ ms: number; maxRssMb: number; code: number | null; tail: string }> {
  const reportDir = mkdtempSync(join(tmpdir(), 'vapc-bench-'));
  const script = `
    const { main } = await import(${JSON.stringify(join(packageRoot, 'dist/src/cli/main.js'))});
    const code = await main(['run', '--embedded', '--seed', '1', '--quiet', '--report-dir', ${JSON.stringify(reportDir)}], { stdout: () => {}, stderr: (t) => process.stderr.write(t), env: {}, isTTY: false });
    process.stdout.write(JSON.stringify({ code, maxRssKb: process.resourceUsage().maxRSS }));
  `;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', () => {
      const ms = performance.now() - started;
      try {
        const parsed = JSON.parse(out) as { code: number; maxRssKb: number };
        resolve({ ms, maxRssMb: parsed.maxRssKb / 1024, code: parsed.code, tail: err.slice(-300) });
      } catch {
        reject(new Error(`child run failed: ${err.slice(-500)}`));
      }
    });
  });
}

const spec = await loadSpec();
const server = await startReferenceServer({ port: 0, spec, rateLimit: 100_000_000, rateWindowMs: 60_000 });
const { api_key, user_id, org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
const common = {
  baseUrl: server.url,
  checks,
  spec,
  seed: 1,
  credentials: { apiKey: api_key, userId: user_id },
  fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] },
  validateRequest: validateWireRequest,
  suites: PRE_BURST,
  followRateLimit: false,
};

// Warm-up (JIT, connection pool, validators), then the best of three measured runs of each.
await runConformance(common);
const ROUNDS = 3;
let runnerMs = Number.POSITIVE_INFINITY;
let report!: Awaited<ReturnType<typeof runConformance>>['report'];
let wire: WireRequest[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const sent: WireRequest[] = [];
  const started = performance.now();
  const result = await runConformance({ ...common, onExchange: (e) => void sent.push(e.request) });
  const ms = performance.now() - started;
  if (ms < runnerMs) [runnerMs, report, wire] = [ms, result.report, sent];
}
const n = report.summary.requests;
await rawLoop(server.url, wire);
let rawMs = Number.POSITIVE_INFINITY;
for (let i = 0; i < ROUNDS; i++) rawMs = Math.min(rawMs, await rawLoop(server.url, wire));
await server.close();

const runnerRps = (n / runnerMs) * 1000;
const rawRps = (n / rawMs) * 1000;
console.log(`full default run (pre-burst suites, runs=${report.config['runs']}, pacing off, best of ${ROUNDS}): ${n} requests in ${(runnerMs / 1000).toFixed(2)} s = ${runnerRps.toFixed(0)} req/s; failed ${report.summary.failed}, errors ${report.summary.errors}`);
console.log(`plain undici loop replaying the same ${n} requests (best of ${ROUNDS}): ${(rawMs / 1000).toFixed(2)} s = ${rawRps.toFixed(0)} req/s`);
console.log(`ratio runner/raw throughput: ${(runnerRps / rawRps).toFixed(2)} (target >= 0.5)`);

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
  `default run at 100 requests/minute: runs=${dry.dryRun!.runs}, ${dry.dryRun!.total} planned requests, projected ${dry.dryRun!.projectedMinutes!.toFixed(1)} min burst included (target < 6)`,
);

const child = await childRun();
console.log(`vapc run --embedded (npm start, burst included): ${(child.ms / 1000).toFixed(1)} s, exit ${child.code}, peak RSS ${child.maxRssMb.toFixed(0)} MB (target <= 200)`);
