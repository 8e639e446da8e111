// Installing as a team would, in a fresh project outside the checkout, with install scripts off
// (`ignore-scripts`, a common policy: a release tarball carries dist/ and needs none): the toolkit's
// packed tarball with `npm ci --offline` (a lockfile made from this repository's, so every
// dependency comes from the npm cache `npm ci` filled: test/helpers/packed.ts), then
// `npx --no-install vapc` and its validators; the validators package's tarball alone (no
// dependencies), and the example of docs/validators.md compiled with the tsconfig the page gives,
// as ESM and as CommonJS, and run against the reference server; and `npm publish --dry-run` of both
// tarballs, as the release workflow publishes them. The install from a git URL (clone,
// devDependencies, `prepare`: about a minute) is `npm run check:git-install`, which .ci/run runs.
// Needs `npm run build` first.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot, packageVersion } from '../../src/paths.js';
import { startReferenceServer, type ReferenceServer } from '../../src/server/index.js';
import { pack, writeConsumerProject } from '../helpers/packed.js';

const exec = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const tsc = join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const validatorsDir = join(packageRoot, 'packages', 'validators');
// Never the network: a package missing from the cache fails the install instead of fetching it.
const env = {
  ...process.env,
  npm_config_offline: 'true',
  npm_config_ignore_scripts: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};

interface Ran {
  status: number;
  out: string;
  stdout: string;
}
async function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<Ran> {
  try {
    const r = await exec(command, args, { cwd, env: { ...env, ...extra }, timeout: 90_000, maxBuffer: 8 << 20 });
    return { status: 0, out: `${r.stdout}${r.stderr}`, stdout: r.stdout };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return {
      status: typeof err.code === 'number' ? err.code : 1,
      out: `${err.stdout ?? ''}${err.stderr ?? ''}`,
      stdout: err.stdout ?? '',
    };
  }
}

/** The example of docs/validators.md's "validators alone" section, and the tsconfig it gives. */
function docsExample(): { code: string; tsconfig: { compilerOptions: Record<string, unknown> } } {
  const page = readFileSync(join(packageRoot, 'docs', 'validators.md'), 'utf8');
  const section = page.slice(page.indexOf('## The validators alone'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  const tsconfig = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code || !tsconfig)
    throw new Error('docs/validators.md: the validators-alone section lost its example or its tsconfig');
  return { code, tsconfig: JSON.parse(tsconfig) as { compilerOptions: Record<string, unknown> } };
}

/** The middleware's types, compiled without any framework installed (the package has none). */
const MIDDLEWARE_TYPES = `import { ContractEngine, contractHandler, expressContract, fastifyContract, honoContract } from 'voice-agent-contract-validators/middleware';
import type { ContractFinding, ContractMiddlewareOptions } from 'voice-agent-contract-validators/middleware';
export const findings: ContractFinding[] = [];
const options: ContractMiddlewareOptions = { responses: 'test', sampleEvery: 10, onFinding: (f) => findings.push(f) };
export const engine = new ContractEngine(options);
export const adapters = [expressContract(options), fastifyContract, honoContract(options), contractHandler(() => undefined, options)];
`;

/** A plain node:http server behind the packaged middleware, asked for GET /calls?limit=x: prints the status. */
const MIDDLEWARE_RUN = `const { createServer } = require('node:http');
const server = createServer(mw.contractHandler((req, res) => res.end('reached')));
server.listen(0, '127.0.0.1', async () => {
  const r = await fetch('http://127.0.0.1:' + server.address().port + '/calls?limit=x');
  console.log(r.status, JSON.stringify((await r.json()).detail[0].loc));
  server.close();
});`;

const TYPO =
  "import { validateRequest } from 'voice-agent-contract-validators';\nexport const typo = () => validateRequest('createCampaing', {});\n";

/** One flavour's folder: the example, a file with a misspelt operation id, the docs' tsconfig. */
function writeFlavour(dir: string, type: 'module' | 'commonjs'): void {
  const { code, tsconfig } = docsExample();
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `consumer-${type}`, version: '1.0.0', private: true, type }),
  );
  writeFileSync(join(dir, 'example.ts'), code);
  writeFileSync(join(dir, 'typo.ts'), TYPO);
  writeFileSync(join(dir, 'middleware.ts'), MIDDLEWARE_TYPES);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ ...tsconfig, files: ['example.ts', 'typo.ts', 'middleware.ts'] }),
  );
}

