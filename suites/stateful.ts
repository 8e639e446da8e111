/**
 * stateful: a campaign created with every documented field comes back as sent (the camelCase
 * schedule times in the snake_case fields), GET returns it under `campaign` with `counts` and
 * `calls`, PATCH changes persist and the update-shaped record comes back, the update's status
 * values are accepted; a recipient can be added; with --include-destructive an invite is created
 * and the API key regenerated (then used) (sections 2.2, 3.1, 4.2-4.6, 4.9).
 */
import { defineCheck, type CheckContext, type CheckDefinition, type CheckOutcome } from '../src/checks/check.js';
import { answerStart, judgeAnswer } from '../src/checks/judge.js';
import { refusalOf } from './lib/requests.js';
import { FAILURE_KINDS as KIND, pointerOf, type NotJudged } from '../src/results/model.js';
import type { JsonSchema, Operation } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import { enumOf, missingFixtures, propertiesOf, unspecifiedOf } from '../src/generators/index.js';
import { validate } from '../src/validators/index.js';
import { snakeCase } from '../src/results/names.js';
import {
  boundOf,
  createWith,
  isCredentialedRead,
  openRule,
  Findings,
  fail,
  isSuccess,
  judgeResponse,
  OK,
  label,
  request,
  sampleBody,
  skipped,
  statusText,
  successSchema,
  uniqueNames,
  unjudged,
  type Judgement,
} from './lib.js';

/** The record field a sent field lands in: its own name, or its snake_case spelling (camelCase create names). */
const recordField = (name: string, props: Record<string, unknown>): string | undefined =>
  name in props ? name : snakeCase(name) in props ? snakeCase(name) : undefined;

const byId = (id: string) => (op: Operation) => op.id === id;
const opById = (ctx: CheckContext, id: string): Operation | undefined => ctx.spec.operations.find((o) => o.id === id);

/** Does `got` carry what was sent as `sent`? Timestamps compare as instants, objects as supersets. */
function carries(sent: unknown, got: unknown, schema: JsonSchema | undefined): boolean {
  if (sent === got) return true;
  if (
    schema &&
    unspecifiedOf(schema).some((u) => /timestamp/i.test(u)) &&
    typeof sent === 'string' &&
    typeof got === 'string'
  ) {
    const a = Date.parse(sent);
    const b = Date.parse(got);
    if (!Number.isNaN(a) && a === b) return true;
    // The format is not shown: a server may drop the zone or change separators; compare the
    // wall-clock digits (YYYYMMDDhhmmss) when one side carries no zone.
    const digits = (t: string) => t.replace(/\D/g, '').slice(0, 14);
    const zoned = (t: string) => /(Z|[+-]\d\d:?\d\d)$/i.test(t.trim());
    return (!zoned(sent) || !zoned(got)) && digits(sent).length === 14 && digits(sent) === digits(got);
  }
  if (sent && got && typeof sent === 'object' && typeof got === 'object' && !Array.isArray(sent)) {
    return Object.entries(sent as Record<string, unknown>).every(([k, v]) =>
      carries(v, (got as Record<string, unknown>)[k], undefined),
    );
  }
  if (Array.isArray(sent) && Array.isArray(got))
    return sent.length === got.length && sent.every((v, i) => carries(v, got[i], undefined));
  return false;
}

/**
 * Compares a record with the body sent: every sent field the record documents (camelCase create
 * names mapped to their snake_case record fields) must come back equal when it comes back at all;
 * absent or null is allowed (no record field is required) and observed.
 */
