// The package's declarations as TypeScript consumers meet them: the packed tarball unpacked into a
// temporary project (test/helpers/packed.ts, as test/e2e/package.test.ts uses it from plain Node
// ESM), then strict consumers of the validators, of ./server, ./runner and ./reporters, and a check of
// one's own written with the public toolkit only, each compiled with tsc. In the slow tier (three tsc
// runs, about 25 s of CPU; test/slow/README.md). Needs `npm run build` first.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { packedConsumerOnce, runIn as run } from '../helpers/packed.js';

const tsc = join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const consumer = packedConsumerOnce();

describe('the installed package, type-checked', () => {
  it('type-checks a TypeScript consumer against the declarations (tsc --noEmit, strict, no skipLibCheck)', () => {
    writeFileSync(
      join(consumer().dir, 'consumer.ts'),
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
      join(consumer().dir, 'tsconfig.json'),
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
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.json'], consumer().dir);
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });

  it('type-checks a consumer of ./server, ./runner and ./reporters (tsc --noEmit, strict)', () => {
    writeFileSync(
      join(consumer().dir, 'entries.ts'),
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
      join(consumer().dir, 'tsconfig.entries.json'),
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
    const r = run(process.execPath, [tsc, '-p', 'tsconfig.entries.json'], consumer().dir);
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });

  it("a check of one's own, written with the public toolkit only, type-checks strict and judges the reference server both ways", () => {
    // Only `voice-agent-contract/*` exports (and fast-check, the package's own dependency): what
    // every shipped check uses (Findings, fail, checkProperty, Exchange, VapcError) must be public.
    writeFileSync(
      join(consumer().dir, 'custom-check.ts'),
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
      join(consumer().dir, 'tsconfig.custom.json'),
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
    const built = run(process.execPath, [tsc, '-p', 'tsconfig.custom.json'], consumer().dir);
    expect(built.out).toBe('');
    expect(built.status).toBe(0);
    const r = run(process.execPath, [join('custom-out', 'custom-check.js')], consumer().dir);
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
});
