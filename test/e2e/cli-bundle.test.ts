// bin/vapc.js runs the CLI bundle, dist/cli/vapc.cjs, compiled with the code cache the build made
// (bin/load-cli.js, scripts/build-cli.ts; ARCHITECTURE.md "The CLI bundle and its code cache").
// Most tests call the CLI's modules in-process; these run the bundle as users get it, and show
// that it behaves as the modules do and that a cache is used only for the bundle it was made from.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { packageRoot } from '../../src/paths.js';

const bin = join(packageRoot, 'bin', 'vapc.js');
const loader = pathToFileURL(join(packageRoot, 'bin', 'load-cli.js')).href;
const bundle = join(packageRoot, 'dist', 'cli', 'vapc.cjs');
let work: string;

beforeAll(() => {
  // Inside the package, so that the copied bundle finds the package root and node_modules.
  mkdirSync(join(packageRoot, 'node_modules', '.cache'), { recursive: true });
  work = mkdtempSync(join(packageRoot, 'node_modules', '.cache', 'vapc-bundle-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Loads a bundle through bin/load-cli.js in a fresh node, runs `argv`; whether the cache was used, and stdout. */
function loadAndRun(argv: string[], bundleFile = bundle): { accepted: boolean; code: number; out: string } {
  const script = `const { loadCli } = await import(${JSON.stringify(loader)});
    const cli = loadCli({ bundle: ${JSON.stringify(bundleFile)} });
    let out = '';
    const code = await cli.main(${JSON.stringify(argv)}, { stdout: (t) => (out += t), stderr: (t) => (out += t), env: {}, isTTY: false });
    process.stdout.write(JSON.stringify({ accepted: cli.cacheAccepted, code, out }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as { accepted: boolean; code: number; out: string };
}

/** report.json without what differs between two runs of the same plan: times, the port, the folder. */
function comparable(dir: string): unknown {
  const text = readFileSync(join(dir, 'report.json'), 'utf8').replace(/http:\/\/127\.0\.0\.1:\d+/g, 'TARGET');
  return JSON.parse(text, (key, value: unknown) =>
    ['duration_ms', 'started_at', 'reset_at', 'report_dir'].includes(key) ? undefined : value,
  );
}

describe('the CLI bundle', () => {
  it('is compiled with the code cache the build made for it', () => {
    const run = loadAndRun(['--version']);
    expect(run).toMatchObject({ accepted: true, code: 0 });
    expect(run.out.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('runs the same checks with the same verdicts and evidence as the compiled modules', async () => {
    const argv = ['run', '--embedded', '--suite', 'cors,schema', '--seed', '1', '--quiet', '--report-dir'];
    const viaBin = spawnSync(process.execPath, [bin, ...argv, join(work, 'bin')], { encoding: 'utf8' });
    expect(viaBin.status).toBe(0);
    const silent = { stdout: () => {}, stderr: () => {}, env: {}, isTTY: false };
    expect(await main([...argv, join(work, 'modules')], silent)).toBe(0);
    const report = comparable(join(work, 'bin')) as { results: unknown[] };
    expect(report.results.length).toBeGreaterThan(10);
    expect(report).toEqual(comparable(join(work, 'modules')));
  });

  it('reads a spec of the user through the bundle (the parser is required, the bundle has no import())', () => {
    const bad = join(work, 'bad.yaml');
    writeFileSync(bad, 'openapi: 3.1.0\n');
    const spec = join(packageRoot, 'spec', 'openapi.yaml');
    const same = spawnSync(process.execPath, [bin, 'diff', spec, spec], { encoding: 'utf8' });
    expect(same.status).toBe(0);
    expect(same.stdout).toContain('no changes');
    const invalid = spawnSync(process.execPath, [bin, 'diff', bad, spec], { encoding: 'utf8' });
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toMatch(/is not a valid Openapi API definition \[E_SPEC_INVALID\]/);
  });

  it('does not use a cache made from another bundle, even one of the same length', () => {
    const text = readFileSync(bundle, 'utf8');
    const edited = text.replace('API contract (2.0.1), executable', 'API contract (2.0.1), EXECUTABLE');
    expect(edited).not.toBe(text);
    expect(edited.length).toBe(text.length);
    const copy = join(work, 'edited.cjs');
    writeFileSync(copy, edited);
    copyFileSync(`${bundle}.cache`, `${copy}.cache`);
    const run = loadAndRun(['--help'], copy);
    expect(run.accepted).toBe(false);
    expect(run.out).toContain('EXECUTABLE');
  });

  it('runs without a cache that is cut short or not a cache at all', () => {
    const copy = join(work, 'copy.cjs');
    copyFileSync(bundle, copy);
    const cache = readFileSync(`${bundle}.cache`);
    for (const broken of [cache.subarray(0, cache.length >> 1), cache.subarray(0, 10), Buffer.alloc(4096, 7)]) {
      writeFileSync(`${copy}.cache`, broken);
      expect(loadAndRun(['--version'], copy)).toMatchObject({ accepted: false, code: 0 });
    }
    // A cache with the right key and a payload V8 does not take (another cache's bytes) is refused by V8.
    writeFileSync(`${copy}.cache`, Buffer.concat([cache.subarray(0, 20), Buffer.alloc(cache.length - 20, 1)]));
    expect(loadAndRun(['--version'], copy)).toMatchObject({ accepted: false, code: 0 });
  });

  it('says the bundle cannot be loaded, one line and exit 2, when it is damaged', () => {
    const lone = mkdtempSync(join(tmpdir(), 'vapc-badbundle-'));
    try {
      mkdirSync(join(lone, 'bin'));
      mkdirSync(join(lone, 'dist', 'cli'), { recursive: true });
      copyFileSync(bin, join(lone, 'bin', 'vapc.js'));
      copyFileSync(join(packageRoot, 'bin', 'load-cli.js'), join(lone, 'bin', 'load-cli.js'));
      writeFileSync(join(lone, 'package.json'), '{"type":"module"}');
      writeFileSync(join(lone, 'dist', 'cli', 'vapc.cjs'), readFileSync(bundle, 'utf8').slice(0, 5000));
      const run = spawnSync(process.execPath, [join(lone, 'bin', 'vapc.js'), '--version'], { encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(
        /^vapc: the CLI bundle cannot be loaded \(SyntaxError: [^\n]+\); rebuild with npm run build \[E_TOOL_FAILED\]\n$/,
      );
    } finally {
      rmSync(lone, { recursive: true, force: true });
    }
  });

  it('says to build first, exit 2, when a checkout (it has scripts/build.mjs) has no bundle', () => {
    const lone = mkdtempSync(join(tmpdir(), 'vapc-nobundle-'));
    try {
      mkdirSync(join(lone, 'bin'));
      mkdirSync(join(lone, 'scripts'));
      writeFileSync(join(lone, 'scripts', 'build.mjs'), '');
      copyFileSync(bin, join(lone, 'bin', 'vapc.js'));
      copyFileSync(join(packageRoot, 'bin', 'load-cli.js'), join(lone, 'bin', 'load-cli.js'));
      writeFileSync(join(lone, 'package.json'), '{"type":"module"}');
      const run = spawnSync(process.execPath, [join(lone, 'bin', 'vapc.js'), '--version'], { encoding: 'utf8' });
      expect(run.status).toBe(2);
      expect(run.stderr).toBe('vapc: the toolkit is not built yet; run `npm run build` first.\n');
    } finally {
      rmSync(lone, { recursive: true, force: true });
    }
  });
});
