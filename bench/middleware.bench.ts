// npm run bench -- middleware: the middleware figures of issue 35, measured in one run, on Express
// (the framework express-openapi-validator plugs into), against express-openapi-validator 5 given
// the same bundled spec (dist/openapi.json), requests and responses validated by both.
//   1. cold start: in a fresh Node process, from importing the middleware to the first validated
//      response (a POST /campaign with every documented field, answered 201) on a loopback port;
//      the same span without any middleware (the bare route) alongside.     target <= 50 ms
//   2. steady-state throughput as a ratio to the bare route (autocannon, loopback, the servers in
//      a child process of their own), for GET /calls?limit=5 (5 fully-populated calls) and that
//      POST /campaign; the middleware in its default production mode (every request validated,
//      1 response in 100), in test mode (every response held and validated), and
//      express-openapi-validator.                                            target ratio >= 0.9
//      Beside requests per second, the servers' CPU time per request (process.cpuUsage() of their
//      process around each round): on a machine other jobs keep busy, throughput swings by a third
//      from round to round, the CPU a request costs much less.
// Rounds alternate the variants so load on the shared machine hits all alike; medians are
// compared. Needs `npm run build` (npm run bench runs it): the middleware is imported from the
// built validators package, as a user imports it. BENCH_REPS=N sets the cold-start processes per
// variant (default 15), BENCH_ROUNDS the throughput rounds (default 5).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { packageRoot } from '../src/paths.js';

const REPS = Number(process.env['BENCH_REPS'] ?? 15);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const ROUND_SECONDS = 3;
const CONNECTIONS = 10;
const MIDDLEWARE = pathToFileURL(join(packageRoot, 'packages', 'validators', 'dist', 'esm', 'middleware.js')).href;
const SPEC = join(packageRoot, 'dist', 'openapi.json');
const RATE = { 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '999', 'X-RateLimit-Reset': '60' };
const CREDENTIALS = { authorization: 'Bearer bench-key', 'x-user-id': 'bench-user' };

const sample = (name: string, why: string): Record<string, unknown> => {
  const file = JSON.parse(readFileSync(join(packageRoot, 'test', 'samples', `${name}.json`), 'utf8')) as {
    valid: { why: string; value: Record<string, unknown> }[];
  };
  const found = file.valid.find((v) => v.why === why)?.value;
  if (!found) throw new Error(`test/samples/${name}.json has no "${why}" sample`);
  return found;
};
const CREATE = sample('CampaignCreate', 'every field, boundaries 1 and 3');
const RECORD = sample('Campaign', 'every field populated');
const CALL = sample('Call', 'every field populated');
const PAGE = JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ ...CALL, id: `call-${i}` })));

const VARIANTS = ['bare', 'vapc', 'vapc-test', 'eov'] as const;
type Variant = (typeof VARIANTS)[number];

/**
 * The Express app of a variant, as the source of an async function returning it, for a fresh
 * process (no TypeScript loader in the way of the timing). `mark` is where the clock starts: after
 * Express is loaded, just before the middleware is imported.
 */
function appSource(variant: Variant): string {
  return `async () => {
  const express = (await import('express')).default;
  const mark = performance.now();
  let mounted;
  if (${JSON.stringify(variant)}.startsWith('vapc')) {
    const { expressContract } = await import(${JSON.stringify(MIDDLEWARE)});
    // Mounted before express.json(): it reads the contract's bodies itself.
    mounted = [expressContract({ responses: ${JSON.stringify(variant === 'vapc-test' ? 'test' : 'production')} }), express.json()];
  } else if (${JSON.stringify(variant)} === 'eov') {
    const OpenApiValidator = await import('express-openapi-validator');
    mounted = [express.json(), OpenApiValidator.middleware({ apiSpec: ${JSON.stringify(SPEC)}, validateRequests: true, validateResponses: true })];
  } else mounted = [express.json()];
  const app = express();
  for (const m of mounted) app.use(m);
  const rate = ${JSON.stringify(RATE)};
  const page = ${JSON.stringify(PAGE)};
  const record = ${JSON.stringify(RECORD)};
  app.get('/calls', (req, res) => res.set(rate).type('application/json').send(page));
  app.post('/campaign', (req, res) => res.status(201).set(rate).json({ ...record, name: req.body.name }));
  app.use((err, req, res, next) => res.status(err.status ?? 500).json({ detail: String(err.message) }));
  return { app, mark };
}`;
}

