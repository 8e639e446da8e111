// ratelimit checks: each fails on the faults that declare it in `catches` (test/helpers/fails-on-fault.ts).
import { describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { faultByName, type ServerFault } from '../catalog/faults/index.js';
import { runIds, startTarget } from '../helpers/checks.js';
import { describeFailsOnFault, RATE } from '../helpers/fails-on-fault.js';

describeFailsOnFault('ratelimit');

// Skip reasons say what was wrong with the headers: absent, present but not an integer (the value
// quoted), or present but implausible; never "missing" for a value the server sent.

/** A server sending `value` as the rate-limit header `name` on every answer. */
const headerAs = (name: string, value: string): ServerFault => ({
  name: `${name}-${value}`,
  description: `${name}: ${value}`,
  catches: [],
  configure: (app: FastifyInstance) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header(name, value);
      return payload;
    });
  },
});

async function skipReasons(fault: ServerFault, ids: string[]): Promise<Record<string, string>> {
  // A window far longer than the run: under load a 1.5 s window can roll over before the burst's
  // 429, and then there is no 429 whose headers the reasons are about. No check here waits for a
  // reset (every Reset in these servers is absent or unusable), so the length costs nothing.
  const target = await startTarget({ fault, rateLimit: RATE.rateLimit, rateWindowMs: 60_000 });
  try {
    const run = await runIds(
      target,
      ids.map((id) => `ratelimit.${id}`),
    );
    return Object.fromEntries(run.results.map((r) => [r.id.replace('ratelimit.', ''), `${r.status}: ${r.message}`]));
  } finally {
    await target.close();
  }
}

describe.concurrent('ratelimit skip reasons name what was wrong', () => {
  it('a Reset present but not an integer is quoted, not called missing', async () => {
    const got = await skipReasons(headerAs('x-ratelimit-reset', 'in 30 "seconds"'), [
      'remaining-decreases',
      'reset-plausible',
      'reset-honoured',
    ]);
    const quoted = 'X-RateLimit-Reset present but not an integer: "in 30 \\"seconds\\""';
    expect(got['remaining-decreases']).toBe(`skipped: ${quoted} on 200 (judged by ratelimit.headers-present)`);
    expect(got['reset-plausible']).toBe(`skipped: not judged: ${quoted} on 200 (judged by ratelimit.headers-present)`);
    expect(got['reset-honoured']).toBe(
      `skipped: the 429: ${quoted}, so no reset to wait for (judged by ratelimit.burst-429)`,
    );
  });

  it('an absent Reset is called absent', async () => {
    const got = await skipReasons(faultByName('ratelimit-reset-missing'), ['remaining-decreases', 'reset-plausible']);
    expect(got['remaining-decreases']).toBe(
      'skipped: X-RateLimit-Reset absent on 200 (judged by ratelimit.headers-present)',
    );
    expect(got['reset-plausible']).toBe(
      'skipped: not judged: X-RateLimit-Reset absent on 200 (judged by ratelimit.headers-present)',
    );
  });

  it('a Limit present but not an integer is quoted by the burst', async () => {
    const got = await skipReasons(faultByName('ratelimit-limit-not-integer'), ['burst-429']);
    expect(got['burst-429']).toMatch(
      /^skipped: X-RateLimit-Limit present but not an integer: "\d+\.0": no limit to burst past/,
    );
  });

  it('a Limit that is an integer but below 1 is called implausible, not missing', async () => {
    const got = await skipReasons(headerAs('x-ratelimit-limit', '0'), ['burst-429']);
    expect(got['burst-429']).toBe(
      'skipped: present but implausible: X-RateLimit-Limit 0 (below 1): no limit to burst past (judged by ratelimit.headers-present)',
    );
  });
});
