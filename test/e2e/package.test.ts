// The package as consumers get it: `npm pack`, unpacked into an unrelated temporary project's
// node_modules with its bin linked as npm would (test/helpers/packed.ts; no registry, no npm
// cache), used from plain Node ESM. Needs `npm run build` first (npm test runs it). Its declarations,
// type-checked from TypeScript consumers, are test/slow/package-types.test.ts (the slow tier).
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { packedConsumerOnce, runIn as run } from '../helpers/packed.js';

const consumer = packedConsumerOnce();

describe('npm pack', () => {
  it('ships the compiled library, the bundled spec, the CLI and the README, and nothing of the workshop', () => {
    for (const needed of [
      'package.json',
      'README.md',
      'bin/vapc.js',
      'bin/load-cli.js',
      'dist/cli/vapc.cjs',
      'dist/cli/vapc.cjs.cache',
      'dist/openapi.json',
      'dist/openapi.dereferenced.json',
      'dist/openapi.yaml',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/generated/validators.js',
      'dist/src/generated/types.d.ts',
    ]) {
      expect(consumer().files, needed).toContain(needed);
    }
    expect(
      consumer().files.filter(
        (f) =>
          /^(test|bench|scripts|src|node_modules|reports)\//.test(f) ||
          f.endsWith('.map') ||
          (f.endsWith('.ts') && !f.endsWith('.d.ts')),
      ),
    ).toEqual([]);
  });
});

describe('the installed package', () => {
  it('validates from plain Node ESM: every hand-written sample gets the right verdict', () => {
    copyFileSync(join(packageRoot, 'test', 'samples', 'check-samples.mjs'), join(consumer().dir, 'check-samples.mjs'));
    writeFileSync(
      join(consumer().dir, 'samples.mjs'),
      [
        "import { validate, validateRequest, validateResponse, isCall, UnknownSchemaError, schemaNames } from 'voice-agent-contract';",
        "import spec from 'voice-agent-contract/spec' with { type: 'json' };",
        "import { checkSamples } from './check-samples.mjs';",
        `const result = checkSamples(validate, ${JSON.stringify(join(packageRoot, 'test', 'samples'))});`,
        'let unknown = null;',
        "try { validate('Nope', {}); } catch (e) { unknown = e instanceof UnknownSchemaError ? e.code : String(e); }",
        'console.log(JSON.stringify({ ...result, names: schemaNames(), unknown, version: spec.info.version,',
        "  request: validateRequest('listCalls', { query: { limit: '5.5' } }).ok,",
        "  response: validateResponse('listCalls', 200, { headers: { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9' }, body: [] }).ok,",
        "  guard: isCall({ id: 'a', to_number: '1', provider: 'p', status: 's' }) }));",
      ].join('\n'),
    );
    const r = run(process.execPath, ['samples.mjs'], consumer().dir);
    expect(r.status, r.out).toBe(0);
    const out = JSON.parse(r.out.trim().split('\n').pop() as string) as {
      checked: number;
      schemas: string[];
      problems: string[];
      names: string[];
      unknown: string;
      version: string;
      request: boolean;
      response: boolean;
      guard: boolean;
    };
    expect(out.problems).toEqual([]);
    expect(out.checked).toBeGreaterThan(100);
    expect([...out.schemas].sort()).toEqual([...out.names].sort());
    expect(out).toMatchObject({
      unknown: 'E_UNKNOWN_SCHEMA',
      version: '2.0.1',
      request: false,
      response: true,
      guard: true,
    });
  });

  it('does not let consumers reach into private files', () => {
    writeFileSync(
      join(consumer().dir, 'deep.mjs'),
      "await import('voice-agent-contract/dist/src/validators/compile.js');",
    );
    const r = run(process.execPath, ['deep.mjs'], consumer().dir);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('exports ./server, ./runner and ./reporters: a run against the reference server from plain Node ESM', () => {
    writeFileSync(
      join(consumer().dir, 'entries.mjs'),
      [
        "import { startReferenceServer } from 'voice-agent-contract/server';",
        "import { runConformance, checks, defineCheck } from 'voice-agent-contract/runner';",
        "import { renderJunit, renderSarif, writeReports } from 'voice-agent-contract/reporters';",
        'const server = await startReferenceServer({ port: 0 });',
        'try {',
        "  const { report } = await runConformance({ baseUrl: server.url, checks, seed: 1, runs: 2, suites: ['schema'], credentials: { apiKey: server.fixtures.api_key, userId: server.fixtures.user_id } });",
        '  console.log(JSON.stringify({ passed: report.summary.passed, failed: report.summary.failed, junit: renderJunit(report).includes("<testsuites"),',
        '    sarif: JSON.parse(renderSarif(report)).version, write: typeof writeReports, define: typeof defineCheck }));',
        '} finally {',
        '  await server.close();',
        '}',
      ].join('\n'),
    );
    const r = run(process.execPath, ['entries.mjs'], consumer().dir);
    expect(r.status, r.out).toBe(0);
    const out = JSON.parse(r.out.trim().split('\n').pop() as string) as Record<string, unknown>;
    expect(out).toMatchObject({ failed: 0, junit: true, sarif: '2.1.0', write: 'function', define: 'function' });
    expect(out['passed']).toBeGreaterThan(5);
  });

  it('installs the vapc binary, and it runs', () => {
    expect(readdirSync(join(consumer().dir, 'node_modules', '.bin'))).toContain('vapc');
    const r = run(join(consumer().dir, 'node_modules', '.bin', 'vapc'), ['--version'], consumer().dir);
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('compiles the installed CLI bundle with the code cache shipped beside it', () => {
    const loader = join(consumer().dir, 'node_modules', 'voice-agent-contract', 'bin', 'load-cli.js');
    const script = `const { loadCli } = await import(${JSON.stringify(loader)}); console.log(loadCli().cacheAccepted);`;
    const r = run(process.execPath, ['--input-type=module', '-e', script], consumer().dir);
    expect(r.out.trim()).toBe('true');
  });
});
