/** Request helpers: requests for an operation from fixtures, records created for paths that need one, CORS preflights. */
import type { CheckContext } from '../../src/checks/check.js';
import type { Operation, SpecModel } from '../../src/spec/model.js';
import type { Exchange, HttpRequest } from '../../src/transport/types.js';
import { fillPath, pathFixture, validBody } from '../../src/generators/index.js';
import { isSuccess, statusText } from './outcomes.js';
import { genOptions, sampleBodyOf } from './property.js';
import { label } from './spec-queries.js';

/**
 * Headers that make an OPTIONS request a CORS preflight, as a browser sends them: an origin, the
 * method, and the request headers the contract's security schemes name (read from the spec).
 */
export function preflightHeaders(spec: SpecModel): Record<string, string> {
  const asked = [...new Set(spec.securitySchemes.map((s) => s.header.toLowerCase()))].join(', ');
  return { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': asked };
}

/** Path parameter values from fixtures (and `extra`), for filling an operation's path. */
export function pathValues(ctx: CheckContext, op: Operation, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const v = extra[p.name] ?? pathFixture(p.name, ctx.fixtures);
    if (v !== undefined) out[p.name] = v;
  }
  return out;
}

export function missingPathParams(ctx: CheckContext, op: Operation, extra: Record<string, string> = {}): string[] {
  const have = pathValues(ctx, op, extra);
  return op.parameters.filter((p) => p.in === 'path' && have[p.name] === undefined).map((p) => p.name);
}

export function request(op: Operation, ctx: CheckContext, parts: Partial<HttpRequest> & { pathValues?: Record<string, string> } = {}): HttpRequest & { operation: Operation } {
  const { pathValues: values, ...rest } = parts;
  return { method: op.method, path: fillPath(op.path, pathValues(ctx, op, values)), operation: op, ...rest };
}

/** The POST operation whose success body is the record a path-parameter operation reads (createCampaign for /campaign/{id}). */
function creatorOf(ctx: { spec: { operations: Operation[] } }, op: Operation): Operation | undefined {
  const param = op.parameters.find((p) => p.in === 'path');
  if (!param) return undefined;
  const base = op.path.slice(0, op.path.indexOf(`/{${param.name}}`));
  return ctx.spec.operations.find((o) => o.method === 'POST' && o.path === base && o.requestBody);
}

/**
 * Creates a record through the creating operation of `op`'s path (POST /campaign for
 * /campaign/{campaign_id}) with a valid fully-populated body; returns its id, or why it could not.
 */
async function createRecord(ctx: CheckContext, op: Operation, salt = 0): Promise<{ id?: string; reason?: string; body?: unknown; exchange?: Exchange }> {
  const creator = creatorOf(ctx, op);
  if (!creator) return { reason: `no operation creates the records of ${op.path}` };
  const body = sampleBodyOf(ctx, validBody(creator, genOptions(ctx)), 7919 + salt);
  const exchange = await ctx.send(request(creator, ctx, { json: body }));
  const res = exchange.response;
  if (!res || !isSuccess(res.status)) return { reason: `${label(creator)} with a valid body answered ${res ? res.status : statusText(exchange)}`, exchange, body };
  const id = (res.json as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' && typeof id !== 'number') return { reason: `${label(creator)} returned no id`, exchange, body };
  return { id: String(id), body, exchange };
}

/** Path values for `op`, creating the record its path names when the fixtures do not have it. */
async function pathForRecord(ctx: CheckContext, op: Operation, salt = 0): Promise<{ values?: Record<string, string>; reason?: string }> {
  const missing = missingPathParams(ctx, op);
  if (!missing.length) return { values: pathValues(ctx, op) };
  if (creatorOf(ctx, op)) {
    const created = await createRecord(ctx, op, salt);
    if (!created.id) return { reason: created.reason ?? 'could not create a record' };
    return { values: pathValues(ctx, op, { [missing[0]!]: created.id }) };
  }
  return { reason: `no ${missing.join(', ')} fixture (path parameter of ${label(op)})` };
}

/** Operations that need a created record for their path (`/campaign/{campaign_id}`): some operation creates it. */
const needsCreatedRecord = (ctx: { spec: { operations: Operation[] } }, op: Operation): boolean => creatorOf(ctx, op) !== undefined;

const recordCache = new WeakMap<object, Map<string, Promise<{ values?: Record<string, string>; reason?: string }>>>();

/**
 * Like `pathForRecord`, but the record is created once per run (cached on the run's fixtures
 * object) and shared by the checks that only need some existing record to send to.
 */
export function sharedPathForRecord(ctx: CheckContext, op: Operation): Promise<{ values?: Record<string, string>; reason?: string }> {
  let byPath = recordCache.get(ctx.fixtures);
  if (!byPath) {
    byPath = new Map();
    recordCache.set(ctx.fixtures, byPath);
  }
  const key = op.path;
  let found = byPath.get(key);
  if (!found) {
    // Tagged `setup`: made for whichever check needs it first, so coverage credits no check with it.
    const setup = Object.assign(Object.create(ctx) as CheckContext, { send: (r: Parameters<CheckContext['send']>[0]) => ctx.send({ ...r, checkId: 'setup' }) });
    found = pathForRecord(setup, op, 104729);
    byPath.set(key, found);
    // A failed creation is not cached: a later check may try again.
    found.then((r) => {
      if (!r.values) byPath!.delete(key);
    }, () => byPath!.delete(key));
  }
  return found;
}

/** Requests a creation-free check needs a record for: 1 when the operation's path names a created record. */
export const recordCost = (op: Operation, spec: { operations: Operation[] }): number => (needsCreatedRecord({ spec }, op) ? 1 : 0);
