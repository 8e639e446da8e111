/**
 * The stateful suite's other records: a recipient added to a list, and with --include-destructive
 * an invite created and the API key regenerated, then used (sections 2.5, 2.7, 4.5, 4.6, 4.9).
 */
import { defineCheck, type CheckContext } from '../../src/checks/check.js';
import { refusalOf } from '../lib/requests.js';
import { FAILURE_KINDS as KIND } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import { validate } from '../../src/validators/index.js';
import {
  isCredentialedRead,
  Findings,
  fail,
  isSuccess,
  judgeResponse,
  label,
  request,
  sampleBody,
  skipped,
  successSchema,
} from '../lib.js';
import { echoJudge } from './echo.js';
import { byId, refused } from './records.js';

export const addRecipient = defineCheck({
  id: 'stateful.add-recipient',
  suite: 'stateful',
  rule: 'POST /recipient-lists/{id}/recipients with a valid recipient is accepted and answered with a JSON object',
  contractRef: '4.5',
  severity: 'major',
  expects: 'success',
  appliesTo: byId('addRecipient'),
  needs: ['recipient_list_id'],
  plannedRequests: () => 1,
  async run(ctx, op) {
    const body = sampleBody(ctx, op, 61) ?? {};
    const exchange = await ctx.send(request(op, ctx, { json: body }));
    const findings = new Findings();
    const res = exchange.response;
    if (!res || !isSuccess(res.status)) findings.add(refused(ctx, op, exchange, 'a valid recipient'));
    else findings.add(judgeResponse(ctx, op, exchange, { what: 'the added recipient' }));
    return findings.outcome('a recipient can be added');
  },
});

export const createInvite = defineCheck({
  id: 'stateful.create-invite',
  suite: 'stateful',
  rule: 'POST /orgs/{org_id}/invites returns the invite shape, with email and role as sent where present (no member of 2.5 is marked required); the token is never reported',
  contractRef: '4.6, 2.5',
  severity: 'major',
  expects: 'success',
  destructive: true,
  appliesTo: byId('createInvite'),
  needs: ['org_id'],
  plannedRequests: () => 1,
  async run(ctx, op) {
    const body = sampleBody(ctx, op, 67) ?? {};
    const exchange = await ctx.send(request(op, ctx, { json: body }));
    const findings = new Findings();
    const res = exchange.response;
    if (!res || !isSuccess(res.status)) {
      if (res?.status === 422) {
        ctx.observe({
          operation: label(op),
          message: `a valid invite was refused with 422; the contract does not give the roles or email rules beyond "developer"`,
        });
        return skipped('the server refused the invite (observed)', refusalOf(exchange));
      }
      findings.add(refused(ctx, op, exchange, 'a valid invite'));
      return findings.outcome('');
    }
    findings.add(judgeResponse(ctx, op, exchange, { what: 'the created invite' }));
    for (const j of echoJudge(ctx, op, exchange, body, res.json, successSchema(op), 'the created invite'))
      findings.add(j);
    return findings.outcome('the invite is created');
  },
});

export const regenerateKey = defineCheck({
  id: 'stateful.regenerate-key',
  suite: 'stateful',
  rule: 'POST /api-keys/api-keys/{key_id}/regenerate with the bearer only returns {key, id, name, upgraded} whose key is new (not the one in use); the new key then works (the run carries on with it)',
  contractRef: '4.9, 2.7, 5.4',
  severity: 'major',
  expects: 'success',
  destructive: true,
  appliesTo: byId('regenerateApiKey'),
  needs: ['api_key_id'],
  // The regeneration, a probe with the new key and, when that is refused, one with the key before it.
  plannedRequests: () => 3,
  async run(ctx, op) {
    const exchange = await ctx.send(request(op, ctx));
    const findings = new Findings();
    const res = exchange.response;
    if (!res || !isSuccess(res.status)) {
      findings.add(refused(ctx, op, exchange, 'regenerating the key with the bearer only'));
      return findings.outcome('');
    }
    const key = (res.json as { key?: unknown } | undefined)?.key;
    const previous = ctx.credentials.apiKey;
    if (typeof key === 'string' && key) ctx.rotateApiKey(key);
    if (typeof key === 'string' && key !== '' && key === previous) {
      findings.add(
        fail(
          ctx,
          exchange,
          'a new key in `key` (section 2.7: "the new secret key value")',
          'the key in use, unchanged',
          'the regeneration returned the key already in use',
          undefined,
          { kind: KIND.mismatch, field: { location: 'response', pointer: '/key', status: String(res.status) } },
        ),
      );
    }
    findings.add(judgeResponse(ctx, op, exchange, { what: 'the regeneration result' }));
    const shape = validate('ApiKeyRegenerated', res.json);
    if (!shape.ok || typeof key !== 'string' || !key) {
      findings.add(
        fail(
          ctx,
          exchange,
          'the new key in `key` (section 2.7)',
          'no key returned',
          'the regeneration returned no key',
          undefined,
          { kind: KIND.schema, field: { location: 'response', pointer: '/key', status: String(res.status) } },
        ),
      );
      return findings.outcome('');
    }
    // The new key must work: a read-only operation that needs the bearer.
    const probe = ctx.spec.operations.find(isCredentialedRead);
    if (probe) {
      const after = await ctx.send(request(probe, ctx));
      if (after.response && after.response.status !== 429 && !isSuccess(after.response.status)) {
        findings.add(
          fail(
            ctx,
            after,
            `${label(probe)} served with the regenerated key`,
            `status ${after.response.status}`,
            `the regenerated key does not work (${after.response.status} on ${label(probe)})`,
            undefined,
            { kind: KIND.status },
          ),
        );
        await carryOnWithAWorkingKey(ctx, op, probe, previous, after.response.status);
      }
    }
    return findings.outcome('the key is regenerated and the new one works');
  },
});

/**
 * After a regenerated key that does not work, the rest of the run needs a key that does: the one
 * before the regeneration, if the server still takes it (observed, not judged: the contract does
 * not say when the old key stops working). If it does not either, every later check that needs
 * credentials would fail for this one fault, so the run skips them, naming it.
 */
async function carryOnWithAWorkingKey(
  ctx: CheckContext,
  op: Operation,
  probe: Operation,
  previous: string | undefined,
  refused: number,
): Promise<void> {
  if (previous !== undefined) {
    ctx.rotateApiKey(previous);
    const again = await ctx.send(request(probe, ctx));
    if (again.response && isSuccess(again.response.status)) {
      ctx.observe({
        operation: label(op),
        message: `the key in use before the regeneration still works after it (${again.response.status} on ${label(probe)}); the run carries on with that key`,
      });
      return;
    }
  }
  ctx.credentialsLost(
    `the API key stopped working: ${label(op)} returned a key that was refused (${refused} on ${label(probe)}), and the key before it was refused too (stateful.regenerate-key)`,
  );
}
