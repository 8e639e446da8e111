/**
 * schema: every response of every operation (to valid, fully-populated requests) matches what the
 * contract documents for its status: documented status, content type, body schema and the
 * documented headers; GET /calls honours limit (never more items than asked, default 50), offset
 * and the provider filter (sections 2, 4, 8).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/checks/check.js';
import { judgeAnswer } from '../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../src/results/model.js';
import type { Operation } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import { validBody } from '../src/generators/index.js';
import { validateResponse } from '../src/validators/index.js';
import { contractFixtures } from './fixtures.js';
import {
  Findings,
  OK,
  checkProperty,
  fail,
  genOptions,
  isSuccess,
  judgeResponse,
  label,
  missingPathParams,
  openRule,
  ownPathForRecord,
  pathValues,
  RATE_LIMITED,
  recordCost,
  unjudged,
  request,
  validCreateRefused,
  skipped,
  statusText,
  type Judgement,
  preflightHeaders,
  noRecord,
} from './lib.js';

const BODY_CASES = 2;

/** Judges a response to a valid request: refused valid requests first, then the documented shape. */
/** The id sent where a preflight's path needs one and the run has none (named in failures). */
const PLACEHOLDER_ID = 'vapc-placeholder';

function judgeValid(ctx: CheckContext, op: Operation, exchange: Exchange, placeholder = false): Judgement {
  const where = placeholder ? ` (its path holds the placeholder id ${PLACEHOLDER_ID})` : '';
  const what = `a valid request to ${label(op)}${where}`;
  const rules = {
    what,
    expected: 'a documented success answer to a valid request',
    open: (res: { status: number }) =>
      isSuccess(res.status) || res.status === 401 || (!op.requestBody && res.status === 422)
        ? undefined
        : openRule(ctx, op, exchange, { valid: true, placeholder, what, expected: 'a success answer' }),
  };
  return judgeAnswer(ctx, op, exchange, rules, (res) => {
    if (isSuccess(res.status)) return judgeResponse(ctx, op, exchange, placeholder ? { placeholder, what } : {});
    if (res.status === 401)
      return fail(
        ctx,
        exchange,
        'valid credentials served (section 5)',
        'status 401',
        `${label(op)} refused valid credentials (401)`,
        undefined,
        { kind: KIND.status },
      );
    return fail(
      ctx,
      exchange,
      'a success answer to a valid request',
      `status ${res.status}: ${res.text.slice(0, 160)}`,
      `${label(op)} refused a valid request${where} (${res.status})`,
      undefined,
      { kind: KIND.status },
    );
  });
}

/**
 * A success answer to a request the wire validator calls valid (whoever sent it): the answers
 * response-conforms judges passively. Refusals stay with the checks that sent them (a 401 to a
 * wrong key is right), and an invalid request's success answer with the checks of that input.
 */
export function isValidSuccess(ctx: CheckContext, op: Operation, exchange: Exchange): boolean {
  const res = exchange.response;
  if (!res || !isSuccess(res.status)) return false;
  const wire = ctx.validateWire(op, exchange);
  return wire.available && wire.valid;
}

/**
 * Others' answers with a null where a response field not marked required stands read as absent:
 * their inputs (an empty speech_settings {}) may leave optional fields unset, which a framework
 * answers as null (the fastapi-like correct server); no record field is marked required. A null
 * where a required field stands still fails (as that field missing).
 */
function nullsAsAbsent(op: Operation, exchange: Exchange): Exchange {
  const res = exchange.response!;
  const result = validateResponse(op.id, res.status, { headers: res.headers, body: res.json });
  if (result.ok) return exchange;
  const nulls = result.issues.filter(
    (issue) => issue.location === 'body' && issue.actual === null && issue.pointer !== '',
  );
  if (!nulls.length) return exchange;
  const body = structuredClone(res.json);
  for (const { pointer } of nulls) {
    const parts = pointer
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const parent = parts
      .slice(0, -1)
      .reduce<unknown>(
        (at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined),
        body,
      );
    if (parent && typeof parent === 'object' && !Array.isArray(parent))
      delete (parent as Record<string, unknown>)[parts[parts.length - 1]!];
  }
  return { ...exchange, response: { ...res, json: body } };
}

