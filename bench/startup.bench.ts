/**
 * Start-up benchmark (npm run bench -- startup): what a `vapc run` costs before its first check.
 *
 * `vapc run --dry-run` on the packaged spec (module loading, the spec model, three discovery
 * requests, the plan) and `vapc --version` (the CLI's floor), each as a fresh child process, as a
 * ratio to `node -e 0` measured in the same run. Rounds alternate the commands (which goes first
 * rotates), so machine load hits every side alike; medians are compared. The target is a dry run
 * of at most 0.5 s on a quiet 2-core machine, where `node -e 0` takes about 40 ms: a ratio of
 * about 12 or less. The load average is printed beside the figures; no threshold is enforced.
 *
 * BENCH_REPS=N sets the rounds (default 15). BENCH_BEFORE=/path/to/another/checkout (built) adds
 * that checkout's `vapc run --dry-run` to the same rounds, for a before/after in one run.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { startReferenceServer } from '../src/server/index.js';
import { packageRoot } from '../src/paths.js';

const REPS = Number(process.env['BENCH_REPS'] ?? 15);
const before = process.env['BENCH_BEFORE'];

/** Runs a command to its end without blocking this process (the server answers meanwhile); ms. */
function timed(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${args.join(' ')} exited ${code}: ${err.slice(0, 500)}`));
    });
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const server = await startReferenceServer({ host: '127.0.0.1', port: 0, rateLimit: 1_000_000, rateWindowMs: 60_000 });
try {
  const run = (root: string) => [
    join(root, 'bin', 'vapc.js'),
    'run',
    '--dry-run',
    '--seed',
    '1',
    '--base-url',
    server.url,
    '--api-key',
    server.fixtures.api_key,
    '--user-id',
    server.fixtures.user_id,
  ];
  const sides: Array<[string, string[]]> = [
    ['node -e 0', ['-e', '0']],
    ['vapc --version', [join(packageRoot, 'bin', 'vapc.js'), '--version']],
    ['vapc run --dry-run', run(packageRoot)],
  ];
  if (before) sides.push([`before: ${before}`, run(before)]);
  const times = new Map<string, number[]>(sides.map(([name]) => [name, []]));
  const loads: number[] = [];
  for (let round = 0; round < REPS; round++) {
    loads.push(loadavg()[0]!);
    for (let i = 0; i < sides.length; i++) {
      const [name, args] = sides[(i + round) % sides.length]!;
      times.get(name)!.push(await timed(args));
    }
  }
  const floor = median(times.get('node -e 0')!);
  console.log(
    `start-up, ${REPS} alternating rounds, load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} (2 cores):`,
  );
  for (const [name, xs] of times) {
    const m = median(xs);
    console.log(
      `  ${name.padEnd(34)} median ${m.toFixed(0).padStart(5)} ms  (min ${Math.min(...xs).toFixed(0)})  ratio to node -e 0: ${(m / floor).toFixed(1)}`,
    );
  }
  console.log('  target: vapc run --dry-run <= 0.5 s quiet, i.e. a ratio of about 12 or less');
} finally {
  await server.close();
}
