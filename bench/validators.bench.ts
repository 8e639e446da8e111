// npm run bench -- validators: the three figures of issue 3, measured in one run.
//   1. validating a GET /calls response of 50 fully-populated calls (already parsed) vs JSON.parse
//      of the same text                                              target ratio <= 1.0
//   2. importing the precompiled validators vs compiling them from the spec at run time, each in
//      a fresh Node process                                          target >= 20x faster
//   3. the precompiled function vs the same validator compiled by AJV at run time, same data
//                                                                    target ratio <= 1.05
// Needs `npm run build` (npm run bench runs it): part 2 imports the compiled dist/ modules.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { validateResponse } from '../src/validators/index.js';
import * as precompiled from '../src/generated/validators.js';
import { compileAtRuntime } from '../src/validators/compile.js';

type Fn = (data: unknown) => boolean;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** Nanoseconds per call of each function, batches interleaved so drift hits both alike; medians. */
function compare(fns: Record<string, () => unknown>, totalMs = 1500): Record<string, number> {
  const names = Object.keys(fns);
  const perBatch: Record<string, number> = {};
  for (const name of names) {
    const fn = fns[name] as () => unknown;
    let n = 1;
    for (;;) {
      const t = performance.now();
      for (let i = 0; i < n; i++) fn();
      if (performance.now() - t > 5) break;
      n *= 2;
    }
    perBatch[name] = n;
  }
  const samples: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  gc();
  const end = performance.now() + totalMs;
  for (let round = 0; performance.now() < end; round++) {
    // Alternate the order each round: whichever runs first in a round gets no systematic edge.
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const fn = fns[name] as () => unknown;
      const n = perBatch[name] as number;
      const t = performance.now();
      for (let i = 0; i < n; i++) fn();
      (samples[name] as number[]).push(((performance.now() - t) * 1e6) / n);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n] as number[])]));
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function fmt(ns: number): string {
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(1)} ms` : `${(ns / 1e3).toFixed(1)} µs`;
}

function verdict(ok: boolean): string {
  return ok ? 'meets target' : 'MISSES target';
}

// ---- the payload: 50 calls with every documented field, from the hand-written sample ---------
const callSamples = JSON.parse(readFileSync(join(packageRoot, 'test', 'samples', 'Call.json'), 'utf8')) as {
  valid: { why: string; value: Record<string, unknown> }[];
};
const full = callSamples.valid.find((s) => s.why === 'every field populated')?.value;
if (!full) throw new Error('the fully-populated Call sample is missing');
const text = JSON.stringify(
  Array.from({ length: 50 }, (_, i) => ({
    ...full,
    id: `call-${i}`,
    duration_seconds: 30 + i,
    summary: `${String(full['summary'])} #${i}`,
  })),
);
const parsed = JSON.parse(text) as unknown;
const headers = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '42', 'x-ratelimit-reset': '1700000000' };
if (!validateResponse('listCalls', 200, { headers, body: parsed }).ok)
  throw new Error('the benchmark payload is not valid');

console.log(`payload: GET /calls 200, 50 fully-populated calls, ${(text.length / 1024).toFixed(1)} KiB of JSON`);

// ---- 3 runs first, in a fresh process of its own: which functions ran before (parts 1 and 2
// warm only the precompiled ones) changes how V8 optimises them, and would bias the ratio.
async function partThree(): Promise<Record<string, number>> {
  const { validators: runtime } = await compileAtRuntime();
  const pre = (precompiled as unknown as Record<string, Fn>)['op_listCalls_200_body'] as Fn;
  const rt = runtime['op_listCalls_200_body'] as Fn;
  if (!pre(parsed) || !rt(parsed)) throw new Error('a validator rejects the payload');
  return compare({ precompiled: () => pre(parsed), runtime: () => rt(parsed) }, 3000);
}
if (process.argv.includes('--part3')) {
  console.log(JSON.stringify(await partThree()));
  process.exit(0);
}
const part3 = spawnSync(process.execPath, [...process.execArgv, process.argv[1] as string, '--part3'], {
  cwd: packageRoot,
  encoding: 'utf8',
});
if (part3.status !== 0) throw new Error(`part 3 failed: ${part3.stderr}`);
const three = JSON.parse(part3.stdout.trim().split('\n').pop() as string) as Record<string, number>;

// ---- 1. validate vs JSON.parse ---------------------------------------------------------------
const body = (precompiled as unknown as Record<string, Fn>)['op_listCalls_200_body'] as Fn;
const one = compare({
  parse: () => JSON.parse(text),
  validateResponse: () => validateResponse('listCalls', 200, { headers, body: parsed }),
  bodyFunction: () => body(parsed),
});
const r1 = (one['validateResponse'] as number) / (one['parse'] as number);
console.log(`\n1. JSON.parse of the text          ${fmt(one['parse'] as number)}`);
console.log(
  `   validateResponse (guard+headers+body) ${fmt(one['validateResponse'] as number)}  ratio ${r1.toFixed(3)} (target <= 1.0: ${verdict(r1 <= 1)})`,
);
console.log(
  `   precompiled body function alone   ${fmt(one['bodyFunction'] as number)}  ratio ${((one['bodyFunction'] as number) / (one['parse'] as number)).toFixed(3)}`,
);

// ---- 2. import precompiled vs compile at run time, fresh processes -----------------------------
function child(code: string): number {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: packageRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return Number(r.stdout.trim().split('\n').pop());
}
const distValidators = join(packageRoot, 'dist', 'src', 'validators', 'index.js');
const distCompile = join(packageRoot, 'dist', 'src', 'validators', 'compile.js');
const importCode = `const t = performance.now(); const v = await import(${JSON.stringify(distValidators)}); v.validate('Call', {}); console.log(performance.now() - t);`;
const compileCode = `const t = performance.now(); const c = await import(${JSON.stringify(distCompile)}); const r = await c.compileAtRuntime(); r.validators.schema_Call({}); console.log(performance.now() - t);`;
const imports: number[] = [];
const compiles: number[] = [];
for (let i = 0; i < 7; i++) {
  imports.push(child(importCode));
  compiles.push(child(compileCode));
}
const imp = median(imports);
const comp = median(compiles);
const r2 = comp / imp;
console.log(`\n2. import precompiled validators   ${imp.toFixed(1)} ms (median of 7 fresh processes)`);
console.log(
  `   load spec + compile at run time   ${comp.toFixed(1)} ms  -> ${r2.toFixed(1)}x faster (target >= 20x: ${verdict(r2 >= 20)})`,
);

// ---- 3. precompiled vs AJV runtime-compiled, same data (measured above, in its own process) -----
const r3 = (three['precompiled'] as number) / (three['runtime'] as number);
console.log(`\n3. precompiled op_listCalls_200_body ${fmt(three['precompiled'] as number)}`);
console.log(
  `   AJV compiled at run time          ${fmt(three['runtime'] as number)}  ratio ${r3.toFixed(3)} (target <= 1.05: ${verdict(r3 <= 1.05)})`,
);