export const responseConforms = defineCheck({
  id: 'schema.response-conforms',
  suite: 'schema',
  rule: 'The response to a valid request has a documented status, the documented content type, headers (X-RateLimit-* as integers) and a body matching the documented schema (every success answer to a valid request of the run is judged, whoever sent it; its own requests only where no other check got one)',
  contractRef: '2, 4, 7, 8',
  severity: 'critical',
  expects: 'success',
  core: true,
  // Operations with outside effects are exercised (and their responses validated) by the stateful suite.
  appliesTo: (op) => !op.sideEffects,
  // Covered (another check sends on the operation first): none of its own, but one where that
  // check may send only refused probes (a read without inputs: the auth suite's), an upper bound.
  plannedRequests: (op, runs, spec, options) => {
    if (options?.covered) return op.method === 'GET' && op.parameters.length === 0 ? 1 : 0;
    return (op.requestBody ? Math.min(runs, BODY_CASES) : 1) + recordCost(op, spec);
  },
  judgeExchange: (ctx, op, exchange) =>
    isValidSuccess(ctx, op, exchange) ? judgeResponse(ctx, op, nullsAsAbsent(op, exchange)) : undefined,
  async run(ctx, op) {
    // Every success answer to a valid request on the operation was judged as it came (judgeExchange):
    // requests of its own only where no other check got one.
    const elsewhere = ctx.judgedElsewhere?.().judged ?? 0;
    if (elsewhere > 0)
      return skipped(`no request of its own: the answers other checks got on ${label(op)} were judged`, {
        cause: 'covered',
      });
    let values: Record<string, string> = pathValues(ctx, op);
    let placeholder = false;
    if (missingPathParams(ctx, op).length) {
      // A record of its own, never an invented id: with none, nothing can be judged. A preflight
      // is answered ahead of any lookup, so there a placeholder id is fine (and named as one).
      const own = await ownPathForRecord(ctx, op, 89);
      if (own.values) values = own.values;
      else if (op.method === 'OPTIONS') {
        placeholder = true;
        values = Object.fromEntries(
          op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, values[p.name] ?? PLACEHOLDER_ID]),
        );
      } else return noRecord(op, own);
    }
    // A create learns first what the server requires of a valid body (the pairing), once per run.
    await validCreateRefused(ctx, op);
    const headers = op.method === 'OPTIONS' ? preflightHeaders(ctx.spec) : undefined;
    const findings = new Findings();
    const send = async (body: unknown): Promise<Judgement> => {
      const parts: Parameters<typeof request>[2] = { pathValues: values };
      if (headers) parts.headers = headers;
      if (body !== undefined) parts.json = body;
      const exchange = await ctx.send(request(op, ctx, parts));
      return judgeValid(ctx, op, exchange, placeholder);
    };
    if (op.requestBody) {
      findings.add(
        await checkProperty(ctx, validBody(op, genOptions(ctx)), send, { numRuns: Math.min(ctx.runs, BODY_CASES) }),
      );
    } else {
      findings.add(await send(undefined));
    }
    return findings.outcome(`${label(op)} answers as documented`);
  },
});

const param = (op: Operation, name: string) => op.parameters.find((p) => p.in === 'query' && p.name === name);
const hasPaging = (op: Operation): boolean => Boolean(param(op, 'limit') && op.method === 'GET');

/**
 * One page of the list, with `conforms`: every page read is also judged against the documented
 * response (its items past the first page's 50 included, which only limit=51 brings back).
 */
async function list(
  ctx: CheckContext,
  op: Operation,
  query: Array<[string, string]>,
): Promise<{ exchange: Exchange; items?: unknown[]; conforms: Judgement }> {
  const exchange = await ctx.send(request(op, ctx, query.length ? { query } : {}));
  const json = exchange.response?.json;
  const items = exchange.response && isSuccess(exchange.response.status) && Array.isArray(json) ? json : undefined;
  // Not a list: the caller judges that (notAList); its page conformance judged nothing.
  const conforms = items
    ? judgeResponse(ctx, op, exchange, {
        what: `${label(op)} with ${query.map(([k, v]) => `${k}=${v}`).join('&') || 'no query'}`,
      })
    : exchange.response?.status === 429
      ? RATE_LIMITED
      : unjudged('no list to judge against the documented response', { cause: 'elsewhere' });
  return items ? { exchange, items, conforms } : { exchange, conforms };
}

/** The facts of a list that says the wrong thing: a mismatch of its body. */
const listFacts = (exchange: Exchange) => ({
  kind: KIND.mismatch,
  field: { location: 'response', pointer: '', status: String(exchange.response?.status ?? '') },
});

const idOf = (item: unknown): string => JSON.stringify((item as { id?: unknown })?.id ?? item);