function echoJudge(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  sent: Record<string, unknown>,
  record: unknown,
  recordSchema: JsonSchema | undefined,
  what: string,
): Judgement[] {
  const props = recordSchema ? propertiesOf(recordSchema) : {};
  const out: Judgement[] = [];
  const absent: string[] = [];
  const rec = (record && typeof record === 'object' ? record : {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(sent)) {
    const field = recordField(name, props);
    if (!field) continue;
    const got = rec[field];
    if (got === undefined || got === null) {
      absent.push(field);
      continue;
    }
    if (!carries(value, got, props[field])) {
      out.push(
        fail(
          ctx,
          exchange,
          `${field} as sent (${name === field ? name : `${name} on create`}): ${JSON.stringify(ctx.redact(value))}`,
          `${field}: ${JSON.stringify(ctx.redact(got))}`,
          `${what}: ${field} is ${JSON.stringify(ctx.redact(got))}, sent ${JSON.stringify(ctx.redact(value))}`,
          sent,
          {
            kind: KIND.mismatch,
            field: { location: 'response', pointer: `/${field}`, status: String(exchange.response?.status ?? '') },
          },
        ),
      );
    }
  }
  if (absent.length)
    ctx.observe({
      operation: label(op),
      message: `${what}: ${absent.join(', ')} absent or null in the record (allowed: no record field is marked required)`,
    });
  return out;
}

/** Fields sent (non-null) that every given record lacks (absent or null), mapped to record names. */
function sentButLost(
  sent: Record<string, unknown>,
  records: unknown[],
  recordSchema: JsonSchema | undefined,
): Array<{ sent: string; field: string }> {
  const props = recordSchema ? propertiesOf(recordSchema) : {};
  const out: Array<{ sent: string; field: string }> = [];
  for (const [name, value] of Object.entries(sent)) {
    if (value === null || value === undefined) continue;
    const field = recordField(name, props);
    if (!field) continue;
    const missing = records.every((r) => {
      const v = r && typeof r === 'object' ? (r as Record<string, unknown>)[field] : undefined;
      return v === undefined || v === null;
    });
    if (missing) out.push({ sent: name, field });
  }
  return out;
}

/** A campaign of the check's own, created with the pairing the run learned (or why none could be made). */
async function createCampaign(
  ctx: CheckContext,
  create: Operation,
  salt: number,
): Promise<{ exchange?: Exchange; body: Record<string, unknown>; id?: string; reason?: string }> {
  const made = await createWith(ctx, create, salt);
  return { ...made, body: made.body ?? {} };
}

function needFixtures(ctx: CheckContext, op: Operation): string | undefined {
  const missing = missingFixtures(op, ctx.fixtures);
  return missing.length ? `fixture ${missing.join(', ')} missing (needed for a valid ${label(op)} body)` : undefined;
}

/**
 * A valid request refused: through the one start (no answer and a 5xx fail, a 429 judges nothing),
 * then a failure, unless the refusal is a rule the contract leaves to the server (openRule: a 403
 * these credentials were served before is not one).
 */
function refused(ctx: CheckContext, op: Operation, exchange: Exchange, what: string): Judgement {
  const expected = `${what} accepted`;
  const open = () => openRule(ctx, op, exchange, { valid: true, what, expected });
  return judgeAnswer(ctx, op, exchange, { what, expected, open }, (res) =>
    fail(ctx, exchange, expected, statusText(exchange), `${label(op)} refused ${what} (${res.status})`, undefined, {
      kind: KIND.status,
    }),
  );
}

/** The skip of a check whose campaign could not be created, its cause the refusal of the create. */
const couldNotCreate = (made: { reason?: string; why?: NotJudged }): CheckOutcome =>
  skipped(`could not create a campaign (${made.reason ?? 'no reason given'})`, made.why ?? { cause: 'no-record' });

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
    const create = opById(ctx, 'createCampaign');
    if (!create) return skipped('no create operation', { cause: 'runner' });
    const missing = needFixtures(ctx, create);
    if (missing) return skipped(missing, { cause: 'plan' });
    const made = await createCampaign(ctx, create, 43);
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
  const create = opById(ctx, 'createCampaign');
  if (!create) return { skip: skipped('no create operation', { cause: 'runner' }) };
  const missing = needFixtures(ctx, create);
  if (missing) return { skip: skipped(missing, { cause: 'plan' }) };
  const made = await createCampaign(ctx, create, seeds.create);
  if (made.id === undefined) return { skip: couldNotCreate(made) };
  const param = op.parameters.find((p) => p.in === 'path')!.name;
  const body = uniqueNames(ctx, sampleBody(ctx, op, seeds.body) ?? {});
  const statusField = Object.entries(propertiesOf(op.requestBody!.schema)).find(([, s]) => enumOf(s)?.length)?.[0];
  if (statusField) delete body[statusField];
  differFromCreated(ctx, op, body, made.body);
  const exchange = await ctx.send(request(op, ctx, { pathValues: { [param]: made.id }, json: body }));
  return { id: made.id, param, body, exchange, ...(made.exchange ? { create: made.exchange } : {}) };
}

/**
 * A failure of a request that depends on earlier writes to the same record: its repro replays
 * them first (the request alone shows nothing on a fresh record, or a record moved on since), one
 * shell line: the writes && the request.
 */
function withWrite(ctx: CheckContext, j: Judgement, writes: Exchange | readonly Exchange[]): Judgement {
  const list = Array.isArray(writes) ? writes : [writes as Exchange];
  if (j.ok || list.length === 0) return j;
  const replayed = list.map((w) => ctx.curl(w)).join(' && ');
  const repro = j.failure.repro ? `${replayed} && ${j.failure.repro}` : replayed;
  return { ...j, failure: { ...j.failure, repro } };
}

/**
 * The failures of a check judged on a record it created: each repro says so, naming the create as
 * a shell comment at its end (`# after: <create>`). Replaying the create would make another
 * record with another id, so the line stays runnable on the record the run made.
 */
function afterCreate(ctx: CheckContext, findings: Findings, create: Exchange | undefined): Findings {
  if (!create) return findings;
  const note = afterNote(ctx, create);
  for (const f of findings.failures) if (f.repro && !f.repro.endsWith(note)) f.repro += note;
  return findings;
}

const afterNote = (ctx: CheckContext, create: Exchange): string => `  # after: ${ctx.curl(create)}`;

/** One failure on a record the check created, after `writes` to it: the writes replayed first, the create named last (see afterCreate). */
function onRecord(
  ctx: CheckContext,
  j: Judgement,
  record: { create?: Exchange; writes: readonly Exchange[] },
): Judgement {
  const replayed = withWrite(ctx, j, record.writes);
  if (replayed.ok || !record.create || !replayed.failure.repro) return replayed;
  return {
    ...replayed,
    failure: { ...replayed.failure, repro: `${replayed.failure.repro}${afterNote(ctx, record.create)}` },
  };
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
    const create = opById(ctx, 'createCampaign');
    if (!create) return skipped('no create operation', { cause: 'runner' });
    const missing = needFixtures(ctx, create);
    if (missing) return skipped(missing, { cause: 'plan' });
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

export const statefulChecks: CheckDefinition[] = [
  createEchoes,
  getReturnsCreated,
  updatePersists,
  updateRecordShape,
  updateStatusValues,
  addRecipient,
  createInvite,
  regenerateKey,
];
