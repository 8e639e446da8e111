// The runner against the independent "ledger" implementation (test/catalog/independent/ledger/,
// choices in its CHOICES.md): a correct server that looks records up before validating bodies
// (404 before 422), freezes completed campaigns (409 on any PATCH of one), refuses duplicate
// campaign names (409), answers 403 for another organization's records and counts only
// authenticated requests against its rate limit. Every check must pass: a failure is either a
// real fault of this server or a false alarm of the runner (issue 21). One seed, cheap.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import { loopbackServers, SMALL_LIMIT, type LoopbackServer } from '../../helpers/loopback-runs.js';
import { expectCorrectRateLimit, expectCorrectRun } from '../../helpers/correct-runs.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start as startLedger } from './ledger/server.mjs';

type Start = (o: { rateLimit?: number; rateWindowMs?: number }) => Promise<LoopbackServer>;

describe('the runner against the independent ledger implementation', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });
  const server = loopbackServers(startLedger as Start);

  it('keeps its own rules: 404 before 422, 409 on a completed campaign and on a duplicate name, 403 across organizations', async () => {
    const s = await server();
    const f = s.fixtures as LoopbackServer['fixtures'] & {
      assistant_id: string;
      phone_number_id: string;
      other_org: { campaign_id: string };
    };
    const headers = {
      authorization: `Bearer ${f.api_key}`,
      'x-user-id': f.user_id,
      'content-type': 'application/json',
    };
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${s.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect((await call('PATCH', '/campaign/no-such-campaign', { max_concurrency: 'x' })).status).toBe(404);
    const create = {
      name: 'Rule check',
      assistant_id: f.assistant_id,
      phone_number_id: f.phone_number_id,
      channel: f.channels[0],
    };
    const created = await call('POST', '/campaign', create);
    expect(created.status).toBe(201);
    expect((await call('POST', '/campaign', create)).status).toBe(409);
    const { id } = (await created.json()) as { id: string };
    expect((await call('PATCH', `/campaign/${id}`, { status: 'completed' })).status).toBe(200);
    expect((await call('PATCH', `/campaign/${id}`, { status: 'running' })).status).toBe(409);
    expect((await call('GET', `/campaign/${f.other_org.campaign_id}`)).status).toBe(403);
  });

  it('all suites but ratelimit, destructive operations included: 0 failed, 0 error (seed 1)', async () => {
    const s = await server();
    await expectCorrectRun(s, spec);
  });

  it('the ratelimit suite (with schema), burst included, against a small limit and window: 0 failed', async () => {
    const s = await server(SMALL_LIMIT);
    await expectCorrectRateLimit(s, spec);
  });
});
