/**
 * The reference server keeps the contract: auth, validation (FastAPI-shaped 422s), ranges read from
 * the spec, GET /calls paging and filter, campaigns, recipients, invites, key rotation, rate limit,
 * CORS preflights, and a JSON answer to every malformed request.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operation, SpecModel } from '../../../src/spec/model.js';
import {
  SEEDED_CALLS,
  jsonErrorPosition,
  propertyNames,
  referenceSpec,
  startReferenceServer,
  type ReferenceServer,
} from '../../../src/server/index.js';
import { authed, send } from '../../helpers/client.js';

let spec: SpecModel;
let server: ReferenceServer;
const started: ReferenceServer[] = [];

async function start(options: Parameters<typeof startReferenceServer>[0] = {}): Promise<ReferenceServer> {
  const s = await startReferenceServer({ port: 0, spec, rateLimit: 100_000, ...options });
  started.push(s);
  return s;
}

beforeAll(async () => {
  spec = await referenceSpec();
  server = await start({ apiKey: 'test-key-1', userId: 'user-42' });
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

/** A concrete path for an operation: path parameters filled from the fixtures. */
function pathOf(op: Operation, s: ReferenceServer, campaignId = 'cmp_unknown'): string {
  const values: Record<string, string> = {
    campaign_id: campaignId,
    recipient_list_id: s.fixtures.recipient_list_id,
    org_id: s.fixtures.org_id,
    key_id: s.fixtures.api_key_id,
    credential_id: 'cred_1',
    session_id: 'sess_1',
  };
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? 'x'));
}

/** A body every operation with a request body accepts. */
const validBody: Record<string, unknown> = {
  createCampaign: { name: 'Spring reminders' },
  updateCampaign: { name: 'Renamed' },
  addRecipient: { phone_number: '+15550123456', metadata: { first_name: 'Ada' } },
  createInvite: { email: 'new@example.invalid', role: 'developer' },
};

describe('startReferenceServer', () => {
  it('listens on a free loopback port and names its fixtures', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.fixtures).toEqual({
      api_key: 'test-key-1',
      user_id: 'user-42',
      org_id: expect.any(String),
      recipient_list_id: expect.any(String),
      api_key_id: expect.any(String),
      channels: ['provider-a', 'provider-b'],
    });
  });

  it('uses the configured provider identifiers in calls', async () => {
    const s = await start({ channels: ['carrier-x', 'carrier-y'] });
    const calls = (await send(s.url, '/calls?limit=500', { headers: authed(s.fixtures) })).json as Array<{
      provider: string;
    }>;
    expect(new Set(calls.map((c) => c.provider))).toEqual(new Set(['carrier-x', 'carrier-y']));
  });

  it('generates an unguessable key when none is given', async () => {
    const a = await start();
    const b = await start();
    expect(a.fixtures.api_key).toMatch(/^vapc_ref_[\w-]{20,}$/);
    expect(a.fixtures.api_key).not.toBe(b.fixtures.api_key);
  });
});

