// The project's runner against an INDEPENDENT, lenient implementation of the contract
// (test/independent/lenient/server.mjs, written from the contract text only): a correct but lenient
// server (coercion, 200 on create, preflights with or without credentials, keys that keep working
// after regeneration, extra members on calls) must pass every check.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../src/runner/conformance.js';
import { checks } from '../suites/index.js';
import { loadSpec } from '../src/spec/load.js';
import type { SpecModel } from '../src/spec/model.js';
import { validateWireRequest } from '../src/runner/wire.js';
import type { Suite } from '../src/results/model.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start } from './independent/lenient/server.mjs';

interface Fixtures {
  api_key: string;
  user_id: string;
  org_id: string;
  recipient_list_id: string;
  api_key_id: string;
  channels: [string, string];
}
interface LenientServer {
  url: string;
  fixtures: Fixtures;
  close(): Promise<void>;
}
const startLenient = start as (o?: { port?: number; rateLimit?: number; rateWindowMs?: number }) => Promise<LenientServer>;

let spec: SpecModel;
const servers: LenientServer[] = [];
beforeAll(async () => {
  spec = await loadSpec();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(options: { rateLimit?: number; rateWindowMs?: number } = {}): Promise<LenientServer> {
  const s = await startLenient({ port: 0, rateLimit: options.rateLimit ?? 1_000_000, rateWindowMs: options.rateWindowMs ?? 60_000 });
  servers.push(s);
  return s;
}

const NOT_RATELIMIT: Suite[] = ['auth', 'validation', 'ranges', 'schema', 'stateful', 'cors', 'robustness'];

function options(s: LenientServer, over: Partial<ConformanceOptions> = {}): ConformanceOptions {
  const { org_id, recipient_list_id, api_key_id, channels } = s.fixtures;
  return {
    baseUrl: s.url,
    checks,
    spec,
    seed: 1,
    runs: 3,
    credentials: { apiKey: s.fixtures.api_key, userId: s.fixtures.user_id },
    fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] },
    validateRequest: validateWireRequest,
    suites: NOT_RATELIMIT,
    ...over,
  };
}

const failedOf = (results: Array<{ status: string; id: string; operation: string; message: string }>) =>
  results.filter((r) => r.status === 'failed' || r.status === 'error').map((r) => `${r.status} ${r.id} ${r.operation}: ${r.message}`);

describe('the runner against an independent lenient implementation', () => {
  for (const seed of [7, 20261122]) {
    for (const includeDestructive of [false, true]) {
      it(`zero failures and zero tool errors (seed ${seed}, includeDestructive ${includeDestructive})`, async () => {
        const s = await server();
        const { report } = await runConformance(options(s, { seed, includeDestructive }));
        expect(failedOf(report.results)).toEqual([]);
        expect(report.summary.passed).toBeGreaterThan(50);
        const destructive = report.results.filter((r) => /regenerate|\/invites/.test(r.operation));
        if (includeDestructive) expect(destructive.some((r) => r.status === 'passed')).toBe(true);
        else expect(destructive.every((r) => r.status === 'skipped')).toBe(true);
      });
    }
  }

  it('passes the ratelimit suite, burst included, against a small limit and window', async () => {
    const s = await server({ rateLimit: 20, rateWindowMs: 1500 });
    const { report } = await runConformance(options(s, { suites: ['schema', 'ratelimit'] }));
    expect(failedOf(report.results)).toEqual([]);
    expect(report.results.filter((r) => r.suite === 'ratelimit' && r.status === 'passed').length).toBeGreaterThan(0);
  });
});
