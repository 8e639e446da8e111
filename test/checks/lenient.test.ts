/**
 * Lenient but correct servers (runner faults marked `lenient`) pass every check
 * (`..._no_false_positive`); strict-types mode is the only place framework coercion is judged.
 * The lenient faults about answers run here, the others in lenient-requests.test.ts, so the
 * workers share them.
 */
import { describe, expect, it } from 'vitest';
import { checks } from '../../suites/index.js';
import { runnerFault } from '../catalog/faults/runner-faults.js';
import { describeResults, expectNoFailure, expectPassed, runCheck, runIds, startTarget } from '../helpers/checks.js';
import { describeLenientServers, LENIENT_ANSWERS } from '../helpers/lenient.js';

describeLenientServers((name) => LENIENT_ANSWERS.includes(name));

describe('lenient and near-miss servers, one check each', () => {
  it('validation.loc-names-location_no_false_positive: a loc without its location is an observation, not a failure', async () => {
    const target = await startTarget({ fault: 'error-422-loc-without-location' });
    try {
      const run = await runIds(
        target,
        checks.filter((c) => c.suite === 'validation').map((c) => c.id),
      );
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
      expect(
        failed.some((r) => r.repro?.includes(`"$VAPC_API_KEY"'x'`)),
        text.slice(0, 2000),
      ).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('validation.wrong-type_no_false_positive: the strict reference server passes strict-types mode too', async () => {
    const target = await startTarget();
    try {
      expectPassed(
        await runCheck(target, 'validation.wrong-type', { runs: 8, strictTypes: true }),
        'validation.wrong-type',
      );
    } finally {
      await target.close();
    }
  });

  it('validation.wrong-type_no_false_positive: a server coercing "5" to 5 passes; strict-types mode fails it', async () => {
    const target = await startTarget({ fault: runnerFault('lenient-coerces-numeric-strings') });
    try {
      expectPassed(await runCheck(target, 'validation.wrong-type', { runs: 8 }), 'validation.wrong-type');
      const strict = await runCheck(target, 'validation.wrong-type', { runs: 8, strictTypes: true });
      expect(
        strict.results.some((r) => r.status === 'failed'),
        describeResults(strict.results),
      ).toBe(true);
    } finally {
      await target.close();
    }
  });
});
