/**
 * The stateful suite's update checks: PATCH /campaign/{id} with every documented field persists,
 * and its answer is the update-shaped record (sections 2.2, 4.3, 4.4).
 */
import { defineCheck, type CheckContext, type CheckOutcome } from '../../src/checks/check.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { enumOf, propertiesOf } from '../../src/generators/index.js';
import {
  boundOf,
  Findings,
  fail,
  isSuccess,
  judgeResponse,
  OK,
  request,
  sampleBody,
  skipped,
  successSchema,
  uniqueNames,
  type Judgement,
} from '../lib.js';
import { echoJudge } from './echo.js';
import {
  afterCreate,
  byId,
  campaignCreate,
  couldNotCreate,
  createCampaign,
  opById,
  refused,
  withWrite,
} from './records.js';

/**
 * Makes the update's booleans and integers differ from what the campaign was created with, so a
 * server that ignores them (or drops falsy values) shows: a change equal to the old value proves
 * nothing. Integers move by one, inside their stated bounds.
 */
function differFromCreated(
  ctx: CheckContext,
  op: Operation,
  body: Record<string, unknown>,
  created: Record<string, unknown>,
): void {
  for (const [field, value] of Object.entries(body)) {
    const before = created[field];
    if (typeof value === 'boolean' && typeof before === 'boolean') body[field] = !before;
    else if (typeof value === 'number' && value === before) {
      const bound = boundOf(ctx.spec, op, field);
      body[field] = bound?.maximum !== undefined && value + 1 > bound.maximum ? value - 1 : value + 1;
    }
  }
}

/**
 * Creates a campaign, then sends it a valid PATCH of every documented field but the status (status
 * transitions are not specified; update-status-values judges the status). Shared by the update checks.
 */
async function updateCreatedCampaign(
  ctx: CheckContext,
  op: Operation,
  seeds: { create: number; body: number },
): Promise<
  | { skip: CheckOutcome }
  | { id: string; param: string; body: Record<string, unknown>; exchange: Exchange; create?: Exchange }
> {
  const own = campaignCreate(ctx);
  if ('skip' in own) return own;
  const made = await createCampaign(ctx, own.create, seeds.create);
  if (made.id === undefined) return { skip: couldNotCreate(made) };
  const param = op.parameters.find((p) => p.in === 'path')!.name;
  const body = uniqueNames(ctx, sampleBody(ctx, op, seeds.body) ?? {});
  const statusField = Object.entries(propertiesOf(op.requestBody!.schema)).find(([, s]) => enumOf(s)?.length)?.[0];
  if (statusField) delete body[statusField];
  differFromCreated(ctx, op, body, made.body);
  const exchange = await ctx.send(request(op, ctx, { pathValues: { [param]: made.id }, json: body }));
  return { id: made.id, param, body, exchange, ...(made.exchange ? { create: made.exchange } : {}) };
}

export const updatePersists = defineCheck({
  id: 'stateful.update-persists',
  suite: 'stateful',
  rule: 'PATCH /campaign/{id} with every documented field returns the update-shaped record carrying the changes, and a later GET shows them',
  contractRef: '4.4, 4.3, 2.2',
  severity: 'critical',
  expects: 'success',
  core: true,
  appliesTo: byId('updateCampaign'),
  plannedRequests: () => 3,
  async run(ctx, op) {
    const get = ctx.spec.operations.find((o) => o.method === 'GET' && o.path === op.path);
    const updated = await updateCreatedCampaign(ctx, op, { create: 47, body: 53 });
    if ('skip' in updated) return updated.skip;
    const { id, param, body, exchange, create } = updated;
    const findings = new Findings();
    const res = exchange.response;
    if (!res || !isSuccess(res.status)) {
      findings.add(refused(ctx, op, exchange, 'a valid, fully-populated update'));
      return afterCreate(ctx, findings, create).outcome('');
    }
    findings.add(judgeResponse(ctx, op, exchange, { what: 'the updated campaign' }));
    for (const j of echoJudge(ctx, op, exchange, body, res.json, successSchema(op), 'the updated record'))
      findings.add(j);
    if (get) {
      const after = await ctx.send(request(get, ctx, { pathValues: { [param]: id } }));
      const campaign = (after.response?.json as { campaign?: unknown } | undefined)?.campaign;
      if (after.response && isSuccess(after.response.status) && campaign) {
        const schema = successSchema(get);
        for (const j of echoJudge(
          ctx,
          get,
          after,
          body,
          campaign,
          schema ? propertiesOf(schema)['campaign'] : undefined,
          'the campaign read after the update',
        ))
          findings.add(withWrite(ctx, j, exchange));
      } else findings.add(refused(ctx, get, after, 'reading the updated campaign'));
    }
    return afterCreate(ctx, findings, create).outcome('the update persists');
  },
});

