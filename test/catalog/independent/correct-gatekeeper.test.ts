// The runner against the independent "gatekeeper" implementation (test/catalog/independent/gatekeeper/,
// choices in its CHOICES.md): a correct multi-tenant server behind an auth gateway, with long
// checksummed API keys (`. - _ ~ + / =`), a case-insensitive Bearer scheme with any number of
// spaces, case-insensitive UUID and e-mail user ids, RFC 6750 401s with extra members, rate limits
// per key (401s counted per client address instead), a grace period for regenerated keys,
// credential-free CORS preflights with a strict header allow-list, and 404 for other tenants'
// records. Every check must pass: a failure is a fault of this server or a false alarm of the
// runner. One seed, cheap.
import { beforeAll, describe, expect, it } from 'vitest';
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
import { start as startGatekeeper } from './gatekeeper/server.mjs';

type Start = (o: {
  rateLimit?: number;
  rateWindowMs?: number;
  graceMs?: number;
  authFailureWindowMs?: number;
}) => Promise<LoopbackServer>;
// Failed authentications are throttled per client address (30 per 10 s by default): a short window
// here, so the auth suite's 401s wait for it a fraction of a second.
const THROTTLE = { authFailureWindowMs: 300 };
type Fixtures = LoopbackServer['fixtures'] & {
  spare_api_key: { id: string; key: string };
  member_org_id: string;
  other_user: { user_id: string; api_key: string; api_key_id: string; recipient_list_id: string };
};

describe('the runner against the independent gatekeeper implementation', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });
  const server = loopbackServers(startGatekeeper as Start);

  it('keeps its own identity rules: lenient Bearer, canonical user ids, tenants apart, read-only keys, a grace period', async () => {
    const s = await server({ graceMs: 60_000, ...THROTTLE });
    const f = s.fixtures as Fixtures;
    const get = (path: string, authorization: string, userId: string) =>
      fetch(`${s.url}${path}`, { headers: { authorization, 'x-user-id': userId } });
    expect(f.api_key).toMatch(/^[A-Za-z0-9._~+/-]+=+$/);
    expect((await get('/users/me', `bEaReR   ${f.api_key}`, f.user_id.toUpperCase())).status).toBe(200);
    expect((await get('/users/me', `Bearer\t${f.api_key}`, f.user_id)).status).toBe(401);
    // Another user's key with this user's id, and the other way round: 401.
    expect((await get('/users/me', `Bearer ${f.other_user.api_key}`, f.user_id)).status).toBe(401);
    const other = await get('/users/me', `Bearer ${f.other_user.api_key}`, f.other_user.user_id.toUpperCase());
    expect(other.status).toBe(200);
    const denied = await get('/nowhere', 'Bearer nope', f.user_id);
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toBe(
      'Bearer realm="api", error="invalid_token", error_description="The access token is invalid"',
    );
    const headers = {
      authorization: `Bearer ${f.api_key}`,
      'x-user-id': f.user_id,
      'content-type': 'application/json',
    };
    const post = (path: string, body: unknown) =>
      fetch(`${s.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    expect(
      (await post(`/recipient-lists/${f.other_user.recipient_list_id}/recipients`, { phone_number: '+1' })).status,
    ).toBe(404);
    const readOnly = { ...headers, authorization: `Bearer ${f.spare_api_key.key}` };
    expect((await fetch(`${s.url}/campaign`, { method: 'POST', headers: readOnly, body: '{}' })).status).toBe(403);
    expect((await post(`/orgs/${f.member_org_id}/invites`, { email: 'a@b.example', role: 'developer' })).status).toBe(
      403,
    );
    expect((await post(`/orgs/${f.org_id}/invites`, { email: ' New@B.example ', role: 'developer' })).status).toBe(201);
    expect((await post(`/orgs/${f.org_id}/invites`, { email: 'new@b.example', role: 'viewer' })).status).toBe(409);
    const regen = await fetch(`${s.url}/api-keys/api-keys/${f.api_key_id}/regenerate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${f.api_key}` },
    });
    const { key } = (await regen.json()) as { key: string };
    const old = await get('/users/me', `Bearer ${f.api_key}`, f.user_id);
    expect([old.status, old.headers.has('sunset')]).toEqual([200, true]);
    expect((await get('/users/me', `Bearer ${key}`, f.user_id)).status).toBe(200);
  });

  it('all suites but ratelimit, destructive operations included: 0 failed, 0 error (seed 1)', async () => {
    const s = await server(THROTTLE);
    await expectCorrectRun(s, spec);
  });

  it('the ratelimit suite (with schema), burst included, against a small limit and window: 0 failed', async () => {
    const s = await server({ ...SMALL_LIMIT, ...THROTTLE });
    await expectCorrectRateLimit(s, spec);
  });
});

describe('auth.protected-echoes-user-id against the gatekeeper, which canonicalises user ids', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });
  const server = loopbackServers(startGatekeeper as Start);

  // RFC 9562 4: UUIDs are case-insensitive on input; RFC 9110 5.5: the whitespace around a field
  // value is not part of it. The server echoes the user's canonical id, which is the id sent.
  it.each([
    ['an upper-case UUID', (f: Fixtures) => f.user_id.toUpperCase()],
    ['a UUID with spaces around it', (f: Fixtures) => ` ${f.user_id} `],
    ['an upper-case e-mail user id', (f: Fixtures) => f.other_user.user_id.toUpperCase()],
  ])('passes when the user id is configured as %s', async (_what, userId) => {
    const s = await server(THROTTLE);
    const f = s.fixtures as Fixtures;
    const email = userId(f).includes('@');
    const options = runnerOptions(s, spec, {
      suites: ['auth'],
      checks: [checkById('auth.protected-echoes-user-id')],
      credentials: { apiKey: email ? f.other_user.api_key : f.api_key, userId: userId(f) },
    });
    const { report } = await runConformance(options);
    expect(failedOf(report.results)).toEqual([]);
    expect(report.results.find((r) => r.id === 'auth.protected-echoes-user-id')?.status).toBe('passed');
  });
});