/**
 * A fresh process: the variant's app, one validated request, the time from `mark` to its answer.
 * The client is node:http (global fetch would load undici inside the timed span).
 */
function coldSource(variant: Variant): string {
  return `import { request } from 'node:http';
const { app, mark } = await (${appSource(variant)})();
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const post = (body) => new Promise((resolve, reject) => {
  const headers = { 'content-type': 'application/json', ...${JSON.stringify(CREDENTIALS)} };
  const req = request({ host: '127.0.0.1', port: server.address().port, path: '/campaign', method: 'POST', headers }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode));
  });
  req.on('error', reject);
  req.end(body);
});
const status = await post(${JSON.stringify(JSON.stringify(CREATE))});
const ms = performance.now() - mark;
const refused = await post(JSON.stringify({ max_concurrency: 201 }));
console.log(JSON.stringify({ ms, status, refused }));
server.closeAllConnections();
server.close();
`;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function coldStart(): void {
  const times = new Map<Variant, number[]>(VARIANTS.filter((v) => v !== 'vapc-test').map((v) => [v, []]));
  const loads: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    loads.push(loadavg()[0]!);
    const order = [...times.keys()];
    for (let i = 0; i < order.length; i++) {
      const variant = order[(i + rep) % order.length]!;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', coldSource(variant)], {
        cwd: packageRoot,
        encoding: 'utf8',
      });
      if (r.status !== 0) throw new Error(`cold start of ${variant} failed: ${r.stderr}`);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number; status: number; refused: number };
      const refused = variant === 'bare' ? 201 : variant === 'eov' ? 400 : 422;
      if (out.status !== 201 || out.refused !== refused)
        throw new Error(`${variant}: answered ${out.status} and ${out.refused}, expected 201 and ${refused}`);
      times.get(variant)!.push(out.ms);
    }
  }
  const bare = median(times.get('bare')!);
  console.log(
    `1. cold start, import of the middleware -> first validated response (POST /campaign 201), ${REPS} fresh processes each, load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}:`,
  );
  for (const [variant, xs] of times) {
    const m = median(xs);
    const extra = variant === 'bare' ? '' : `  (+${(m - bare).toFixed(1)} ms over the bare route)`;
    console.log(
      `   ${variant.padEnd(10)} median ${m.toFixed(1).padStart(7)} ms  min ${Math.min(...xs).toFixed(1)}${extra}`,
    );
  }
  const vapc = median(times.get('vapc')!);
  console.log(`   target: vapc <= 50 ms: ${vapc <= 50 ? 'MET' : 'NOT MET'}`);
}

// ---- 2. throughput ---------------------------------------------------------------------------------

/** The four apps in one fresh process, each on a loopback port; prints the ports as one JSON line. */
function serveSource(): string {
  const makers = VARIANTS.map((v) => `[${JSON.stringify(v)}, ${appSource(v)}]`).join(',\n');
  return `const ports = {};
for (const [variant, make] of [${makers}]) {
  const { app } = await make();
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  ports[variant] = server.address().port;
}
process.stdout.write(JSON.stringify(ports) + '\\n');
// Each line read: the CPU time this process has used so far (user + system, microseconds).
process.stdin.on('data', () => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(user + system + '\\n');
});
process.stdin.on('end', () => process.exit(0));
`;
}

