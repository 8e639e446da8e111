// The project's runner against an INDEPENDENT implementation of the contract in the style of
// Express 4 + express.json() + cors() + express-rate-limit + zod
// (test/independent/express-like/server.mjs, written from the contract text only). A correct
// server must pass every check: a failure here is either a real fault of that server or a false
// alarm of the runner (see test/independent/express-like/FINDINGS.md).
import { beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../src/runner/conformance.js';
import { loadSpec } from '../src/spec/load.js';
import type { SpecModel } from '../src/spec/model.js';
import { failedOf, loopbackServers, runnerOptions, SMALL_LIMIT, type LoopbackServer } from './helpers/loopback-runs.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start } from './independent/express-like/server.mjs';

const server = loopbackServers(start as (o: { rateLimit?: number; rateWindowMs?: number }) => Promise<LoopbackServer>);

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const options = (s: LoopbackServer, over: Partial<ConformanceOptions> = {}): ConformanceOptions => runnerOptions(s, spec, over);

describe('the runner against the independent EXPRESS-LIKE implementation', () => {
  for (const seed of [3, 20261122]) {
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
          // the key rotated: the old one is no longer valid and the fixture follows the new one
          expect(s.fixtures.api_key).not.toBe(apiKey);
          const text = JSON.stringify(report);
          expect(text).not.toContain(apiKey);
          expect(text).not.toContain(s.fixtures.api_key);
          for (const secret of secrets) expect(text).not.toContain(secret);
        } else {
          expect(destructive.every((r) => r.status === 'skipped')).toBe(true);
          expect(s.fixtures.api_key).toBe(apiKey);
        }
      });
    }
  }

  it('all suites but ratelimit with runs 25: 0 failed, 0 error', async () => {
    const s = await server();
    const { report } = await runConformance(options(s, { seed: 777, runs: 25, includeDestructive: true }));
    expect(failedOf(report.results)).toEqual([]);
    expect(report.summary.passed).toBeGreaterThan(100);
  });

  it('ratelimit suite (with schema): 0 failed against a small limit and window', async () => {
    const s = await server(SMALL_LIMIT);
    const { report } = await runConformance(options(s, { suites: ['schema', 'ratelimit'] }));
    expect(failedOf(report.results)).toEqual([]);
    expect(report.results.filter((r) => r.suite === 'ratelimit' && r.status === 'passed').length).toBeGreaterThan(0);
  });
});
