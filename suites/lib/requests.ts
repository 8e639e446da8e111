/** Request helpers: requests for an operation from fixtures, records created for paths that need one, CORS preflights. */
import type { CheckContext, CheckOutcome } from '../../src/checks/check.js';
import { BODY_FIXTURE_FIELDS, fixtureOfParam, type ContractFixtures } from '../fixtures.js';
import { learnedFixtures, learnedOf, type Refusal } from './learned.js';
import type { NotJudged } from '../../src/results/model.js';
import type { Operation, SpecModel } from '../../src/spec/model.js';
import type { Exchange, HttpRequest } from '../../src/transport/types.js';
import {
  enumFields,
  enumOf,
  fillPath,
  pathFixture,
  providerIdFields,
  TEST_DATA_PREFIX,
  validBody,
} from '../../src/generators/index.js';
import { isSuccess, skipped, statusText } from './outcomes.js';
import { genOptions, sampleBodyOf } from './property.js';
import { label } from './spec-queries.js';

/**
 * Headers that make an OPTIONS request a CORS preflight, as a browser sends them: an origin, the
 * method, and the request headers the contract's security schemes name (read from the spec).
 */
export function preflightHeaders(spec: SpecModel): Record<string, string> {
  const asked = [...new Set(spec.securitySchemes.map((s) => s.header.toLowerCase()))].join(', ');
  return {
    Origin: 'https://app.example.com',
    'Access-Control-Request-Method': 'GET',
    'Access-Control-Request-Headers': asked,
  };
}

/** Path parameter values from fixtures (and `extra`), for filling an operation's path. */
export function pathValues(
  ctx: CheckContext,
  op: Operation,
  extra: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const v = extra[p.name] ?? pathFixture(p.name, ctx.fixtures, fixtureOfParam);
    if (v !== undefined) out[p.name] = v;
  }
  return out;
}

export function missingPathParams(ctx: CheckContext, op: Operation, extra: Record<string, string> = {}): string[] {
  const have = pathValues(ctx, op, extra);
  return op.parameters.filter((p) => p.in === 'path' && have[p.name] === undefined).map((p) => p.name);
}

export function request(
  op: Operation,
  ctx: CheckContext,
  parts: Partial<HttpRequest> & { pathValues?: Record<string, string> } = {},
): HttpRequest & { operation: Operation } {
  const { pathValues: values, ...rest } = parts;
  if (rest.json !== undefined) rest.json = uniqueNames(ctx, rest.json);
  return { method: op.method, path: fillPath(op.path, pathValues(ctx, op, values)), operation: op, ...rest };
}

const NAMED = `${TEST_DATA_PREFIX} `;
const NUMBERED = / #\d+$/;
const nameCounters = new WeakMap<object, { n: number }>();

/**
 * The generated test-data names of a body (`vapc-test ...`, top level) made unique in the run
 * (` #n`): a server may refuse a name already taken (409), and a repeated generated name would
 * make one check's create collide with another's. Deterministic per run; a body already numbered
 * (one a check keeps to compare with the record) is left as it is.
 */
export function uniqueNames<T>(ctx: CheckContext, body: T): T {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const entries = Object.entries(body as Record<string, unknown>);
  if (!entries.some(([, v]) => typeof v === 'string' && v.startsWith(NAMED) && !NUMBERED.test(v))) return body;
  let counter = nameCounters.get(ctx.fixtures);
  if (!counter) nameCounters.set(ctx.fixtures, (counter = { n: 0 }));
  const n = ++counter.n;
  return Object.fromEntries(
    entries.map(([k, v]) => [k, typeof v === 'string' && v.startsWith(NAMED) && !NUMBERED.test(v) ? `${v} #${n}` : v]),
  ) as T;
}

/** The POST operation whose success body is the record a path-parameter operation reads (createCampaign for /campaign/{id}). */
export function creatorOf(ctx: { spec: { operations: Operation[] } }, op: Operation): Operation | undefined {
  const param = op.parameters.find((p) => p.in === 'path');
  if (!param) return undefined;
  const base = op.path.slice(0, op.path.indexOf(`/{${param.name}}`));
  return ctx.spec.operations.find((o) => o.method === 'POST' && o.path === base && o.requestBody);
}

