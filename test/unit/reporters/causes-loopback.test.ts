// A server whose X-RateLimit-Reset has the wrong format (a date, not epoch seconds) breaks every
// answer's header: the checks of several suites fail on it, and the console shows one cause.
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { renderSummary } from '../../../src/reporters/console.js';
import { groupCauses } from '../../../src/results/causes.js';
import type { ServerFault } from '../../catalog/faults/server-faults.js';
import { describeResults, runIds, startTarget } from '../../helpers/checks.js';

const RESET_AS_DATE: ServerFault = {
  name: 'ratelimit-reset-as-date',
  description: 'X-RateLimit-Reset is an HTTP date, not epoch seconds',
  catches: [],
  configure: (app: FastifyInstance) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('x-ratelimit-reset', 'Wed, 25 Nov 2026 18:00:00 GMT');
      return payload;
    });
  },
};

describe('one wrong X-RateLimit-Reset format is one cause', () => {
  it('fails checks in several suites and operations, grouped into one cause', async () => {
    const target = await startTarget({ fault: RESET_AS_DATE });
    try {
      const run = await runIds(target, ['schema.response-conforms', 'ratelimit.headers-present'], { runs: 1 });
      const failed = run.results.filter((r) => r.status === 'failed');
      expect(new Set(failed.map((r) => r.suite)).size, describeResults(run.results)).toBe(2);
      expect(failed.length).toBeGreaterThan(2);
      const causes = groupCauses(failed);
      expect(causes.map((c) => c.key)).toEqual(['schema response-header /x-ratelimit-reset @ *']);
      expect(causes[0]!.failures).toBeGreaterThanOrEqual(failed.length);
      expect(causes[0]!.suites.sort()).toEqual(['ratelimit', 'schema']);
      expect(causes[0]!.operations.length).toBeGreaterThan(1);
      const text = renderSummary(run.report);
      expect(text).toContain(`Causes (1) of ${causes[0]!.failures} failures in ${failed.length} checks`);
      expect(text).not.toContain(target.server.fixtures.api_key);
    } finally {
      await target.close();
    }
  });
});
