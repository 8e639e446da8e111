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
      expect(failed.map((r) => r.id), describeResults(run.results)).toEqual(['stateful.regenerate-key']);
      const cors = run.results.filter((r) => r.suite === 'cors' && r.operation.startsWith('OPTIONS'));
      expect(cors.length).toBeGreaterThan(0);
      for (const r of cors) expect(r.message).toMatch(/^not run: the API key stopped working: POST \/api-keys\/api-keys\/\{key_id\}\/regenerate returned a key that was refused \(401 on GET \/users\/me\)/);
    } finally {
      await target.close();
    }
  });

  it('the key in use still works: the run carries on with it, says so, and nothing else fails', async () => {
    const target = await startTarget({ fault: 'regenerated-key-fake-old-kept' });
    try {
      const run = await runIds(target, later, { includeDestructive: true });
      const failed = run.results.filter((r) => r.status === 'failed');
      expect(failed.map((r) => r.id), describeResults(run.results)).toEqual(['stateful.regenerate-key']);
      expect(run.results.filter((r) => r.message.startsWith('not run'))).toEqual([]);
      expect(run.results.filter((r) => r.suite === 'cors' && r.status === 'passed').length).toBeGreaterThan(0);
      expect(run.observations.some((o) => /the key in use before the regeneration still works after it/.test(o.message)), JSON.stringify(run.observations)).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('on the reference server the regenerated key works and nothing is skipped for credentials', async () => {
    const target = await startTarget();
    try {
      const run = await runIds(target, later, { includeDestructive: true });
      expect(run.results.filter((r) => r.status === 'failed'), describeResults(run.results)).toEqual([]);
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
      const repro = result!.failures!.find((f) => /GET/.test(f.repro ?? '') || /-X PATCH/.test(f.repro ?? ''))?.repro ?? '';
      const lines = repro.split(' && ');
      expect(lines.length, repro).toBe(2);
      expect(lines[0]).toMatch(/-X PATCH/);
      expect(lines[1]).not.toMatch(/-X PATCH/);
    } finally {
      await target.close();
    }
  });
});
