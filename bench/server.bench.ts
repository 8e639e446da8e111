// npm run bench -- server: throughput of the reference server's GET /calls (default page of 50
// fully-populated calls, authenticated, validated, rate-limited with a high limit) against a bare
// Fastify route returning the very same bytes, both on loopback, 50 connections, autocannon, in one
// run. Target: reference / bare >= 0.6. Also prints requests per second and p99 latency.
//
// The servers run in a child process (this file with --serve) so the load generator does not share
// their event loop; rounds alternate reference and bare so drift on a busy machine hits both alike.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import Fastify from 'fastify';

const CONNECTIONS = 50;
const ROUND_SECONDS = 4;
const ROUNDS = 3;

interface Targets {
  reference: string;
  bare: string;
  headers: Record<string, string>;
  bytes: number;
}

async function serveTargets(): Promise<void> {
  const { referenceSpec, startReferenceServer } = await import('../src/server/index.js');
  const reference = await startReferenceServer({ port: 0, spec: await referenceSpec(), rateLimit: 1_000_000_000 });
  const headers = { authorization: `Bearer ${reference.fixtures.api_key}`, 'x-user-id': reference.fixtures.user_id };
  const sample = await reference.app.inject({ method: 'GET', url: '/calls', headers });
  if (sample.statusCode !== 200) throw new Error(`GET /calls answered ${sample.statusCode}`);
  const body = sample.body;
  const contentType = String(sample.headers['content-type']);
  const bare = Fastify({ logger: false });
  bare.get('/calls', (_request, reply) => reply.type(contentType).send(body));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const address = bare.server.address() as { port: number };
  const targets: Targets = {
    reference: `${reference.url}/calls`,
    bare: `http://127.0.0.1:${address.port}/calls`,
    headers,
    bytes: Buffer.byteLength(body),
  };
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    void Promise.all([reference.close(), bare.close()]).then(() => process.exit(0));
  });
}

interface Round {
  rps: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Round> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: ROUND_SECONDS, headers });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

async function run(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const targets = await new Promise<Targets>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(JSON.parse(line) as Targets);
    });
    child.on('exit', (code) => reject(new Error(`the target process exited (${code})`)));
  });
  try {
    // Warm-up, not counted.
    await autocannon({ url: targets.reference, connections: CONNECTIONS, duration: 1, headers: targets.headers });
    await autocannon({ url: targets.bare, connections: CONNECTIONS, duration: 1 });
    const reference: Round[] = [];
    const bare: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      if (i % 2 === 0) {
        reference.push(await load(targets.reference, targets.headers));
        bare.push(await load(targets.bare, targets.headers));
      } else {
        bare.push(await load(targets.bare, targets.headers));
        reference.push(await load(targets.reference, targets.headers));
      }
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const ref = { rps: median(reference.map((r) => r.rps)), p99: median(reference.map((r) => r.p99)) };
    const base = { rps: median(bare.map((r) => r.rps)), p99: median(bare.map((r) => r.p99)) };
    const problems = [...reference, ...bare].reduce((n, r) => n + r.non2xx + r.errors, 0);
    const ratio = ref.rps / base.rps;
    console.log(
      `GET /calls default page (${targets.bytes} bytes), ${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_SECONDS} s each, medians:`,
    );
    console.log(`  reference server  ${ref.rps.toFixed(0).padStart(7)} req/s   p99 ${ref.p99} ms`);
    console.log(`  bare Fastify      ${base.rps.toFixed(0).padStart(7)} req/s   p99 ${base.p99} ms`);
    console.log(`  ratio reference/bare ${ratio.toFixed(2)} (target >= 0.6) ${ratio >= 0.6 ? 'MET' : 'NOT MET'}`);
    if (problems > 0) console.log(`  ${problems} non-2xx responses or errors during the runs`);
    process.exitCode = problems > 0 ? 1 : 0;
  } finally {
    child.stdin.end();
  }
}

if (process.argv.includes('--serve')) await serveTargets();
else await run();
