/**
 * The verdict of three (src/results/verdict.ts), clause by clause: what makes a run failed, what
 * makes it inconclusive (an operation never judged on a success answer, a core check judged
 * nowhere, the coverage floor of a whole plan), and what never does (the plan's choices, the
 * runner's limits, the machine's speed).
 */
import { describe, expect, it } from 'vitest';
import { type CheckResult, type NotJudged, type RunReport } from '../../../src/results/model.js';
import type { CoverageCell } from '../../../src/results/coverage.js';
import {
  decideVerdict,
  inconclusiveHeadline,
  notJudgedGroups,
  type VerdictRules,
} from '../../../src/results/verdict.js';
import { SUITE_NAMES } from '../../../suites/profile.js';

const RULES: VerdictRules = {
  successChecks: new Set(['schema.response-conforms', 'stateful.create-echoes']),
  coreChecks: new Set(['validation.wrong-type']),
  suites: SUITE_NAMES,
  checkedSuites: SUITE_NAMES,
  floor: 50,
};

const result = (id: string, operation: string, status: CheckResult['status'], notJudged?: NotJudged): CheckResult => ({
  id,
  suite: id.split('.')[0] as CheckResult['suite'],
  operation,
  status,
  message: status,
  rule: 'r',
  contract_ref: '1',
  severity: 'major',
  duration_ms: 0,
  requests: 1,
  ...(notJudged ? { not_judged: notJudged } : {}),
});

const cell = (operation: string, item: string, state: CoverageCell['state']): CoverageCell => ({
  operation,
  dimension: 'status',
  item,
  state,
  checks: [],
  requests: 1,
  spec_line: null,
});

function report(results: CheckResult[], cells: CoverageCell[], over: Partial<RunReport> = {}): RunReport {
  const judged = cells.filter((c) => c.state.startsWith('judged')).length;
  const count = (s: CheckResult['status']) => results.filter((r) => r.status === s).length;
  return {
    tool: { name: 'voice-agent-contract', version: '0' },
    spec_version: '2.0.1',
    target: 'http://x',
    seed: 1,
    started_at: '',
    summary: {
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      errors: count('error'),
      requests: 1,
      duration_ms: 1,
      observations: 0,
    },
    results,
    observations: [],
    config: { suites: [...SUITE_NAMES] } as RunReport['config'],
    coverage: {
      summary: {
        cells: cells.length,
        judged,
        sent: 0,
        not_sent: cells.length - judged,
        percent: Math.floor((judged * 1000) / cells.length) / 10,
      },
      cells,
    },
    ...over,
  };
}

const REFUSED_403: NotJudged = { cause: 'refused', status: 403 };
const judged201 = cell('POST /campaign', '201', 'judged-pass');
const unjudged201 = cell('POST /campaign', '201', 'not-sent');

