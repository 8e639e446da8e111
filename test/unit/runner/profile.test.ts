/**
 * The contract's profile (suites/profile.ts) is what makes the generic runner fit this contract:
 * the fields discovery reads, and which pairs run last because they replace the credential.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { defineCheck, type CheckDefinition } from '../../../src/checks/check.js';
import { GENERIC_PROFILE } from '../../../src/checks/profile.js';
import { createCheckContext } from '../../../src/runner/context.js';
import { discoverFixtures } from '../../../src/runner/discovery.js';
import { planChecks } from '../../../src/runner/run.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import type { Exchange, HttpRequest, Transport } from '../../../src/transport/types.js';
import { profile } from '../../../suites/profile.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const pass = async () => ({ status: 'passed' as const, message: '' });
const on = (id: string, opId: string): CheckDefinition =>
  defineCheck({
    id,
    suite: 'stateful',
    rule: 'r',
    contractRef: '1',
    severity: 'minor',
    appliesTo: (op) => op.id === opId,
    run: pass,
  });

/** A transport answering each path with a canned JSON body (404 for the rest); records the paths sent. */
function canned(bodies: Record<string, unknown>): Transport & { sent: string[] } {
  const sent: string[] = [];
  return {
    baseUrl: 'http://fake',
    sent,
    async send(request: HttpRequest): Promise<Exchange> {
      sent.push(request.path);
      const body = bodies[request.path];
      const text = body === undefined ? '{"detail":"Not Found"}' : JSON.stringify(body);
      return {
        request: { method: request.method, url: `http://fake${request.path}`, headers: {} },
        response: {
          status: body === undefined ? 404 : 200,
          headers: {},
          text,
          json: JSON.parse(text),
          truncated: false,
        },
        durationMs: 1,
      };
    },
    async close() {},
  };
}

describe("the contract's profile", () => {
  it('runs the pair that replaces the credential last, whatever the registry order; the generic profile keeps registry order', () => {
    const ctx = { spec, fixtures: {} };
    const checks = [on('stateful.regen', 'regenerateApiKey'), on('stateful.invite', 'createInvite')];
    const order = (p: typeof profile) =>
      planChecks(checks, ctx, { includeDestructive: true, profile: p }).map((i) => i.check.id);
    expect(order(profile)).toEqual(['stateful.invite', 'stateful.regen']);
    expect(order(GENERIC_PROFILE)).toEqual(['stateful.regen', 'stateful.invite']);
    // Both are destructive by the spec's x-side-effects: skipped without the flag, naming why.
    const skips = planChecks(checks, ctx, { profile }).map((i) => i.skip);
    expect(skips.every((s) => s?.startsWith('destructive ('))).toBe(true);
  });

  it('discovery reads the assistant, organisation, channels and phone numbers from the read-only operations', async () => {
    const transport = canned({
      '/assistants': [{ id: 'a1' }, { id: 'a2', phone_number_id: 'p2' }],
      '/users/me': { orgs: [{ id: 'o1' }] },
      '/calls': [
        { provider: 'twilio', phone_number_id: 'p3', assistant_id: 'a3' },
        { provider: 'vonage', phone_number_id: 'p2' },
      ],
    });
    const ctx = createCheckContext({ spec, transport });
    const found = await discoverFixtures(ctx, profile, { org_id: 'configured' });
    expect(found.fixtures).toEqual({
      org_id: 'configured',
      assistant_id: 'a2',
      phone_number_id: 'p2',
      channels: ['twilio', 'vonage'],
      phone_numbers: [
        { id: 'p2', channel: 'vonage' },
        { id: 'p3', channel: 'twilio' },
      ],
    });
    expect(found.sources).toMatchObject({ org_id: 'config', assistant_id: 'discovered', channels: 'discovered' });
    expect(transport.sent).toHaveLength(3);
  });

  it('the generic profile discovers nothing and sends nothing, and keeps the configured fixtures', async () => {
    const transport = canned({});
    const found = await discoverFixtures(createCheckContext({ spec, transport }), GENERIC_PROFILE, { org_id: 'o' });
    expect(found.fixtures).toEqual({ org_id: 'o' });
    expect(transport.sent).toEqual([]);
  });
});
