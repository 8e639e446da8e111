/**
 * The registry: every check has a well-formed id, a rule, a contract reference, applies to some
 * operation and has tests that mention its id; malformed definitions and duplicates are refused;
 * every numeric bound of the spec has its range checks; the default plan fits a 100 req/min
 * server's budget; the same seed against the same server sends the same requests. docs/checks.md
 * is rendered from this registry (test/unit/build/docs-pages.test.ts keeps it fresh).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { checkById, checks } from '../../suites/index.js';
import { profile, SUITE_NAMES } from '../../suites/profile.js';
import { CHECK_ID, buildRegistry } from '../../src/checks/registry.js';
import { defineCheck } from '../../src/checks/check.js';
import {
  dryRunPlan,
  plannedRequestsOf,
  preBurstRequests,
  renderDryRun,
  requestBudget,
  MAX_DEFAULT_RUNS,
} from '../../src/runner/budget.js';
import { numericEdges, numericTargets } from '../../src/generators/index.js';
import { edgeRequests } from '../../suites/ranges.js';
import { planChecks } from '../../src/runner/run.js';
import { runConformance } from '../../src/runner/conformance.js';
import { validateWireRequest } from '../../src/checks/wire.js';
import { referenceSpec } from '../../src/server/index.js';
import type { SpecModel } from '../../src/spec/model.js';
import { startTarget } from '../helpers/checks.js';
import { checkOf, faults } from '../catalog/faults/index.js';
import { enumConflicts } from '../../suites/lib.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await referenceSpec();
});

/** Every fixture a check may need, so no pair of the plan skips for want of one. */
const EVERY_FIXTURE = {
  org_id: 'o',
  api_key_id: 'k',
  recipient_list_id: 'r',
  assistant_id: 'a',
  phone_number_id: 'p',
  channels: ['x', 'y'],
};

