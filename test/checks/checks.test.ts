/**
 * Every check passes on the reference server (no false positive) and fails on the fault that
 * breaks its rule; lenient but correct servers pass every check (`..._no_false_positive`);
 * strict-types mode is the only place framework coercion is judged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks } from '../../suites/index.js';
import type { CheckResult } from '../../src/results/model.js';
import { runnerFault, runnerFaults } from '../catalog/faults/runner-faults.js';
import { serverFaults } from '../catalog/faults/index.js';
import { runCheck, runIds, startTarget, type CheckRun, type Target } from '../helpers/checks.js';

/** Check id → the fault (test/faulty/runner-faults.ts) that must make it fail. */
export const FAILS_ON: Array<[string, string]> = [
  ['auth.missing-credentials', 'user-id-not-required'],
  ['auth.empty-credentials', 'empty-bearer-accepted'],
  ['auth.malformed-bearer', 'any-scheme-accepted'],
  ['auth.wrong-credentials', 'any-bearer-accepted'],
  ['auth.wrong-credentials', 'unauthorized-detail-says-nothing'],
  ['auth.wrong-credentials', 'wrong-user-id-accepted'],
  ['auth.wrong-credentials', 'api-key-prefix-accepted'],
  ['auth.wrong-credentials', 'user-id-prefix-accepted'],
  ['auth.wrong-credentials', 'bearer-trailing-words-accepted'],
  ['auth.health-open', 'health-requires-auth'],
  ['auth.bearer-only', 'preflight-requires-user-id'],
  ['auth.protected-echoes-user-id', 'protected-wrong-user'],
  ['validation.wrong-type', 'body-types-unchecked'],
  ['validation.wrong-type', 'validation-loc-vague'],
  ['validation.wrong-type', 'string-fields-take-numbers'],
  ['validation.wrong-type', 'integer-fields-take-fractions'],
  ['validation.wrong-type', 'object-fields-take-arrays'],
  ['validation.enum-violation', 'enum-ignores-case'],
  ['validation.enum-violation', 'channel-unchecked'],
  ['validation.wrong-type', 'validation-body-shape'],
  ['validation.enum-violation', 'enum-unchecked'],
  ['validation.loc-names-location', 'validation-loc-wrong-location'],
  ['validation.malformed-json', 'malformed-json-400'],
  ['validation.non-integer-query', 'query-types-unchecked'],
  ['ranges.max-concurrency-below-minimum', 'max_concurrency-minimum-off-by-one'],
  ['ranges.max-concurrency-above-maximum', 'max_concurrency-maximum-off-by-one'],
  ['ranges.max-concurrency-in-range', 'max_concurrency-maximum-rejected'],
  ['ranges.machine-detection-timeout-seconds-below-minimum', 'machine_detection_timeout_seconds-minimum-off-by-one'],
  ['ranges.machine-detection-timeout-seconds-below-minimum', 'machine-detection-zero-skipped'],
  ['ranges.machine-detection-timeout-seconds-above-maximum', 'machine_detection_timeout_seconds-maximum-off-by-one'],
  ['ranges.machine-detection-timeout-seconds-in-range', 'machine_detection_timeout_seconds-maximum-rejected'],
  ['ranges.numeric-edges', 'calls-negative-offset-500'],
  ['ranges.numeric-edges', 'int32-overflow-500'],
  ['ranges.numeric-edges', 'integer-field-numeric-string-500'],
  ['ranges.numeric-edges', 'unsafe-integer-500'],
  ['ranges.max-concurrency-above-maximum', 'int32-overflow-500'],
  ['schema.response-conforms', 'assistant-name-number'],
  ['schema.response-conforms', 'remaining-header-missing'],
  ['schema.calls-limit', 'calls-limit-plus-one'],
  ['schema.calls-limit', 'calls-limit-zero-ignored'],
  ['schema.calls-default-limit', 'calls-default-limit-20'],
  ['schema.calls-default-limit', 'calls-item-past-50-malformed'],
  ['schema.calls-offset', 'calls-offset-ignored'],
  ['schema.calls-provider-filter', 'calls-provider-ignored'],
  ['stateful.create-echoes', 'create-drops-schedule'],
  ['stateful.get-returns-created', 'get-wraps-differently'],
  ['stateful.update-persists', 'update-not-persisted'],
  ['stateful.update-persists', 'update-drops-false'],
  ['stateful.update-record-shape', 'update-returns-full-record'],
  ['stateful.update-status-values', 'status-scheduled-rejected'],
  ['stateful.update-status-values', 'status-not-persisted'],
  ['stateful.add-recipient', 'recipient-answer-array'],
  ['stateful.create-invite', 'invite-wrong-email'],
  ['stateful.regenerate-key', 'regenerated-key-unusable'],
  ['stateful.regenerate-key', 'regenerate-returns-same-key'],
  ['ratelimit.headers-present', 'remaining-header-missing'],
  ['ratelimit.remaining-decreases', 'remaining-stuck'],
  ['ratelimit.reset-plausible', 'reset-implausible'],
  ['ratelimit.burst-429', 'limit-overstated'],
  ['ratelimit.burst-429', 'too-many-body-plain'],
  ['ratelimit.burst-429', 'too-many-detail-says-nothing'],
  ['ratelimit.burst-429', 'remaining-never-zero'],
  ['ratelimit.burst-429', 'too-many-remaining-positive'],
  ['cors.preflight-answered', 'preflight-405'],
  ['cors.preflight-allow-origin', 'preflight-no-allow-origin'],
  ['cors.preflight-allow-headers', 'preflight-headers-narrow'],
  ['cors.preflight-allow-headers', 'preflight-headers-wildcard'],
  ['cors.preflight-allow-methods', 'preflight-no-allow-methods'],
  ['robustness.no-5xx-valid', 'non-ascii-500'],
  ['robustness.no-5xx-invalid', 'non-object-body-500'],
  ['robustness.no-5xx-valid', 'large-body-500'],
  ['robustness.no-5xx-valid', 'empty-name-500'],
  ['robustness.no-5xx-valid', 'empty-object-500'],
  ['robustness.no-5xx-valid', 'empty-body-500'],
  ['robustness.no-5xx-valid', 'many-recipients-500'],
  ['robustness.no-5xx-invalid', 'unsafe-integer-500'],
  ['robustness.no-5xx-invalid', 'null-field-500'],
  ['robustness.no-5xx-invalid', 'repeated-query-500'],
];

