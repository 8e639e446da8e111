// stateful checks: each fails on the faults that declare it in `catches` (test/helpers/fails-on-fault.ts).
import { describe, expect, it } from 'vitest';
import { checks } from '../../suites/index.js';
import { describeResults, runIds, startTarget } from '../helpers/checks.js';
import { describeFailsOnFault } from '../helpers/fails-on-fault.js';

describeFailsOnFault('stateful');

describe('stateful.regenerate-key: the run after a regenerated key that does not work', () => {
  // The suites after stateful that send credentials: without a working key they would fail for the
  // regeneration's fault, which stateful.regenerate-key already reports.
  const later = checks.filter((c) => ['stateful', 'cors', 'robustness'].includes(c.suite)).map((c) => c.id);

  it('no key works any more: the one failure is the regeneration, the checks that need a key are skipped naming it', async () => {
    const target = await startTarget({ fault: 'regenerated-key-unusable' });
    try {
      const run = await runIds(target, later, { includeDestructive: true });
      const failed = run.results.filter((r) => r.status === 'failed');
      expect(
        failed.map((r) => r.id),
        describeResults(run.results),
      ).toEqual(['stateful.regenerate-key']);
      const cors = run.results.filter((r) => r.suite === 'cors' && r.operation.startsWith('OPTIONS'));
      expect(cors.length).toBeGreaterThan(0);
      for (const r of cors)
        expect(r.message).toMatch(
          /^not run: the API key stopped working: POST \/api-keys\/api-keys\/\{key_id\}\/regenerate returned a key that was refused \(401 on GET \/users\/me\)/,
        );
    } finally {
      await target.close();
    }
  });

  it('the key in use still works: the run carries on with it, says so, and nothing else fails', async () => {
    const target = await startTarget({ fault: 'regenerated-key-fake-old-kept' });
    try {
      const run = await runIds(target, later, { includeDestructive: true });
      const failed = run.results.filter((r) => r.status === 'failed');
      expect(
        failed.map((r) => r.id),
        describeResults(run.results),
      ).toEqual(['stateful.regenerate-key']);
      expect(run.results.filter((r) => r.message.startsWith('not run'))).toEqual([]);
      expect(run.results.filter((r) => r.suite === 'cors' && r.status === 'passed').length).toBeGreaterThan(0);
      expect(
        run.observations.some((o) => /the key in use before the regeneration still works after it/.test(o.message)),
        JSON.stringify(run.observations),
      ).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('on the reference server the regenerated key works and nothing is skipped for credentials', async () => {
    const target = await startTarget();
    try {
      const run = await runIds(target, later, { includeDestructive: true });
      expect(
        run.results.filter((r) => r.status === 'failed'),
        describeResults(run.results),
      ).toEqual([]);
      expect(run.results.filter((r) => /API key stopped working/.test(r.message))).toEqual([]);
    } finally {
      await target.close();
    }
  });
});

describe('a repro that depends on an earlier write replays it (issue 21)', () => {
  it('update-persists on update-not-persisted: the repro is the PATCH, then the GET that shows it lost', async () => {
    const target = await startTarget({ fault: 'update-not-persisted' });
    try {
      const run = await runIds(target, ['stateful.update-persists']);
      const result = run.results.find((r) => r.status === 'failed');
      expect(result, describeResults(run.results)).toBeDefined();
      const repro =
        result!.failures!.find((f) => /GET/.test(f.repro ?? '') || /-X PATCH/.test(f.repro ?? ''))?.repro ?? '';
      const lines = repro.split(' && ');
      expect(lines.length, repro).toBe(2);
      expect(lines[0]).toMatch(/-X PATCH/);
      expect(lines[1]).not.toMatch(/-X PATCH/);
    } finally {
      await target.close();
    }
  });
});

describe('a repro on a record the check created says so (issue 21)', () => {
  /** The repro lines of the failures of one check run alone on a faulty server. */
  async function reprosOf(fault: string, id: string): Promise<string[]> {
    const target = await startTarget({ fault });
    try {
      const run = await runIds(target, [id]);
      const failed = run.results.filter((r) => r.status === 'failed');
      expect(failed.length, describeResults(run.results)).toBeGreaterThan(0);
      return failed.flatMap((r) => (r.failures ?? []).map((f) => f.repro ?? ''));
    } finally {
      await target.close();
    }
  }
  /** Splits "<line>  # after: <create>" into the runnable part and the create it names. */
  const split = (repro: string): { run: string[]; after: string } => {
    const [run, after] = repro.split('  # after: ');
    return { run: run!.split(' && '), after: after ?? '' };
  };
  const CREATE = /^curl .*-X POST \S*\/campaign /;

  it.concurrent('get-returns-created: the GET names the create it reads back', async () => {
    for (const repro of await reprosOf('get-wraps-differently', 'stateful.get-returns-created')) {
      const { run, after } = split(repro);
      expect(run, repro).toHaveLength(1);
      expect(run[0]).toMatch(/-X GET \S*\/campaign\//);
      expect(after, repro).toMatch(CREATE);
    }
  });

  it.concurrent('update-record-shape: the PATCH names the create it updates', async () => {
    for (const repro of await reprosOf('update-returns-full-record', 'stateful.update-record-shape')) {
      const { run, after } = split(repro);
      expect(run[0], repro).toMatch(/-X PATCH/);
      expect(after, repro).toMatch(CREATE);
    }
  });

  it.concurrent('update-status-values: a refused status replays the moves before it on that record', async () => {
    const repros = await reprosOf('update-status-paused-rejected', 'stateful.update-status-values');
    const paused = repros.find((r) => /"status":"paused"/.test(r))!;
    const { run, after } = split(paused);
    // draft, scheduled and running were accepted on the same campaign before paused was refused.
    expect(run.length, paused).toBeGreaterThan(1);
    for (const line of run) expect(line).toMatch(/-X PATCH .*"status":/);
    expect(run[run.length - 1]).toMatch(/"status":"paused"/);
    const id = /\/campaign\/([^ ']+)/.exec(run[0]!)![1];
    for (const line of run) expect(line).toContain(`/campaign/${id}`);
    expect(after, paused).toMatch(CREATE);
  });

  it.concurrent('update-status-values: the read-back replays every move of that record, then the GET', async () => {
    const repros = await reprosOf('status-not-persisted', 'stateful.update-status-values');
    const { run, after } = split(repros.find((r) => /-X GET/.test(r))!);
    expect(run[run.length - 1]).toMatch(/-X GET/);
    expect(run.slice(0, -1).length).toBeGreaterThan(1);
    for (const line of run.slice(0, -1)) expect(line).toMatch(/-X PATCH/);
    expect(after).toMatch(CREATE);
  });
});