describe('the check registry', () => {
  it('every check has an id suite.name, a rule, a contract reference, a severity and applies to an operation', () => {
    expect(checks.length).toBeGreaterThanOrEqual(35);
    for (const check of checks) {
      expect(check.id).toMatch(CHECK_ID);
      expect(check.id.startsWith(`${check.suite}.`)).toBe(true);
      expect(check.rule.length, check.id).toBeGreaterThan(20);
      expect(check.contractRef, check.id).toMatch(/^\d/);
      expect(['critical', 'major', 'minor']).toContain(check.severity);
      expect(
        spec.operations.some((op) => check.appliesTo(op, spec)),
        `${check.id} applies to no operation`,
      ).toBe(true);
      expect(typeof check.plannedRequests, check.id).toBe('function');
    }
  });

  it('every check fails on some fault of the catalogue (its `catches`; test/checks/<suite>.test.ts runs each pair)', () => {
    // The passing half: test/checks/checks.test.ts runs every registered check on the reference server.
    const caught = new Set(
      faults.filter((f) => !(f as { lenient?: boolean }).lenient).flatMap((f) => f.catches.map(checkOf)),
    );
    expect(checks.filter((c) => !caught.has(c.id)).map((c) => c.id)).toEqual([]);
  });

  it('all eight suites have checks, ratelimit last with the burst at the end, then the wait for its reset', () => {
    expect(new Set(checks.map((c) => c.suite))).toEqual(
      new Set(['auth', 'validation', 'ranges', 'schema', 'stateful', 'ratelimit', 'cors', 'robustness']),
    );
    expect(checks.slice(-2).map((c) => c.id)).toEqual(['ratelimit.burst-429', 'ratelimit.reset-honoured']);
  });

  it('refuses duplicate ids, malformed ids, a suite that does not match and a missing contract reference', () => {
    const base = checkById('auth.health-open');
    expect(() => buildRegistry([base, base])).toThrow(/duplicate/);
    expect(() => buildRegistry([defineCheck({ ...base, id: 'auth.Health Open' })])).toThrow(/malformed/);
    expect(() => buildRegistry([defineCheck({ ...base, id: 'nosuch.check' })], SUITE_NAMES)).toThrow(/unknown suite/);
    expect(() => buildRegistry([defineCheck({ ...base, id: 'cors.health-open' })])).toThrow(/registered in suite/);
    expect(() => buildRegistry([defineCheck({ ...base, contractRef: '' })])).toThrow(/contract reference/);
    expect(() => checkById('auth.nope')).toThrow(/unknown check/);
  });

  it('every numeric bound of the spec has its below-minimum, above-maximum and in-range checks', () => {
    for (const bound of spec.bounds()) {
      const op = spec.operation(bound.operationId);
      const stem = `ranges.${bound.field.replace(/_/g, '-')}`;
      for (const suffix of ['below-minimum', 'above-maximum', 'in-range']) {
        const check = checks.find((c) => c.id === `${stem}-${suffix}`);
        expect(check, `${stem}-${suffix}`).toBeDefined();
        expect(check!.appliesTo(op, spec), `${stem}-${suffix} on ${op.id}`).toBe(true);
      }
    }
  });

  it('every numeric parameter and field of the spec gets its edges: ranges.numeric-edges (each edge of a body field on some operation, every target at least one), or the range checks of its bound', () => {
    const edgesCheck = checks.find((c) => c.id === 'ranges.numeric-edges')!;
    const key = (t: { location: string; loc: Array<string | number> }) => `${t.location} ${t.loc.join('.')}`;
    const sentAnywhere = new Map<string, Set<string>>();
    for (const op of spec.operations) {
      for (const p of edgeRequests(op).flat())
        sentAnywhere.set(key(p.target), new Set([...(sentAnywhere.get(key(p.target)) ?? []), p.edge.label]));
    }
    let targets = 0;
    for (const op of spec.operations) {
      const probes = edgeRequests(op).flat();
      for (const target of numericTargets(op)) {
        targets++;
        expect(edgesCheck.appliesTo(op, spec), op.id).toBe(true);
        const here = probes.filter((p) => key(p.target) === key(target)).map((p) => p.edge.label);
        expect(here.length, `${op.id} ${key(target)}`).toBeGreaterThan(0);
        // Numbers outside a stated body bound go to the below-minimum/above-maximum checks of that field.
        const bounded = numericEdges(target)
          .filter((e) => target.location === 'body' && !e.quoted && !e.withinBounds)
          .map((e) => e.label);
        const sent = [...new Set([...(sentAnywhere.get(key(target)) ?? []), ...bounded])];
        expect(sent.sort(), `${op.id} ${key(target)}`).toEqual(
          numericEdges(target)
            .map((e) => e.label)
            .sort(),
        );
      }
    }
    expect(targets).toBeGreaterThanOrEqual(7);
  });

  it('the plan (--dry-run) counts and lists the numeric edges', () => {
    const dry = dryRunPlan(planChecks(checks, { spec, fixtures: EVERY_FIXTURE }), MAX_DEFAULT_RUNS, spec, 100);
    const calls = spec.operation('listCalls');
    const line = dry.lines.find((l) => l.suite === 'ranges' && l.operation === 'GET /calls')!;
    expect(line.requests).toBe(
      edgeRequests(calls).length + checkById('ranges.string-edges').plannedRequests!(calls, MAX_DEFAULT_RUNS, spec),
    );
    expect(line.cases).toContain(
      'ranges.numeric-edges: query offset: -1 0 2147483648 9007199254740992 9007199254740993 -9007199254740992 1e1',
    );
    const text = renderDryRun(dry);
    for (const op of spec.operations) {
      for (const t of numericTargets(op))
        expect(text, `${op.id} ${t.name}`).toContain(`${t.location} ${t.loc.join('.')}: `);
    }
    expect(text).toMatch(/ranges\.max-concurrency-above-maximum: body max_concurrency: 201 2147483648 401/);
    // What the plan cannot judge with these flags: the destructive operations, named with the flag.
    expect(text).toMatch(
      /\nnot judged by this plan \(the credentials, fixtures and flags given\):\n {2}\d+ check\(s\) on POST \/orgs\/\{org_id\}\/invites(, [^:]+)?: destructive \(.*\); run with --include-destructive to exercise it\n/,
    );
  });

  it('destructive operations are only reached by checks the runner skips without the flag', () => {
    const plan = planChecks(checks, {
      spec,
      fixtures: EVERY_FIXTURE,
    });
    const reaching = plan.filter((p) => p.operation.sideEffects || p.check.destructive);
    expect(reaching.length).toBeGreaterThan(0);
    expect(reaching.every((p) => p.skip?.startsWith('destructive'))).toBe(true);
  });

  it('the default plan fits the budget of a server allowing 100 requests per minute', () => {
    const plan = planChecks(
      checks,
      {
        spec,
        fixtures: EVERY_FIXTURE,
      },
      { profile },
    );
    expect(preBurstRequests(plan, MAX_DEFAULT_RUNS, spec)).toBeLessThanOrEqual(requestBudget(100));
  });
});

