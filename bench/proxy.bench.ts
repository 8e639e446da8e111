/**
 * `vapc proxy` against `redocly proxy` (Redocly CLI 2.77, experimental, validating live with --api),
 * in one run (npm run bench -- proxy), each proxy a process of its own on loopback:
 *   1. added latency: GET /calls?limit=5 on the reference server at a fixed rate (autocannon
 *      overallRate, BENCH_PROXY_RATE per second, BENCH_PROXY_SECONDS a round), direct, through a
 *      floor (the least a Node reverse proxy does: node:http piped both ways, nothing judged, the
 *      process hop alone), through `vapc proxy` and through `redocly proxy`, over BENCH_ROUNDS rounds. Latencies are
 *      autocannon's own per-response times (fractional ms, from its 'response' event: its histogram
 *      rounds to whole ms); p50 and p99 of each, and the added p50/p99 against direct in the same round.
 *   2. byte identity: BENCH_PROXY_BODIES requests with random binary bodies (0–256 KiB) to a target
 *      that hashes what it receives and answers random bytes (gzip-coded, chunked in pieces, on
 *      every third): the SHA-256 of every body on both sides of each proxy, request and response.
 *   3. shutdown: the time from SIGTERM to exit with the reports written (vapc), the HAR written (redocly).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import { request } from 'undici';
import { startReferenceServer } from '../src/server/index.js';
import { BUNDLE, REDOCLY, VAPC } from './traffic-record.js';

const RATE = Number(process.env['BENCH_PROXY_RATE'] ?? 200);
const SECONDS = Number(process.env['BENCH_PROXY_SECONDS'] ?? 8);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 2);
const BODIES = Number(process.env['BENCH_PROXY_BODIES'] ?? 300);
const dir = mkdtempSync(join(tmpdir(), 'vapc-proxy-bench-'));
const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

interface Proxy {
  name: string;
  url: string;
  child: ChildProcess;
  output: () => string;
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function started(name: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  child.on('error', (error) => console.log(`${name}: ${error.message}`));
  return { child, output: () => out };
}

/** Waits until `url` answers anything at all (the proxy listens). */
async function answering(url: string, output: () => string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await (await request(`${url}/health`)).body.arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`${url} never answered: ${output().slice(-400)}`);
}

const vapcProxy = (target: string, tag: string): Promise<Proxy> =>
  listening('vapc proxy', [
    VAPC,
    'proxy',
    '--target',
    target,
    '--listen',
    '127.0.0.1:0',
    '--report-dir',
    join(dir, `vapc-${tag}`),
    '--quiet',
  ]);

/** The floor: the least a Node reverse proxy does (node:http, keep-alive, piped both ways), nothing judged. */
const FLOOR_SOURCE = `
import { createServer, request, Agent } from 'node:http';
const target = new URL(process.argv[1]);
const agent = new Agent({ keepAlive: true });
const server = createServer((req, res) => {
  const up = request({ hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (from) => {
    res.writeHead(from.statusCode, from.rawHeaders);
    from.pipe(res);
  });
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => console.log('listening http://127.0.0.1:' + server.address().port));
`;

async function listening(name: string, args: string[]): Promise<Proxy> {
  const { child, output } = started(name, args);
  for (let i = 0; i < 300 && !/listening (http:\S+)/.test(output()); i++)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const url = /listening (http:\S+)/.exec(output())?.[1];
  if (!url) throw new Error(`${name} did not listen: ${output().slice(-400)}`);
  return { name, url, child, output };
}

const floorProxy = (target: string): Promise<Proxy> =>
  listening('node:http floor', ['--input-type=module', '-e', FLOOR_SOURCE, target]);

async function redoclyProxy(target: string, tag: string): Promise<Proxy> {
  const port = await freePort();
  const { child, output } = started('redocly proxy', [
    REDOCLY,
    'proxy',
    '--target',
    target,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--har',
    join(dir, `redocly-${tag}.har`),
    '--api',
    BUNDLE,
    '--match-mode',
    'basepath',
  ]);
  const url = `http://127.0.0.1:${port}`;
  await answering(url, output);
  return { name: 'redocly proxy', url, child, output };
}

/** SIGTERM, then the time until the process exited (its reports or HAR written). */
async function stop(proxy: Proxy): Promise<{ ms: number; code: number | null }> {
  const t0 = performance.now();
  const exited = new Promise<number | null>((resolve) => proxy.child.on('close', resolve));
  proxy.child.kill('SIGTERM');
  const code = await exited;
  return { ms: performance.now() - t0, code };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** Latencies of one fixed-rate load (ms, fractional), and the answers that were not a 200. */
async function load(
  url: string,
  headers: Record<string, string>,
): Promise<{ p50: number; p99: number; n: number; bad: number }> {
  const times: number[] = [];
  let bad = 0;
  let finish!: (result: autocannon.Result) => void;
  let fail!: (error: Error) => void;
  const finished = new Promise<autocannon.Result>((resolve, reject) => ((finish = resolve), (fail = reject)));
  const instance = autocannon(
    { url: `${url}/calls?limit=5`, headers, connections: 8, overallRate: RATE, duration: SECONDS },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status === 200) times.push(ms);
    else bad++;
  });
  const result = await finished;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), n: times.length, bad: bad + result.errors };
}

