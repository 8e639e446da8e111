/**
 * `vapc drift` against `redocly drift` (Redocly CLI 2.77, experimental), on identical files, in one run
 * (npm run bench -- drift):
 *   1. throughput: exchanges per second over a 100,000-exchange NDJSON recording (the traffic of a
 *      `vapc run` of the reference server, its lines repeated), and the peak resident memory of each
 *      process (GNU time). Both as CLI processes, start-up included; BENCH_DRIFT_EXCHANGES sets the size.
 *   2. detection: traffic recorded from the catalogue's faulty servers (test/catalog/faults: the
 *      reference server with one fault on) and from the correct servers (the reference server, the
 *      independent correct implementations, the lenient variants), each by one `vapc run` of it
 *      (every suite but the burst, destructive operations included, seed 1), judged by both.
 *      vapc: a fault is found when drift reports a failed check. Redocly: a fault is found when its
 *      error and warning problems hold one the correct reference server's traffic did not (its
 *      findings on correct traffic, which it has, are listed apart). A "response-side" fault is
 *      one a passive judge names (test/catalog/faults `catches`): visible in the answer to a valid request.
 *   BENCH_FAULTS=regex: only those faults; BENCH_DRIFT_PART=throughput|detection: one part.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSpec } from '../src/spec/load.js';
import { Secrets } from '../src/secrets/index.js';
import { driftRecording } from '../src/traffic/drift.js';
import { checks } from '../suites/index.js';
import { profile } from '../suites/profile.js';
import { startReferenceServer } from '../src/server/index.js';
import { checkOf, faults, startFaultyServer } from '../test/catalog/faults/index.js';
import type { LoopbackServer } from '../test/helpers/loopback-runs.js';
import { BUNDLE, recordRun, REDOCLY, redoclyProblems, timed, VAPC } from './traffic-record.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start as strict } from '../test/catalog/independent/strict/server.mjs';
// @ts-expect-error plain JavaScript module without type declarations
import { start as lenient } from '../test/catalog/independent/lenient/server.mjs';
// @ts-expect-error plain JavaScript module without type declarations
import { start as fastapiLike } from '../test/catalog/independent/fastapi-like/server.mjs';
// @ts-expect-error plain JavaScript module without type declarations
import { start as expressLike } from '../test/catalog/independent/express-like/server.mjs';

type Start = (o: Record<string, unknown>) => Promise<LoopbackServer>;
const spec = await loadSpec();
const dir = mkdtempSync(join(tmpdir(), 'vapc-drift-bench-'));
const part = process.env['BENCH_DRIFT_PART'];
const LIMIT = { host: '127.0.0.1', port: 0, rateLimit: 1_000_000, rateWindowMs: 60_000 };
const passiveChecks = new Set(checks.filter((c) => typeof c.judgeExchange === 'function').map((c) => c.id));

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; files in ${dir}`,
);

/** Failed checks of `vapc drift` on a file (in-process: the same core as the CLI). */
async function vapcFindings(file: string): Promise<string[]> {
  const { report } = await driftRecording({ spec, checks, profile, secrets: new Secrets(), path: file });
  return report.results
    .filter((r) => r.status === 'failed' || r.status === 'error')
    .map((r) => `${r.id} ${r.operation} ${(r.failures ?? []).map((f) => f.kind).join(',')}`);
}

/** `redocly drift FILE` against the bundled spec, JSON output, timed. */
const redoclyDrift = (file: string, origin: string, extra: string[] = []) =>
  timed(process.execPath, [REDOCLY, 'drift', file, '--api', BUNDLE, '--server', origin, '--format', 'json', ...extra]);

