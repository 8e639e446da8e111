/**
 * A body the transport cut at its own size cap is not judged: the cap (1 MiB) is the runner's limit,
 * not the contract's, which leaves the maximum `limit` and payload size open (section 8). Before
 * this, the "wire" implementation's page of GET /calls?limit=1000 (about 1.4 MB) was "a body that is
 * not JSON" (schema.response-conforms, seeds 1 and 5 of the correct matrix).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { referenceSpec } from '../../src/server/index.js';
import type { Operation, SpecModel } from '../../src/spec/model.js';
import type { Observation } from '../../src/results/model.js';
import { judgeResponse } from '../../suites/lib/judges.js';
import { judgeContext, writtenExchange } from '../helpers/judged.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await referenceSpec();
});
const listCalls = (): Operation => spec.operations.find((o) => o.method === 'GET' && o.path === '/calls')!;

describe('judgeResponse on a body cut at the size cap', () => {
  it('does not judge the content of a cut body, and still judges its status', () => {
    const ctx = judgeContext(spec, [] as Observation[]);
    const cut = writtenExchange('GET', '/calls?limit=1000', {
      status: 200,
      text: '[{"id": "call_1", "provider": "twil',
      truncated: true,
      jsonError: 'the body was cut at the size cap and was not parsed',
    });
    expect(judgeResponse(ctx, listCalls(), cut)).toEqual({
      ok: true,
      unjudged: expect.stringMatching(/size cap/),
      why: { cause: 'runner' },
    });
    const whole = writtenExchange('GET', '/calls', { status: 200, text: '[{"id": "call_1", "provider": "twil' });
    expect(judgeResponse(ctx, listCalls(), whole).ok).toBe(false);
    // Its content type is a header, whole whatever the body: still judged.
    const html = writtenExchange('GET', '/calls?limit=1000', {
      status: 200,
      text: '<html><body>',
      truncated: true,
      headers: { 'content-type': 'text/html' },
    });
    expect(judgeResponse(ctx, listCalls(), html)).toMatchObject({
      ok: false,
      summary: expect.stringMatching(/content type text\/html/),
    });
    const undocumented = writtenExchange('GET', '/calls', { status: 404, text: '{"de', truncated: true });
    expect(judgeResponse(ctx, listCalls(), undocumented).ok).toBe(false);
  });
});