/** A target that hashes each body it receives and answers random bytes, some gzip-coded and chunked. */
async function hashingTarget(): Promise<{
  url: string;
  seen: Map<string, { got: string; sent: string }>;
  server: Server;
}> {
  const seen = new Map<string, { got: string; sent: string }>();
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const id = String(req.headers['x-bench-id']);
      const n = Number(id);
      // The proxies' readiness probe (no id): an empty answer.
      if (!Number.isInteger(n)) return void res.end();
      const raw = randomBytes(n % 7 === 0 ? 0 : (n * 7919) % 200_000);
      const body = n % 3 === 0 ? gzipSync(raw) : raw;
      seen.set(id, { got: sha(Buffer.concat(parts)), sent: sha(body) });
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        ...(n % 3 === 0 ? { 'content-encoding': 'gzip' } : {}),
      });
      if (n % 2 === 0) {
        res.write(body.subarray(0, body.length >> 1));
        setImmediate(() => res.end(body.subarray(body.length >> 1)));
      } else res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

/** Every body on both sides of `url`, by hash: how many requests and answers differ. */
async function identity(
  url: string,
  target: Awaited<ReturnType<typeof hashingTarget>>,
  base: number,
): Promise<{ requests: number; differ: number; failed: number }> {
  let differ = 0;
  let failed = 0;
  for (let i = 0; i < BODIES; i++) {
    const id = String(base + i);
    const sent = randomBytes((i * 104_729) % 262_144);
    try {
      const r = await request(`${url}/blob/${id}?q=${i}`, {
        method: i % 4 === 0 ? 'PUT' : 'POST',
        body: sent,
        headers: { 'x-bench-id': id, 'content-type': 'application/octet-stream' },
      });
      const got = sha(Buffer.from(await r.body.arrayBuffer()));
      const there = target.seen.get(id);
      if (!there || there.got !== sha(sent) || there.sent !== got) differ++;
    } catch {
      failed++;
    }
  }
  return { requests: BODIES, differ, failed };
}

const f = (ms: number): string => ms.toFixed(2);

async function latency(): Promise<void> {
  const server = await startReferenceServer({ host: '127.0.0.1', port: 0, rateLimit: 1e9, rateWindowMs: 60_000 });
  const headers = { authorization: `Bearer ${server.fixtures.api_key}`, 'x-user-id': server.fixtures.user_id };
  console.log(`\n-- added latency: GET /calls?limit=5 at ${RATE}/s, ${SECONDS} s a measure, 8 connections`);
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const floor = await floorProxy(server.url);
      const vapc = await vapcProxy(server.url, `latency-${round}`);
      const redocly = await redoclyProxy(server.url, `latency-${round}`);
      // One second of warm-up each (JIT, connections), not measured.
      for (const url of [server.url, floor.url, vapc.url, redocly.url])
        await autocannon({ url: `${url}/calls?limit=5`, headers, connections: 8, overallRate: RATE, duration: 1 });
      const direct = await load(server.url, headers);
      const bare = await load(floor.url, headers);
      const through = await load(vapc.url, headers);
      const viaRedocly = await load(redocly.url, headers);
      await stop(floor);
      const vapcStop = await stop(vapc);
      const redoclyStop = await stop(redocly);
      const line = (name: string, m: typeof direct) =>
        `${name} p50 ${f(m.p50)} ms, p99 ${f(m.p99)} ms (${m.n} answers${m.bad ? `, ${m.bad} not 200` : ''})`;
      console.log(`round ${round}: ${line('direct', direct)}`);
      console.log(
        `  ${line('node:http floor', bare)}: added p50 ${f(bare.p50 - direct.p50)} ms, p99 ${f(bare.p99 - direct.p99)} ms`,
      );
      console.log(
        `  ${line('vapc proxy', through)}: added p50 ${f(through.p50 - direct.p50)} ms, p99 ${f(through.p99 - direct.p99)} ms; stopped in ${vapcStop.ms.toFixed(0)} ms (exit ${vapcStop.code}, reports written)`,
      );
      console.log(
        `  ${line('redocly proxy', viaRedocly)}: added p50 ${f(viaRedocly.p50 - direct.p50)} ms, p99 ${f(viaRedocly.p99 - direct.p99)} ms; stopped in ${redoclyStop.ms.toFixed(0)} ms (exit ${redoclyStop.code})`,
      );
    }
  } finally {
    await server.close();
  }
}

async function bytes(): Promise<void> {
  const target = await hashingTarget();
  console.log(`\n-- byte identity: ${BODIES} requests a path, random binary bodies up to 256 KiB both ways`);
  try {
    const vapc = await vapcProxy(target.url, 'bytes');
    const redocly = await redoclyProxy(target.url, 'bytes');
    const paths: Array<[string, string]> = [
      ['direct', target.url],
      ['vapc proxy', vapc.url],
      ['redocly proxy', redocly.url],
    ];
    for (const [i, [name, url]] of paths.entries()) {
      const r = await identity(url, target, i * 1_000_000);
      console.log(`${name}: ${r.requests} exchanges, ${r.differ} with a body that differs, ${r.failed} failed`);
    }
    await stop(vapc);
    await stop(redocly);
  } finally {
    await new Promise((resolve) => target.server.close(resolve));
  }
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
try {
  const part = process.env['BENCH_PROXY_PART'];
  if (part === undefined || part === 'latency') await latency();
  if (part === undefined || part === 'bytes') await bytes();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
