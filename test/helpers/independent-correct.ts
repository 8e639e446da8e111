// The project's runner against four INDEPENDENT, CORRECT implementations of the contract, each
// written by a separate author from the contract text alone (test/catalog/independent/<name>/server.mjs):
// a strict one, a lenient one, and two imitating the defaults of real stacks (FastAPI, Express)
// wherever the contract allows a choice. Every one must pass every check, and the gate of
// --fail-on-undocumented-status: a failure here is either
// a real fault of that server or a false alarm of the runner (see each FINDINGS.md). Each
// implementation has its own file (test/catalog/independent/correct-<name>.test.ts), so the
// workers share them.
import { beforeAll, describe, expect, it } from 'vitest';
import { coverageGate } from '../../src/coverage/index.js';
import { runConformance, type ConformanceOptions } from '../../src/runner/conformance.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { failedOf, loopbackServers, runnerOptions, SMALL_LIMIT, type LoopbackServer } from './loopback-runs.js';
import { expectCorrectRateLimit } from './correct-runs.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start as strict } from '../catalog/independent/strict/server.mjs';
// @ts-expect-error plain JavaScript module without type declarations
import { start as lenient } from '../catalog/independent/lenient/server.mjs';
// @ts-expect-error plain JavaScript module without type declarations
import { start as fastapiLike } from '../catalog/independent/fastapi-like/server.mjs';
// @ts-expect-error plain JavaScript module without type declarations
import { start as expressLike } from '../catalog/independent/express-like/server.mjs';

type Start = (o: { rateLimit?: number; rateWindowMs?: number }) => Promise<LoopbackServer>;

const IMPLEMENTATIONS: Array<{ key: string; name: string; start: Start; seeds: [number, number] }> = [
  {
    key: 'strict',
    name: 'strict (required fields, no coercion, limit 1..100, 201/204, epoch Reset, key rotation)',
    start: strict as Start,
    seeds: [1, 20260101],
  },
  {
    key: 'lenient',
    name: 'lenient (coercion, 200 on create, open preflights, seconds-until Reset, keys kept)',
    start: lenient as Start,
    seeds: [7, 20261122],
  },
  {
    key: 'fastapi-like',
    name: 'FastAPI-like (pydantic v2 lax, Starlette CORS, slowapi headers)',
    start: fastapiLike as Start,
    seeds: [11, 20261123],
  },
  {
    key: 'express-like',
    name: 'Express-like (zod, cors(), express-rate-limit legacy headers)',
    start: expressLike as Start,
    seeds: [3, 20261122],
  },
];

/**
 * Which runs a tier takes: the everyday suite (`npm test`) the first seed without destructive
 * operations, the second with them, and the rate-limit burst; the slow tier (test/slow/) the other two
 * seed × destructive pairs and the run with 25 property runs per check. Together, every pair once.
 */
export type Tier = 'everyday' | 'slow';
const EVERYDAY_PAIRS = new Set(['0 false', '1 true']);

/** Registers the runs of a tier against the named implementations (their `key`s). */
export function describeCorrectImplementations(keys: readonly string[], tier: Tier = 'everyday'): void {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });
  for (const impl of IMPLEMENTATIONS.filter((i) => keys.includes(i.key)))
    describeImplementation(impl, () => spec, tier);
}

function describeImplementation(impl: (typeof IMPLEMENTATIONS)[number], specOf: () => SpecModel, tier: Tier): void {
  describe(`the runner against the independent ${impl.name} implementation`, () => {
    const server = loopbackServers(impl.start);
    const options = (s: LoopbackServer, over: Partial<ConformanceOptions> = {}): ConformanceOptions =>
      runnerOptions(s, specOf(), over);

    for (const [index, seed] of impl.seeds.entries()) {
      for (const includeDestructive of [false, true]) {
        if (EVERYDAY_PAIRS.has(`${index} ${includeDestructive}`) !== (tier === 'everyday')) continue;
        it(`all suites but ratelimit: 0 failed, 0 error (seed ${seed}, includeDestructive ${includeDestructive})`, async () => {
          const s = await server();
          const firstKey = s.fixtures.api_key;
          const { report, secrets } = await runConformance(options(s, { seed, includeDestructive }));
          expect(failedOf(report.results)).toEqual([]);
          // --fail-on-undocumented-status passes a correct server too (docs/coverage.md).
          expect(coverageGate(report.coverage, { failOnUndocumentedStatus: true }).lines).toEqual([]);
          expect(report.summary.passed).toBeGreaterThan(100);
          expect(report.seed).toBe(seed);
          const destructive = report.results.filter((r) => /regenerate|\/invites/.test(r.operation));
          expect(destructive.length).toBeGreaterThan(0);
          if (includeDestructive) {
            expect(destructive.filter((r) => r.status === 'skipped' && /destructive/.test(r.message))).toEqual([]);
            const text = JSON.stringify(report);
            expect(text).not.toContain(firstKey);
            expect(text).not.toContain(s.fixtures.api_key);
            for (const secret of secrets) expect(text).not.toContain(secret);
          } else {
            expect(destructive.every((r) => r.status === 'skipped')).toBe(true);
          }
        });
      }
    }

    if (tier === 'slow')
      it('all suites but ratelimit with runs 25: 0 failed, 0 error', async () => {
        const s = await server();
        const { report } = await runConformance(options(s, { seed: 4242, runs: 25, includeDestructive: true }));
        expect(failedOf(report.results)).toEqual([]);
      });
    else
      it('the ratelimit suite (with schema), burst included, against a small limit and window: 0 failed', async () => {
        await expectCorrectRateLimit(await server(SMALL_LIMIT), specOf());
      });
  });
}