describe('authentication', () => {
  it('answers health without credentials', async () => {
    const r = await send(server.url, '/health');
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('ok');
  });

  it('refuses every operation that needs credentials when they are missing, with 401 {detail}', async () => {
    const guarded = spec.operations.filter((o) => o.requiresCredentials);
    expect(guarded.length).toBe(spec.operations.length - 1);
    for (const op of guarded) {
      const r = await send(server.url, pathOf(op, server), {
        method: op.method,
        ...(validBody[op.id] ? { json: validBody[op.id] } : {}),
      });
      expect(r.status, `${op.method} ${op.path}`).toBe(401);
      expect(r.json).toEqual({
        detail: expect.stringMatching(
          /^Invalid authentication credentials: send both the Authorization header \(Bearer <API key>\) and the X-User-ID header/,
        ),
      });
    }
  });

  it('refuses a wrong bearer, a wrong scheme and a wrong user id', async () => {
    const wrong = [
      { authorization: 'Bearer not-the-key', 'x-user-id': 'user-42' },
      { authorization: 'Basic test-key-1', 'x-user-id': 'user-42' },
      { authorization: 'test-key-1', 'x-user-id': 'user-42' },
      { authorization: 'Bearer test-key-1', 'x-user-id': 'user-43' },
      { authorization: 'Bearer test-key-1' } as Record<string, string>,
      { authorization: 'Bearer ', 'x-user-id': 'user-42' },
    ];
    for (const headers of wrong) {
      const r = await send(server.url, '/calls', { headers });
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(typeof r.json.detail).toBe('string');
    }
  });

  it('accepts the bearer scheme in any letter case', async () => {
    const r = await send(server.url, '/protected', {
      headers: { authorization: 'bearer test-key-1', 'x-user-id': 'user-42' },
    });
    expect(r.status).toBe(200);
  });

  it('serves the bearer-only operations with the bearer alone', async () => {
    const bearerOnly = spec.operations.filter((o) => o.requiresCredentials && !o.credentials.includes('userId'));
    expect(bearerOnly.map((o) => o.id).sort()).toEqual([
      'preflightChatLogs',
      'preflightChatSessions',
      'preflightUserCredential',
      'regenerateApiKey',
    ]);
    const s = await start({ apiKey: 'bearer-only-key' });
    for (const op of bearerOnly.filter((o) => o.id !== 'regenerateApiKey')) {
      const r = await send(s.url, pathOf(op, s), {
        method: op.method,
        headers: { authorization: 'Bearer bearer-only-key' },
      });
      expect(r.status, op.id).toBe(204);
    }
    const r = await send(s.url, pathOf(spec.operation('regenerateApiKey'), s), {
      method: 'POST',
      headers: { authorization: 'Bearer bearer-only-key' },
    });
    expect(r.status).toBe(200);
  });

  it('checks credentials before validating (401 before 422)', async () => {
    const r = await send(server.url, '/campaign', { method: 'POST', json: { max_concurrency: 'many' } });
    expect(r.status).toBe(401);
    const malformed = await send(server.url, '/campaign', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(malformed.status).toBe(401);
  });

  it('GET /protected echoes the user id', async () => {
    const r = await send(server.url, '/protected', { headers: authed(server.fixtures) });
    expect(r.status).toBe(200);
    expect(r.json.user_id).toBe('user-42');
    expect(r.json.message).toContain('user-42');
  });
});

describe('GET /calls', () => {
  const calls = async (query = '') => send(server.url, `/calls${query}`, { headers: authed(server.fixtures) });

  it('returns the default page of 50 fully populated calls', async () => {
    const r = await calls();
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(50);
    const fields = propertyNames(spec.schema('Call'));
    for (const call of r.json) for (const field of fields) expect(call[field], field).not.toBeNull();
  });

  it('honours limit and offset', async () => {
    const all = (await calls('?limit=1000')).json as Array<{ id: string }>;
    expect(all).toHaveLength(SEEDED_CALLS);
    const page = (await calls('?limit=7&offset=10')).json as Array<{ id: string }>;
    expect(page.map((c) => c.id)).toEqual(all.slice(10, 17).map((c) => c.id));
    expect((await calls('?limit=0')).json).toEqual([]);
    expect((await calls(`?offset=${SEEDED_CALLS - 3}`)).json).toHaveLength(3);
  });

  it('filters by provider, and both providers have calls', async () => {
    const [a, b] = server.fixtures.channels;
    const onA = (await calls(`?provider=${a}&limit=1000`)).json as Array<{ provider: string }>;
    const onB = (await calls(`?provider=${b}&limit=1000`)).json as Array<{ provider: string }>;
    expect(onA.length).toBeGreaterThan(0);
    expect(onB.length).toBeGreaterThan(0);
    expect(onA.every((c) => c.provider === a)).toBe(true);
    expect(onB.every((c) => c.provider === b)).toBe(true);
    expect(onA.length + onB.length).toBe(SEEDED_CALLS);
    expect((await calls('?provider=no-such-provider')).json).toEqual([]);
  });

  it('rejects non-integer limit and offset with 422 naming the parameter', async () => {
    for (const [query, name] of [
      ['?limit=abc', 'limit'],
      ['?limit=5.5', 'limit'],
      ['?offset=x', 'offset'],
    ] as const) {
      const r = await calls(query);
      expect(r.status, query).toBe(422);
      expect(r.json.detail[0].loc).toEqual(['query', name]);
      expect(typeof r.json.detail[0].msg).toBe('string');
      expect(typeof r.json.detail[0].type).toBe('string');
    }
  });
});

describe('campaigns', () => {
  const full = (s: ReferenceServer) => ({
    name: 'Spring reminders',
    assistant_id: 'asst_ref_001',
    phone_number_id: 'pn_ref_001',
    channel: s.fixtures.channels[0],
    scheduleStartTime: '2030-03-01T09:00:00Z',
    scheduleEndTime: '2030-03-01T17:00:00Z',
    max_concurrency: 10,
    retry_policy: { max_attempts: 3, backoff_seconds: 600 },
    speech_settings: { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' },
    campaign_context: 'Remind patients of their appointment.',
    opening_message_template: 'Hello {{first_name}}',
    use_returning_greeting: true,
    use_short_term_summaries: false,
    short_term_summaries_limit: 3,
    machine_detection_timeout_seconds: 30,
    recipient_list_id: s.fixtures.recipient_list_id,
    recipients: [
      {
        phone_number: '+15550123400',
        metadata: { first_name: 'Ada' },
        assistant_overrides: { first_message: 'Hi Ada' },
      },
    ],
  });

  it('creates with 201 and returns the full record: echoed fields, snake_case schedule, server-managed status', async () => {
    const body = full(server);
    const r = await send(server.url, '/campaign', { method: 'POST', headers: authed(server.fixtures), json: body });
    expect(r.status).toBe(201);
    const record = r.json;
    expect(Object.keys(record).sort()).toEqual(propertyNames(spec.schema('Campaign')).sort());
    for (const [field, value] of Object.entries(body)) {
      if (field === 'recipients') continue;
      const key = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      expect(record[key], field).toEqual(value);
    }
    expect(record.status).toBe('draft');
    expect(record.assistant_name).toBe('Appointment reminder');
    expect(record.caller_id_number).toBe('+15550100001');
    expect(record.recipient_list_name).toEqual(expect.any(String));
    expect(record.recipient_list_row_count).toBeGreaterThan(0);
    expect(new Date(record.created_at).toISOString()).toBe(record.created_at);
  });

  it('ignores a status sent on create: status stays server-managed', async () => {
    const r = await send(server.url, '/campaign', {
      method: 'POST',
      headers: authed(server.fixtures),
      json: { name: 'x', status: 'running' },
    });
    expect(r.status).toBe(201);
    expect(r.json.status).toBe('draft');
  });

  it('GET returns {campaign, counts, calls}; PATCH persists and returns the update-shaped record', async () => {
    const created = (
      await send(server.url, '/campaign', { method: 'POST', headers: authed(server.fixtures), json: full(server) })
    ).json;
    const got = await send(server.url, `/campaign/${created.id}`, { headers: authed(server.fixtures) });
    expect(got.status).toBe(200);
    expect(got.json.campaign).toEqual(created);
    expect(got.json.counts).toEqual(expect.any(Object));
    expect(got.json.calls).toEqual([]);

    const patch = {
      name: 'Renamed',
      max_concurrency: 200,
      schedule_start_time: '2031-01-01T00:00:00Z',
      status: 'paused',
      use_returning_greeting: false,
    };
    const updated = await send(server.url, `/campaign/${created.id}`, {
      method: 'PATCH',
      headers: authed(server.fixtures),
      json: patch,
    });
    expect(updated.status).toBe(200);
    const omitted = propertyNames(spec.schema('Campaign')).filter(
      (f) => !propertyNames(spec.schema('CampaignUpdated')).includes(f),
    );
    expect(omitted.sort()).toEqual([
      'assistant_name',
      'counts',
      'machine_detection_timeout_seconds',
      'recipient_list_id',
      'recipient_list_name',
      'recipient_list_row_count',
    ]);
    for (const field of omitted) expect(updated.json, field).not.toHaveProperty(field);
    expect(updated.json).toMatchObject(patch);

    const after = (await send(server.url, `/campaign/${created.id}`, { headers: authed(server.fixtures) })).json
      .campaign;
    expect(after).toMatchObject(patch);
    expect(after.machine_detection_timeout_seconds).toBe(30);
  });

  it('accepts every status value of the update enum', async () => {
    const created = (
      await send(server.url, '/campaign', { method: 'POST', headers: authed(server.fixtures), json: { name: 'x' } })
    ).json;
    const schema = spec.schema('CampaignUpdate') as { properties: { status: { enum: string[] } } };
    for (const status of schema.properties.status.enum) {
      const r = await send(server.url, `/campaign/${created.id}`, {
        method: 'PATCH',
        headers: authed(server.fixtures),
        json: { status },
      });
      expect(r.status, status).toBe(200);
      expect(r.json.status).toBe(status);
    }
    const bad = await send(server.url, `/campaign/${created.id}`, {
      method: 'PATCH',
      headers: authed(server.fixtures),
      json: { status: 'archived' },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0]).toMatchObject({ loc: ['body', 'status'], type: 'enum' });
  });

  it('answers 404 {detail} for an unknown campaign id', async () => {
    for (const method of ['GET', 'PATCH'] as const) {
      const r = await send(server.url, '/campaign/cmp_nope', {
        method,
        headers: authed(server.fixtures),
        ...(method === 'PATCH' ? { json: { name: 'x' } } : {}),
      });
      expect(r.status).toBe(404);
      expect(typeof r.json.detail).toBe('string');
    }
  });

  describe('every numeric bound of the spec', () => {
    it('accepts min and max and rejects min-1 and max+1 with 422 naming the field', async () => {
      const created = (
        await send(server.url, '/campaign', { method: 'POST', headers: authed(server.fixtures), json: { name: 'x' } })
      ).json;
      const bounds = spec.bounds();
      expect(bounds.length).toBeGreaterThanOrEqual(3);
      for (const bound of bounds) {
        const op = spec.operation(bound.operationId);
        const path = pathOf(op, server, created.id);
        const field = bound.pointer.slice(1);
        const tries: Array<[number, boolean]> = [];
        if (bound.minimum !== undefined) tries.push([bound.minimum - 1, false], [bound.minimum, true]);
        if (bound.maximum !== undefined) tries.push([bound.maximum, true], [bound.maximum + 1, false]);
        for (const [value, ok] of tries) {
          const r = await send(server.url, path, {
            method: op.method,
            headers: authed(server.fixtures),
            json: { [field]: value },
          });
          const where = `${bound.operationId} ${field}=${value}`;
          if (ok) expect(r.status, where).toBeLessThan(300);
          else {
            expect(r.status, where).toBe(422);
            expect(r.json.detail[0].loc, where).toEqual(['body', field]);
          }
        }
      }
    });
  });

  it('rejects wrong JSON types field by field with loc naming the field (nested too)', async () => {
    const cases: Array<[Record<string, unknown>, Array<string | number>]> = [
      [{ name: 5 }, ['body', 'name']],
      [{ max_concurrency: 'ten' }, ['body', 'max_concurrency']],
      [{ max_concurrency: 5.5 }, ['body', 'max_concurrency']],
      [{ use_returning_greeting: 'yes' }, ['body', 'use_returning_greeting']],
      [{ speech_settings: { style: 1 } }, ['body', 'speech_settings', 'style']],
      [{ recipients: [{ phone_number: '+1' }, { phone_number: 7 }] }, ['body', 'recipients', 1, 'phone_number']],
    ];
    for (const [body, loc] of cases) {
      const r = await send(server.url, '/campaign', { method: 'POST', headers: authed(server.fixtures), json: body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.json.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    }
  });
});

describe('recipients, invites, key regeneration', () => {
  it('adds a recipient to the list and the campaign row count follows', async () => {
    const s = await start();
    const before = (
      await send(s.url, '/campaign', {
        method: 'POST',
        headers: authed(s.fixtures),
        json: { name: 'x', recipient_list_id: s.fixtures.recipient_list_id },
      })
    ).json;
    const r = await send(s.url, `/recipient-lists/${s.fixtures.recipient_list_id}/recipients`, {
      method: 'POST',
      headers: authed(s.fixtures),
      json: { phone_number: '+15550123499', metadata: { tier: 'gold' } },
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ phone_number: '+15550123499', metadata: { tier: 'gold' } });
    const after = (await send(s.url, `/campaign/${before.id}`, { headers: authed(s.fixtures) })).json.campaign;
    expect(after.recipient_list_row_count).toBe(before.recipient_list_row_count + 1);
    const unknown = await send(s.url, '/recipient-lists/rl_nope/recipients', {
      method: 'POST',
      headers: authed(s.fixtures),
      json: { phone_number: '+1' },
    });
    expect(unknown.status).toBe(404);
  });

  it('creates an invite with its token; unknown org → 404', async () => {
    const r = await send(server.url, `/orgs/${server.fixtures.org_id}/invites`, {
      method: 'POST',
      headers: authed(server.fixtures),
      json: { email: 'a@example.invalid', role: 'developer' },
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      email: 'a@example.invalid',
      role: 'developer',
      token: expect.any(String),
      id: expect.any(String),
    });
    expect(Date.parse(r.json.expires_at)).toBeGreaterThan(Date.now());
    const unknown = await send(server.url, '/orgs/org_nope/invites', {
      method: 'POST',
      headers: authed(server.fixtures),
      json: { email: 'a@example.invalid' },
    });
    expect(unknown.status).toBe(404);
  });

  it('regeneration rotates the key: the old key then gets 401, the new one works', async () => {
    const s = await start({ apiKey: 'old-key' });
    const path = `/api-keys/api-keys/${s.fixtures.api_key_id}/regenerate`;
    const r = await send(s.url, path, { method: 'POST', headers: { authorization: 'Bearer old-key' } });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ id: s.fixtures.api_key_id, key: expect.any(String), upgraded: false });
    expect(r.json.key).not.toBe('old-key');
    expect(
      (
        await send(s.url, '/protected', {
          headers: { authorization: 'Bearer old-key', 'x-user-id': s.fixtures.user_id },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await send(s.url, '/protected', {
          headers: { authorization: `Bearer ${r.json.key}`, 'x-user-id': s.fixtures.user_id },
        })
      ).status,
    ).toBe(200);
    expect(s.fixtures.api_key).toBe(r.json.key);
    const unknown = await send(s.url, '/api-keys/api-keys/key_nope/regenerate', {
      method: 'POST',
      headers: { authorization: `Bearer ${r.json.key}` },
    });
    expect(unknown.status).toBe(404);
  });

  it('GET /users/me and GET /assistants return the seeded user, orgs and assistants', async () => {
    const me = (await send(server.url, '/users/me', { headers: authed(server.fixtures) })).json;
    expect(me.user.id).toBe('user-42');
    expect(me.orgs.map((o: { id: string }) => o.id)).toContain(server.fixtures.org_id);
    expect(me.default_org_id).toBe(server.fixtures.org_id);
    const assistants = (await send(server.url, '/assistants', { headers: authed(server.fixtures) })).json;
    const fields = propertyNames(spec.schema('Assistant'));
    for (const a of assistants) for (const f of fields) expect(a[f], f).not.toBeNull();
  });
});

describe('rate limit', () => {
  it('counts down integer headers per key, then answers 429 {detail} with the headers', async () => {
    const s = await start({ rateLimit: 5, rateWindowMs: 60_000 });
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await send(s.url, '/protected', { headers: authed(s.fixtures) });
      expect(r.status).toBe(200);
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
        expect(r.headers[h], h).toMatch(/^\d+$/);
      expect(Number(r.headers['x-ratelimit-limit'])).toBe(5);
      expect(Number(r.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
      remaining.push(Number(r.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const over = await send(s.url, '/protected', { headers: authed(s.fixtures) });
    expect(over.status).toBe(429);
    expect(over.json.detail).toMatch(/Rate limit exceeded/);
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    expect(over.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    // Requests without a valid key count in the client address's bucket, not the key's.
    const anonymous = await send(s.url, '/health');
    expect(anonymous.status).toBe(200);
  });

  it('defaults to the development plan: 100 per minute', async () => {
    const s = await startReferenceServer({ port: 0, spec });
    started.push(s);
    const r = await send(s.url, '/health');
    expect(r.headers['x-ratelimit-limit']).toBe('100');
    expect(Number(r.headers['x-ratelimit-reset'])).toBeGreaterThan(55);
  });

  it('opens a new window after the configured one', async () => {
    // A window long enough that three requests fit in it on a loaded machine.
    const s = await start({ rateLimit: 2, rateWindowMs: 1500 });
    await send(s.url, '/health');
    await send(s.url, '/health');
    expect((await send(s.url, '/health')).status).toBe(429);
    await new Promise((r) => setTimeout(r, 1650));
    expect((await send(s.url, '/health')).status).toBe(200);
  });
});

describe('CORS preflights', () => {
  const preflights = () => spec.operations.filter((o) => o.method === 'OPTIONS');

  it('answers the three documented preflights, sent with the bearer, with the headers a browser needs', async () => {
    expect(preflights()).toHaveLength(3);
    for (const op of preflights()) {
      const r = await send(server.url, pathOf(op, server), {
        method: 'OPTIONS',
        headers: {
          authorization: 'Bearer test-key-1',
          origin: 'https://app.example.invalid',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization,x-user-id',
        },
      });
      expect(r.status, op.path).toBe(204);
      expect(r.headers['access-control-allow-origin']).toBe('*');
      expect(r.headers['access-control-allow-methods']).toContain('GET');
      expect(r.headers['access-control-allow-headers']?.toLowerCase()).toContain('authorization');
      expect(r.headers['access-control-allow-headers']?.toLowerCase()).toContain('x-user-id');
      expect(r.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    }
  });

  it('follows the documented security: a preflight without the bearer gets 401', async () => {
    for (const op of preflights()) {
      const r = await send(server.url, pathOf(op, server), {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.invalid', 'access-control-request-method': 'GET' },
      });
      expect(r.status, op.path).toBe(401);
      expect(r.headers['access-control-allow-origin']).toBe('*');
    }
  });

  it('puts Access-Control-Allow-Origin and the exposed rate-limit headers on ordinary responses', async () => {
    const r = await send(server.url, '/calls?limit=1', {
      headers: authed(server.fixtures, { origin: 'https://app.example.invalid' }),
    });
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
  });
});

describe('malformed requests get a JSON error, never a crash', () => {
  const post = (body: string, contentType = 'application/json') =>
    send(server.url, '/campaign', {
      method: 'POST',
      headers: authed(server.fixtures, { 'content-type': contentType }),
      body,
    });

  it('malformed JSON → 422 json_invalid with the position in loc', async () => {
    for (const [text, position] of [
      ['{"name": }', 9],
      ['{"name": "x"', 12],
      ['[1,2,,]', 5],
      ['nul', 3],
      ['{"a":1} x', 8],
    ] as const) {
      const r = await post(text);
      expect(r.status, text).toBe(422);
      expect(r.json.detail).toEqual([{ loc: ['body', position], msg: 'JSON decode error', type: 'json_invalid' }]);
    }
  });

  it('a body that is not JSON, or not an object → 422 on body', async () => {
    const textPlain = await post('name=x', 'text/plain');
    expect(textPlain.status).toBe(422);
    expect(textPlain.json.detail[0].loc).toEqual(['body']);
    const form = await post('name=x', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(422);
    for (const text of ['[]', '"x"', '42', 'null']) {
      const r = await post(text);
      expect(r.status, text).toBe(422);
      expect(r.json.detail[0].loc[0]).toBe('body');
    }
    const missing = await send(server.url, '/campaign', { method: 'POST', headers: authed(server.fixtures) });
    expect(missing.status).toBe(422);
    expect(missing.json.detail[0]).toMatchObject({ loc: ['body'], type: 'missing' });
  });

  it('accepts application/json with a charset, vendor +json types, and a body without content type', async () => {
    expect((await post('{"name":"x"}', 'application/json; charset=utf-8')).status).toBe(201);
    expect((await post('{"name":"x"}', 'application/vnd.api+json')).status).toBe(201);
    const bare = await send(server.url, '/campaign', {
      method: 'POST',
      headers: authed(server.fixtures),
      body: '{"name":"no content type"}',
    });
    expect(bare.status).toBe(201);
    expect(bare.json.name).toBe('no content type');
  });

  it('a body over 1 MiB → 413 {detail}', async () => {
    const r = await post(JSON.stringify({ name: 'x'.repeat(1024 * 1024) }));
    expect(r.status).toBe(413);
    expect(typeof r.json.detail).toBe('string');
  });

  it('unknown routes → 404 {detail}; undocumented methods → 405 {detail} with Allow', async () => {
    const unknown = await send(server.url, '/no/such/route', { headers: authed(server.fixtures) });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ detail: 'Not Found' });
    const wrongMethod = await send(server.url, '/calls', { method: 'DELETE', headers: authed(server.fixtures) });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers['allow']).toBe('GET');
    expect(typeof wrongMethod.json.detail).toBe('string');
  });

  it('a badly encoded path → 400 {detail}', async () => {
    const r = await send(server.url, '/campaign/%E0%A4%A', { headers: authed(server.fixtures) });
    expect(r.status).toBe(400);
    expect(typeof r.json.detail).toBe('string');
  });

  it('unicode, deep nesting and __proto__ keys are data, not a crash', async () => {
    const unicode = await post(JSON.stringify({ name: 'Café ☕ 日本語 🚀 \u0000 \u202e' }));
    expect(unicode.status).toBe(201);
    expect(unicode.json.name).toBe('Café ☕ 日本語 🚀 \u0000 \u202e');
    for (const depth of [5_000, 150_000]) {
      const text = `{"phone_number":"+1","metadata":${'{"d":'.repeat(depth)}{}${'}'.repeat(depth)}}`;
      const nested = await send(server.url, `/recipient-lists/${server.fixtures.recipient_list_id}/recipients`, {
        method: 'POST',
        headers: authed(server.fixtures, { 'content-type': 'application/json' }),
        body: text,
      });
      expect(nested.status, `depth ${depth}`).toBe(422);
      expect(nested.json.detail[0].loc[0]).toBe('body');
    }
    const proto = await post('{"name":"p","__proto__":{"polluted":true},"retry_policy":{"__proto__":{"x":1}}}');
    expect(proto.status).toBe(201);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('long strings and long path parameters are answered', async () => {
    const long = await post(JSON.stringify({ name: 'n'.repeat(200_000) }));
    expect(long.status).toBe(201);
    const r = await send(server.url, `/campaign/${'c'.repeat(5000)}`, { headers: authed(server.fixtures) });
    expect(r.status).toBe(404);
    expect(typeof r.json.detail).toBe('string');
  });
});

describe('jsonErrorPosition', () => {
  it('agrees with JSON.parse on where a cut document ends (property, fixed seed)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, cut) => {
        const text = JSON.stringify(value);
        const k = cut % (text.length + 1);
        const prefix = text.slice(0, k);
        let parses = true;
        try {
          JSON.parse(prefix);
        } catch {
          parses = false;
        }
        // A prefix of a JSON text fails, if at all, only at its end.
        if (!parses) expect(jsonErrorPosition(prefix)).toBe(prefix.length);
      }),
      { seed: 4010, numRuns: 300 },
    );
  });

  it('points at the first character that breaks the grammar', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('}', ']', ':', ',', 'x', '"'), (value, junk) => {
        const text = JSON.stringify(value);
        // Appending junk after a complete document breaks it exactly there.
        expect(jsonErrorPosition(`${text}${junk}`)).toBe(text.length);
      }),
      { seed: 4010, numRuns: 200 },
    );
    expect(jsonErrorPosition('{"a" 1}')).toBe(5);
    expect(jsonErrorPosition('{"a":"\\q"}')).toBe(6);
    expect(jsonErrorPosition('[01]')).toBe(2);
  });
});