describe('decideVerdict', () => {
  it('passed: every operation judged on a success answer, every core check judged, the floor met', () => {
    const r = report(
      [
        result('stateful.create-echoes', 'POST /campaign', 'passed'),
        result('validation.wrong-type', 'POST /campaign', 'passed'),
      ],
      [judged201],
    );
    expect(decideVerdict(r, RULES)).toEqual({
      verdict: 'passed',
      evidence: { reasons: [], not_judged: [], floor: 50, rate_limited: 0 },
    });
  });

  it('failed: a failed result or a tool error, whatever else (and with a baseline, only the new failures)', () => {
    expect(
      decideVerdict(report([result('validation.wrong-type', 'POST /campaign', 'failed')], [judged201]), RULES).verdict,
    ).toBe('failed');
    expect(
      decideVerdict(report([result('validation.wrong-type', 'POST /campaign', 'error')], [judged201]), RULES).verdict,
    ).toBe('failed');
    const known = report([result('validation.wrong-type', 'POST /campaign', 'failed')], [judged201]);
    known.summary.new_failures = 0;
    expect(decideVerdict(known, RULES).verdict).toBe('passed');
  });

  it("inconclusive: an operation a success-expecting check ran on, never judged on a success answer, for the server's refusal", () => {
    const r = report(
      [
        result('stateful.create-echoes', 'POST /campaign', 'skipped', REFUSED_403),
        result('schema.response-conforms', 'POST /campaign', 'skipped', REFUSED_403),
        result('validation.wrong-type', 'POST /campaign', 'passed'),
      ],
      [unjudged201, cell('POST /campaign', '422', 'judged-pass')],
    );
    const { verdict, evidence } = decideVerdict(r, RULES);
    expect(verdict).toBe('inconclusive');
    expect(evidence.reasons).toEqual([
      {
        kind: 'operations-unjudged',
        items: ['POST /campaign'],
        cause: REFUSED_403,
        message: 'no success answer judged on POST /campaign: refused with 403 (2 check(s) not judged)',
      },
    ]);
    expect(inconclusiveHeadline(evidence)).toBe(evidence.reasons[0]!.message);
  });

  it('not inconclusive for what the server did not cause: the plan, the runner, the speed of the machine, another check', () => {
    for (const cause of ['plan', 'runner', 'timing', 'untestable', 'elsewhere', 'covered', 'aborted'] as const) {
      const r = report(
        [
          result('stateful.create-echoes', 'POST /campaign', 'skipped', { cause }),
          result('validation.wrong-type', 'POST /campaign', 'passed'),
        ],
        [unjudged201, judged201],
      );
      expect(decideVerdict(r, RULES).verdict, cause).toBe('passed');
    }
    // A refusal where a success answer was judged anyway (another check's) judges the operation.
    const other = report(
      [
        result('stateful.create-echoes', 'POST /campaign', 'skipped', REFUSED_403),
        result('schema.response-conforms', 'POST /campaign', 'passed'),
      ],
      [judged201],
    );
    expect(decideVerdict(other, RULES).verdict).toBe('passed');
  });

  it('inconclusive: a run of which no check judged anything, whatever the causes (a deadline that cut every check)', () => {
    for (const cause of ['aborted', 'timing', 'plan', 'runner'] as const) {
      const r = report(
        [
          result('stateful.create-echoes', 'POST /campaign', 'skipped', { cause }),
          result('validation.wrong-type', 'POST /campaign', 'skipped', { cause }),
        ],
        [judged201],
      );
      const { verdict, evidence } = decideVerdict(r, RULES);
      expect(verdict, cause).toBe('inconclusive');
      expect(evidence.reasons.map((x) => x.kind)).toEqual(['nothing-judged']);
      expect(evidence.reasons[0]!.message).toBe(
        'no check judged anything (2 result(s), every one skipped): nothing to pass on',
      );
    }
    // One judged result is evidence (what else it needs is the other clauses' to say).
    const one = report(
      [
        result('stateful.create-echoes', 'POST /campaign', 'skipped', { cause: 'aborted' }),
        result('validation.wrong-type', 'POST /campaign', 'passed'),
      ],
      [judged201],
    );
    expect(decideVerdict(one, RULES).verdict).toBe('passed');
  });

  it('inconclusive: a core check judged on none of the operations it ran on, for a counted cause', () => {
    const limited: NotJudged = { cause: 'rate-limited', status: 429 };
    const r = report(
      [
        result('validation.wrong-type', 'POST /campaign', 'skipped', limited),
        result('validation.wrong-type', 'PATCH /campaign/{id}', 'skipped', limited),
        result('stateful.create-echoes', 'POST /campaign', 'passed'),
      ],
      [judged201],
    );
    const { verdict, evidence } = decideVerdict(r, RULES);
    expect(verdict).toBe('inconclusive');
    expect(evidence.reasons).toEqual([
      expect.objectContaining({ kind: 'check-unjudged', items: ['validation.wrong-type'], cause: limited }),
    ]);
    // Judged on one operation is enough; the plan's own skip (destructive) is not a run of it.
    r.results[1] = result('validation.wrong-type', 'PATCH /campaign/{id}', 'passed');
    expect(decideVerdict(r, RULES).verdict).toBe('passed');
    const planned = report(
      [
        result('validation.wrong-type', 'POST /x', 'skipped', { cause: 'plan' }),
        result('stateful.create-echoes', 'POST /campaign', 'passed'),
      ],
      [judged201],
    );
    expect(decideVerdict(planned, RULES).verdict).toBe('passed');
  });

  it('the coverage floor holds a whole plan only: every suite, no focus, no budget cut, not a shard; 0 turns it off', () => {
    const low = (over: Partial<RunReport> = {}) =>
      report(
        [result('stateful.create-echoes', 'POST /campaign', 'passed')],
        [judged201, unjudged201, cell('GET /x', '200', 'not-sent')],
        over,
      );
    expect(decideVerdict(low(), RULES)).toMatchObject({
      verdict: 'inconclusive',
      evidence: {
        floor: 50,
        reasons: [
          {
            kind: 'coverage-floor',
            message: expect.stringMatching(/^33\.3% of the coverage cells judged, below the floor of 50%/),
          },
        ],
      },
    });
    expect(decideVerdict(low({ config: { suites: ['auth'] } as RunReport['config'] }), RULES)).toMatchObject({
      verdict: 'passed',
      evidence: { floor: null },
    });
    expect(decideVerdict(low({ shard: { index: 1, count: 2, plan_size: 1, positions: [0] } }), RULES).verdict).toBe(
      'passed',
    );
    expect(decideVerdict(low({ budget: { requests: 1, planned: 1, left_out: [] } }), RULES).verdict).toBe('passed');
    expect(decideVerdict(low(), { ...RULES, floor: 0 }).verdict).toBe('passed');
    // The checks of some suites only (a custom check of one's own) cannot reach the floor: not held to it.
    expect(decideVerdict(low(), { ...RULES, checkedSuites: ['schema'] }).verdict).toBe('passed');
    // At the floor exactly: passed.
    const half = report([result('stateful.create-echoes', 'POST /campaign', 'passed')], [judged201, unjudged201]);
    expect(decideVerdict(half, RULES).verdict).toBe('passed');
  });

  it('--allow-inconclusive is said in the evidence; the verdict stays inconclusive', () => {
    const r = report([result('stateful.create-echoes', 'POST /campaign', 'skipped', REFUSED_403)], [unjudged201]);
    expect(decideVerdict(r, { ...RULES, floor: 0 }, { allowInconclusive: true })).toMatchObject({
      verdict: 'inconclusive',
      evidence: { allow_inconclusive: true },
    });
  });
});

