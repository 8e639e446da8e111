import { beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../../src/runner/conformance.js';
import { startReferenceServer, type ReferenceServer } from '../../src/server/index.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { createRecordingTransport } from '../../src/transport/recording.js';
import { createUndiciTransport } from '../../src/transport/undici.js';
import { validateWireRequest } from '../../src/checks/wire.js';
import { defineCheck } from '../../src/checks/check.js';
import { failedOf, loopbackServers, runnerOptions } from '../helpers/loopback-runs.js';
import type { Exchange } from '../../src/transport/types.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const API_KEY = 'vapc_test_key_0123456789abcdef';
const server = loopbackServers((o: { rateLimit?: number; rateWindowMs?: number }): Promise<ReferenceServer> =>
  startReferenceServer({ port: 0, spec, apiKey: API_KEY, ...o }),
);

const options = (s: ReferenceServer, over: Partial<ConformanceOptions> = {}): ConformanceOptions =>
  runnerOptions(s, spec, over);

describe('end to end against the reference server', () => {
  for (const seed of [1, 20260101, 987654321]) {
    it(`passes with zero failures and zero tool errors (seed ${seed})`, async () => {
      const s = await server();
      const { report } = await runConformance(options(s, { seed }));
      expect(failedOf(report.results)).toEqual([]);
      expect(report.summary.passed).toBeGreaterThan(50);
      expect(report.seed).toBe(seed);
    });
  }

  it('a library caller gets wire re-validation by default, and can turn it off', async () => {
    const s = await server();
    const seen: boolean[] = [];
    const probe = defineCheck({
      id: 'schema.wire-probe',
      suite: 'schema',
      rule: 'r',
      contractRef: '4',
      severity: 'minor',
      appliesTo: (op) => op.id === 'listCalls',
      async run(ctx, op) {
        const ex = await ctx.send({ method: 'GET', path: '/calls', query: [['limit', '5']] });
        seen.push(ctx.validateWire(op, ex).available);
        return { status: 'passed', message: 'ok' };
      },
    });
    const base = {
      baseUrl: s.url,
      spec,
      seed: 1,
      checks: [probe],
      suites: ['schema' as const],
      credentials: { apiKey: API_KEY, userId: s.fixtures.user_id },
    };
    await runConformance(base);
    await runConformance({ ...base, validateRequest: false });
    expect(seen).toEqual([true, false]);
  });

  it('passes the ratelimit suite, burst included, against a small limit and window', async () => {
    const s = await server({ rateLimit: 20, rateWindowMs: 1500 });
    const { report } = await runConformance(options(s, { suites: ['schema', 'ratelimit'] }));
    expect(failedOf(report.results)).toEqual([]);
    expect(report.results.filter((r) => r.suite === 'ratelimit' && r.status === 'passed').length).toBeGreaterThan(0);
  });

  it('with --include-destructive regenerates the key last and carries on, no secret in the report', async () => {
    const s = await server();
    const { report, secrets } = await runConformance(
      options(s, { includeDestructive: true, suites: ['auth', 'stateful', 'schema'] }),
    );
    expect(failedOf(report.results)).toEqual([]);
    const regen = report.results.filter((r) => r.operation.includes('regenerate'));
    expect(regen.length).toBeGreaterThan(0);
    expect(regen.every((r) => r.status !== 'skipped')).toBe(true);
    const text = JSON.stringify(report);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(s.fixtures.user_id);
    expect(text).not.toMatch(/vapc_ref_[A-Za-z0-9_-]{8}/);
    expect(text).not.toMatch(/inv_tok_[A-Za-z0-9_-]{8}/);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it('without the flag never calls a destructive operation', async () => {
    const s = await server();
    const seen: string[] = [];
    await runConformance(
      options(s, { onExchange: (e) => seen.push(`${e.request.method} ${new URL(e.request.url).pathname}`) }),
    );
    expect(seen.some((r) => /regenerate|\/invites/.test(r))).toBe(false);
  });

  it('a dry run sends only the read-only discovery requests', async () => {
    const s = await server();
    const transport = createRecordingTransport(createUndiciTransport({ baseUrl: s.url }));
    const result = await runConformance(options(s, { transport, dryRun: true, runs: undefined, suites: undefined }));
    await transport.close();
    expect(transport.wire().map((w) => w.method)).toEqual(['GET', 'GET', 'GET']);
    expect(result.dryRun!.total).toBeGreaterThan(100);
    expect(result.report.results).toEqual([]);
  });
});

describe('reproducibility: same seed + same server behaviour => same requests', () => {
  /** The wire requests of one run, with the port and server-made ids (uuids) normalised. */
  async function wire(seed: number): Promise<string[]> {
    const s = await server();
    const exchanges: Exchange[] = [];
    await runConformance(options(s, { seed, onExchange: (e) => exchanges.push(e) }));
    const ids = new Map<string, string>();
    const norm = (t: string) =>
      t
        .split(s.url)
        .join('BASE')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (m) => {
          if (!ids.has(m)) ids.set(m, `uuid${ids.size}`);
          return ids.get(m)!;
        });
    return exchanges.map((e) =>
      norm(`${e.request.method} ${e.request.url} ${JSON.stringify(e.request.headers)} ${e.request.body ?? ''}`),
    );
  }

  it('two runs with seed 42 send identical request sequences; seed 43 differs', async () => {
    const a = await wire(42);
    const b = await wire(42);
    expect(a.length).toBeGreaterThan(100);
    expect(b).toEqual(a);
    const c = await wire(43);
    expect(c).not.toEqual(a);
  });
});

describe('judged on what was really sent', () => {
  it('re-validates the wire form: out-of-range and malformed inputs are invalid, documented ones valid', () => {
    const createCampaign = spec.operation('createCampaign');
    const listCalls = spec.operation('listCalls');
    const ex = (url: string, body?: unknown, raw?: string): Exchange => ({
      request: {
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
      },
      durationMs: 0,
    });
    expect(validateWireRequest(createCampaign, ex('http://h/campaign', { max_concurrency: 201 })).valid).toBe(false);
    expect(validateWireRequest(createCampaign, ex('http://h/campaign', { max_concurrency: 200 })).valid).toBe(true);
    expect(validateWireRequest(createCampaign, ex('http://h/campaign', undefined, '{"max_concurrency": ')).valid).toBe(
      false,
    );
    expect(validateWireRequest(listCalls, ex('http://h/calls?limit=abc')).valid).toBe(false);
    expect(validateWireRequest(listCalls, ex('http://h/api/calls?limit=5&offset=0')).valid).toBe(true);
  });
});
