/**
 * Sharded-run benchmark (npm run bench -- shards): the wall time of one run against a
 * rate-limited server, vs the same plan split into N shards run side by side, each with its own
 * API key. Printed as a ratio (single / sharded); no threshold is enforced.
 *
 * The reference server keeps one rate-limit window per valid API key (and one per client
 * address for unauthenticated requests), so N keys give N windows; it accepts a single key, so the
 * bench adds N keys through its `configure` seam (test/helpers/multi-key.ts). The runner paces
 * itself under the advertised X-RateLimit-* of its own key, so a run is bound by the window, and
 * N shards with N keys should come close to N times faster, less the rate-limit burst, which one
 * shard carries whole (it waits for a fresh window first). Runner and server share this process:
 * the ratio also pays for N runners' CPU on a machine of two cores.
 */
import { runConformance } from '../src/runner/conformance.js';
import { validateWireRequest } from '../src/checks/wire.js';
import { startReferenceServer } from '../src/server/index.js';
import { loadSpec } from '../src/spec/load.js';
import { checks } from '../suites/index.js';
import { profile } from '../suites/profile.js';
import type { Suite } from '../src/results/model.js';
import { acceptExtraKeys } from '../test/helpers/multi-key.js';

const SHARDS = Number(process.env.VAPC_BENCH_SHARDS ?? 3);
// Small windows, so that each shard's part spans several of them (one window per part would
// measure the window's granularity rather than the sharding).
const LIMIT = Number(process.env.VAPC_BENCH_LIMIT ?? 30);
const WINDOW_MS = Number(process.env.VAPC_BENCH_WINDOW_MS ?? 3_000);
const RUNS = 3;
const KEYED: Suite[] = ['validation', 'ranges', 'schema', 'stateful', 'cors'];
const KEYS = Array.from({ length: SHARDS }, (_, i) => `vapc_bench_shard_key_${i + 1}_${'x'.repeat(8)}`);

/** One comparison: the single run, a pause for every window to expire, then the N shards. */
async function compare(label: string, suites: Suite[]): Promise<void> {
  const spec = await loadSpec();
  const server = await startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    spec,
    rateLimit: LIMIT,
    rateWindowMs: WINDOW_MS,
    configure: acceptExtraKeys(KEYS),
  });
  const { user_id, org_id, recipient_list_id, channels } = server.fixtures;
  const run = (apiKey: string, shard?: { index: number; count: number }) =>
    runConformance({
      baseUrl: server.url,
      spec,
      checks,
      profile,
      credentials: { apiKey, userId: user_id },
      fixtures: { org_id, recipient_list_id, channels: [...channels] },
      suites,
      seed: 1,
      runs: RUNS,
      validateRequest: validateWireRequest,
      ...(shard ? { shard } : {}),
    });
  try {
    console.log(
      `\n${label}\nserver: ${LIMIT} requests per ${WINDOW_MS / 1000} s window per key; suites ${suites.join(',')}; --runs ${RUNS}; ${SHARDS} shards with ${SHARDS} keys`,
    );
    let started = performance.now();
    const single = await run(server.fixtures.api_key);
    const singleMs = performance.now() - started;
    console.log(
      `one run:           ${(singleMs / 1000).toFixed(1)} s, ${single.report.summary.requests} requests, ${single.report.results.length} results`,
    );

    // Let every window of the first run expire, so the shards start as the single run did.
    await new Promise((r) => setTimeout(r, WINDOW_MS + 200));
    started = performance.now();
    const parts = await Promise.all(KEYS.map((key, i) => run(key, { index: i + 1, count: SHARDS })));
    const shardedMs = performance.now() - started;
    const requests = parts.reduce((n, p) => n + p.report.summary.requests, 0);
    const results = parts.reduce((n, p) => n + p.report.results.length, 0);
    console.log(
      `${SHARDS} shards, ${SHARDS} keys: ${(shardedMs / 1000).toFixed(1)} s, ${requests} requests, ${results} results (per shard: ${parts.map((p) => `${p.report.summary.requests} requests in ${(p.report.summary.duration_ms / 1000).toFixed(1)} s`).join(', ')})`,
    );
    if (results !== single.report.results.length) console.log('WARNING: the shards do not add up to the single run');
    console.log(`ratio single / sharded wall time: ${(singleMs / shardedMs).toFixed(2)} (ideal ${SHARDS})`);
  } finally {
    await server.close();
  }
}

// 1. The suites whose requests all carry a valid key: each shard is bound by its own window.
// 2. Plus auth, whose requests without a valid key fall in the server's per-address window,
//    which the shards share here on one machine (CI jobs on separate machines would not).
// 3. Plus the rate-limit burst: it waits for a fresh window and sends a window's worth at once,
//    a fixed cost that one shard carries.
await compare('1. suites that send a valid key on every request', KEYED);
await compare('2. with auth (requests without a valid key share one per-address window here)', ['auth', ...KEYED]);
await compare('3. the whole run, rate-limit burst included', ['auth', ...KEYED, 'ratelimit']);