describe('notJudgedGroups', () => {
  it('groups the skipped results by cause, status and field, the largest first, counted causes marked', () => {
    const quota: NotJudged = { cause: 'refused', status: 422, loc: 'body.x_internal_quota' };
    const groups = notJudgedGroups([
      result('a.x', 'POST /campaign', 'skipped', quota),
      result('a.y', 'PATCH /campaign/{id}', 'skipped', quota),
      result('a.z', 'POST /campaign', 'skipped', { cause: 'plan' }),
      result('a.w', 'POST /campaign', 'passed'),
    ]);
    expect(groups).toEqual([
      {
        ...quota,
        checks: 2,
        operations: ['POST /campaign', 'PATCH /campaign/{id}'],
        counted: true,
        message:
          'refused with 422 naming body.x_internal_quota, a field the contract does not name or not the one under test: 2 check(s) not judged on POST /campaign, PATCH /campaign/{id}',
      },
      expect.objectContaining({ cause: 'plan', checks: 1, counted: false }),
    ]);
  });
});

describe('the whole plan and the suite of workflows (vapc run --arazzo)', () => {
  it('a run without workflow files is a whole plan without the workflows suite; with them, it needs it', async () => {
    const { verdictRules } = await import('../../../src/checks/verdict-rules.js');
    const { checks } = await import('../../../suites/index.js');
    const { profile } = await import('../../../suites/profile.js');
    const without = verdictRules(checks, 50, profile).suites;
    expect(without).not.toContain('workflows');
    expect(without).toEqual(SUITE_NAMES.filter((s) => s !== 'workflows'));
    const flow = { ...checks[0]!, id: 'workflows.mine', suite: 'workflows' };
    expect(verdictRules([...checks, flow], 50, profile).suites).toEqual(SUITE_NAMES);
  });
});