/** A list read that gave no JSON array: through the one start (a 429 judges nothing, a 403 these credentials were served contradicts), then a failure. */
function notAList(ctx: CheckContext, op: Operation, exchange: Exchange, what: string): Judgement {
  const expected = `a JSON array answering ${what} (section 4.1)`;
  const open = (res: { status: number }) =>
    isSuccess(res.status) ? undefined : openRule(ctx, op, exchange, { valid: true, what, expected });
  return judgeAnswer(ctx, op, exchange, { what, expected, open }, () =>
    fail(ctx, exchange, expected, statusText(exchange), `${label(op)} ${what} did not answer a JSON array`, undefined, {
      kind: exchange.response && isSuccess(exchange.response.status) ? KIND.schema : KIND.status,
      ...(exchange.response && isSuccess(exchange.response.status)
        ? { field: { location: 'response', pointer: '', status: String(exchange.response.status) } }
        : {}),
    }),
  );
}

export const callsLimit = defineCheck({
  id: 'schema.calls-limit',
  suite: 'schema',
  rule: 'GET /calls?limit=k never returns more than k calls, limit=0 included (refusing it with 422 is allowed; each page read is also judged against the documented response)',
  contractRef: '4.1',
  severity: 'major',
  expects: 'success',
  appliesTo: hasPaging,
  // limit=0 (read as "not given") and 2 (one more, or all) are the edges faults hit; one random k besides.
  plannedRequests: (_op, runs) => 2 + Math.min(runs, 1),
  async run(ctx, op) {
    const findings = new Findings();
    findings.add(
      await checkProperty(
        ctx,
        fc.integer({ min: 1, max: 20 }),
        async (k) => {
          const { exchange, items, conforms } = await list(ctx, op, [['limit', String(k)]]);
          // limit=0 may be refused (the contract states no minimum), but if answered, with no call:
          // a server reading 0 as "not given" returns the default page.
          if (k === 0 && exchange.response?.status === 422) return OK;
          if (!items) return notAList(ctx, op, exchange, `limit=${k}`);
          if (items.length > k)
            return fail(
              ctx,
              exchange,
              `at most ${k} calls for limit=${k}`,
              `${items.length} calls`,
              `GET with limit=${k} returned ${items.length} calls`,
              k,
              listFacts(exchange),
            );
          return conforms;
        },
        { examples: [0, 2], numRuns: Math.min(ctx.runs, 1) },
      ),
    );
    return findings.outcome('never more calls than limit');
  },
});

export const callsDefaultLimit = defineCheck({
  id: 'schema.calls-default-limit',
  suite: 'schema',
  rule: 'GET /calls without limit pages with the documented default (50): never more, and exactly that many when more exist (each page read, limit=51 included, is also judged against the documented response)',
  contractRef: '4.1, 8',
  severity: 'major',
  expects: 'success',
  appliesTo: (op) => hasPaging(op) && typeof param(op, 'limit')!.schema['default'] === 'number',
  plannedRequests: () => 2,
  async run(ctx, op) {
    const def = param(op, 'limit')!.schema['default'] as number;
    const findings = new Findings();
    const plain = await list(ctx, op, []);
    findings.add(plain.conforms);
    if (!plain.items) {
      findings.add(notAList(ctx, op, plain.exchange, 'without query'));
      return findings.outcome('');
    }
    if (plain.items.length > def) {
      findings.add(
        fail(
          ctx,
          plain.exchange,
          `at most ${def} calls without limit (default ${def})`,
          `${plain.items.length} calls`,
          `GET without limit returned ${plain.items.length} calls; the default limit is ${def}`,
          undefined,
          listFacts(plain.exchange),
        ),
      );
      return findings.outcome('');
    }
    const more = await list(ctx, op, [['limit', String(def + 1)]]);
    findings.add(more.conforms);
    if (more.items && more.items.length > def && plain.items.length !== def) {
      findings.add(
        fail(
          ctx,
          plain.exchange,
          `${def} calls without limit when more exist (default ${def})`,
          `${plain.items.length} calls (limit=${def + 1} gave ${more.items.length})`,
          `GET without limit returned ${plain.items.length} calls while more exist; the default limit is ${def}`,
          undefined,
          listFacts(plain.exchange),
        ),
      );
    }
    if (more.items && more.items.length <= def) {
      ctx.observe({
        operation: label(op),
        message: `only ${more.items.length} calls exist, so the default limit of ${def} could be judged only as an upper bound`,
      });
    }
    return findings.outcome(`default limit ${def} honoured`);
  },
});

