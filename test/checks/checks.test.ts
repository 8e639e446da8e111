/**
 * Every check passes on the reference server (no false positive; its failing-server half is
 * test/checks/<suite>.test.ts, from each fault's `catches`; lenient but correct servers:
 * test/checks/lenient.test.ts);
 * strict-types mode is the only place framework coercion is judged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks } from '../../suites/index.js';
import { runnerFault } from '../catalog/faults/runner-faults.js';
import { checkOf, faults, serverFaults } from '../catalog/faults/index.js';
import { expectPassed, runCheck, runIds, startTarget, type CheckRun, type Target } from '../helpers/checks.js';
import { DESTRUCTIVE as destructive, RATE, describeResults } from '../helpers/fails-on-fault.js';

describe('on the reference server (no false positive)', () => {
  let target: Target;
  let run: CheckRun;
  let destructiveTarget: Target;
  let destructiveRun: CheckRun;
  let rateTarget: Target;
  let rateRun: CheckRun;
  const plain = checks.filter((c) => c.suite !== 'ratelimit' && !destructive.has(c.id)).map((c) => c.id);
  beforeAll(async () => {
    [target, destructiveTarget, rateTarget] = await Promise.all([startTarget(), startTarget(), startTarget(RATE)]);
    [run, destructiveRun, rateRun] = await Promise.all([
      runIds(target, plain),
      runIds(destructiveTarget, [...destructive], { includeDestructive: true }),
      runIds(
        rateTarget,
        checks.filter((c) => c.suite === 'ratelimit').map((c) => c.id),
      ),
    ]);
  });
  afterAll(async () => {
    await Promise.all([target?.close(), destructiveTarget?.close(), rateTarget?.close()]);
  });

  for (const check of checks) {
    it(`${check.id} passes`, () => {
      const source = check.suite === 'ratelimit' ? rateRun : destructive.has(check.id) ? destructiveRun : run;
      expectPassed(source, check.id);
    });
  }

  it('the scheduled-status contradiction is an observation, never a failure', () => {
    expect(run.observations.some((o) => o.id === 'contract-conflict.campaign-status-scheduled')).toBe(true);
  });

  it('destructive checks are skipped without --include-destructive', async () => {
    const skipped = await runIds(target, [...destructive]);
    expect(skipped.results.map((r) => r.status)).toEqual(skipped.results.map(() => 'skipped'));
  });
});

describe('one failure never hides the others', () => {
  it('validation.wrong-type reports every field whose wrong type is accepted, not only the first', async () => {
    const target = await startTarget({ fault: 'body-types-unchecked' });
    try {
      const run = await runCheck(target, 'validation.wrong-type');
      const create = run.on('POST /campaign')[0]!;
      expect(create.status).toBe('failed');
      const fields = new Set(create.failures!.map((f) => f.expected.split('=')[0]));
      expect(fields.size).toBeGreaterThan(5);
    } finally {
      await target.close();
    }
  });
});

describe('ranges.numeric-edges: every number at its edges, judged by what the contract permits', () => {
  it('catches a 500 on a negative offset, a value the contract allows, and says which', async () => {
    const target = await startTarget({ fault: 'calls-negative-offset-500' });
    try {
      const run = await runCheck(target, 'ranges.numeric-edges');
      const calls = run.on('GET /calls')[0]!;
      expect(calls.status, describeResults(run.results)).toBe('failed');
      expect(calls.message).toMatch(/offset=-1 \(negative; the contract states no bound\)/);
      expect(calls.failures![0]!.repro).toMatch(/offset=-1/);
      // Only the operation with the fault fails.
      expect(run.results.filter((r) => r.status === 'failed').map((r) => r.operation)).toEqual(['GET /calls']);
    } finally {
      await target.close();
    }
  });

  it('ranges.numeric-edges_no_false_positive: a negative offset read as 0 (the reference server) passes, with no observation', async () => {
    const target = await startTarget();
    try {
      const run = await runCheck(target, 'ranges.numeric-edges');
      expectPassed(run, 'ranges.numeric-edges');
      expect(run.observations.filter((o) => /offset=-1/.test(o.message))).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('ranges.numeric-edges_no_false_positive: a negative offset refused with 422 passes, noted as stricter than the contract', async () => {
    const target = await startTarget({ fault: 'lenient-refuses-negative-and-int32-overflow' });
    try {
      const run = await runCheck(target, 'ranges.numeric-edges');
      expectPassed(run, 'ranges.numeric-edges');
      expect(run.observations.some((o) => o.operation === 'GET /calls' && /offset=-1/.test(o.message))).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('a numeric string is judged only in strict-types mode: a server coercing "-1" passes by default and fails strict types', async () => {
    const target = await startTarget({ fault: runnerFault('lenient-coerces-numeric-strings') });
    try {
      expectPassed(await runCheck(target, 'ranges.numeric-edges'), 'ranges.numeric-edges');
      const strict = await runCheck(target, 'ranges.numeric-edges', { strictTypes: true });
      const failed = strict.results.filter((r) => r.status === 'failed');
      expect(failed.length, describeResults(strict.results)).toBeGreaterThan(0);
      expect(
        failed.every((r) => /"-1"/.test(r.message)),
        describeResults(failed),
      ).toBe(true);
    } finally {
      await target.close();
    }
  });
});

describe('the fault catalogue names real checks', () => {
  it('every id a fault catches is a registered check, and every server fault is examined', () => {
    const ids = new Set(checks.map((c) => c.id));
    expect(faults.flatMap((f) => f.catches.map(checkOf)).filter((id) => !ids.has(id))).toEqual([]);
    // A server fault that no check catches must say why (only where the contract is silent).
    expect(serverFaults.filter((f) => f.catches.length === 0).map((f) => f.name)).toEqual([
      'error-422-loc-without-location',
    ]);
  });
});