describe('planned requests (dry run, budget) against what a run sends', () => {
  for (const strictTypes of [false, true]) {
    it(`no check sends more than it planned, and the plan is within 10% of the total sent (strictTypes ${strictTypes})`, async () => {
      const target = await startTarget();
      const f = target.server.fixtures;
      try {
        const fixtures = {
          org_id: f.org_id,
          recipient_list_id: f.recipient_list_id,
          api_key_id: f.api_key_id,
          channels: [...f.channels],
        };
        const suites = ['auth', 'validation', 'ranges', 'schema', 'stateful', 'cors', 'robustness'] as const;
        const { report } = await runConformance({
          baseUrl: target.server.url,
          checks,
          suites: [...suites],
          spec,
          seed: 5,
          runs: MAX_DEFAULT_RUNS,
          strictTypes,
          credentials: { apiKey: f.api_key, userId: f.user_id },
          fixtures,
          validateRequest: validateWireRequest,
          // Discovery as the CLI runs it: without it the checks needing a discovered assistant skip
          // and the comparison below would measure skips, not the plan.
          profile,
        });
        const plan = planChecks(checks, { spec, fixtures }, { suites: [...suites], strictTypes });
        const planned = new Map(
          plan.map((p) => [
            `${p.check.id} ${p.operation.method} ${p.operation.path}`,
            plannedRequestsOf(p, MAX_DEFAULT_RUNS, spec),
          ]),
        );
        const over = report.results
          .map((r) => ({
            key: `${r.id} ${r.operation}`,
            sent: r.requests,
            planned: planned.get(`${r.id} ${r.operation}`) ?? 0,
          }))
          .filter((x) => x.sent > x.planned);
        expect(over, JSON.stringify(over)).toEqual([]);
        const sent = report.results.reduce((n, r) => n + r.requests, 0);
        const total = [...planned.values()].reduce((n, v) => n + v, 0);
        expect(sent).toBeGreaterThanOrEqual(total * 0.9);
      } finally {
        await target.close();
      }
    });
  }
});

describe("the contract's own enum conflict is read from the spec", () => {
  it('finds exactly campaign status "scheduled": accepted by the update, missing from the record (3.1)', async () => {
    const conflicts = enumConflicts(await referenceSpec());
    expect([...conflicts.entries()].map(([field, values]) => [field, [...values]])).toEqual([
      ['status', ['scheduled']],
    ]);
  });
});

describe('reproducibility', () => {
  it('the same seed against the same server sends the same requests', async () => {
    const ids = [
      'auth.malformed-bearer',
      'validation.wrong-type',
      'ranges.max-concurrency-above-maximum',
      'robustness.no-5xx-invalid',
    ];
    const sequences: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const target = await startTarget();
      const f = target.server.fixtures;
      const seen: string[] = [];
      try {
        await runConformance({
          baseUrl: target.server.url,
          checks: ids.map(checkById),
          suites: ['auth', 'validation', 'ranges', 'robustness'],
          spec,
          seed: 99,
          runs: 4,
          credentials: { apiKey: f.api_key, userId: f.user_id },
          fixtures: {
            org_id: f.org_id,
            recipient_list_id: f.recipient_list_id,
            api_key_id: f.api_key_id,
            channels: [...f.channels],
          },
          validateRequest: validateWireRequest,
          onExchange: (exchange) => {
            const url = exchange.request.url.replace(target.server.url, '').replace(/cmp_[\w-]+/g, 'CAMPAIGN');
            const auth = (exchange.request.headers['authorization'] ?? '').replace(f.api_key, 'KEY');
            seen.push(`${exchange.request.method} ${url} ${auth} ${exchange.request.body ?? ''}`);
          },
        });
      } finally {
        await target.close();
      }
      sequences.push(seen);
    }
    expect(sequences[0]!.length).toBeGreaterThan(40);
    expect(sequences[1]).toEqual(sequences[0]);
  });
});
