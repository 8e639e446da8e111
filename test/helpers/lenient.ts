/**
 * The lenient but correct servers (runner faults marked `lenient`) must pass every check: the run of
 * all checks but the rate-limit ones and, on a server with a small window, the rate-limit ones.
 * The faults are split over two files (test/checks/lenient*.test.ts) so the workers share them:
 * within a file they run one after another, since the rate-limit runs wait on their windows.
 */
import { describe, expect, it } from 'vitest';
import { checks } from '../../suites/index.js';
import { runnerFaults } from '../catalog/faults/runner-faults.js';
import { expectNoFailure, runIds, startTarget } from './checks.js';
import { RATE } from './fails-on-fault.js';

/** The lenient faults about what a server answers; test/checks/lenient-requests.test.ts takes the rest. */
export const LENIENT_ANSWERS = [
  'lenient-201-and-204',
  'lenient-reset-epoch',
  'lenient-preflight-open',
  'lenient-error-wording',
  'lenient-wrong-user-404',
];

/** One `<fault>_no_false_positive` test per lenient fault that `pick` selects. */
export function describeLenientServers(pick: (name: string) => boolean): void {
  describe('lenient but correct servers pass every check', () => {
    it('the catalogue has lenient faults for this file', () => {
      expect(runnerFaults.filter((f) => f.lenient && pick(f.name)).length).toBeGreaterThan(0);
    });
    for (const fault of runnerFaults.filter((f) => f.lenient && pick(f.name))) {
      it(`${fault.name}_no_false_positive`, async () => {
        const [target, rateTarget] = await Promise.all([startTarget({ fault }), startTarget({ fault, ...RATE })]);
        try {
          const [run, rateRun] = await Promise.all([
            runIds(
              target,
              checks.filter((c) => c.suite !== 'ratelimit').map((c) => c.id),
              { includeDestructive: true },
            ),
            runIds(
              rateTarget,
              checks.filter((c) => c.suite === 'ratelimit').map((c) => c.id),
            ),
          ]);
          expectNoFailure(run);
          expectNoFailure(rateRun);
        } finally {
          await Promise.all([target.close(), rateTarget.close()]);
        }
      });
    }
  });
}