/** Phone number × channel (× assistant) combinations to try when a valid create is refused: explicit pairs first. */
export function pairings(fixtures: ContractFixtures): Array<ContractFixtures> {
  const phones = [...(fixtures.phone_numbers ?? [])];
  if (fixtures.phone_number_id && !phones.some((p) => p.id === fixtures.phone_number_id))
    phones.push({ id: fixtures.phone_number_id });
  const channels = fixtures.channels ?? [];
  const out: Array<ContractFixtures> = [];
  for (const phone of [...phones].sort((a, b) => Number(Boolean(b.channel)) - Number(Boolean(a.channel)))) {
    for (const channel of phone.channel ? [phone.channel] : channels)
      out.push({ phone_number_id: phone.id, channels: [channel] });
  }
  return out;
}

/** The fixture-backed values of an accepted create body (phone number, assistant, ... and the channel), as fixtures. */
function pairingOf(creator: Operation, body: Record<string, unknown>): ContractFixtures {
  const out: ContractFixtures = {};
  for (const f of BODY_FIXTURE_FIELDS) {
    const value = body[f];
    if (typeof value === 'string') out[f] = value;
  }
  const channel = providerIdFields(creator).find((f) => f.depth === 0);
  const value = channel ? body[channel.field] : undefined;
  if (typeof value === 'string') out.channels = [value];
  return out;
}

/** A create body with the phone number, assistant and channel of the create the server accepted (when one was). */
function pinAccepted(ctx: CheckContext, creator: Operation, body: Record<string, unknown>): Record<string, unknown> {
  const accepted = learnedOf(ctx).accepted;
  if (!accepted) return body;
  const out = { ...body };
  for (const f of BODY_FIXTURE_FIELDS) if (accepted[f] !== undefined && f in out) out[f] = accepted[f];
  const channel = providerIdFields(creator).find((f) => f.depth === 0);
  if (channel && accepted.channels?.[0] !== undefined && channel.field in out)
    out[channel.field] = accepted.channels[0];
  return out;
}

/** Combinations tried at most, once per run. */
const MAX_PAIRINGS = 6;

const refusalText = (exchange: Exchange): string =>
  exchange.response ? `${exchange.response.status} ${exchange.response.text.slice(0, 160)}` : statusText(exchange);

/** A refused request's answer as a `refused` cause: its status, and the field a 422 named first. */
export function refusalOf(exchange: Exchange): NotJudged {
  const res = exchange.response;
  if (!res) return { cause: 'refused' };
  if (res.status === 429) return { cause: 'rate-limited', status: 429 };
  const detail = (res.json as { detail?: unknown } | undefined)?.detail;
  const loc = Array.isArray(detail) ? (detail[0] as { loc?: unknown } | undefined)?.loc : undefined;
  return Array.isArray(loc) && loc.length > 0
    ? { cause: 'refused', status: res.status, loc: loc.map(String).join('.').slice(0, 80) }
    : { cause: 'refused', status: res.status };
}

/**
 * Creates a record through `creator` with a valid fully-populated body (the sample of `salt`, the
 * run's learned pairing in it). A 409 (a name taken: uniqueness the contract leaves open) is tried once more with another
 * body. The first 422 of the run tries the other phone number × channel combinations the run knows
 * and remembers the one accepted (learned.ts); when none is, later creates skip with the reason.
 */
