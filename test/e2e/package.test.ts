// The package as consumers get it: `npm pack`, unpacked into an unrelated temporary project's
// node_modules with its bin linked as npm would (test/helpers/packed.ts; no registry, no npm
// cache), used from plain Node ESM and type-checked from TypeScript. Needs `npm run build` first
// (npm test runs it).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { consumerWithTarball } from '../helpers/packed.js';

const tsc = join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');
let work: string;
let project: string;
let packedFiles: string[] = [];

function run(command: string, args: string[], cwd: string): { status: number | null; out: string } {
  const r = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 90_000,
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

beforeAll(() => {
  if (!existsSync(join(packageRoot, 'dist', 'src', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  work = mkdtempSync(join(tmpdir(), 'vapc-pack-'));
  ({ dir: project, files: packedFiles } = consumerWithTarball(work));
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

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
      expect(packedFiles, needed).toContain(needed);
    }
    expect(
      packedFiles.filter(
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
    copyFileSync(join(packageRoot, 'test', 'samples', 'check-samples.mjs'), join(project, 'check-samples.mjs'));
    writeFileSync(
      join(project, 'samples.mjs'),
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
    const r = run(process.execPath, ['samples.mjs'], project);
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
    writeFileSync(join(project, 'deep.mjs'), "await import('voice-agent-contract/dist/src/validators/compile.js');");
    const r = run(process.execPath, ['deep.mjs'], project);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('type-checks a TypeScript consumer against the declarations (tsc --noEmit, strict, no skipLibCheck)', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `import type { Call, Campaign, Assistant, HTTPValidationError, ValidationIssue, SchemaName, OperationId } from 'voice-agent-contract';
import { validate, validateRequest, validateResponse, responseSchemaFor, isCall, isAssistant, UnknownOperationError } from 'voice-agent-contract';

const call: Call = { id: 'a', to_number: '1', provider: 'p', status: 's', duration_seconds: null, cost: 0.5 };
const r = validate('Campaign', {});
if (r.ok) {
  const campaign: Campaign = r.value;
  const status: 'draft' | 'running' | 'paused' | 'completed' | null | undefined = campaign.status;
  void status;
} else {
  const issues: ValidationIssue[] = r.issues;
  const where: string = issues[0]?.pointer ?? '';
  void where;
}
const x: unknown = call;
if (isCall(x)) {
  const seconds: number | null | undefined = x.duration_seconds;
  void seconds;
}
const y: unknown = {};
if (isAssistant(y)) {
  const name: string = y.name;
  void name;
}
const detail: HTTPValidationError = { detail: [{ loc: ['body', 0], msg: 'm', type: 't' }] };
const name: SchemaName = 'HTTPValidationError';
void detail; void name;
const req = validateRequest('listCalls', { query: { limit: '5' } });
if (req.ok) void req.value.query;
void validateResponse('listCalls', 200, { headers: {}, body: [] });
void responseSchemaFor('listCalls', 200)?.status;
void new UnknownOperationError('x').code;
let assistant: Assistant | undefined;
void assistant;

// @ts-expect-error id is a string in the contract
const wrongType: Call = { id: 1, to_number: '1', provider: 'p', status: 's' };
// @ts-expect-error to_number is required
const missing: Call = { id: 'a', provider: 'p', status: 's' };
// @ts-expect-error not a schema of the contract
validate('Nope', {});
// @ts-expect-error not an operationId of the contract: OperationId is a literal union
validateRequest('createCampaing', {});
const id: OperationId = 'createCampaign';
void id;
void wrongType; void missing;
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ['consumer.ts'],
      }),
    );
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });

  it('exports ./server, ./runner and ./reporters: a run against the reference server from plain Node ESM', () => {
    writeFileSync(
      join(project, 'entries.mjs'),
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
    const r = run(process.execPath, ['entries.mjs'], project);
    expect(r.status, r.out).toBe(0);
    const out = JSON.parse(r.out.trim().split('\n').pop() as string) as Record<string, unknown>;
    expect(out).toMatchObject({ failed: 0, junit: true, sarif: '2.1.0', write: 'function', define: 'function' });
    expect(out['passed']).toBeGreaterThan(5);
  });

  it('type-checks a consumer of ./server, ./runner and ./reporters (tsc --noEmit, strict)', () => {
    writeFileSync(
      join(project, 'entries.ts'),
      `import { startReferenceServer, type ReferenceServer } from 'voice-agent-contract/server';
import { runConformance, checks, defineCheck, type RunReport, type CheckDefinition } from 'voice-agent-contract/runner';
import { writeReports, renderJunit } from 'voice-agent-contract/reporters';

const mine: CheckDefinition = defineCheck({
  id: 'schema.my-probe', suite: 'schema', rule: 'r', contractRef: '4', severity: 'minor',
  appliesTo: (op) => op.method === 'GET',
  run: async () => ({ status: 'passed', message: 'ok' }),
});
async function main(): Promise<void> {
  const server: ReferenceServer = await startReferenceServer({ port: 0 });
  const result = await runConformance({ baseUrl: server.url, checks: [...checks, mine], seed: 1 });
  const report: RunReport = result.report;
  const failed: number = report.summary.failed;
  await writeReports(report, 'out');
  void renderJunit(report); void failed;
  await server.close();
}
void main;
// @ts-expect-error the severity is one of critical, major, minor
defineCheck({ id: 'x.y', suite: 'schema', rule: 'r', contractRef: '4', severity: 'fatal', appliesTo: () => true, run: async () => ({ status: 'passed', message: '' }) });
`,
    );
    writeFileSync(
      join(project, 'tsconfig.entries.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['entries.ts'],
      }),
    );
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.entries.json'], project);
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });

  it("a check of one's own, written with the public toolkit only, type-checks strict and judges the reference server both ways", () => {
    // Only `voice-agent-contract/*` exports (and fast-check, the package's own dependency): what
    // every shipped check uses (Findings, fail, checkProperty, Exchange, VapcError) must be public.
    writeFileSync(
      join(project, 'custom-check.ts'),
      `import fc from 'fast-check';
import { startReferenceServer } from 'voice-agent-contract/server';
import {
  runConformance, defineCheck, checkProperty, fail, Findings, OK, RATE_LIMITED, skipped, statusText, VapcError,
  type CheckContext, type CheckOutcome, type Exchange, type Judgement, type Operation, type SharedTally,
} from 'voice-agent-contract/runner';

/** A passive check: judges every GET /calls answer the run gets (the limit checks' here), sends nothing of its own. */
const arrays = defineCheck({
  id: 'schema.custom-arrays', suite: 'schema', rule: 'every GET /calls success is a JSON array', contractRef: 'custom', severity: 'minor',
  appliesTo: (op: Operation) => op.id === 'listCalls',
  judgeExchange: (ctx: CheckContext, _op: Operation, exchange: Exchange): Judgement | undefined =>
    exchange.response?.status !== 200 ? undefined : Array.isArray(exchange.response.json) ? OK : fail(ctx, exchange, 'an array', statusText(exchange), 'not an array', undefined, { kind: 'schema' }),
  async run(ctx: CheckContext): Promise<CheckOutcome> {
    const shared: SharedTally | undefined = ctx.judgedElsewhere?.();
    return skipped(shared && shared.judged > 0 ? 'covered by the answers other checks got' : 'nothing judged', { cause: shared && shared.judged > 0 ? 'covered' : 'runner' });
  },
});

/** GET /calls?limit=N answers at most N calls; \`wanted\` is the status the check holds the server to. */
function limitCheck(id: string, wanted: number) {
  return defineCheck({
    id, suite: 'schema', rule: 'GET /calls?limit=N answers at most N items', contractRef: 'custom', severity: 'minor',
    appliesTo: (op: Operation) => op.id === 'listCalls',
    async run(ctx: CheckContext, op: Operation): Promise<CheckOutcome> {
      const findings = new Findings();
      const probe = async (limit: number): Promise<Judgement> => {
        const exchange: Exchange = await ctx.send({ method: op.method, path: op.path, operation: op, query: [['limit', String(limit)]] });
        if (exchange.response?.status === 429) return RATE_LIMITED;
        const items = exchange.response?.json;
        if (exchange.response?.status !== wanted) return fail(ctx, exchange, \`\${wanted}\`, statusText(exchange), \`limit=\${limit} answered \${statusText(exchange)}\`, limit, { kind: 'status' });
        if (!Array.isArray(items) || items.length > limit) return fail(ctx, exchange, \`at most \${limit} items\`, statusText(exchange), 'too many items', limit, { kind: 'mismatch' });
        return OK;
      };
      findings.add(await checkProperty(ctx, fc.integer({ min: 1, max: 20 }), probe, { numRuns: 2 }));
      if (findings.probes === 0) return skipped('nothing sent', { cause: 'runner' });
      return findings.outcome('every answer held at most limit items');
    },
  });
}

const server = await startReferenceServer({ port: 0 });
try {
  const { report } = await runConformance({
    baseUrl: server.url, seed: 7, runs: 2, suites: ['schema'],
    checks: [limitCheck('schema.custom-limit', 200), limitCheck('schema.custom-limit-wrong', 201), arrays],
    credentials: { apiKey: server.fixtures.api_key, userId: server.fixtures.user_id },
  });
  const verdicts = Object.fromEntries(report.results.map((r) => [r.id, r.status]));
  const failure = report.results.find((r) => r.status === 'failed')?.failures?.[0];
  const passive = report.results.find((r) => r.id === 'schema.custom-arrays');
  console.log(JSON.stringify({ verdicts, seed: failure?.seed, expected: failure?.expected, code: new VapcError('E_USAGE', 'x').code, passiveRequests: passive?.requests }));
} finally {
  await server.close();
}
`,
    );
    writeFileSync(
      join(project, 'tsconfig.custom.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          outDir: 'custom-out',
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['custom-check.ts'],
      }),
    );
    const built = run(process.execPath, [tsc, '-p', 'tsconfig.custom.json'], project);
    expect(built.out).toBe('');
    expect(built.status).toBe(0);
    const r = run(process.execPath, [join('custom-out', 'custom-check.js')], project);
    expect(r.status, r.out).toBe(0);
    const out = JSON.parse(r.out.trim().split('\n').pop() as string) as Record<string, unknown>;
    expect(out).toEqual({
      verdicts: {
        'schema.custom-limit': 'passed',
        'schema.custom-limit-wrong': 'failed',
        'schema.custom-arrays': 'passed',
      },
      seed: 7,
      expected: '201',
      code: 'E_USAGE',
      passiveRequests: 0,
    });
  });

  it('installs the vapc binary, and it runs', () => {
    expect(readdirSync(join(project, 'node_modules', '.bin'))).toContain('vapc');
    const r = run(join(project, 'node_modules', '.bin', 'vapc'), ['--version'], project);
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('compiles the installed CLI bundle with the code cache shipped beside it', () => {
    const loader = join(project, 'node_modules', 'voice-agent-contract', 'bin', 'load-cli.js');
    const script = `const { loadCli } = await import(${JSON.stringify(loader)}); console.log(loadCli().cacheAccepted);`;
    const r = run(process.execPath, ['--input-type=module', '-e', script], project);
    expect(r.out.trim()).toBe('true');
  });
});