function sizeOf(dir: string): number {
  return readdirSync(dir, { recursive: true }).reduce((sum: number, f) => {
    const s = statSync(join(dir, String(f)));
    return s.isFile() ? sum + s.size : sum;
  }, 0);
}

let work: string;
let server: ReferenceServer;
let app: string;
let lib: string;
let installs: { app: Ran; lib: Ran };
let tarballs: { toolkit: string; validators: string };
let compiled: { esm: Ran; cjs: Ran };

beforeAll(async () => {
  if (!existsSync(join(validatorsDir, 'dist', 'esm', 'index.js')))
    throw new Error('packages/validators/dist is missing: run `npm run build` first');
  work = mkdtempSync(join(tmpdir(), 'vapc-install-'));
  server = await startReferenceServer({ port: 0 });
  const [toolkit, validators] = [pack(work), pack(work, validatorsDir)];
  tarballs = { toolkit, validators };
  app = join(work, 'app');
  writeConsumerProject(app, `file:${toolkit}`);
  lib = join(work, 'validators');
  writeFlavour(lib, 'module');
  writeFlavour(join(lib, 'cjs'), 'commonjs');
  copyFileSync(validators, join(lib, 'validators.tgz'));
  const [a, l] = await Promise.all([
    run(npm, ['ci', '--ignore-scripts'], app),
    run(npm, ['install', '--ignore-scripts', './validators.tgz'], lib),
  ]);
  installs = { app: a, lib: l };
  const [esm, cjs] = await Promise.all([
    run(process.execPath, [tsc, '-p', '.'], lib),
    run(process.execPath, [tsc, '-p', '.'], join(lib, 'cjs')),
  ]);
  compiled = { esm, cjs };
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The paths a tarball holds (`package/...` stripped). */
async function tarballFiles(tgz: string): Promise<string[]> {
  const r = await run('tar', ['-tzf', tgz], work);
  return r.stdout.split('\n').map((f) => f.replace(/^package\//, ''));
}

describe('the release tarballs', () => {
  it('carry dist/: the built CLI, library and spec; the validators as ESM and CommonJS', async () => {
    expect(await tarballFiles(tarballs.toolkit)).toEqual(
      expect.arrayContaining([
        'bin/vapc.js',
        'dist/cli/vapc.cjs',
        'dist/src/index.js',
        'dist/src/entries/runner.js',
        'dist/openapi.json',
        'dist/docs/index.html',
      ]),
    );
    expect(await tarballFiles(tarballs.validators)).toEqual(
      expect.arrayContaining(['dist/esm/index.js', 'dist/cjs/index.js', 'dist/openapi.json']),
    );
  });

  it.each([
    ['voice-agent-contract', () => tarballs.toolkit],
    ['voice-agent-contract-validators', () => tarballs.validators],
  ])('%s passes npm publish --dry-run', async (name, tgz) => {
    const r = await run(npm, ['publish', '--dry-run', tgz()], work);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`+ ${name}@${packageVersion()}`);
    // Only the login notice of a dry run: nothing npm had to correct in the manifest.
    expect(r.out.split('\n').filter((l) => /npm (warn|error)/i.test(l) && !/logged in/.test(l))).toEqual([]);
  });
});

describe('the toolkit, installed from its packed tarball into a fresh project, scripts off', () => {
  it('installs offline with --ignore-scripts, and npx --no-install vapc runs the local binary', async () => {
    expect(installs.app.status, installs.app.out).toBe(0);
    const r = await run(npx, ['--no-install', 'vapc', '--version'], app);
    expect(r.status, r.out).toBe(0);
    expect(r.stdout.trim()).toBe(packageVersion());
  });

  it('runs the conformance suite against the embedded reference server (--suite cors)', async () => {
    const r = await run(
      npx,
      [
        '--no-install',
        'vapc',
        'run',
        '--embedded',
        '--suite',
        'cors',
        '--seed',
        '1',
        '--quiet',
        '--report-dir',
        'reports',
      ],
      app,
    );
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/PASSED: \d+ passed/);
    expect(existsSync(join(app, 'reports', 'report.json'))).toBe(true);
  }, 60_000);
  it("imports the toolkit's validators and bundled spec", async () => {
    const script = [
      "import { validate, validateRequest } from 'voice-agent-contract';",
      "import spec from 'voice-agent-contract/spec' with { type: 'json' };",
      "const bad = validate('CampaignCreate', { max_concurrency: 201 });",
      "const ok = validateRequest('listCalls', { query: { limit: '5' } });",
      'console.log(JSON.stringify({ bad: bad.ok, rule: bad.ok ? null : bad.issues[0].rule, ok: ok.ok, spec: spec.info.version }));',
    ].join('\n');
    const r = await run(process.execPath, ['--input-type=module', '-e', script], app);
    expect(r.status, r.out).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ bad: false, rule: 'maximum', ok: true, spec: '2.0.1' });
  });
});

