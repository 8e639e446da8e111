// The project's runner against an INDEPENDENT, STRICT implementation of the contract
// (test/independent/strict/server.mjs, written from the contract text only). A strict but
// correct server must pass every check: a failure here is either a real fault of that server
// or a false alarm of the runner (see test/independent/strict/FINDINGS.md).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../src/runner/conformance.js';
import { checks } from '../suites/index.js';
import { loadSpec } from '../src/spec/load.js';
import type { SpecModel } from '../src/spec/model.js';
import { validateWireRequest } from '../src/runner/wire.js';
import type { Suite } from '../src/results/model.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start } from './independent/strict/server.mjs';

interface StrictFixtures {
  api_key: string;
  user_id: string;
  org_id: string;
  recipient_list_id: string;
  api_key_id: string;
  channels: [string, string];
}
interface StrictServer {
  url: string;
  fixtures: StrictFixtures;
  close(): Promise<void>;
}
const startStrict = start as (o?: { rateLimit?: number; rateWindowMs?: number }) => Promise<StrictServer>;

let spec: SpecModel;
const servers: StrictServer[] = [];
beforeAll(async () => {
  spec = await loadSpec();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(options: { rateLimit?: number; rateWindowMs?: number } = {}): Promise<StrictServer> {
  const s = await startStrict({ rateLimit: options.rateLimit ?? 1_000_000, rateWindowMs: options.rateWindowMs ?? 60_000 });
  servers.push(s);
  return s;
}

const NOT_RATELIMIT: Suite[] = ['auth', 'validation', 'ranges', 'schema', 'stateful', 'cors', 'robustness'];

function options(s: StrictServer, over: Partial<ConformanceOptions> = {}): ConformanceOptions {
  const { api_key, user_id, org_id, recipient_list_id, api_key_id, channels } = s.fixtures;
  return {
    baseUrl: s.url,
    checks,
    spec,
    seed: 1,
    runs: 3,
    credentials: { apiKey: api_key, userId: user_id },
    fixtures: { org_id, recipient_list_id, api_key_id, channels: [...channels] },
    validateRequest: validateWireRequest,
    suites: NOT_RATELIMIT,
    ...over,
  };
}

type R = { status: string; id: string; suite: string; operation: string; message: string };
const failedOf = (results: R[]) =>
  results.filter((r) => r.status === 'failed' || r.status === 'error').map((r) => `${r.status} ${r.id} ${r.operation}: ${r.message}`);

describe('the runner against the independent STRICT implementation', () => {
  for (const seed of [1, 20260101]) {
    for (const includeDestructive of [false, true]) {
      it(`all suites but ratelimit: 0 failed, 0 error (seed ${seed}, includeDestructive ${includeDestructive})`, async () => {
        const s = await server();
        const apiKey = s.fixtures.api_key;
        const { report, secrets } = await runConformance(options(s, { seed, includeDestructive }));
        expect(failedOf(report.results)).toEqual([]);
        expect(report.summary.passed).toBeGreaterThan(100);
        expect(report.seed).toBe(seed);
        const destructive = report.results.filter((r) => /regenerate|\/invites/.test(r.operation));
        expect(destructive.length).toBeGreaterThan(0);
        if (includeDestructive) {
          expect(report.results.filter((r) => r.status === 'skipped')).toEqual([]);
          // the key was rotated: the strict server no longer knows the fixture's first key
          expect(s.fixtures.api_key).not.toBe(apiKey);
          const text = JSON.stringify(report);
          expect(text).not.toContain(apiKey);
          expect(text).not.toContain(s.fixtures.api_key);
          expect(text).not.toMatch(/invtok_[0-9a-f]{8}/);
          for (const secret of secrets) expect(text).not.toContain(secret);
        } else {
          expect(destructive.every((r) => r.status === 'skipped')).toBe(true);
          expect(s.fixtures.api_key).toBe(apiKey);
        }
      });
    }
  }

  it('ratelimit suite (with schema): 0 failed against a small limit and window', async () => {
    const s = await server({ rateLimit: 20, rateWindowMs: 1500 });
    const { report } = await runConformance(options(s, { suites: ['schema', 'ratelimit'] }));
    expect(failedOf(report.results)).toEqual([]);
    expect(report.results.filter((r) => r.suite === 'ratelimit' && r.status === 'passed').length).toBeGreaterThan(0);
  });
});