/** Redocly's error and warning problems on a file, each as a key without the values that vary. */
async function redoclyFindings(file: string, origin: string): Promise<{ keys: string[]; ms: number; error?: string }> {
  const run = await redoclyDrift(file, origin);
  const problems = redoclyProblems(run.stdout);
  if (problems.length === 0 && run.status !== 0 && !run.stdout.includes('"problems"'))
    return {
      keys: [],
      ms: run.ms,
      error: run.stderr.split('\n').find((l) => /error/i.test(l)) ?? `exit ${run.status}`,
    };
  const keys = problems
    .filter((p) => p['severity'] !== 'info')
    .map((p) =>
      [
        p['ruleId'],
        p['method'],
        (p['details'] as { operationPathTemplate?: string } | undefined)?.operationPathTemplate ?? p['path'],
        p['target'],
        String(p['message'])
          .replace(/"[^"]*"/g, '"…"')
          .replace(/\d+/g, '0'),
      ].join(' | '),
    );
  return { keys: [...new Set(keys)].sort(), ms: run.ms };
}

async function record(
  name: string,
  start: () => Promise<LoopbackServer>,
): Promise<{ file: string; origin: string; lines: number }> {
  const server = await start();
  const file = join(dir, `${name.replace(/[^\w.-]+/g, '_')}.ndjson`);
  try {
    const lines = await recordRun(server, spec, file);
    return { file, origin: new URL(server.url).origin, lines };
  } finally {
    await server.close();
  }
}

async function detection(): Promise<void> {
  const only = process.env['BENCH_FAULTS'] ? new RegExp(process.env['BENCH_FAULTS']) : undefined;
  const correct: Array<[string, () => Promise<LoopbackServer>]> = [
    ['reference server', () => startReferenceServer(LIMIT) as Promise<LoopbackServer>],
    ['independent strict', () => (strict as Start)(LIMIT)],
    ['independent lenient', () => (lenient as Start)(LIMIT)],
    ['independent fastapi-like', () => (fastapiLike as Start)(LIMIT)],
    ['independent express-like', () => (expressLike as Start)(LIMIT)],
    ...faults
      .filter((f) => 'lenient' in f && f.lenient === true)
      .map(
        (f) =>
          [`lenient variant ${f.name}`, () => startFaultyServer(f.name, LIMIT) as Promise<LoopbackServer>] as [
            string,
            () => Promise<LoopbackServer>,
          ],
      ),
  ];
  console.log('\n-- detection: correct servers (every finding is a false alarm)');
  let baseline: string[] = [];
  let vapcFalse = 0;
  for (const [name, start] of correct) {
    const { file, origin, lines } = await record(name, start);
    const vapc = await vapcFindings(file);
    const redocly = await redoclyFindings(file, origin);
    if (name === 'reference server') baseline = redocly.keys;
    vapcFalse += vapc.length;
    console.log(
      `${name}: ${lines} exchanges; vapc drift ${vapc.length} finding(s)${vapc.length ? ` [${vapc.join('; ')}]` : ''}; redocly drift ${redocly.keys.length} error/warning finding(s)${redocly.error ? ` (${redocly.error})` : ''}`,
    );
    if (redocly.keys.length) for (const k of redocly.keys.slice(0, 6)) console.log(`    redocly: ${k}`);
  }
  const known = new Set(baseline);
  const faulty = faults.filter(
    (f) => !('lenient' in f && f.lenient === true) && f.catches.length > 0 && (!only || only.test(f.name)),
  );
  console.log(`\n-- detection: ${faulty.length} faulty servers`);
  const rows: Array<{ name: string; responseSide: boolean; vapc: boolean; redocly: boolean }> = [];
  for (const f of faulty) {
    const responseSide = f.catches.some((c) => passiveChecks.has(checkOf(c)));
    const { file, origin, lines } = await record(
      f.name,
      () => startFaultyServer(f.name, { ...LIMIT, ...f.options, rateLimit: 1_000_000 }) as Promise<LoopbackServer>,
    );
    const vapc = await vapcFindings(file);
    const redocly = await redoclyFindings(file, origin);
    const fresh = redocly.keys.filter((k) => !known.has(k));
    rows.push({ name: f.name, responseSide, vapc: vapc.length > 0, redocly: fresh.length > 0 });
    console.log(
      `${f.name}${responseSide ? ' (response-side)' : ''}: ${lines} exchanges; vapc ${vapc.length ? `FOUND [${vapc.slice(0, 3).join('; ')}]` : 'missed'}; redocly ${fresh.length ? `FOUND [${fresh.slice(0, 2).join('; ')}]` : 'missed'}`,
    );
    rmSync(file, { force: true });
  }
  const count = (pick: (r: (typeof rows)[number]) => boolean) => rows.filter(pick).length;
  const side = rows.filter((r) => r.responseSide);
  console.log(
    `\nresponse-side faults: vapc drift ${side.filter((r) => r.vapc).length}/${side.length}, redocly drift ${side.filter((r) => r.redocly).length}/${side.length}`,
  );
  console.log(
    `every fault: vapc drift ${count((r) => r.vapc)}/${rows.length}, redocly drift ${count((r) => r.redocly)}/${rows.length}`,
  );
  console.log(
    `false alarms on the ${correct.length} correct servers' traffic: vapc drift ${vapcFalse} failed check(s)`,
  );
  const missed = side.filter((r) => !r.vapc).map((r) => r.name);
  if (missed.length) console.log(`response-side faults vapc drift missed: ${missed.join(', ')}`);
}

