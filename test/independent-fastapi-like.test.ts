// The project's runner against an INDEPENDENT implementation of the contract that behaves like a
// FastAPI + pydantic v2 + Starlette + slowapi service (test/independent/fastapi-like/server.mjs,
// written from the contract text only): lax coercion, FastAPI's 422 bodies, JSON decoded before
// the security dependencies, preflights answered by the CORS middleware before auth and limits,
// 200 on create, 307 trailing-slash redirects, Retry-After on every limited response. A correct
// server on a real stack must pass every check.
import { beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type ConformanceOptions } from '../src/runner/conformance.js';
import { loadSpec } from '../src/spec/load.js';
import type { SpecModel } from '../src/spec/model.js';
import { failedOf, loopbackServers, runnerOptions, SMALL_LIMIT, type LoopbackServer } from './helpers/loopback-runs.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start } from './independent/fastapi-like/server.mjs';

const server = loopbackServers(start as (o: { rateLimit?: number; rateWindowMs?: number }) => Promise<LoopbackServer>);

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const options = (s: LoopbackServer, over: Partial<ConformanceOptions> = {}): ConformanceOptions => runnerOptions(s, spec, over);

describe('the runner against an independent FastAPI-like implementation', () => {
  for (const seed of [11, 20261123]) {
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

  it('zero failures with many generated cases (runs 25)', async () => {
    const s = await server();
    const { report } = await runConformance(options(s, { seed: 4242, runs: 25 }));
    expect(failedOf(report.results)).toEqual([]);
  });

  it('passes the ratelimit suite, burst included, against a small limit and window', async () => {
    const s = await server(SMALL_LIMIT);
    const { report } = await runConformance(options(s, { suites: ['schema', 'ratelimit'] }));
    expect(failedOf(report.results)).toEqual([]);
    expect(report.results.filter((r) => r.suite === 'ratelimit' && r.status === 'passed').length).toBeGreaterThan(0);
  });
});
