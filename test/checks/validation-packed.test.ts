// Packed invalid cases (suites/lib/packed.ts, issue 25): a server that reports every fault judges
// every field in one request; one that stops at the first fault is judged field by field, with no
// false alarm, and a fault among the packed fields is still attributed to its own field.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { runnerFault } from '../catalog/faults/runner-faults.js';
import type { ServerFault } from '../catalog/faults/index.js';
import { describeResults, expectPassed, runCheck, startTarget } from '../helpers/checks.js';

/** Every 422 keeps only its first error item, as a validator that stops at the first fault answers. */
function firstErrorOnly(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode !== 422 || typeof payload !== 'string') return payload;
    const json = JSON.parse(payload) as { detail?: unknown[] };
    return Array.isArray(json.detail) ? JSON.stringify({ detail: json.detail.slice(0, 1) }) : payload;
  });
}

const stopsAtFirst: ServerFault = {
  name: 'first-error-only',
  description: 'each 422 names only the first fault',
  catches: [],
  configure: (app) => firstErrorOnly(app),
};

describe('validation: invalid cases packed into one request, narrowed by what the 422 names', () => {
  it('a server reporting every fault judges every field of a pack in one request', async () => {
    const target = await startTarget();
    try {
      const run = await runCheck(target, 'validation.wrong-type', { seed: 7, runs: 0 });
      const create = run.on('POST /campaign')[0]!;
      expect(create.status, describeResults(run.results)).toBe('passed');
      // Two packs (the fields, then the objects holding some of them), one round of near misses.
      expect(create.requests).toBe(2);
    } finally {
      await target.close();
    }
  });

  it('a server naming only the first fault passes too, each field judged in turn', async () => {
    const target = await startTarget({ fault: stopsAtFirst });
    try {
      const run = await runCheck(target, 'validation.wrong-type', { seed: 7, runs: 0 });
      expectPassed(run, 'validation.wrong-type');
      expect(run.on('POST /campaign')[0]!.requests).toBeGreaterThan(20);
      expectPassed(await runCheck(target, 'validation.non-integer-query', { seed: 7 }), 'validation.non-integer-query');
    } finally {
      await target.close();
    }
  });

  it('a field whose type is unchecked, among fields a first-fault server names one by one, fails on that field alone', async () => {
    const lenient = runnerFault('string-fields-take-numbers');
    const fault: ServerFault = {
      ...stopsAtFirst,
      configure(app, internals) {
        lenient.configure(app, internals);
        firstErrorOnly(app);
      },
    };
    const target = await startTarget({ fault });
    try {
      const run = await runCheck(target, 'validation.wrong-type', { seed: 7, runs: 0 });
      const create = run.on('POST /campaign')[0]!;
      expect(create.status, describeResults(run.results)).toBe('failed');
      const pointers = new Set(create.failures!.map((f) => f.field?.pointer));
      expect(pointers.has('/name')).toBe(true);
      // Integer and object fields are refused as they should be: no failure names them.
      for (const judged of ['/max_concurrency', '/retry_policy', '/short_term_summaries_limit'])
        expect(pointers.has(judged), judged).toBe(false);
    } finally {
      await target.close();
    }
  });
});
