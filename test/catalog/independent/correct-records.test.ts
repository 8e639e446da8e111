// The runner against the independent "records" implementation (test/catalog/independent/records/,
// choices in its CHOICES.md): a correct server whose choices are those of a database-backed
// service: ids of several families, timestamps with microseconds and +00:00, NULL columns answered
// as null, extra columns, values stored normalised (NFC, lower-cased e-mail, canonical date-times,
// digits-only phone numbers), upserts, clamped pages, a per-user sliding-window rate limit, and a
// campaign already running that places calls while the run reads GET /calls. Every check must pass:
// a failure is either a real fault of this server or a false alarm of the runner. One seed, cheap.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../../src/runner/conformance.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import { checkById } from '../../../suites/index.js';
import {
  failedOf,
  loopbackServers,
  runnerOptions,
  SMALL_LIMIT,
  type LoopbackServer,
} from '../../helpers/loopback-runs.js';
import { expectCorrectRateLimit, expectCorrectRun } from '../../helpers/correct-runs.js';
// @ts-expect-error plain JavaScript module without type declarations
import { start as startRecords } from './records/server.mjs';

type Records = LoopbackServer & {
  fixtures: LoopbackServer['fixtures'] & { assistant_id: string; phone_number_id: string; running_campaign_id: string };
  dial(): void;
};
type Start = (o: { rateLimit?: number; rateWindowMs?: number; dialIntervalMs?: number }) => Promise<Records>;

const MICRO_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;

const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'content-encoding', 'keep-alive']);

/** A loopback proxy to `target` that runs `before` ahead of forwarding each request (to place a call at a chosen moment). */
async function proxy(target: string, before: (url: string) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    before(req.url ?? '/');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && !HOP.has(k)),
      ) as Record<string, string>;
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
      const out = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([k]) => !HOP.has(k))));
      res.end(out);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('the runner against the independent records implementation', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });
  const server = loopbackServers(startRecords as Start);
  const proxies: Server[] = [];
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((p) => new Promise((resolve) => p.close(resolve))));
  });

  it('keeps its own data rules: id families, +00:00 microsecond timestamps, stored normal forms, upserts, clamped pages', async () => {
    const s = await server();
    const f = s.fixtures;
    const headers = {
      authorization: `Bearer ${f.api_key}`,
      'x-user-id': f.user_id,
      'content-type': 'application/json',
    };
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${s.url}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: r.status, json: (await r.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const created = await call('POST', '/campaign', {
      name: 'Cafe\u0301 recall',
      assistant_id: f.assistant_id,
      phone_number_id: f.phone_number_id,
      channel: f.channels[0],
      scheduleStartTime: '2030-01-01T09:00:00Z',
    });
    expect(created.status).toBe(201);
    expect(created.json.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(created.json.name).toBe('Café recall');
    expect(created.json.schedule_start_time).toBe('2030-01-01T09:00:00.000000+00:00');
    expect(created.json.created_at).toMatch(MICRO_OFFSET);
    expect(created.json.campaign_context).toBeNull();
    expect(
      (await call('POST', '/campaign', { ...created.json, name: 'CAFÉ RECALL', scheduleStartTime: undefined })).status,
    ).toBe(409);
    expect((await call('PATCH', `/campaign/${created.json.id}`, { status: 'scheduled' })).status).toBe(200);
    const list = `/recipient-lists/${f.recipient_list_id}/recipients`;
    const added = await call('POST', list, { phone_number: '+1 (555) 010-0100' });
    expect([added.status, added.json.phone_number, added.json.id]).toEqual([
      201,
      '+15550100100',
      expect.stringMatching(/^\d+$/),
    ]);
    const again = await call('POST', list, { phone_number: '+15550100100', metadata: { a: 1 } });
    expect([again.status, again.json.id]).toEqual([200, added.json.id]);
    const invite = await call('POST', `/orgs/${f.org_id}/invites`, { email: 'Bob@Example.COM', role: 'developer' });
    expect([invite.status, invite.json.email]).toEqual([201, 'bob@example.com']);
    expect((await call('GET', '/calls?limit=500')).json).toHaveLength(100);
    expect((await call('GET', '/calls?limit=0')).json).toEqual([]);
    expect((await call('GET', '/calls?offset=100000')).json).toEqual([]);
    expect((await call('GET', '/campaign/not-a-ulid')).status).toBe(422);
  });

  it('all suites but ratelimit, destructive operations included: 0 failed, 0 error (seed 1)', async () => {
    const s = await server();
    await expectCorrectRun(s, spec);
  });

  it('the ratelimit suite (with schema) against a per-user sliding window, small limit: 0 failed', async () => {
    const s = await server(SMALL_LIMIT);
    await expectCorrectRateLimit(s, spec);
  });

  it('schema.calls-offset: a call placed by the running campaign while the pages are read is no failure of offset', async () => {
    const s = await server({ dialIntervalMs: 3_600_000 });
    // The dialer places the next call just before the offset=1 page is read, as it may at any moment.
    const p = await proxy(s.url, (url) => {
      if (url.startsWith('/calls') && /[?&]offset=1(&|$)/.test(url)) s.dial();
    });
    proxies.push(p.server);
    const options = runnerOptions({ ...s, url: p.url }, spec, {
      checks: [checkById('schema.calls-offset')],
      suites: ['schema'],
    });
    const { report } = await runConformance(options);
    expect(failedOf(report.results)).toEqual([]);
    // Nothing of offset was judged: skipped with the reason, not passed.
    expect(report.results.map((r) => [r.status, r.message])).toEqual([
      ['skipped', expect.stringMatching(/changed while it was read/)],
    ]);
  });
});
