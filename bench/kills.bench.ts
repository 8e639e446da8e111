/**
 * Kill-curve benchmark (npm run bench -- kills): how soon a default run catches each fault of the
 * project's catalogues: test/catalog/faults (the reference server with one fault switched on
 * through its `configure` hook; the run's order is valued from it) and
 * test/catalog/independent/with-faults (a server written from the contract alone, its faults
 * named apart: the check that the order is not fitted to one catalogue).
 *
 * For each fault, one default run (every suite, default --runs sized by the advertised limit,
 * seed 1, pacing on) against a fresh faulty server; the requests are counted in the order they
 * are sent (`onExchange`), and a fault is killed when a check fails: its "requests to kill" is the
 * number of requests sent when the first failing check finished (the moment the verdict is known).
 * Printed per fault, then the kills within the first 100 and 300 requests and the median
 * requests-to-kill. Lenient variants (correct servers) must not be killed: a kill there is a false
 * positive and is listed apart.
 *
 * Servers: every one at the embedded run's limit (1000 requests per 10 s), the limits some faults
 * name for their own tests (5 or 20 a minute) included: paced at those, one run takes minutes.
 * So the plan is the one for a 1000/min server (its burst included); the checks before the burst
 * are the same at 100/min.
 *
 * A run stops at its first failing check (the transport answers nothing more, so the run ends as
 * unreachable): a fault costs its requests-to-kill, not a whole run. BENCH_KILLS_FULL=1 runs each
 * to its end instead and lists every failing check (slow: ~12 s a fault on a loaded machine).
 * BENCH_FAULTS=regex runs only the faults whose names match; BENCH_KILLS_CATALOGUE=faults or
 * independent runs one catalogue; BENCH_KILLS_JSON=file writes the per-fault results as data.
 */
import { writeFileSync } from 'node:fs';
import { runConformance } from '../src/runner/conformance.js';
import { createUndiciTransport } from '../src/transport/undici.js';
import type { Exchange, Transport } from '../src/transport/types.js';
import { validateWireRequest } from '../src/checks/wire.js';
import { loadSpec } from '../src/spec/load.js';
import { checks } from '../suites/index.js';
import { profile } from '../suites/profile.js';
import { checkOf, faults, startFaultyServer } from '../test/catalog/faults/index.js';
import {
  FAULTS as INDEPENDENT_FAULTS,
  start as startIndependent,
} from '../test/catalog/independent/with-faults/server.mjs';
import type { CheckResult } from '../src/results/model.js';
import type { LoopbackServer } from '../test/helpers/loopback-runs.js';

interface Kill {
  fault: string;
  /** A correct server (a lenient variant) or a fault the contract leaves unjudged: a kill is a false positive. */
  lenient: boolean;
  /** What must catch it: check ids (test/catalog/faults) or a suite (the independent catalogue). */
  catches: readonly string[];
  /** Requests sent when the first failing check finished; undefined when nothing failed. */
  killedAt?: number;
  firstCheck?: string;
  /** Every failed check, with the requests sent when it finished and its own request count. */
  failed: Array<{ id: string; operation: string; at: number; requests: number }>;
  requests: number;
  ms: number;
  /** Whether a check it names (or of the suite it names) failed at all before the run stopped. */
  caughtByOwn?: boolean;
}

const spec = await loadSpec();
const full = process.env['BENCH_KILLS_FULL'] === '1';

/** The target's transport, answering nothing (a refused connection) once `stopped()` says so. */
function stoppable(baseUrl: string, stopped: () => boolean): Transport {
  const inner = createUndiciTransport({ baseUrl, timeoutMs: 10_000, maxBodyBytes: 1 << 20 });
  return {
    baseUrl: inner.baseUrl,
    close: () => inner.close(),
    send: async (request): Promise<Exchange> =>
      stopped()
        ? {
            request: { method: request.method, url: `${inner.baseUrl}${request.path}`, headers: {} },
            error: { code: 'connection_refused', message: 'bench: stopped at the first kill' },
            durationMs: 0,
          }
        : inner.send(request),
  };
}
const only = process.env['BENCH_FAULTS'] ? new RegExp(process.env['BENCH_FAULTS']) : undefined;

/** A fault to run: how to start its server, and what it must trip. */
interface Target {
  name: string;
  lenient: boolean;
  catches: readonly string[];
  start(): Promise<LoopbackServer>;
}

