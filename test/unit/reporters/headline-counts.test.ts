// A failed result's headline counts what it records: "X (and N more)" has N + 1 failures in
// report.json, whether the probes' summaries repeat (one summary, many failing inputs) or more
// failures are found than a result keeps.
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../src/results/model.js';
import { checks } from '../../../suites/index.js';
import { runIds, startTarget } from '../../helpers/checks.js';

const runs = new Map<string, Promise<CheckResult[]>>();
/** The failed results of one run per fault (shared by the tests of this file). */
const failedResults = (fault: string): Promise<CheckResult[]> => {
  if (!runs.has(fault)) runs.set(fault, runAgainst(fault));
  return runs.get(fault)!;
};

async function runAgainst(fault: string): Promise<CheckResult[]> {
  const target = await startTarget({ fault });
  try {
    const run = await runIds(
      target,
      checks.filter((c) => c.suite === 'validation' || c.suite === 'ranges').map((c) => c.id),
    );
    return run.results.filter((r) => r.status === 'failed');
  } finally {
    await target.close();
  }
}

/** The number of failures a headline claims: 1, or N + 1 for "(and N more". */
const claimed = (message: string): number => {
  const m = /\(and (\d+) more\b/.exec(message);
  return m ? Number(m[1]) + 1 : 1;
};

describe.concurrent('a failure headline counts the failures recorded', () => {
  // range-violation-400: 25 wrong-type bodies answered 400, more than a result keeps (20).
  // error-422-wrong-shape: one summary ("the 422 body ... is not the validation error body") for many inputs.
  for (const fault of ['range-violation-400', 'error-422-wrong-shape']) {
    it(`on ${fault}, for every failed result`, async () => {
      const failed = await failedResults(fault);
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.some((r) => (r.failures?.length ?? 0) > 1)).toBe(true);
      const wrong = failed
        .filter((r) => claimed(r.message) !== r.failures?.length)
        .map((r) => `${r.id} ${r.operation}: ${r.failures?.length} recorded, headline "${r.message}"`);
      expect(wrong).toEqual([]);
    });
  }

  it('says how many were found when more are found than recorded', async () => {
    const failed = await failedResults('range-violation-400');
    const capped = failed.find((r) => r.id === 'validation.wrong-type' && r.operation === 'POST /campaign')!;
    expect(capped.failures).toHaveLength(20);
    expect(capped.message).toMatch(/\(and 19 more; \d+ found, 20 recorded\)$/);
  });
});