const destructive = new Set(['stateful.create-invite', 'stateful.regenerate-key']);
/** A small window so the burst's wait for a fresh window stays short. */
const RATE = { rateLimit: 20, rateWindowMs: 1500 };

const describeResults = (results: CheckResult[]): string =>
  results.map((r) => `${r.id} ${r.operation}: ${r.status} ${r.message}`).join('\n');

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

describe('each check fails on its fault', () => {
  for (const [id, faultName] of FAILS_ON) {
    it(`${id} fails on ${faultName}`, async () => {
      const target = await startTarget({ fault: faultName, ...(id.startsWith('ratelimit.') ? RATE : {}) });
      try {
        const run = await runCheck(target, id, { includeDestructive: destructive.has(id) });
        const failed = run.results.filter((r) => r.status === 'failed');
        expect(failed.length, describeResults(run.results)).toBeGreaterThan(0);
        const failure = failed[0]!.failures![0]!;
        // Every failure is reproducible: expected vs actual, a curl line (a loop of them for what
        // only a series of requests shows: the rate-limit counting and burst), the seed.
        expect(failure.repro).toMatch(/^(curl |for i in \$\(seq 1 \d+\); do curl )/);
        expect(failure.seed).toBe(7);
        expect(failure.expected.length).toBeGreaterThan(0);
        expect(failure.actual.length).toBeGreaterThan(0);
        // No secret in what a report shows.
        expect(JSON.stringify(run.results)).not.toContain(target.server.fixtures.api_key);
      } finally {
        await target.close();
      }
    });
  }
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

/**
 * The reference server's own fault catalogue (test/faulty/faults.ts), written independently of
 * the checks: each fault is caught by the checks named here. A fault missing from this table fails
 * the first test, so a new fault of the catalogue cannot go unexamined.
 */
const CATALOGUE: Record<string, string[]> = {
  'range-max-concurrency-above-max': ['ranges.max-concurrency-above-maximum'],
  'range-max-concurrency-below-min': ['ranges.max-concurrency-below-minimum'],
  'range-machine-detection-above-max': ['ranges.machine-detection-timeout-seconds-above-maximum'],
  'range-machine-detection-below-min': ['ranges.machine-detection-timeout-seconds-below-minimum'],
  'range-violation-400': ['ranges.max-concurrency-above-maximum', 'ranges.machine-detection-timeout-seconds-below-minimum'],
  'error-422-wrong-shape': ['validation.wrong-type', 'validation.non-integer-query'],
  // The contract says only that loc is an array of strings and integers: a loc naming the field
  // without its location is noted as an observation, not failed (see the test below).
  'error-422-loc-without-location': [],
  'malformed-json-500': ['validation.malformed-json', 'robustness.no-5xx-invalid'],
  'ratelimit-reset-missing': ['ratelimit.headers-present', 'schema.response-conforms'],
  'ratelimit-limit-not-integer': ['ratelimit.headers-present'],
  'ratelimit-remaining-above-limit': ['ratelimit.headers-present'],
  'ratelimit-never-429': ['ratelimit.burst-429'],
  'ratelimit-429-without-detail': ['ratelimit.burst-429'],
  'auth-skipped-list-calls': ['auth.missing-credentials', 'auth.wrong-credentials'],
  'auth-user-id-ignored': ['auth.missing-credentials'],
  'regenerate-requires-user-id': ['stateful.regenerate-key'],
  'error-401-without-detail': ['auth.missing-credentials', 'auth.malformed-bearer'],
  'call-duration-string': ['schema.response-conforms'],
  'call-missing-to-number': ['schema.response-conforms'],
  'calls-limit-not-applied': ['schema.calls-limit'],
  'calls-offset-not-applied': ['schema.calls-offset'],
  'calls-provider-not-applied': ['schema.calls-provider-filter'],
  'create-omits-campaign-context': ['stateful.get-returns-created'],
  'create-drops-camelcase-schedule': ['stateful.get-returns-created'],
  'update-not-stored': ['stateful.update-persists'],
  'update-status-paused-rejected': ['stateful.update-status-values'],
  'update-returns-full-record': ['stateful.update-record-shape'],
  'cors-preflight-no-allow-origin': ['cors.preflight-allow-origin'],
  'unicode-body-500': ['robustness.no-5xx-valid'],
  'response-invalid-json': ['schema.response-conforms'],
  'response-wrong-content-type': ['schema.response-conforms'],
};

describe('the reference server\'s fault catalogue is caught fault by fault', () => {
  it('every fault of the catalogue is mapped to the checks that catch it', () => {
    expect(serverFaults.map((f) => f.name).filter((n) => !(n in CATALOGUE))).toEqual([]);
    const ids = new Set(checks.map((c) => c.id));
    expect(Object.values(CATALOGUE).flat().filter((id) => !ids.has(id))).toEqual([]);
  });
  for (const [name, ids] of Object.entries(CATALOGUE)) {
    if (!serverFaults.some((f) => f.name === name) || ids.length === 0) continue;
    it(`${name} is caught by ${ids.join(', ')}`, async () => {
      const ratelimit = ids.some((id) => id.startsWith('ratelimit.'));
      const target = await startTarget({ fault: name, ...(ratelimit ? RATE : {}) });
      try {
        const run = await runIds(target, ids, { includeDestructive: ids.some((id) => destructive.has(id)) });
        for (const id of ids) {
          const mine = run.results.filter((r) => r.id === id);
          expect(mine.some((r) => r.status === 'failed'), `${id} did not fail on ${name}:\n${describeResults(mine)}`).toBe(true);
        }
      } finally {
        await target.close();
      }
    });
  }
});