/** Fields of the full record (create answer) that the update record omits (section 2.2), read from the two schemas. */
function omittedOnUpdate(ctx: CheckContext, update: Operation): string[] {
  const create = opById(ctx, 'createCampaign');
  const full = create ? successSchema(create) : undefined;
  const updated = successSchema(update);
  if (!full || !updated) return [];
  const kept = new Set(Object.keys(propertiesOf(updated)));
  return Object.keys(propertiesOf(full)).filter((f) => !kept.has(f));
}

/** A success answer to an update that carries fields the update record omits (null read as absent: a field not marked required may be null). */
function fullRecord(ctx: CheckContext, exchange: Exchange, omitted: readonly string[]): Judgement {
  const json = exchange.response?.json;
  const record = (json && typeof json === 'object' ? json : {}) as Record<string, unknown>;
  const present = omitted.filter((f) => record[f] !== undefined && record[f] !== null);
  if (!present.length) return OK;
  return fail(
    ctx,
    exchange,
    `the update record without ${omitted.join(', ')} (section 2.2)`,
    `it carries ${present.join(', ')}`,
    `PATCH answered the full record (${present.join(', ')}), not the update-shaped one`,
    undefined,
    {
      kind: KIND.mismatch,
      field: { location: 'response', pointer: `/${present[0]}`, status: String(exchange.response?.status ?? '') },
    },
  );
}

export const updateRecordShape = defineCheck({
  id: 'stateful.update-record-shape',
  suite: 'stateful',
  rule: 'PATCH /campaign/{id} answers the update-shaped record: without assistant_name, machine_detection_timeout_seconds, recipient_list_id, recipient_list_name, recipient_list_row_count and counts',
  contractRef: '2.2, 4.4',
  severity: 'minor',
  expects: 'success',
  appliesTo: (op, spec) => op.id === 'updateCampaign' && spec.operations.some((o) => o.id === 'createCampaign'),
  plannedRequests: (_op, _runs, _spec, options) => (options?.covered ? 0 : 2),
  // Every success answer to a valid update of the run is judged, whoever sent it.
  judgeExchange(ctx, op, exchange) {
    const res = exchange.response;
    const omitted = omittedOnUpdate(ctx, op);
    if (!res || !isSuccess(res.status) || !omitted.length) return undefined;
    const wire = ctx.validateWire(op, exchange);
    return wire.available && wire.valid ? fullRecord(ctx, exchange, omitted) : undefined;
  },
  async run(ctx, op) {
    const omitted = omittedOnUpdate(ctx, op);
    if (!omitted.length) return skipped('the spec names no field the update record omits', { cause: 'runner' });
    if ((ctx.judgedElsewhere?.().judged ?? 0) > 0)
      return skipped(`no update of its own: the update answers other checks got were judged`, { cause: 'covered' });
    const updated = await updateCreatedCampaign(ctx, op, { create: 71, body: 73 });
    if ('skip' in updated) return updated.skip;
    const { exchange, create } = updated;
    const findings = new Findings();
    const res = exchange.response;
    if (!res || !isSuccess(res.status)) {
      findings.add(refused(ctx, op, exchange, 'a valid update'));
      return afterCreate(ctx, findings, create).outcome('');
    }
    findings.add(
      judgeAnswer(ctx, op, exchange, { what: 'a valid update', expected: 'the update-shaped record' }, () =>
        fullRecord(ctx, exchange, omitted),
      ),
    );
    return afterCreate(ctx, findings, create).outcome('the update-shaped record comes back');
  },
});
