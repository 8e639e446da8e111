/**
 * Promises checked over time (docs/checks.md, "Promises kept over time"): what one answer implies
 * about the next. Here, stateful.update-keeps-unsent: a partial update (PATCH) changes what it was
 * sent and leaves the rest of the record as it was, and a PATCH with an empty body changes nothing
 * (sections 2.2, 4.2-4.4). The check creates its own record, every documented field set, so a
 * field cleared or reset by the update shows: in each PATCH answer, and read back with GET at the
 * end (4 requests: create, PATCH one field, PATCH {}, GET).
 *
 * Compared are the fields the update accepts (read from its request schema) that the record
 * carries, other than the one sent and the record's server-managed ones (readOnly in the spec: the
 * status may move on its own); a timestamp the update sets (updated_at) is not one the update
 * accepts, so it is never compared.
 */
import { isDeepStrictEqual } from 'node:util';
import { defineCheck, type CheckContext, type CheckOutcome } from '../src/checks/check.js';
import { answerStart } from '../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../src/results/model.js';
import { createWith, refusalOf } from './lib/requests.js';
import type { Operation } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import { TEST_DATA_PREFIX, enumOf, nonNull, propertiesOf, typesOf } from '../src/generators/index.js';
import { Findings, OK, fail, isSuccess, label, request, skipped, statusText, successSchema } from './lib.js';

type Json = Record<string, unknown>;

interface Ops {
  create: Operation;
  read: Operation;
  update: Operation;
  param: string;
}

/** The update operation's siblings, from the spec: the GET of the same path, the POST that creates its records. */
function opsOf(op: Operation, operations: readonly Operation[]): Ops | undefined {
  const param = op.parameters.find((p) => p.in === 'path');
  if (op.method !== 'PATCH' || !op.requestBody || !param) return undefined;
  const base = op.path.slice(0, op.path.indexOf(`/{${param.name}}`));
  const read = operations.find((o) => o.method === 'GET' && o.path === op.path);
  const create = operations.find((o) => o.method === 'POST' && o.path === base && o.requestBody);
  return read && create ? { create, read, update: op, param: param.name } : undefined;
}

/** The field the check sends: the first free string the update accepts (the name, in this contract). */
function fieldToSend(update: Operation): string | undefined {
  const props = propertiesOf(update.requestBody!.schema);
  return Object.keys(props).find((k) => typesOf(nonNull(props[k]!)).includes('string') && !enumOf(nonNull(props[k]!)));
}

/** Members of the record the server manages itself (readOnly in the record's schema). */
function serverManaged(op: Operation): Set<string> {
  const props = propertiesOf(successSchema(op) ?? {});
  return new Set(Object.keys(props).filter((k) => nonNull(props[k]!)['readOnly'] === true));
}

/** The record in an answer: the body when it carries the id, else the member that does (`campaign` of GET /campaign/{id}). */
export function recordIn(json: unknown, id: string): Json | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const body = json as Json;
  if (String(body['id']) === id) return body;
  for (const value of Object.values(body)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && String((value as Json)['id']) === id)
      return value as Json;
  }
  return undefined;
}

/** Two readings of a value are the same: equal JSON, or two spellings of one instant (a timestamp's format is not shown, 2.9). */
function same(a: unknown, b: unknown): boolean {
  if (isDeepStrictEqual(a, b)) return true;
  return (
    typeof a === 'string' &&
    typeof b === 'string' &&
    /^\d{4}-\d\d-\d\d/.test(a) &&
    !Number.isNaN(Date.parse(a)) &&
    Date.parse(a) === Date.parse(b)
  );
}

/** The compared fields that differ between two readings of the record (present in both). */
export function changedFields(before: Json, after: Json, fields: readonly string[]): string[] {
  return fields.filter((f) => f in before && f in after && !same(before[f], after[f]));
}

