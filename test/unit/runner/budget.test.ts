import { beforeAll, describe, expect, it } from 'vitest';
import { defineCheck } from '../../../src/checks/check.js';
import { applyBudget, orderByValue } from '../../../src/runner/budget.js';
import type { PlannedCheck } from '../../../src/runner/run.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const run = async () => ({ status: 'passed' as const, message: '' });
const check = (id: string, requests: number) =>
  defineCheck({
    id,
    suite: id.startsWith('ratelimit') ? 'ratelimit' : 'ranges',
    rule: '',
    contractRef: '',
    severity: 'minor',
    appliesTo: () => true,
    plannedRequests: () => requests,
    run,
  });

describe('--budget N', () => {
  it('plans the checks that catch most catalogue faults per request first, in plan order, and lists what it left out', () => {
    const op = spec.operation('getHealth');
    const plan: PlannedCheck[] = [
      { check: check('ranges.cheap-and-good', 10), operation: op }, // 4 faults / 10 requests
      { check: check('ranges.costly', 100), operation: op }, // 5 / 100
      { check: check('ranges.skipped', 50), operation: op, skip: 'a fixture is missing' }, // sends nothing
      { check: check('ratelimit.burst', 102), operation: op }, // 1 / 102
      { check: check('ranges.middling', 20), operation: op }, // 2 / 20
    ];
    const faults = {
      'ranges.cheap-and-good': 4,
      'ranges.costly': 5,
      'ranges.skipped': 1,
      'ratelimit.burst': 1,
      'ranges.middling': 2,
    };
    const { plan: kept, cut } = applyBudget(plan, 130, 1, spec, { faults });
    expect(kept.map((p) => p.check.id)).toEqual([
      'ranges.cheap-and-good',
      'ranges.costly',
      'ranges.skipped',
      'ranges.middling',
    ]);
    expect(cut).toEqual({
      requests: 130,
      planned: 130,
      left_out: [{ id: 'ratelimit.burst', operation: 'GET /health', requests: 102 }],
    });
  });

  it("shares a check's faults among the operations it applies to", () => {
    const [a, b] = [spec.operation('getHealth'), spec.operation('getCurrentUser')];
    const wide = check('ranges.wide', 10);
    const plan: PlannedCheck[] = [
      { check: wide, operation: a },
      { check: wide, operation: b },
      { check: check('ranges.narrow', 10), operation: a },
    ];
    const { plan: kept } = applyBudget(plan, 10, 1, spec, { faults: { 'ranges.wide': 3, 'ranges.narrow': 2 } });
    expect(kept.map((p) => p.check.id)).toEqual(['ranges.narrow']);
  });
});

describe('the value order of a run', () => {
  it('puts the suites that catch most faults per request first, the ratelimit suite last and in its own order', () => {
    const op = spec.operation('getHealth');
    const plan: PlannedCheck[] = [
      { check: check('ranges.low', 10), operation: op },
      { check: check('ratelimit.headers', 3), operation: op, burst: true },
      { check: check('ratelimit.burst', 102), operation: op, burst: true },
      { check: check('ratelimit.reset', 2), operation: op, burst: true },
      { check: check('ranges.high', 10), operation: op },
    ];
    // The reset check is worth the most per request, yet it must follow the burst it waits out.
    const faults = {
      'ranges.low': 1,
      'ranges.high': 5,
      'ratelimit.headers': 1,
      'ratelimit.burst': 1,
      'ratelimit.reset': 9,
    };
    expect(orderByValue(plan, 1, spec, faults).map((p) => p.check.id)).toEqual([
      'ranges.high',
      'ranges.low',
      'ratelimit.headers',
      'ratelimit.burst',
      'ratelimit.reset',
    ]);
  });
});