const LIMIT = { rateLimit: 1_000, rateWindowMs: 10_000 };
const catalogue = process.env['BENCH_KILLS_CATALOGUE'];
const targets: Array<[string, Target[]]> = [];
if (catalogue === undefined || catalogue === 'faults') {
  targets.push([
    'test/catalog/faults',
    faults.map((f) => ({
      name: f.name,
      lenient: ('lenient' in f && f.lenient === true) || f.catches.length === 0,
      catches: f.catches.map(checkOf),
      start: () => startFaultyServer(f.name, LIMIT),
    })),
  ]);
}
if (catalogue === undefined || catalogue === 'independent') {
  // Faults of destructive operations need --include-destructive: a default run cannot catch them.
  const judged = INDEPENDENT_FAULTS.filter((f) => !f.includeDestructive);
  const baseline: Target = {
    name: 'baseline (no fault)',
    lenient: true,
    catches: [],
    start: () => startIndependent(LIMIT),
  };
  targets.push([
    'test/catalog/independent/with-faults',
    [
      baseline,
      ...judged.map((f) => ({
        name: f.name,
        lenient: f.unjudged !== undefined,
        catches: [f.suite],
        start: () => startIndependent({ ...LIMIT, fault: f.name }),
      })),
    ],
  ]);
}

async function killCurve(target: Target): Promise<Kill> {
  const server = await target.start();
  const { api_key, user_id, org_id, recipient_list_id, api_key_id, channels } = server.fixtures;
  let sent = 0;
  const failed: Kill['failed'] = [];
  const started = performance.now();
  const transport = stoppable(server.url, () => !full && failed.length > 0);
  try {
    const result = await runConformance({
      baseUrl: server.url,
      transport,
      checks,
      profile,
      spec,
      seed: 1,
      credentials: { apiKey: api_key, userId: user_id },
      fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] },
      validateRequest: validateWireRequest,
      onExchange: (e) => void (e.response || e.error?.message !== 'bench: stopped at the first kill' ? sent++ : 0),
      events: {
        onCheckDone: (r: CheckResult) => {
          if (r.status === 'failed') failed.push({ id: r.id, operation: r.operation, at: sent, requests: r.requests });
        },
      },
    });
    const kill: Kill = {
      fault: target.name,
      lenient: target.lenient,
      catches: target.catches,
      failed,
      requests: full ? result.report.summary.requests : sent,
      ms: performance.now() - started,
    };
    if (failed[0]) Object.assign(kill, { killedAt: failed[0].at, firstCheck: failed[0].id });
    kill.caughtByOwn = failed.some(
      (f) => target.catches.includes(f.id) || target.catches.includes(f.id.split('.')[0]!),
    );
    return kill;
  } finally {
    await transport.close();
    await server.close();
  }
}

const median = (xs: number[]): number | undefined => {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const all: Record<string, Kill[]> = {};
for (const [name, list] of targets) {
  console.log(`\n${name}:`);
  const kills: Kill[] = (all[name] = []);
  for (const target of list.filter((t) => !only || only.test(t.name))) {
    const k = await killCurve(target);
    kills.push(k);
    const verdict =
      k.killedAt === undefined
        ? 'not killed'
        : `killed at request ${k.killedAt} by ${k.firstCheck}${k.caughtByOwn ? '' : ' (not one it names)'}`;
    console.log(
      `${k.lenient ? 'lenient ' : ''}${k.fault.padEnd(44)} ${verdict} · ${k.requests} requests, ${(k.ms / 1000).toFixed(1)} s`,
    );
  }
  summarise(name, kills);
}
if (process.env['BENCH_KILLS_JSON'])
  writeFileSync(process.env['BENCH_KILLS_JSON'], `${JSON.stringify(all, null, 1)}\n`);

function summarise(name: string, kills: Kill[]): void {
  const faulty = kills.filter((k) => !k.lenient);
  const killedAt = faulty.flatMap((k) => (k.killedAt === undefined ? [] : [k.killedAt]));
  const falsePositives = kills.filter((k) => k.lenient && k.killedAt !== undefined);
  const within = (n: number) => killedAt.filter((at) => at <= n).length;
  console.log(`\nkill curve of ${name}, ${faulty.length} faults that must be caught (seed 1):`);
  console.log(
    `  killed ${killedAt.length}/${faulty.length}; within 100 requests ${within(100)}, within 300 ${within(300)}; median requests to kill ${median(killedAt) ?? '-'}`,
  );
  console.log(
    `  median requests ${full ? 'per run' : 'sent (runs stop at the first kill)'} ${median(kills.map((k) => k.requests))}`,
  );
  const missed = faulty.filter((k) => k.killedAt === undefined).map((k) => k.fault);
  if (missed.length) console.log(`  not killed: ${missed.join(', ')}`);
  if (falsePositives.length)
    console.log(
      `  a correct server or an unjudged fault failed: ${falsePositives.map((k) => `${k.fault} by ${k.firstCheck}`).join(', ')}`,
    );
}
