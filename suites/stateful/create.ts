/**
 * The stateful suite's create and read checks: POST /campaign with every documented field returns
 * the record as sent, and GET returns it under `campaign` (sections 2.2, 4.2, 4.3).
 */
import { defineCheck } from '../../src/checks/check.js';
import { refusalOf } from '../lib/requests.js';
import { FAILURE_KINDS as KIND } from '../../src/results/model.js';
import { propertiesOf } from '../../src/generators/index.js';
import { Findings, fail, isSuccess, judgeResponse, label, request, skipped, successSchema } from '../lib.js';
import { echoJudge, sentButLost } from './echo.js';
import { afterCreate, byId, campaignCreate, couldNotCreate, createCampaign, needFixtures, refused } from './records.js';

export const createEchoes = defineCheck({
  id: 'stateful.create-echoes',
  suite: 'stateful',
  rule: 'POST /campaign with every documented field returns the campaign record carrying what was sent (camelCase schedule times in the snake_case fields), with an id',
  contractRef: '2.2, 4.2',
  severity: 'critical',
  expects: 'success',
  core: true,
  appliesTo: byId('createCampaign'),
  plannedRequests: () => 1,
  async run(ctx, op) {
    const missing = needFixtures(ctx, op);
    if (missing) return skipped(missing, { cause: 'plan' });
    const findings = new Findings();
    const made = await createCampaign(ctx, op, 41);
    const { exchange, body, id } = made;
    if (!exchange) return couldNotCreate(made);
    const res = exchange.response;
    if (!res || !isSuccess(res.status)) {
      if (res?.status === 422) {
        ctx.observe({
          operation: label(op),
          message: `a fully-populated valid body was refused with 422 (${res.text.slice(0, 160)}); the contract does not say what else a server may require`,
        });
        return skipped('the server refused the valid body (observed); nothing to compare', refusalOf(exchange));
      }
      findings.add(refused(ctx, op, exchange, 'a valid, fully-populated campaign'));
      return findings.outcome('');
    }
    findings.add(judgeResponse(ctx, op, exchange, { what: 'the created campaign' }));
    if (id === undefined)
      findings.add(
        fail(
          ctx,
          exchange,
          'the created record with its id (section 2.2)',
          'no id',
          'the created campaign has no id',
          undefined,
          {
            kind: KIND.mismatch,
            field: { location: 'response', pointer: '/id', status: String(res.status) },
          },
        ),
      );
    for (const j of echoJudge(ctx, op, exchange, body, res.json, successSchema(op), 'the created campaign'))
      findings.add(j);
    const status = (res.json as { status?: unknown })?.status;
    if (status !== undefined)
      ctx.observe({
        operation: label(op),
        message: `initial status at creation: ${JSON.stringify(status)} (not specified by the contract)`,
      });
    return findings.outcome('the created record carries every field sent');
  },
});

export const getReturnsCreated = defineCheck({
  id: 'stateful.get-returns-created',
  suite: 'stateful',
  rule: 'GET /campaign/{id} of a created campaign returns it under `campaign` (same id, fields as sent); `counts` and `calls` are checked for type where present (absent or null is observed: not marked required)',
  contractRef: '4.3, 2.2',
  severity: 'critical',
  expects: 'success',
  core: true,
  appliesTo: byId('getCampaign'),
  plannedRequests: () => 2,
  async run(ctx, op) {
    const own = campaignCreate(ctx);
    if ('skip' in own) return own.skip;
    const made = await createCampaign(ctx, own.create, 43);
    if (made.id === undefined) return couldNotCreate(made);
    const param = op.parameters.find((p) => p.in === 'path')!.name;
    const exchange = await ctx.send(request(op, ctx, { pathValues: { [param]: made.id } }));
    const findings = new Findings();
    const res = exchange.response;
    if (!res || !isSuccess(res.status)) {
      findings.add(refused(ctx, op, exchange, `reading the campaign just created (${made.id})`));
      return afterCreate(ctx, findings, made.exchange).outcome('');
    }
    findings.add(judgeResponse(ctx, op, exchange, { what: 'the campaign read back' }));
    const json = (res.json ?? {}) as { campaign?: { id?: unknown }; counts?: unknown; calls?: unknown };
    if (!json.campaign || String(json.campaign.id) !== made.id) {
      findings.add(
        fail(
          ctx,
          exchange,
          `the campaign ${made.id} under \`campaign\` (section 4.3)`,
          json.campaign ? `campaign.id ${JSON.stringify(json.campaign.id)}` : 'no `campaign` member',
          `GET did not return the created campaign under \`campaign\``,
          undefined,
          { kind: KIND.mismatch, field: { location: 'response', pointer: '/campaign/id', status: String(res.status) } },
        ),
      );
    } else {
      const schema = successSchema(op);
      const campaignSchema = schema ? propertiesOf(schema)['campaign'] : undefined;
      for (const j of echoJudge(ctx, op, exchange, made.body, json.campaign, campaignSchema, 'the campaign read back'))
        findings.add(j);
      // A field sent on create that neither the create answer nor the read-back carries was not stored.
      const lost = sentButLost(made.body, [made.exchange?.response?.json, json.campaign], campaignSchema);
      if (lost.length) {
        findings.add(
          fail(
            ctx,
            exchange,
            `the fields sent on create stored and read back (${lost.map((l) => l.sent).join(', ')})`,
            `${lost.map((l) => l.field).join(', ')} absent or null both in the create answer and in GET`,
            `${lost.map((l) => l.sent).join(', ')} sent on create ${lost.length > 1 ? 'were' : 'was'} not stored`,
            made.body,
            {
              kind: KIND.mismatch,
              field: { location: 'response', pointer: `/campaign/${lost[0]!.field}`, status: String(res.status) },
            },
          ),
        );
      }
    }
    const absent = (['counts', 'calls'] as const).filter((k) => json[k] === undefined || json[k] === null);
    if (absent.length)
      ctx.observe({
        operation: label(op),
        message: `${absent.join(' and ')} absent or null in the answer (allowed: not marked required)`,
      });
    return afterCreate(ctx, findings, made.exchange).outcome('the created campaign is read back under `campaign`');
  },
});