interface Route {
  name: string;
  path: string;
  method: 'GET' | 'POST';
  body?: string;
  status: number;
}
const ROUTES: Route[] = [
  { name: 'GET /calls?limit=5', path: '/calls?limit=5', method: 'GET', status: 200 },
  { name: 'POST /campaign', path: '/campaign', method: 'POST', body: JSON.stringify(CREATE), status: 201 },
];

async function load(port: number, route: Route, seconds: number): Promise<{ rps: number; total: number; bad: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${route.path}`,
    method: route.method,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { ...CREDENTIALS, ...(route.body ? { 'content-type': 'application/json' } : {}) },
    ...(route.body ? { body: route.body } : {}),
  });
  const ok = result.statusCodeStats?.[String(route.status) as '200']?.count ?? 0;
  const total = result.requests.total;
  return { rps: result.requests.average, total, bad: total - ok + result.errors + result.timeouts };
}

interface Servers {
  ports: Record<Variant, number>;
  /** CPU time the servers' process has used so far, in microseconds. */
  cpu(): Promise<number>;
  stop(): void;
}

async function startServers(): Promise<Servers> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', serveSource()], {
    cwd: packageRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let out = '';
  let exited: Error | undefined;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      const line = out.slice(0, i);
      out = out.slice(i + 1);
      const next = waiting.shift();
      if (next) next.resolve(line);
      else lines.push(line);
    }
  });
  child.once('exit', (code) => {
    exited = new Error(`the servers' process exited (${code})`);
    for (const w of waiting.splice(0)) w.reject(exited);
  });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const line = lines.shift();
      if (line !== undefined) resolve(line);
      else if (exited) reject(exited);
      else waiting.push({ resolve, reject });
    });
  const ports = JSON.parse(await nextLine()) as Record<Variant, number>;
  return {
    ports,
    cpu: async () => {
      child.stdin.write('\n');
      return Number(await nextLine());
    },
    stop: () => child.stdin.end(),
  };
}

/** Rounds of every variant on one route: requests per second, and the servers' CPU microseconds per request. */
async function measureRoute(servers: Servers, route: Route): Promise<void> {
  for (const v of VARIANTS) await load(servers.ports[v], route, 1); // warm-up, not counted
  const rps = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  const cpu = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  let bad = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < VARIANTS.length; i++) {
      const v = VARIANTS[(i + round) % VARIANTS.length]!;
      const before = await servers.cpu();
      const r = await load(servers.ports[v], route, ROUND_SECONDS);
      cpu.get(v)!.push(((await servers.cpu()) - before) / Math.max(1, r.total));
      rps.get(v)!.push(r.rps);
      bad += r.bad;
    }
  }
  const bare = { rps: median(rps.get('bare')!), cpu: median(cpu.get('bare')!) };
  console.log(`   ${route.name}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_SECONDS} s, medians:`);
  for (const v of VARIANTS) {
    const m = { rps: median(rps.get(v)!), cpu: median(cpu.get(v)!) };
    console.log(
      `     ${v.padEnd(10)} ${m.rps.toFixed(0).padStart(7)} req/s  ratio ${(m.rps / bare.rps).toFixed(2)}   CPU ${m.cpu.toFixed(0).padStart(4)} µs/request  ratio ${(bare.cpu / m.cpu).toFixed(2)}`,
    );
  }
  const ratio = median(rps.get('vapc')!) / bare.rps;
  const cpuRatio = bare.cpu / median(cpu.get('vapc')!);
  console.log(
    `     target: vapc / bare >= 0.9: ${ratio >= 0.9 ? 'MET' : 'NOT MET'} (${ratio.toFixed(3)} by req/s; ${cpuRatio.toFixed(3)} by CPU per request)`,
  );
  if (bad > 0) console.log(`     ${bad} answers other than ${route.status}, or errors`);
}

async function throughput(): Promise<void> {
  const servers = await startServers();
  try {
    for (const route of ROUTES) await measureRoute(servers, route);
  } finally {
    servers.stop();
  }
}

coldStart();
console.log(`\n2. steady-state throughput on Express, load ${loadavg()[0]!.toFixed(1)}:`);
await throughput();