const show = (v: unknown): string => {
  const text = JSON.stringify(v) ?? 'undefined';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

interface Made {
  id: string;
  path: Record<string, string>;
  /** The record as the creation answered it. */
  record: Json;
}

/**
 * The check's own record, created with every documented field and the pairing the run learned
 * (createWith: a server that pairs each phone number with one channel accepts it on every seed);
 * or why none could be made, as a skip.
 */
async function createOwn(ctx: CheckContext, ops: Ops): Promise<Made | CheckOutcome> {
  const made = await createWith(ctx, ops.create, 1543);
  const json = made.exchange?.response?.json as Json | undefined;
  if (made.id === undefined || !json)
    return skipped(
      `${label(ops.create)} with every documented field: ${made.reason ?? 'no record'} (judged by the stateful checks)`,
      made.why ?? { cause: 'no-record' },
    );
  return { id: made.id, path: { [ops.param]: made.id }, record: json };
}

/** Fails once per changed field: what it was, what it became, after what. */
function judgeKept(
  ctx: CheckContext,
  findings: Findings,
  exchange: Exchange,
  before: Json,
  after: Json,
  fields: readonly string[],
  afterWhat: string,
): void {
  ctx.noteJudged?.(exchange);
  const changed = changedFields(before, after, fields);
  for (const f of changed) {
    findings.add(
      fail(
        ctx,
        exchange,
        `${f} unchanged after ${afterWhat} (a partial update changes only what it is sent)`,
        `${f} was ${show(before[f])}, now ${show(after[f])}`,
        `${afterWhat} changed ${changed.join(', ')}, which it was not sent`,
        undefined,
        {
          kind: KIND.mismatch,
          field: { location: 'response', pointer: `/${f}`, status: String(exchange.response?.status ?? '') },
        },
      ),
    );
  }
  if (!changed.length) findings.add(OK);
}

/** A PATCH of `body`; its answer's record, or why there is none. */
async function patch(
  ctx: CheckContext,
  op: Operation,
  made: Made,
  body: Json,
): Promise<{ exchange: Exchange; record?: Json }> {
  const exchange = await ctx.send(request(op, ctx, { pathValues: made.path, json: body }));
  const record =
    exchange.response && isSuccess(exchange.response.status) ? recordIn(exchange.response.json, made.id) : undefined;
  return record ? { exchange, record } : { exchange };
}

export const updateKeepsUnsent = defineCheck({
  id: 'stateful.update-keeps-unsent',
  suite: 'stateful',
  rule: 'A partial update keeps what it was not sent: after a PATCH of one field of a record created with every documented field, every other field the update accepts is unchanged (in the PATCH answer and read back with GET), and a PATCH with an empty body changes nothing',
  contractRef: '2.2, 4.2, 4.3, 4.4',
  severity: 'critical',
  expects: 'success',
  core: true,
  appliesTo: (op, spec) => opsOf(op, spec.operations) !== undefined && fieldToSend(op) !== undefined,
  plannedRequests: () => 4,
  plannedCases: (op) => [
    `body ${fieldToSend(op)}: one field changed, then an empty body; the other fields compared with the created record`,
  ],
  async run(ctx, op) {
    const ops = opsOf(op, ctx.spec.operations)!;
    const field = fieldToSend(op)!;
    const made = await createOwn(ctx, ops);
    if ('status' in made) return made;
    const managed = new Set([...serverManaged(ops.read), ...serverManaged(op), ...serverManaged(ops.create)]);
    const fields = Object.keys(propertiesOf(op.requestBody!.schema)).filter((f) => f !== field && !managed.has(f));
    const findings = new Findings();
    const one = await patch(ctx, op, made, { [field]: `${TEST_DATA_PREFIX} partial ${ctx.seed}` });
    if (!one.record) {
      // Through the one start: a 5xx or no answer is a failure here too, a 429 judges nothing.
      const start = answerStart(ctx, op, one.exchange, {
        what: `${label(op)} of ${field} alone`,
        expected: 'a served update',
      });
      if (start && !start.ok) {
        findings.add(start);
        return findings.outcome('');
      }
      return skipped(
        `${label(op)} of ${field} alone answered ${statusText(one.exchange)} (judged by stateful.update-persists)`,
        one.exchange.response?.status === 429 ? { cause: 'rate-limited', status: 429 } : refusalOf(one.exchange),
      );
    }
    judgeKept(ctx, findings, one.exchange, made.record, one.record, fields, `${label(op)} of ${field} alone`);
    const empty = await patch(ctx, op, made, {});
    if (empty.record)
      judgeKept(
        ctx,
        findings,
        empty.exchange,
        one.record,
        empty.record,
        [...fields, field],
        `${label(op)} with an empty body`,
      );
    else if (broke(empty.exchange))
      findings.add(
        fail(
          ctx,
          empty.exchange,
          `${label(op)} with an empty body changes nothing`,
          statusText(empty.exchange),
          `${label(op)} with an empty body answered ${statusText(empty.exchange).slice(0, 40)}`,
          undefined,
          { kind: empty.exchange.response ? KIND.status : KIND.noResponse },
        ),
      );
    else
      ctx.observe({
        operation: label(op),
        message: `a PATCH with an empty body was answered ${statusText(empty.exchange).slice(0, 80)}; the contract does not say whether an update may be empty`,
      });
    // Read back: what both updates stored, against the created record (the name as the first PATCH set it).
    const read = await ctx.send(request(ops.read, ctx, { pathValues: made.path }));
    const stored = read.response && isSuccess(read.response.status) ? recordIn(read.response.json, made.id) : undefined;
    if (stored)
      judgeKept(
        ctx,
        findings,
        read,
        made.record,
        stored,
        fields,
        `${label(op)} of ${field} alone, then with an empty body (read back with ${label(ops.read)})`,
      );
    return findings.outcome(`${fields.length} fields not sent kept after a PATCH of ${field} and after an empty PATCH`);
  },
});

const broke = (exchange: Exchange): boolean => !exchange.response || exchange.response.status >= 500;

export const promisesChecks = [updateKeepsUnsent];