export const callsOffset = defineCheck({
  id: 'schema.calls-offset',
  suite: 'schema',
  rule: 'GET /calls?offset=o skips o calls: with a stable order and no call added meanwhile, limit=n-1&offset=1 is the page limit=n&offset=0 without its first call (each page read is also judged against the documented response)',
  contractRef: '4.1, 8',
  severity: 'major',
  expects: 'success',
  appliesTo: (op) => hasPaging(op) && Boolean(param(op, 'offset')),
  plannedRequests: () => 3,
  async run(ctx, op) {
    const n = 6;
    const findings = new Findings();
    const first = await list(ctx, op, [
      ['limit', String(n)],
      ['offset', '0'],
    ]);
    findings.add(first.conforms);
    if (!first.items) {
      findings.add(notAList(ctx, op, first.exchange, `limit=${n}&offset=0`));
      return findings.outcome('');
    }
    if (first.items.length < 2)
      return skipped(`only ${first.items.length} calls: offset cannot be judged`, { cause: 'untestable' });
    const shifted = await list(ctx, op, [
      ['limit', String(n - 1)],
      ['offset', '1'],
    ]);
    findings.add(shifted.conforms);
    if (!shifted.items) {
      findings.add(notAList(ctx, op, shifted.exchange, `limit=${n - 1}&offset=1`));
      return findings.outcome('');
    }
    // The first page read again after the shifted one: the same page brackets the shifted read, so
    // a call placed meanwhile (a running campaign dials) or an unstable order shows, and is not
    // mistaken for an offset that skipped the wrong calls.
    const again = await list(ctx, op, [
      ['limit', String(n)],
      ['offset', '0'],
    ]);
    findings.add(again.conforms);
    if (!again.items) {
      findings.add(notAList(ctx, op, again.exchange, `limit=${n}&offset=0 (read again)`));
      return findings.outcome('');
    }
    if (again.items.map(idOf).join() !== first.items.map(idOf).join()) {
      ctx.observe({
        operation: label(op),
        message:
          'the first page changed between two identical reads (calls added, or an unstable order; neither is specified), so offset was not judged',
      });
      // The pages were judged against the documented response, offset was not: no pass for it.
      if (findings.failures.length > 0) return findings.outcome('');
      return skipped('the list changed while it was read (calls added or the order not stable): offset not judged', {
        cause: 'untestable',
      });
    }
    const want = first.items.slice(1).map(idOf);
    const got = shifted.items.map(idOf);
    if (want.join() !== got.join()) {
      findings.add(
        fail(
          ctx,
          shifted.exchange,
          `the calls ${want.join(', ')} (offset 1 of the first page)`,
          `the calls ${got.join(', ')}`,
          `offset=1 did not skip exactly one call`,
          undefined,
          listFacts(shifted.exchange),
        ),
      );
    }
    return findings.outcome('offset skips the calls asked');
  },
});

export const callsProviderFilter = defineCheck({
  id: 'schema.calls-provider-filter',
  suite: 'schema',
  rule: 'GET /calls?provider=p returns only calls whose provider is p, and some when unfiltered calls of p exist (each page read is also judged against the documented response)',
  contractRef: '4.1, 2.1',
  severity: 'major',
  expects: 'success',
  appliesTo: (op) => op.method === 'GET' && Boolean(param(op, 'provider')),
  plannedRequests: () => 3,
  async run(ctx, op) {
    const findings = new Findings();
    const all = await list(ctx, op, [['limit', '50']]);
    findings.add(all.conforms);
    const seen = new Set(
      (all.items ?? [])
        .map((c) => (c as { provider?: unknown })?.provider)
        .filter((p): p is string => typeof p === 'string'),
    );
    const { channels } = contractFixtures(ctx.fixtures);
    const providers = (channels?.length ? channels : [...seen]).slice(0, 2);
    if (!providers.length)
      return skipped('no provider identifier known (fixtures.channels) and no call to read one from', {
        cause: 'untestable',
      });
    for (const provider of providers) {
      const filtered = await list(ctx, op, [
        ['provider', provider],
        ['limit', '50'],
      ]);
      findings.add(filtered.conforms);
      if (!filtered.items) {
        findings.add(notAList(ctx, op, filtered.exchange, `provider=${provider}`));
        continue;
      }
      const other = filtered.items.find((c) => (c as { provider?: unknown })?.provider !== provider);
      if (other) {
        findings.add(
          fail(
            ctx,
            filtered.exchange,
            `only calls with provider ${provider}`,
            `a call with provider ${JSON.stringify((other as { provider?: unknown }).provider)}`,
            `provider=${provider} returned calls of another provider`,
            provider,
            listFacts(filtered.exchange),
          ),
        );
      } else if (filtered.items.length === 0 && seen.has(provider)) {
        findings.add(
          fail(
            ctx,
            filtered.exchange,
            `the calls of provider ${provider} (some exist)`,
            'an empty list',
            `provider=${provider} returned no calls although calls of ${provider} exist`,
            provider,
            listFacts(filtered.exchange),
          ),
        );
      }
    }
    return findings.outcome(`provider filter honoured for ${providers.join(', ')}`);
  },
});

export const schemaChecks: CheckDefinition[] = [
  responseConforms,
  callsLimit,
  callsDefaultLimit,
  callsOffset,
  callsProviderFilter,
];