describe('voice-agent-contract-validators, installed alone from its tarball, scripts off', () => {
  it('is one package of at most 3 MB, with the version of the toolkit', () => {
    expect(installs.lib.status, installs.lib.out).toBe(0);
    const modules = join(lib, 'node_modules');
    const packages = readdirSync(modules).filter((f) => !f.startsWith('.'));
    expect(packages).toEqual(['voice-agent-contract-validators']);
    expect(sizeOf(modules)).toBeLessThan(3 * 1024 * 1024);
    const manifest = JSON.parse(readFileSync(join(validatorsDir, 'package.json'), 'utf8')) as {
      version: string;
      dependencies?: object;
    };
    expect(manifest.version).toBe(packageVersion());
    expect(manifest.dependencies).toBeUndefined();
  });

  it('fails to compile a misspelt operation id, as ESM and as CommonJS, and nothing else', () => {
    for (const r of [compiled.esm, compiled.cjs]) {
      const errors = r.out.split('\n').filter((line) => /error TS\d+/.test(line));
      expect(errors, r.out).toHaveLength(1);
      expect(errors[0]).toMatch(/^typo\.ts\(2,\d+\): error TS2345: .*'"createCampaing"'/);
    }
  });

  it.each([
    [
      'ESM',
      () => lib,
      [
        '--input-type=module',
        '-e',
        'const { checkCalls } = await import("./out/example.js"); console.log(JSON.stringify(await checkCalls(process.env.URL, process.env.KEY, process.env.USER_ID)));',
      ],
    ],
    [
      'CommonJS',
      () => join(lib, 'cjs'),
      [
        '-e',
        'require("./out/example.js").checkCalls(process.env.URL, process.env.KEY, process.env.USER_ID).then((r) => console.log(JSON.stringify(r)));',
      ],
    ],
  ])('runs the docs example as %s against the reference server', async (_flavour, dir, args) => {
    const r = await run(process.execPath, args as string[], dir(), {
      URL: server.url,
      KEY: server.fixtures.api_key,
      USER_ID: server.fixtures.user_id,
    });
    expect(r.status, r.out).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual({
      request: true,
      response: true,
      calls: 5,
      create: false,
      operations: 14,
    });
  });

  it.each([
    [
      'ESM',
      `const mw = await import('voice-agent-contract-validators/middleware');\nconst require = (await import('node:module')).createRequire(import.meta.url);\n${MIDDLEWARE_RUN}`,
      ['--input-type=module'],
    ],
    ['CommonJS', `const mw = require('voice-agent-contract-validators/middleware');\n${MIDDLEWARE_RUN}`, []],
  ])('serves the middleware as %s: a request breaking the contract gets its 422', async (_flavour, code, flags) => {
    const r = await run(process.execPath, [...(flags as string[]), '-e', code as string], lib);
    expect(r.status, r.out).toBe(0);
    expect(r.stdout.trim()).toBe('422 ["query","limit"]');
  });
});
