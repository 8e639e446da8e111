/**
 * Every check passes on the reference server (no false positive; its failing-server half is
 * test/checks/<suite>.test.ts, from each fault's `catches`); lenient but correct servers pass every check (`..._no_false_positive`);
 * strict-types mode is the only place framework coercion is judged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks } from '../../suites/index.js';
import { runnerFault, runnerFaults } from '../catalog/faults/runner-faults.js';
import { faults, serverFaults } from '../catalog/faults/index.js';
import { runCheck, runIds, startTarget, type CheckRun, type Target } from '../helpers/checks.js';
import { DESTRUCTIVE as destructive, RATE, describeResults } from '../helpers/fails-on-fault.js';

function expectPassed(run: CheckRun, id: string): void {
  const mine = run.results.filter((r) => r.id === id);
  expect(mine.length, `${id} ran on no operation`).toBeGreaterThan(0);
  // Pairs on operations with outside effects are skipped without --include-destructive: fine.
  const bad = mine.filter((r) => r.status !== 'passed' && !(r.status === 'skipped' && /^destructive/.test(r.message)));
  expect(bad, describeResults(bad)).toEqual([]);
  expect(mine.some((r) => r.status === 'passed'), describeResults(mine)).toBe(true);
}

function expectNoFailure(run: CheckRun): void {
  const bad = run.results.filter((r) => r.status === 'failed' || r.status === 'error');
  expect(bad, describeResults(bad)).toEqual([]);
}

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
      runIds(rateTarget, checks.filter((c) => c.suite === 'ratelimit').map((c) => c.id)),
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

describe('lenient but correct servers pass every check', () => {
  for (const fault of runnerFaults.filter((f) => f.lenient)) {
    it(`${fault.name}_no_false_positive`, async () => {
      const [target, rateTarget] = await Promise.all([startTarget({ fault }), startTarget({ fault, ...RATE })]);
      try {
        const [run, rateRun] = await Promise.all([
          runIds(target, checks.filter((c) => c.suite !== 'ratelimit').map((c) => c.id), { includeDestructive: true }),
          runIds(rateTarget, checks.filter((c) => c.suite === 'ratelimit').map((c) => c.id)),
        ]);
        expectNoFailure(run);
        expectNoFailure(rateRun);
      } finally {
        await Promise.all([target.close(), rateTarget.close()]);
      }
    });
  }

  it('validation.loc-names-location_no_false_positive: a loc without its location is an observation, not a failure', async () => {
    const target = await startTarget({ fault: 'error-422-loc-without-location' });
    try {
      const run = await runIds(target, checks.filter((c) => c.suite === 'validation').map((c) => c.id));
      expectNoFailure(run);
      expect(run.observations.some((o) => /names the field but not its location/.test(o.message))).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('auth.wrong-credentials: a near-miss key is reported with the placeholder, never the key', async () => {
    const target = await startTarget({ fault: runnerFault('api-key-prefix-accepted') });
    try {
      const run = await runCheck(target, 'auth.wrong-credentials');
      const failed = run.results.filter((r) => r.status === 'failed');
      expect(failed.length, describeResults(run.results)).toBeGreaterThan(0);
      const text = JSON.stringify(run.results);
      expect(text).not.toContain(target.server.fixtures.api_key);
      expect(failed.some((r) => r.repro?.includes(`"$VAPC_API_KEY"'x'`)), text.slice(0, 2000)).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('validation.wrong-type_no_false_positive: the strict reference server passes strict-types mode too', async () => {
    const target = await startTarget();
    try {
      expectPassed(await runCheck(target, 'validation.wrong-type', { runs: 8, strictTypes: true }), 'validation.wrong-type');
    } finally {
      await target.close();
    }
  });

  it('validation.wrong-type_no_false_positive: a server coercing "5" to 5 passes; strict-types mode fails it', async () => {
    const target = await startTarget({ fault: runnerFault('lenient-coerces-numeric-strings') });
    try {
      expectPassed(await runCheck(target, 'validation.wrong-type', { runs: 8 }), 'validation.wrong-type');
      const strict = await runCheck(target, 'validation.wrong-type', { runs: 8, strictTypes: true });
      expect(strict.results.some((r) => r.status === 'failed'), describeResults(strict.results)).toBe(true);
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
      expect(failed.every((r) => /"-1"/.test(r.message)), describeResults(failed)).toBe(true);
    } finally {
      await target.close();
    }
  });
});

describe('the fault catalogue names real checks', () => {
  it('every id a fault catches is a registered check, and every server fault is examined', () => {
    const ids = new Set(checks.map((c) => c.id));
    expect(faults.flatMap((f) => f.catches).filter((id) => !ids.has(id))).toEqual([]);
    // A server fault that no check catches must say why (only where the contract is silent).
    expect(serverFaults.filter((f) => f.catches.length === 0).map((f) => f.name)).toEqual(['error-422-loc-without-location']);
  });
});
