// Issue 21: no false alarm on a correct server that makes its own defensible choices where the
// contract is silent (test/catalog/independent/choices.ts). Each test reproduced a false alarm
// before the change: a probe id judged as the property, state one check left for another, a pass
// that judged nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { checks as allChecks } from '../../suites/index.js';
import { describeResults, runIds, startTarget, type Target } from '../helpers/checks.js';
import { withChoices, type Choice } from '../catalog/independent/choices.js';

const idsOf = (...suites: string[]): string[] => allChecks.filter((c) => suites.includes(c.suite)).map((c) => c.id);

let target: Target | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function runWith(choices: Choice[], suites: string[], seed: number) {
  target = await startTarget({ configure: withChoices(...choices) });
  return runIds(target, idsOf(...suites), { seed, runs: 2 });
}

const failed = <T extends { status: string }>(results: T[]): T[] =>
  results.filter((r) => r.status === 'failed' || r.status === 'error');

describe('no false alarm on a correct server with its own choices (issue 21)', () => {
  it('a refused create never sends a probe id judged as the property: channel paired with the phone number, unknown ids 404 before validation', async () => {
    const run = await runWith(['pairing', 'lookupFirst'], ['validation', 'ranges', 'schema'], 5);
    expect(failed(run.results), describeResults(failed(run.results))).toEqual([]);
    // The pairing was learned: the update's checks ran on a real record.
    const patch = run.on('PATCH /campaign/{campaign_id}').filter((r) => r.suite === 'validation');
    expect(
      patch.some((r) => r.status === 'passed'),
      describeResults(patch),
    ).toBe(true);
  });

  it('no check inherits the state another left: a completed campaign is terminal (409)', async () => {
    const run = await runWith(['terminal', 'lookupFirst'], ['ranges', 'schema', 'stateful', 'validation'], 5);
    expect(failed(run.results), describeResults(failed(run.results))).toEqual([]);
  });

  it('a server refusing every create and every update with 422 gets no pass from a check that needs an accepted write', async () => {
    const run = await runWith(['refuseWrites'], ['validation', 'ranges', 'schema', 'stateful'], 9);
    expect(failed(run.results), describeResults(failed(run.results))).toEqual([]);
    const needsWrite = run.results.filter(
      (r) =>
        /-in-range$|^stateful\.(create|get|update)/.test(r.id) ||
        r.operation === 'PATCH /campaign/{campaign_id}' ||
        (r.id === 'schema.response-conforms' && r.operation === 'POST /campaign'),
    );
    expect(needsWrite.length).toBeGreaterThan(5);
    const passed = needsWrite.filter((r) => r.status === 'passed');
    expect(passed, describeResults(passed)).toEqual([]);
    for (const r of needsWrite) expect(r.message, `${r.id} ${r.operation}`).toMatch(/\S/);
  });
});
