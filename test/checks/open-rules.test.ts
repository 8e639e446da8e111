// Issue 21: the server-side rules the contract leaves open are judged in one place (openRule in
// suites/lib/judges.ts) and listed in docs/checks.md ("How the checks judge"). This walks both
// lists: every rule is documented, and every judge turns it into an observation, never a failure.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCheckContext } from '../../src/runner/context.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import type { Exchange, Transport } from '../../src/transport/types.js';
import { judgeInvalid, judgeResponse, OPEN_RULES, openRule } from '../../suites/lib/judges.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const transport: Transport = {
  baseUrl: 'http://fake',
  async send(request) {
    return {
      request: { method: request.method, url: request.path, headers: {} },
      error: { code: 'connection_refused', message: 'not used' },
      durationMs: 0,
    };
  },
  async close() {},
};

function answer(status: number): Exchange {
  const json =
    status === 422
      ? {
          detail: [
            { loc: ['body', 'phone_number_id'], msg: 'no such phone number for this channel', type: 'value_error' },
          ],
        }
      : { detail: `the server's own rule (${status})` };
  return {
    request: { method: 'PATCH', url: 'http://fake/campaign/cmp_1', headers: {} },
    response: {
      status,
      headers: { 'content-type': 'application/json' },
      text: JSON.stringify(json),
      json,
      truncated: false,
    },
    durationMs: 1,
  };
}

describe('server-side rules the contract leaves open (issue 21)', () => {
  const doc = readFileSync(new URL('../../docs/checks.md', import.meta.url), 'utf8');
  const judging = doc.slice(doc.indexOf('## How the checks judge'), doc.indexOf('## How the checks are tested'));

  it('docs/checks.md lists every open rule under "How the checks judge", and no other', () => {
    for (const rule of OPEN_RULES) expect(judging).toContain(`  - ${rule.rule}`);
    const listed = judging.split('\n').filter((line) => /^ {2}- \d{3} /.test(line));
    expect(listed).toHaveLength(OPEN_RULES.length);
  });

  for (const rule of OPEN_RULES) {
    it(`${rule.status} is an observation with the server's message, in every judge`, () => {
      const run = createCheckContext({ spec, transport });
      const ctx = run.scope('ranges.test', 'ranges');
      const op = spec.operation('updateCampaign');
      const exchange = answer(rule.status);
      const field = { loc: ['max_concurrency'], location: 'body' as const };
      const verdict = openRule(ctx, op, exchange, { placeholder: true, valid: true, fields: [field] });
      expect(verdict).toMatchObject({ ok: true, unjudged: expect.stringContaining(String(rule.status)) });
      expect(run.observations.at(-1)?.message ?? '').toContain(exchange.response!.text.slice(0, 40));
      // The judges of invalid and of valid requests route through it.
      const invalid = judgeInvalid(
        ctx,
        op,
        exchange,
        {
          kind: 'below-minimum',
          location: 'body',
          loc: ['max_concurrency'],
          field: 'max_concurrency',
          value: 0,
          body: { max_concurrency: 0 },
          description: 'max_concurrency=0',
        },
        { placeholder: true, validRefused: { reason: 'every create refused', why: { cause: 'refused', status: 422 } } },
      );
      expect(invalid.ok).toBe(true);
      if (rule.status !== 422) expect(judgeResponse(ctx, op, exchange, { placeholder: true }).ok).toBe(true);
    });
  }

  it('a 422 naming the field under test, or a 404 for an id that exists, is judged, not open', () => {
    const ctx = createCheckContext({ spec, transport }).scope('ranges.test', 'ranges');
    const op = spec.operation('updateCampaign');
    expect(
      openRule(ctx, op, answer(422), { valid: true, fields: [{ loc: ['phone_number_id'], location: 'body' }] }),
    ).toBeUndefined();
    expect(openRule(ctx, op, answer(404))).toBeUndefined();
    expect(openRule(ctx, op, answer(422))).toBeUndefined();
  });
});
