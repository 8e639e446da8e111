/**
 * stateful.update-status-values: each status value of the update is accepted (transitions are not
 * specified), and the last one answered as set is what GET shows (sections 3.1, 4.4).
 */
import { defineCheck, type CheckContext } from '../../src/checks/check.js';
import { answerStart } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND, pointerOf } from '../../src/results/model.js';
import type { JsonSchema, Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { enumOf, propertiesOf } from '../../src/generators/index.js';
import { Findings, fail, isSuccess, judgeResponse, label, request, unjudged, type Judgement } from '../lib.js';
import { campaignCreate, couldNotCreate, createCampaign, onRecord } from './records.js';

/** One status value sent to a campaign: the judgement, whether it changed the record, and the value when answered as set. */
async function sendStatus(
  ctx: CheckContext,
  op: Operation,
  id: string,
  field: string,
  value: unknown,
): Promise<{ judgement: Judgement; changed: boolean; exchange: Exchange; set?: { id: string; value: unknown } }> {
  const values = enumOf(propertiesOf(op.requestBody!.schema)[field]!)!.filter((v) => v !== null);
  const param = op.parameters.find((p) => p.in === 'path')!.name;
  const exchange = await ctx.send(request(op, ctx, { pathValues: { [param]: id }, json: { [field]: value } }));
  // The one start: no answer and a 5xx fail, a 429 judges nothing.
  const start = answerStart(ctx, op, exchange, {
    what: `${field}=${String(value)}`,
    expected: `${field}=${String(value)} accepted`,
    field: { location: 'body', pointer: pointerOf([field]) },
  });
  if (start) return { judgement: start, changed: false, exchange };
  const res = exchange.response!;
  if (isSuccess(res.status)) {
    const judgement = judgeResponse(ctx, op, exchange, { what: `the record after ${field}=${String(value)}` });
    const got = (res.json as Record<string, unknown> | undefined)?.[field];
    if (got !== undefined && got !== null && got !== value) {
      ctx.observe({
        operation: label(op),
        message: `${field}=${String(value)} was accepted and the record says ${JSON.stringify(got)} (transitions are not specified)`,
      });
    }
    return got === value
      ? { judgement, changed: true, exchange, set: { id, value } }
      : { judgement, changed: true, exchange };
  }
  const detail = (res.json as { detail?: unknown } | undefined)?.detail;
  const namesField =
    res.status === 422 &&
    Array.isArray(detail) &&
    detail.some((d) => Array.isArray((d as { loc?: unknown }).loc) && (d as { loc: unknown[] }).loc.includes(field));
  if (namesField) {
    return {
      judgement: fail(
        ctx,
        exchange,
        `${field}=${String(value)} accepted (one of ${values.join(', ')}, section 4.4)`,
        `422 naming ${field}`,
        `${field}=${String(value)} was rejected as invalid`,
        { [field]: value },
        { kind: KIND.rejectedValid, field: { location: 'body', pointer: pointerOf([field]) } },
      ),
      changed: false,
      exchange,
    };
  }
  ctx.observe({
    operation: label(op),
    message: `${field}=${String(value)} was answered ${res.status} (${res.text.slice(0, 120)}); status transitions are not specified, so not judged`,
  });
  return {
    judgement: unjudged(`${field}=${String(value)} was answered ${res.status}: status transitions are not specified`, {
      cause: 'refused',
      status: res.status,
    }),
    changed: false,
    exchange,
  };
}

const statusEnum = (op: Operation): [string, JsonSchema] | undefined =>
  Object.entries(propertiesOf(op.requestBody?.schema ?? {})).find(([, s]) => enumOf(s)?.length);

export const updateStatusValues = defineCheck({
  id: 'stateful.update-status-values',
  suite: 'stateful',
  rule: "Each status value the update accepts (draft, scheduled, running, paused, completed) is not rejected as invalid (a value refused after an earlier move is tried again on a new campaign of its own: transitions are not specified), and the last one answered as set is what GET then shows; `scheduled` in the record is the contract's own conflict, observed",
  contractRef: '3.1, 4.4',
  severity: 'major',
  expects: 'success',
  appliesTo: (op) => op.id === 'updateCampaign' && Boolean(op.requestBody && statusEnum(op)),
  // Its own campaign, one PATCH per value and a GET; a refused move costs a new campaign and a PATCH more.
  plannedRequests: (op) => 2 + (enumOf(statusEnum(op)![1])?.length ?? 0),
  async run(ctx, op) {
    const own = campaignCreate(ctx);
    if ('skip' in own) return own.skip;
    const { create } = own;
    const [field, schema] = statusEnum(op)!;
    const values = enumOf(schema)!.filter((v) => v !== null);
    const findings = new Findings();
    let made = await createCampaign(ctx, create, 59);
    if (made.id === undefined) return couldNotCreate(made);
    // The record under test: the create that made it and the writes that moved it, which a repro replays.
    const newRecord = (m: typeof made, id: string) => ({
      id,
      moved: false,
      writes: [] as Exchange[],
      ...(m.exchange ? { create: m.exchange } : {}),
    });
    let record = newRecord(made, made.id);
    // The last value the server accepted and answered as set: a later GET must show it.
    let lastSet: { id: string; value: unknown; record: { create?: Exchange; writes: Exchange[] } } | undefined;
    for (const [i, value] of values.entries()) {
      let sent = await sendStatus(ctx, op, record.id, field, value);
      if (sent.judgement.ok && sent.judgement.unjudged !== undefined && record.moved) {
        // Refused after an earlier move: judged again from a new campaign's initial state.
        made = await createCampaign(ctx, create, 60 + i);
        if (made.id === undefined) return couldNotCreate(made);
        record = newRecord(made, made.id);
        sent = await sendStatus(ctx, op, record.id, field, value);
      }
      findings.add(onRecord(ctx, sent.judgement, record));
      record.moved ||= sent.changed;
      if (sent.changed) record.writes.push(sent.exchange);
      if (sent.set) lastSet = { ...sent.set, record: { ...record, writes: [...record.writes] } };
    }
    const get = ctx.spec.operations.find((o) => o.method === 'GET' && o.path === op.path);
    if (get && lastSet) {
      const param = op.parameters.find((p) => p.in === 'path')!.name;
      const after = await ctx.send(request(get, ctx, { pathValues: { [param]: lastSet.id } }));
      const campaign = (after.response?.json as { campaign?: Record<string, unknown> } | undefined)?.campaign;
      const shown = campaign?.[field];
      if (
        after.response &&
        isSuccess(after.response.status) &&
        shown !== undefined &&
        shown !== null &&
        shown !== lastSet.value
      ) {
        const judged = fail(
          ctx,
          after,
          `${field} ${JSON.stringify(lastSet.value)} read back, as the update answered (section 4.4)`,
          `${field} ${JSON.stringify(shown)}`,
          `${field}=${String(lastSet.value)} was answered as set but GET shows ${JSON.stringify(shown)}`,
          { [field]: lastSet.value },
          {
            kind: KIND.mismatch,
            field: { location: 'response', pointer: `/campaign/${field}`, status: String(after.response.status) },
          },
        );
        findings.add(onRecord(ctx, judged, lastSet.record));
      }
    }
    return findings.outcome(`every ${field} value of the update accepted`);
  },
});
