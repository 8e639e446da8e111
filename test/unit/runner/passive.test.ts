import { beforeAll, describe, expect, it } from 'vitest';
import { createCheckContext } from '../../../src/runner/context.js';
import { planChecks, runChecks } from '../../../src/runner/run.js';
import { defineCheck, type CheckDefinition } from '../../../src/checks/check.js';
import { fail, OK } from '../../../src/checks/outcomes.js';
import { plannedRequestsOf } from '../../../src/runner/budget.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import type { HttpRequest, Transport } from '../../../src/transport/types.js';
import { profile } from '../../../suites/profile.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

/** Answers GET /health with the next status of `statuses` (200 once they run out). */
function transport(statuses: number[]): Transport & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    baseUrl: 'http://fake',
    sent,
    async send(request) {
      sent.push(request);
      const status = statuses.shift() ?? 200;
      return {
        request: { method: request.method, url: `http://fake${request.path}`, headers: { ...request.headers } },
        response: { status, headers: {}, text: '{}', json: {}, truncated: false },
        durationMs: 1,
      };
    },
    async close() {},
  };
}

const base = {
  rule: 'r',
  contractRef: '4',
  severity: 'minor' as const,
  appliesTo: (op: { id: string }) => op.id === 'getHealth',
};
const sender = (id: string, times = 1): CheckDefinition =>
  defineCheck({
    ...base,
    id,
    suite: id.split('.')[0] as 'auth',
    async run(ctx, op) {
      for (let i = 0; i < times; i++) await ctx.send({ method: op.method, path: op.path, operation: op });
      return { status: 'passed', message: 'sent' };
    },
  });

/** No 5xx on GET /health, judged on every answer; its own run sends one request only when nothing was judged. */
function passive(ran: { own: number }): CheckDefinition {
  return defineCheck({
    ...base,
    id: 'schema.passive',
    suite: 'schema',
    plannedRequests: (_op, _runs, _spec, options) => (options?.covered ? 0 : 1),
    judgeExchange: (ctx, _op, exchange) =>
      (exchange.response?.status ?? 0) >= 500
        ? fail(ctx, exchange, 'no 5xx', `${exchange.response?.status}`, 'a 5xx', undefined, { kind: 'status' })
        : OK,
    async run(ctx, op) {
      ran.own++;
      if ((ctx.judgedElsewhere?.().judged ?? 0) > 0)
        return { status: 'skipped', message: 'covered', notJudged: { cause: 'covered' } };
      await ctx.send({ method: op.method, path: op.path, operation: op });
      return { status: 'passed', message: 'own request' };
    },
  });
}

describe('passive checks (judgeExchange)', () => {
  it("judge every other check's answer on their operation and send nothing of their own when covered", async () => {
    const t = transport([]);
    const ctx = createCheckContext({ spec, transport: t });
    const ran = { own: 0 };
    const { results, runOrder } = await runChecks([passive(ran), sender('auth.a', 2), sender('cors.c')], ctx, {
      profile,
    });
    // Covered by the time its turn comes, it sends nothing, and its result waits for every answer
    // before the ratelimit suite; the results stay in plan order (shards name plan positions).
    expect(results.map((r) => r.id)).toEqual(['auth.a', 'schema.passive', 'cors.c']);
    expect(runOrder.map((r) => [r.id, r.status, r.requests])).toEqual([
      ['auth.a', 'passed', 2],
      ['cors.c', 'passed', 1],
      ['schema.passive', 'passed', 0],
    ]);
    expect(results[1]!.message).toContain("3 answer(s) to other checks' requests judged");
    expect(t.sent).toHaveLength(3);
    expect(ran.own).toBe(1);
  });

  it("report a failure on another check's answer at once, under the passive check, with that request's curl line", async () => {
    const ctx = createCheckContext({ spec, transport: transport([200, 503]) });
    const ran = { own: 0 };
    const { runOrder: results } = await runChecks(
      [sender('auth.a'), sender('auth.b'), passive(ran), sender('cors.c')],
      ctx,
      { profile },
    );
    expect(results.map((r) => [r.id, r.status, r.requests])).toEqual([
      ['auth.a', 'passed', 1],
      ['auth.b', 'passed', 1],
      ['schema.passive', 'failed', 0],
      ['cors.c', 'passed', 1],
    ]);
    const failed = results[2]!;
    expect(failed.message).toContain('a request of auth.b');
    expect(failed.failures![0]!.repro).toMatch(/^curl .*\/health/);
    expect(ran.own).toBe(0);
  });

  it('send their own request when nothing else covered the operation, and say so in plannedRequests', async () => {
    const t = transport([]);
    const ctx = createCheckContext({ spec, transport: t });
    const ran = { own: 0 };
    const alone = planChecks([passive(ran)], ctx, { profile });
    expect(plannedRequestsOf(alone[0]!, 1, spec)).toBe(1);
    const covered = planChecks([passive(ran), sender('auth.a')], ctx, { profile });
    expect(
      plannedRequestsOf(
        covered.find((p) => p.check.id === 'schema.passive')!,
        1,
        spec,
      ),
    ).toBe(0);
    const { results } = await runChecks([passive(ran)], ctx, { profile });
    expect(results.map((r) => [r.id, r.status, r.requests])).toEqual([['schema.passive', 'passed', 1]]);
  });

  it('wait for the last other pair on their operation, and are final before the ratelimit suite', async () => {
    const t = transport([200, 200, 503]);
    const ctx = createCheckContext({ spec, transport: t });
    const ran = { own: 0 };
    const { results, runOrder } = await runChecks([passive(ran), sender('cors.c'), sender('ratelimit.r')], ctx, {
      profile,
    });
    // cors.c comes after it in the plan: its own turn moves after cors.c, which covers it; the
    // ratelimit suite's 503 comes after it is final, so it is that suite's to judge.
    expect(runOrder.map((r) => [r.id, r.status, r.requests])).toEqual([
      ['cors.c', 'passed', 1],
      ['schema.passive', 'passed', 0],
      ['ratelimit.r', 'passed', 1],
    ]);
    expect(results.map((r) => r.id)).toEqual(['schema.passive', 'cors.c', 'ratelimit.r']);
    expect(results[0]!.message).toBe("1 answer(s) to other checks' requests judged; covered");
    expect(ran.own).toBe(1);
  });
});