/** The longest line of the throughput file. */
const MAX_LINE = 16 * 1024;

async function throughput(): Promise<void> {
  const size = Number(process.env['BENCH_DRIFT_EXCHANGES'] ?? 100_000);
  const { file: seedFile, origin } = await record(
    'throughput seed',
    () => startReferenceServer(LIMIT) as Promise<LoopbackServer>,
  );
  // The run's own awkward inputs (150 KiB bodies, 40 recipients) stay out: a 100,000-exchange file of
  // them would be gigabytes, not the traffic of a client; every other line keeps its place.
  const lines = readFileSync(seedFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && l.length <= MAX_LINE);
  const big = join(dir, 'traffic-100k.ndjson');
  const stream = createWriteStream(big);
  for (let i = 0; i < size; i++) if (!stream.write(`${lines[i % lines.length]!}\n`)) await once(stream, 'drain');
  await new Promise<void>((resolve) => stream.end(() => resolve()));
  const mb = (statSync(big).size / 1024 ** 2).toFixed(0);
  console.log(
    `\n-- throughput: ${size} exchanges (${lines.length} distinct lines of at most ${MAX_LINE / 1024} KiB, repeated), ${mb} MB of NDJSON`,
  );
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 2);
  for (let round = 1; round <= rounds; round++) {
    const vapc = await timed(process.execPath, [VAPC, 'drift', big, '--report-dir', join(dir, 'reports'), '--quiet']);
    const redocly = await redoclyDrift(big, origin, ['-o', join(dir, 'redocly.json')]);
    const rate = (ms: number) => Math.round(size / (ms / 1000));
    console.log(
      `round ${round}: vapc drift ${(vapc.ms / 1000).toFixed(1)} s (${rate(vapc.ms)} exchanges/s, peak ${(vapc.maxRssKb / 1024).toFixed(0)} MB, exit ${vapc.status}); ` +
        `redocly drift ${(redocly.ms / 1000).toFixed(1)} s (${rate(redocly.ms)} exchanges/s, peak ${(redocly.maxRssKb / 1024).toFixed(0)} MB, exit ${redocly.status}); ` +
        `ratio ${(redocly.ms / vapc.ms).toFixed(2)}x the speed, ${(redocly.maxRssKb / vapc.maxRssKb).toFixed(2)}x less memory`,
    );
    if (redocly.status !== 0 && redocly.status !== 1) console.log(`  redocly: ${redocly.stderr.slice(-400)}`);
  }
}

try {
  if (part === undefined || part === 'throughput') await throughput();
  if (part === undefined || part === 'detection') await detection();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
