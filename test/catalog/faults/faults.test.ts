/**
 * The faulty-server catalogue really breaks what it says: for each of the server's own faults, one
 * probe request whose answer differs between the reference server and the faulty one, with both
 * answers stated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpecModel } from '../../../src/spec/model.js';
import { referenceSpec, startReferenceServer, type ReferenceServer } from '../../../src/server/index.js';
import { authed, send } from '../../helpers/client.js';
import { faultByName, faults, serverFaults, startFaultyServer } from './index.js';
import { runnerFaults } from './runner-faults.js';
import { promiseFaults } from './promise-faults.js';

type Probe = (server: ReferenceServer) => Promise<unknown>;
interface Case {
  probe: Probe;
  reference: unknown;
  faulty: unknown;
}

const create = async (s: ReferenceServer, body: Record<string, unknown>) =>
  send(s.url, '/campaign', { method: 'POST', headers: authed(s.fixtures), json: { name: 'probe', ...body } });
const get = (s: ReferenceServer, path: string, headers: Record<string, string> = authed(s.fixtures)) =>
  send(s.url, path, { headers });
const createThenPatch = async (s: ReferenceServer, patch: Record<string, unknown>) => {
  const created = await create(s, { name: 'before' });
  return send(s.url, `/campaign/${created.json.id}`, { method: 'PATCH', headers: authed(s.fixtures), json: patch });
};
const burst = async (s: ReferenceServer, n: number) => {
  let last = await get(s, '/health', {});
  for (let i = 1; i < n; i++) last = await get(s, '/health', {});
  return last;
};
const preflight = (s: ReferenceServer) =>
  send(s.url, '/logs/chat-sessions', {
    method: 'OPTIONS',
    headers: {
      authorization: `Bearer ${s.fixtures.api_key}`,
      origin: 'https://app.example.invalid',
      'access-control-request-method': 'GET',
    },
  });

const CASES: Record<string, Case> = {
  'range-max-concurrency-above-max': {
    probe: async (s) => (await create(s, { max_concurrency: 201 })).status,
    reference: 422,
    faulty: 201,
  },
  'range-max-concurrency-below-min': {
    probe: async (s) => (await create(s, { max_concurrency: 0 })).status,
    reference: 422,
    faulty: 201,
  },
  'range-machine-detection-above-max': {
    probe: async (s) => (await create(s, { machine_detection_timeout_seconds: 61 })).status,
    reference: 422,
    faulty: 201,
  },
  'range-machine-detection-below-min': {
    probe: async (s) => (await create(s, { machine_detection_timeout_seconds: 2 })).status,
    reference: 422,
    faulty: 201,
  },
  'range-violation-400': {
    probe: async (s) => (await create(s, { max_concurrency: 201 })).status,
    reference: 422,
    faulty: 400,
  },
  'error-422-wrong-shape': {
    probe: async (s) => Array.isArray((await create(s, { max_concurrency: 201 })).json.detail),
    reference: true,
    faulty: false,
  },
  'error-422-loc-without-location': {
    probe: async (s) => (await create(s, { max_concurrency: 201 })).json.detail[0].loc,
    reference: ['body', 'max_concurrency'],
    faulty: ['max_concurrency'],
  },
  'malformed-json-500': {
    probe: async (s) =>
      (
        await send(s.url, '/campaign', {
          method: 'POST',
          headers: authed(s.fixtures, { 'content-type': 'application/json' }),
          body: '{"name": }',
        })
      ).status,
    reference: 422,
    faulty: 500,
  },
  'ratelimit-reset-missing': {
    probe: async (s) => typeof (await get(s, '/health', {})).headers['x-ratelimit-reset'],
    reference: 'string',
    faulty: 'undefined',
  },
  'ratelimit-limit-not-integer': {
    probe: async (s) => /^\d+$/.test((await get(s, '/health', {})).headers['x-ratelimit-limit'] ?? ''),
    reference: true,
    faulty: false,
  },
  'ratelimit-remaining-above-limit': {
    probe: async (s) => {
      const r = await get(s, '/health', {});
      return Number(r.headers['x-ratelimit-remaining']) <= Number(r.headers['x-ratelimit-limit']);
    },
    reference: true,
    faulty: false,
  },
  'ratelimit-never-429': { probe: async (s) => (await burst(s, 6)).status, reference: 429, faulty: 200 },
  'ratelimit-429-without-detail': {
    probe: async (s) => typeof (await burst(s, 6)).json.detail,
    reference: 'string',
    faulty: 'undefined',
  },
  'auth-skipped-list-calls': { probe: async (s) => (await get(s, '/calls', {})).status, reference: 401, faulty: 200 },
  'auth-user-id-ignored': {
    probe: async (s) =>
      (await get(s, '/calls', { authorization: `Bearer ${s.fixtures.api_key}`, 'x-user-id': 'someone-else' })).status,
    reference: 401,
    faulty: 200,
  },
  'regenerate-requires-user-id': {
    probe: async (s) =>
      (
        await send(s.url, `/api-keys/api-keys/${s.fixtures.api_key_id}/regenerate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.fixtures.api_key}` },
        })
      ).status,
    reference: 200,
    faulty: 401,
  },
  'error-401-without-detail': {
    probe: async (s) => typeof (await get(s, '/calls', {})).json.detail,
    reference: 'string',
    faulty: 'undefined',
  },
  'call-duration-string': {
    probe: async (s) => typeof (await get(s, '/calls?limit=1')).json[0].duration_seconds,
    reference: 'number',
    faulty: 'string',
  },
  'call-missing-to-number': {
    probe: async (s) => 'to_number' in (await get(s, '/calls?limit=1')).json[0],
    reference: true,
    faulty: false,
  },
  'calls-limit-not-applied': {
    probe: async (s) => (await get(s, '/calls?limit=5')).json.length,
    reference: 5,
    faulty: 120,
  },
  'calls-offset-not-applied': {
    probe: async (s) => (await get(s, '/calls?limit=1&offset=3')).json[0].id,
    reference: 'call_ref_0004',
    faulty: 'call_ref_0001',
  },
  'calls-provider-not-applied': {
    probe: async (s) =>
      (await get(s, '/calls?limit=500&provider=provider-b')).json.every(
        (c: { provider: string }) => c.provider === 'provider-b',
      ),
    reference: true,
    faulty: false,
  },
  'create-omits-campaign-context': {
    probe: async (s) => (await create(s, { campaign_context: 'ctx' })).json.campaign_context,
    reference: 'ctx',
    faulty: null,
  },
  'create-drops-camelcase-schedule': {
    probe: async (s) => (await create(s, { scheduleStartTime: '2030-01-01T09:00:00Z' })).json.schedule_start_time,
    reference: '2030-01-01T09:00:00Z',
    faulty: null,
  },
  'update-not-stored': {
    probe: async (s) => {
      const created = await create(s, { name: 'before' });
      await send(s.url, `/campaign/${created.json.id}`, {
        method: 'PATCH',
        headers: authed(s.fixtures),
        json: { name: 'after' },
      });
      return (await get(s, `/campaign/${created.json.id}`)).json.campaign.name;
    },
    reference: 'after',
    faulty: 'before',
  },
  'update-status-paused-rejected': {
    probe: async (s) => (await createThenPatch(s, { status: 'paused' })).status,
    reference: 200,
    faulty: 422,
  },
  'update-returns-full-record': {
    probe: async (s) => 'assistant_name' in (await createThenPatch(s, { name: 'x' })).json,
    reference: false,
    faulty: true,
  },
  'cors-preflight-no-allow-origin': {
    probe: async (s) => (await preflight(s)).headers['access-control-allow-origin'],
    reference: '*',
    faulty: undefined,
  },
  'unicode-body-500': {
    probe: async (s) => (await create(s, { name: 'Café ☕ 日本語 🚀' })).status,
    reference: 201,
    faulty: 500,
  },
  'response-invalid-json': {
    probe: async (s) => (await get(s, '/health', {})).json !== undefined,
    reference: true,
    faulty: false,
  },
  'response-wrong-content-type': {
    probe: async (s) => (await get(s, '/protected')).headers['content-type']?.startsWith('application/json'),
    reference: true,
    faulty: false,
  },
};

let spec: SpecModel;
beforeAll(async () => {
  spec = await referenceSpec();
});

describe('faulty catalogue', () => {
  it('names every fault once, merges the runner faults, and describes each in one line', () => {
    expect(new Set(faults.map((f) => f.name)).size).toBe(faults.length);
    expect(faults.length).toBe(serverFaults.length + runnerFaults.length + promiseFaults.length);
    for (const fault of faults) {
      expect(fault.name).toMatch(/^[a-z0-9_-]+$/);
      expect(fault.description.length).toBeGreaterThan(10);
      expect(fault.description).not.toContain('\n');
    }
  });

  it('has a probe for every server fault and no probe without a fault', () => {
    expect(Object.keys(CASES).sort()).toEqual(serverFaults.map((f) => f.name).sort());
  });

  it('refuses an unknown fault name', async () => {
    expect(() => faultByName('no-such-fault')).toThrow(/unknown fault/);
    await expect(startFaultyServer('no-such-fault')).rejects.toThrow(/unknown fault/);
  });

  describe.each(serverFaults.map((f) => [f.name, f] as const))('%s', (name, fault) => {
    const servers: ReferenceServer[] = [];
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.close()));
    });

    it(`changes behaviour: ${fault.description}`, async () => {
      const testCase = CASES[name]!;
      const reference = await startReferenceServer({ port: 0, spec, ...fault.options });
      servers.push(reference);
      const faulty = await startFaultyServer(name, { spec });
      servers.push(faulty);
      expect(await testCase.probe(reference)).toEqual(testCase.reference);
      expect(await testCase.probe(faulty)).toEqual(testCase.faulty);
    });
  });
});