export async function createWith(
  ctx: CheckContext,
  creator: Operation,
  salt: number,
): Promise<{ id?: string; reason?: string; why?: NotJudged; body?: Record<string, unknown>; exchange?: Exchange }> {
  const learned = learnedOf(ctx);
  if (learned.refused !== undefined) return { reason: learned.refused.reason, why: learned.refused.why };
  learned.tried = true;
  const attempt = async (s: number, over?: ContractFixtures) => {
    const fixtures = over ? { ...learnedFixtures(ctx), ...over } : learnedFixtures(ctx);
    const body = uniqueNames(ctx, sampleBodyOf(ctx, validBody(creator, { ...genOptions(ctx), fixtures }), s));
    const exchange = await ctx.send(request(creator, ctx, { json: body }));
    return { body, exchange };
  };
  let sent = await attempt(salt);
  if (sent.exchange.response?.status === 409) sent = await attempt(salt + 1);
  // A random other channel might not pair with the phone number: the pair once accepted is tried.
  if (sent.exchange.response?.status === 422 && learned.accepted) sent = await attempt(salt, learned.accepted);
  if (sent.exchange.response?.status === 422 && !learned.searched) {
    learned.searched = true;
    const first = refusalText(sent.exchange);
    for (const pairing of pairings(ctx.fixtures).slice(0, MAX_PAIRINGS)) {
      const tried = await attempt(salt, pairing);
      if (tried.exchange.response && isSuccess(tried.exchange.response.status)) {
        learned.pairing = pairing;
        ctx.observe({
          operation: label(creator),
          message: `a valid create was refused (${first}); accepted with phone_number_id ${pairing.phone_number_id} and channel ${pairing.channels?.[0]}, used for the rest of the run`,
        });
        sent = tried;
        break;
      }
    }
    if (!learned.pairing) {
      learned.refused = {
        reason: `every valid ${label(creator)} was refused (${first}), with each phone number and channel the run knows`,
        why: refusalOf(sent.exchange),
      };
      ctx.observe({ operation: label(creator), message: learned.refused.reason });
    }
  }
  const res = sent.exchange.response;
  if (!res || !isSuccess(res.status))
    return {
      reason: `${label(creator)} with a valid body answered ${refusalText(sent.exchange)}`,
      why: refusalOf(sent.exchange),
      exchange: sent.exchange,
      body: sent.body,
    };
  learned.accepted ??= pairingOf(creator, sent.body);
  const id = (res.json as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' && typeof id !== 'number')
    return {
      reason: `${label(creator)} returned no id`,
      why: { cause: 'no-record' },
      exchange: sent.exchange,
      body: sent.body,
    };
  return { id: String(id), body: sent.body, exchange: sent.exchange };
}

/** Creates a record through the creating operation of `op`'s path (POST /campaign for /campaign/{campaign_id}). */
async function createRecord(
  ctx: CheckContext,
  op: Operation,
  salt = 0,
): Promise<{ id?: string; reason?: string; why?: NotJudged; exchange?: Exchange }> {
  const creator = creatorOf(ctx, op);
  if (!creator) return { reason: `no operation creates the records of ${op.path}`, why: { cause: 'no-record' } };
  return createWith(ctx, creator, 7919 + salt);
}

/** A record a check sends to: the path values, and the record as created (when the check created it). */
export interface RecordPath {
  values?: Record<string, string>;
  reason?: string;
  /** Why there is no record, as data: the refusal of the create that would have made one. */
  why?: NotJudged;
  record?: Record<string, unknown>;
}

/** The skip of a check with no record to send to, its cause the refusal that left it without one. */
export const noRecord = (op: Operation, found: RecordPath): CheckOutcome =>
  skipped(found.reason ?? `no record to send ${label(op)} to`, found.why ?? { cause: 'no-record' });

/** Path values for `op`, creating the record its path names when the fixtures do not have it. */
async function pathForRecord(ctx: CheckContext, op: Operation, salt = 0): Promise<RecordPath> {
  const missing = missingPathParams(ctx, op);
  if (!missing.length) return { values: pathValues(ctx, op) };
  if (creatorOf(ctx, op)) {
    const created = await createRecord(ctx, op, salt);
    if (!created.id)
      return {
        reason: `no record to send ${label(op)} to: ${created.reason ?? 'could not create one'}`,
        why: created.why ?? { cause: 'no-record' },
      };
    const json = created.exchange?.response?.json;
    const values = pathValues(ctx, op, { [missing[0]!]: created.id });
    return json && typeof json === 'object' && !Array.isArray(json)
      ? { values, record: json as Record<string, unknown> }
      : { values };
  }
  return { reason: `no ${missing.join(', ')} fixture (path parameter of ${label(op)})`, why: { cause: 'plan' } };
}

/**
 * A record of its own for one check (issue 21: no check inherits the state another left): the
 * fixtures' ids when they name it, else a record created for this check, or why none could be had.
 */
export function ownPathForRecord(ctx: CheckContext, op: Operation, salt = 0): Promise<RecordPath> {
  return pathForRecord(ctx, op, 104729 + salt);
}

/**
 * The context of a request made once per run for whichever check needs it first (a shared record,
 * the create that learns the pairing): tagged `setup`, so coverage credits no check with it and a
 * shard that makes it too counts the same as the unsharded run.
 */
const asSetup = (ctx: CheckContext): CheckContext =>
  Object.assign(Object.create(ctx) as CheckContext, {
    send: (r: Parameters<CheckContext['send']>[0]) => ctx.send({ ...r, checkId: 'setup' }),
  });

/** Does `op` create the records some other operation's path names (POST /campaign)? */
const isCreator = (ctx: CheckContext, op: Operation): boolean =>
  ctx.spec.operations.some((o) => creatorOf(ctx, o) === op);

/**
 * For an operation that creates records: makes sure the run has sent a valid create (so the
 * pairing the server requires is learned before a property is judged on it); returns why every
 * valid create is refused, when so. Undefined for other operations.
 */
export async function validCreateRefused(ctx: CheckContext, op: Operation): Promise<Refusal | undefined> {
  if (!isCreator(ctx, op)) return undefined;
  const learned = learnedOf(ctx);
  if (!learned.tried) await createWith(asSetup(ctx), op, 0);
  return learned.refused;
}

/**
 * The valid body a check changes one field of: for an operation on a created record (PATCH),
 * only the required fields and `keep` (the top-level fields under test), so nothing random (a
 * `status`) changes the record's state; else a valid fully-populated sample, with the pairing the
 * run learned.
 */
export function baseBody(
  ctx: CheckContext,
  op: Operation,
  salt: number,
  keep: readonly string[] = [],
  record?: Record<string, unknown>,
): Record<string, unknown> {
  const sample = sampleBodyOf(ctx, validBody(op, genOptions(ctx)), salt);
  if (isCreator(ctx, op)) return pinAccepted(ctx, op, sample);
  if (!op.requestBody || !creatorOf(ctx, op)) return sample;
  const required = op.requestBody.schema['required'];
  const wanted = new Set([...(Array.isArray(required) ? (required as string[]) : []), ...keep]);
  const base = Object.fromEntries(Object.entries(sample).filter(([k]) => wanted.has(k)));
  // The record's own state (its status as the server gave it) goes along unchanged: a server may
  // judge a body differently when it carries one, and sending the state it has changes nothing.
  for (const f of enumFields(op).filter((e) => e.depth === 0 && !(e.field in base))) {
    const current = record?.[f.field];
    if (current !== undefined && current !== null && enumOf(f.schema)?.includes(current)) base[f.field] = current;
  }
  return base;
}

/**
 * A valid fully-populated sample body (fixed by the seed and `salt`), with the phone number,
 * assistant and channel of the create the server accepted when `op` creates records: every check
 * that creates sends the pairing the run learned (issue 31).
 */
export function pairedSample(ctx: CheckContext, op: Operation, salt: number): Record<string, unknown> | undefined {
  if (!op.requestBody) return undefined;
  const sample = sampleBodyOf(ctx, validBody(op, genOptions(ctx)), salt);
  return isCreator(ctx, op) ? pinAccepted(ctx, op, sample) : sample;
}

/** Operations that need a created record for their path (`/campaign/{campaign_id}`): some operation creates it. */
const needsCreatedRecord = (ctx: { spec: { operations: Operation[] } }, op: Operation): boolean =>
  creatorOf(ctx, op) !== undefined;

const recordCache = new WeakMap<object, Map<string, Promise<RecordPath>>>();

/**
 * Like `pathForRecord`, but the record is created once per run (cached on the run's fixtures
 * object) and shared by the checks that only need some existing record to send to.
 */
export function sharedPathForRecord(ctx: CheckContext, op: Operation): Promise<RecordPath> {
  let byPath = recordCache.get(ctx.fixtures);
  if (!byPath) {
    byPath = new Map();
    recordCache.set(ctx.fixtures, byPath);
  }
  const key = op.path;
  let found = byPath.get(key);
  if (!found) {
    found = pathForRecord(asSetup(ctx), op, 104729);
    byPath.set(key, found);
    // A failed creation is not cached: a later check may try again.
    found.then(
      (r) => {
        if (!r.values) byPath!.delete(key);
      },
      () => byPath!.delete(key),
    );
  }
  return found;
}

/** Requests a creation-free check needs a record for: 1 when the operation's path names a created record. */
export const recordCost = (op: Operation, spec: { operations: Operation[] }): number =>
  needsCreatedRecord({ spec }, op) ? 1 : 0;
