/**
 * Faults the suites' tests need beyond the reference server's catalogue: the reference server with
 * one behaviour broken through its `configure` seam (hooks on the Fastify app, wrapped internals).
 * Each names the checks it must trip (`catches`). Lenient variants (`lenient: true`) are correct servers of a
 * different strictness that every check must pass (the `..._no_false_positive` tests).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operationIdOf, type ReferenceInternals } from '../../../src/server/index.js';
import type { ValidationIssue } from '../../../src/validators/index.js';
import { getPointer, numericTargets } from '../../../src/generators/index.js';
import type { ServerFault } from './server-faults.js';

/** A fault of the runner's tests; `catches` as in ServerFault (empty for lenient variants). */
export interface Fault extends ServerFault {
  /** A correct server of another strictness: every check must pass. */
  lenient?: boolean;
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Rewrites JSON response bodies of matching requests. */
function onSendJson(
  app: FastifyInstance,
  when: (request: FastifyRequest, reply: FastifyReply) => boolean,
  transform: (json: Json, request: FastifyRequest, reply: FastifyReply) => Json,
): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!when(request, reply) || typeof payload !== 'string' || payload === '') return payload;
    let json: Json;
    try {
      json = JSON.parse(payload);
    } catch {
      return payload;
    }
    const out = transform(json, request, reply);
    return out === undefined ? payload : JSON.stringify(out);
  });
}

/** Rewrites response headers of matching requests. */
function onSendHeaders(
  app: FastifyInstance,
  when: (request: FastifyRequest, reply: FastifyReply) => boolean,
  edit: (reply: FastifyReply) => void,
): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (when(request, reply)) edit(reply);
    return payload;
  });
}

type Validate = ReferenceInternals['validateRequest'];
/** Wraps the request validation the server applies. */
function wrapValidate(internals: ReferenceInternals, wrap: (original: Validate) => Validate): void {
  internals.validateRequest = wrap(internals.validateRequest.bind(internals));
}

/** Drops validation issues matching `drop` (the server then accepts that kind of fault). */
function ignoreIssues(
  internals: ReferenceInternals,
  drop: (issue: ValidationIssue, operationId: string) => boolean,
): void {
  wrapValidate(internals, (original) => (operationId, parts) => {
    const result = original(operationId, parts);
    if (result.ok) return result;
    const issues = result.issues.filter((i) => !drop(i, operationId));
    if (issues.length) return { ok: false, issues };
    return {
      ok: true,
      value: {
        path: { ...parts.path },
        query: coerceQuery(parts.query),
        headers: { ...parts.headers },
        body: parts.body,
      },
    };
  });
}

function coerceQuery(query: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(query ?? {})) out[k] = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  return out;
}

/** Adds a validation failure when `reject` says so. */
function addIssue(
  internals: ReferenceInternals,
  reject: (operationId: string, body: Json) => ValidationIssue | undefined,
): void {
  wrapValidate(internals, (original) => (operationId, parts) => {
    const issue = reject(operationId, parts.body);
    if (issue) return { ok: false, issues: [issue] };
    return original(operationId, parts);
  });
}

const opIs =
  (...ids: string[]) =>
  (request: FastifyRequest) =>
    ids.includes(operationIdOf(request) ?? '');
const status = (code: number) => (_request: FastifyRequest, reply: FastifyReply) => reply.statusCode === code;
const bearer = (request: { headers: Record<string, unknown> }) => String(request.headers['authorization'] ?? '');

function authenticateAlso(
  internals: ReferenceInternals,
  accept: (headers: Record<string, unknown>, opId: string) => boolean,
): void {
  const original = internals.authenticate.bind(internals);
  internals.authenticate = (op, headers) => original(op, headers) || accept(headers as Record<string, unknown>, op.id);
}
const rightUser = (internals: ReferenceInternals, headers: Record<string, unknown>) =>
  headers['x-user-id'] === internals.store.userId;

/** A server that answers 500 to a JSON object body matching `crashes` (POST and PATCH). */
function bodyCrash(
  name: string,
  description: string,
  catches: string[],
  crashes: (body: Record<string, Json>) => boolean,
): Fault {
  return {
    name,
    description,
    catches,
    configure(app) {
      app.addHook('preHandler', async (request, reply) => {
        const body = request.body as Json;
        const hit =
          request.method !== 'GET' &&
          request.method !== 'OPTIONS' &&
          body &&
          typeof body === 'object' &&
          !Array.isArray(body) &&
          crashes(body);
        return hit ? reply.code(500).send({ detail: 'Internal Server Error' }) : undefined;
      });
    },
  };
}

export const runnerFaults: Fault[] = [
  // ---- auth ------------------------------------------------------------------------------------
  {
    name: 'user-id-not-required',
    description: 'X-User-ID is not checked: a request with the bearer only is served',
    catches: [
      { check: 'auth.missing-credentials', kind: 'status' },
      { check: 'auth.empty-credentials', kind: 'status' },
    ],
    configure(_app, internals) {
      authenticateAlso(internals, (h) => bearer({ headers: h }) === `Bearer ${internals.store.apiKey}`);
    },
  },
  {
    name: 'wrong-user-id-accepted',
    description:
      'X-User-ID must be present, but any value is served with a valid bearer (a user id naming no user is an invalid credential, 5.5)',
    catches: [{ check: 'auth.wrong-credentials', kind: 'status' }],
    configure(_app, internals) {
      authenticateAlso(
        internals,
        (h) =>
          bearer({ headers: h }) === `Bearer ${internals.store.apiKey}` &&
          typeof h['x-user-id'] === 'string' &&
          h['x-user-id'] !== '',
      );
    },
  },
  {
    name: 'api-key-prefix-accepted',
    description: 'any bearer that starts with the real key is let in (a comparison by prefix)',
    catches: [{ check: 'auth.wrong-credentials', kind: 'status' }],
    configure(_app, internals) {
      authenticateAlso(
        internals,
        (h) =>
          String(h['authorization'] ?? '').startsWith(`Bearer ${internals.store.apiKey}`) &&
          h['x-user-id'] === internals.store.userId,
      );
    },
  },
  {
    name: 'bearer-trailing-words-accepted',
    description: 'the bearer is read up to the first space: "Bearer <key> junk" is let in',
    catches: [{ check: 'auth.wrong-credentials', kind: 'status' }],
    configure(_app, internals) {
      authenticateAlso(
        internals,
        (h) =>
          String(h['authorization'] ?? '').split(' ')[1] === internals.store.apiKey &&
          h['x-user-id'] === internals.store.userId,
      );
    },
  },
  {
    name: 'user-id-prefix-accepted',
    description: 'any X-User-ID that starts with the real user id is let in',
    catches: [{ check: 'auth.wrong-credentials', kind: 'status' }],
    configure(_app, internals) {
      authenticateAlso(
        internals,
        (h) =>
          bearer({ headers: h }) === `Bearer ${internals.store.apiKey}` &&
          String(h['x-user-id'] ?? '').startsWith(internals.store.userId),
      );
    },
  },
  {
    name: 'empty-bearer-accepted',
    description: 'an Authorization header of "Bearer " with nothing after it is served',
    catches: [{ check: 'auth.empty-credentials', kind: 'status' }],
    configure(_app, internals) {
      authenticateAlso(
        internals,
        (h, id) => /^Bearer\s*$/.test(bearer({ headers: h })) && (rightUser(internals, h) || id !== 'getCurrentUser'),
      );
    },
  },
  {
    name: 'any-scheme-accepted',
    description: 'the key is accepted under any scheme (Basic, Token) or without one',
    catches: [{ check: 'auth.malformed-bearer', kind: 'status' }],
    configure(_app, internals) {
      authenticateAlso(
        internals,
        (h) =>
          bearer({ headers: h }).endsWith(internals.store.apiKey) &&
          (rightUser(internals, h) || h['x-user-id'] === undefined),
      );
    },
  },
  {
    name: 'any-bearer-accepted',
    description: 'any bearer token is served as long as the user id is right',
    catches: [
      { check: 'auth.wrong-credentials', kind: 'status' },
      { check: 'auth.malformed-bearer', kind: 'status' },
    ],
    configure(_app, internals) {
      authenticateAlso(internals, (h) => /^Bearer \S+$/.test(bearer({ headers: h })) && rightUser(internals, h));
    },
  },
  {
    name: 'unauthorized-body-plain',
    description: 'the 401 body is plain text, not {detail: string}',
    catches: [
      { check: 'auth.missing-credentials', kind: 'error-detail', field: '/detail' },
      { check: 'auth.wrong-credentials', kind: 'error-detail', field: '/detail' },
    ],
    configure(app) {
      app.addHook('onSend', async (_request, reply, payload) => {
        if (reply.statusCode !== 401) return payload;
        reply.header('content-type', 'text/plain');
        return 'Unauthorized';
      });
    },
  },
  {
    name: 'unauthorized-detail-empty',
    description:
      'the 401 body is {detail: ""}: a string with no message in it, where section 7 has the message say the credentials are invalid (the wording itself is free: "No." is only observed)',
    catches: [
      { check: 'auth.missing-credentials', kind: 'error-detail', field: '/detail' },
      { check: 'auth.wrong-credentials', kind: 'error-detail', field: '/detail' },
    ],
    configure(app) {
      onSendJson(
        app,
        (_request, reply) => reply.statusCode === 401,
        () => ({ detail: '' }),
      );
    },
  },
  {
    name: 'health-requires-auth',
    description: 'GET /health answers 401 without credentials',
    catches: ['auth.health-open'],
    configure(app) {
      app.addHook('onRequest', async (request, reply) => {
        if (operationIdOf(request) === 'getHealth' && !request.headers['authorization'])
          return reply.code(401).send({ detail: 'Invalid authentication credentials' });
        return undefined;
      });
    },
  },
  {
    name: 'preflight-requires-user-id',
    description: 'the bearer-only operations also demand X-User-ID',
    catches: [{ check: 'auth.bearer-only', kind: 'status' }],
    configure(app) {
      app.addHook('onRequest', async (request, reply) => {
        if (request.method === 'OPTIONS' && !request.headers['x-user-id'])
          return reply.code(401).send({ detail: 'Invalid authentication credentials' });
        return undefined;
      });
    },
  },
  {
    name: 'protected-wrong-user',
    description: 'GET /protected answers another user id',
    catches: [{ check: 'auth.protected-echoes-user-id', kind: 'mismatch', field: '/user_id' }],
    configure(app) {
      onSendJson(app, opIs('getProtected'), (json) => ({ ...json, user_id: 'someone-else' }));
    },
  },
  {
    name: 'protected-message-without-user',
    description: "GET /protected echoes user_id but its message does not contain the user id (4.12's second clause)",
    catches: [{ check: 'auth.protected-echoes-user-id', kind: 'mismatch', field: '/message' }],
    configure(app) {
      onSendJson(app, opIs('getProtected'), (json) => ({ ...json, message: 'Hello, caller' }));
    },
  },
  // ---- validation --------------------------------------------------------------------------------
  {
    name: 'body-types-unchecked',
    description: 'wrong JSON types in bodies are accepted',
    catches: [{ check: 'validation.wrong-type', kind: 'accepted-invalid' }],
    configure(_app, internals) {
      ignoreIssues(internals, (i) => i.location === 'body' && i.rule === 'type');
    },
  },
  {
    name: 'string-fields-take-numbers',
    description: 'a number is accepted where a string is stated (recipients[].phone_number: 7)',
    catches: [{ check: 'validation.wrong-type', kind: 'accepted-invalid' }],
    configure(_app, internals) {
      ignoreIssues(
        internals,
        (i) =>
          i.location === 'body' &&
          i.rule === 'type' &&
          typeof i.actual === 'number' &&
          String(i.expected).includes('string'),
      );
    },
  },
  {
    name: 'integer-fields-take-fractions',
    description: 'a non-integral number is accepted where an integer is stated (short_term_summaries_limit: 2.5)',
    catches: [{ check: 'validation.wrong-type', kind: 'accepted-invalid' }],
    configure(_app, internals) {
      ignoreIssues(
        internals,
        (i) =>
          i.location === 'body' &&
          i.rule === 'type' &&
          typeof i.actual === 'number' &&
          String(i.expected).includes('integer'),
      );
    },
  },
  {
    name: 'object-fields-take-arrays',
    description: 'an array is accepted where an object is stated (retry_policy: [])',
    catches: [{ check: 'validation.wrong-type', kind: 'accepted-invalid' }],
    configure(_app, internals) {
      ignoreIssues(
        internals,
        (i) =>
          i.location === 'body' &&
          i.rule === 'type' &&
          Array.isArray(i.actual) &&
          String(i.expected).includes('object'),
      );
    },
  },
  {
    name: 'channel-unchecked',
    description: 'any channel string is accepted, not only the two provider ids (4.2)',
    catches: [{ check: 'validation.enum-violation', kind: 'accepted-invalid' }],
    configure(_app, internals) {
      ignoreIssues(internals, (i) => i.pointer === '/channel' && i.rule === 'enum');
    },
  },
  {
    name: 'enum-ignores-case',
    description: 'the status enum is compared ignoring case ("DRAFT" is taken as draft)',
    catches: [{ check: 'validation.enum-violation', kind: 'accepted-invalid' }],
    configure(_app, internals) {
      wrapValidate(internals, (original) => (operationId, parts) => {
        const body = parts.body as Json;
        if (body && typeof body === 'object' && typeof body.status === 'string')
          return original(operationId, { ...parts, body: { ...body, status: body.status.toLowerCase() } });
        return original(operationId, parts);
      });
    },
  },
  {
    name: 'validation-loc-vague',
    description: 'the 422 names only ["body"] in loc, never the field',
    catches: [
      { check: 'validation.wrong-type', kind: 'loc' },
      { check: 'validation.enum-violation', kind: 'loc' },
    ],
    configure(app) {
      onSendJson(app, status(422), (json) => ({
        detail: (json.detail ?? []).map((d: Json) => ({ ...d, loc: ['body'] })),
      }));
    },
  },
  {
    name: 'validation-loc-wrong-location',
    description: 'the 422 loc puts a body fault under "query" and a query fault under "body"',
    catches: ['validation.loc-names-location'],
    configure(app) {
      const swap: Record<string, string> = { body: 'query', query: 'body' };
      onSendJson(app, status(422), (json) => ({
        detail: (json.detail ?? []).map((d: Json) => ({
          ...d,
          loc: Array.isArray(d.loc) ? [swap[d.loc[0]] ?? d.loc[0], ...d.loc.slice(1)] : d.loc,
        })),
      }));
    },
  },
  {
    name: 'validation-body-shape',
    description: 'the 422 body is {error: string}, not the validation error body',
    catches: [
      { check: 'validation.wrong-type', kind: 'validation-body' },
      { check: 'validation.malformed-json', kind: 'validation-body' },
      { check: 'validation.non-integer-query', kind: 'validation-body' },
    ],
    configure(app) {
      onSendJson(app, status(422), () => ({ error: 'invalid request' }));
    },
  },
  {
    name: 'enum-unchecked',
    description: 'values outside an enum are accepted',
    catches: [{ check: 'validation.enum-violation', kind: 'accepted-invalid' }],
    configure(_app, internals) {
      ignoreIssues(internals, (i) => i.rule === 'enum');
    },
  },
  {
    name: 'malformed-json-400',
    description: 'malformed JSON is answered 400 instead of 422',
    catches: [{ check: 'validation.malformed-json', kind: 'status' }],
    configure(app) {
      app.addHook('onSend', async (_request, reply, payload) => {
        if (reply.statusCode === 422 && typeof payload === 'string' && payload.includes('json_invalid'))
          reply.code(400);
        return payload;
      });
    },
  },
  {
    name: 'query-types-unchecked',
    description: 'non-integer limit and offset are accepted (and ignored)',
    catches: [{ check: 'validation.non-integer-query', kind: 'accepted-invalid' }],
    configure(_app, internals) {
      wrapValidate(internals, (original) => (operationId, parts) => {
        const query = { ...(parts.query ?? {}) };
        for (const [k, v] of Object.entries(query))
          if (typeof v === 'string' && !/^-?\d+$/.test(v) && k !== 'provider') delete query[k];
        return original(operationId, { ...parts, query });
      });
    },
  },
  // ---- ranges ------------------------------------------------------------------------------------
  ...(['max_concurrency', 'machine_detection_timeout_seconds'] as const).flatMap((field): Fault[] => [
    {
      name: `${field}-minimum-off-by-one`,
      description: `${field} one below its minimum is accepted`,
      catches: [`ranges.${field.replace(/_/g, '-')}-below-minimum`],
      configure(_app, internals) {
        ignoreIssues(
          internals,
          (i) =>
            i.rule === 'minimum' &&
            i.pointer === `/${field}` &&
            typeof i.expected === 'number' &&
            i.actual === i.expected - 1,
        );
      },
    },
    {
      name: `${field}-maximum-off-by-one`,
      description: `${field} one above its maximum is accepted`,
      catches: [`ranges.${field.replace(/_/g, '-')}-above-maximum`],
      configure(_app, internals) {
        ignoreIssues(
          internals,
          (i) =>
            i.rule === 'maximum' &&
            i.pointer === `/${field}` &&
            typeof i.expected === 'number' &&
            i.actual === i.expected + 1,
        );
      },
    },
    {
      name: `${field}-maximum-rejected`,
      description: `${field} at its maximum is rejected (exclusive bound)`,
      catches: [`ranges.${field.replace(/_/g, '-')}-in-range`],
      configure(_app, internals) {
        const maxima = new Map(
          internals.spec
            .bounds()
            .filter((b) => b.field === field)
            .map((b) => [b.operationId, b.maximum]),
        );
        addIssue(internals, (operationId, body) => {
          const max = maxima.get(operationId);
          if (max === undefined || body?.[field] !== max) return undefined;
          return {
            pointer: `/${field}`,
            location: 'body',
            rule: 'maximum',
            expected: max - 1,
            actual: max,
            message: `/${field} must be < ${max}`,
          };
        });
      },
    },
  ]),
  {
    name: 'machine-detection-zero-skipped',
    description: 'machine_detection_timeout_seconds 0 skips the range check (a falsy value taken as absent)',
    catches: ['ranges.machine-detection-timeout-seconds-below-minimum'],
    configure(_app, internals) {
      ignoreIssues(
        internals,
        (i) => i.rule === 'minimum' && i.pointer === '/machine_detection_timeout_seconds' && i.actual === 0,
      );
    },
  },
  // ---- numeric edges (ranges.numeric-edges) ------------------------------------------------------
  {
    name: 'calls-negative-offset-500',
    description: 'GET /calls answers 500 to a negative offset (the contract states no minimum; an SQL OFFSET -1 fails)',
    catches: [{ check: 'ranges.numeric-edges', kind: 'status' }],
    configure(app) {
      app.addHook('preHandler', async (request, reply) => {
        if (operationIdOf(request) !== 'listCalls') return undefined;
        const offset = new URLSearchParams(request.url.split('?')[1] ?? '').get('offset');
        return offset !== null && /^-\d+$/.test(offset)
          ? reply.code(500).send({ detail: 'Internal Server Error' })
          : undefined;
      });
    },
  },
  bodyCrash(
    'int32-overflow-500',
    'a body integer past int32 (2^31 or more) crashes the server (an int32 column)',
    ['ranges.numeric-edges', 'ranges.max-concurrency-above-maximum'],
    (b) => Object.values(b).some((v) => typeof v === 'number' && Number.isInteger(v) && Math.abs(v) > 2 ** 31 - 1),
  ),
  {
    name: 'integer-field-numeric-string-500',
    description: 'an integer body field sent as a numeric string ("-1") crashes the server (arithmetic on a string)',
    catches: [{ check: 'ranges.numeric-edges', kind: 'status' }],
    configure(app, internals) {
      app.addHook('preHandler', async (request, reply) => {
        const id = operationIdOf(request);
        const body = request.body as Json;
        if (!id || !body || typeof body !== 'object') return undefined;
        const targets = numericTargets(internals.spec.operation(id)).filter((t) => t.location === 'body');
        const hit = targets.some(
          (t) =>
            typeof getPointer(body, t.pointer!) === 'string' && /^-?\d+$/.test(getPointer(body, t.pointer!) as string),
        );
        return hit ? reply.code(500).send({ detail: 'Internal Server Error' }) : undefined;
      });
    },
  },
  // ---- schema ------------------------------------------------------------------------------------
  {
    name: 'assistant-name-number',
    description: 'GET /assistants returns name as a number',
    catches: [{ check: 'schema.response-conforms', kind: 'schema' }],
    configure(app) {
      onSendJson(app, opIs('listAssistants'), (json) =>
        Array.isArray(json) ? json.map((a) => ({ ...a, name: 42 })) : json,
      );
    },
  },
  {
    name: 'calls-item-past-50-malformed',
    description: 'on pages longer than 50, the 51st call has duration_seconds as a string and no provider',
    catches: ['schema.calls-default-limit'],
    configure(app) {
      onSendJson(app, opIs('listCalls'), (json) =>
        Array.isArray(json) && json.length > 50
          ? json.map((c: Json, i: number) =>
              i === 50 ? { ...c, duration_seconds: String(c.duration_seconds ?? 1), provider: undefined } : c,
            )
          : json,
      );
    },
  },
  {
    name: 'calls-limit-zero-ignored',
    description: 'GET /calls?limit=0 answers the default page (0 taken as "not given")',
    catches: ['schema.calls-limit'],
    configure(_app, internals) {
      wrapValidate(internals, (original) => (operationId, parts) => {
        if (operationId !== 'listCalls' || parts.query?.['limit'] !== '0') return original(operationId, parts);
        const { limit: _zero, ...query } = parts.query;
        return original(operationId, { ...parts, query });
      });
    },
  },
  {
    name: 'calls-limit-plus-one',
    description: 'GET /calls returns one call more than limit',
    catches: ['schema.calls-limit'],
    configure(app) {
      onSendJson(
        app,
        (r) => opIs('listCalls')(r) && 'limit' in (r.query as object),
        (json) => (Array.isArray(json) && json.length ? [...json, json[0]] : json),
      );
    },
  },
  {
    name: 'calls-default-limit-20',
    description: 'GET /calls without limit returns 20 calls',
    catches: ['schema.calls-default-limit'],
    configure(app) {
      onSendJson(
        app,
        (r) => opIs('listCalls')(r) && !('limit' in (r.query as object)),
        (json) => (Array.isArray(json) ? json.slice(0, 20) : json),
      );
    },
  },
  {
    name: 'calls-offset-ignored',
    description: 'GET /calls ignores offset',
    catches: ['schema.calls-offset'],
    configure(_app, internals) {
      wrapValidate(internals, (original) => (operationId, parts) => {
        const result = original(operationId, parts);
        if (result.ok && operationId === 'listCalls') result.value.query['offset'] = 0;
        return result;
      });
    },
  },
  {
    name: 'calls-provider-ignored',
    description: 'GET /calls ignores the provider filter',
    catches: ['schema.calls-provider-filter'],
    configure(_app, internals) {
      wrapValidate(internals, (original) => (operationId, parts) => {
        const result = original(operationId, parts);
        if (result.ok && operationId === 'listCalls') delete result.value.query['provider'];
        return result;
      });
    },
  },
  // ---- stateful ----------------------------------------------------------------------------------
  {
    name: 'create-drops-schedule',
    description: 'the created record carries another schedule start than the one sent',
    catches: ['stateful.create-echoes'],
    configure(app) {
      onSendJson(app, opIs('createCampaign'), (json) =>
        json && json.id ? { ...json, schedule_start_time: '1999-01-01T00:00:00Z' } : json,
      );
    },
  },
  {
    name: 'get-wraps-differently',
    description: 'GET /campaign/{id} returns the record under `data`, not `campaign`',
    catches: ['stateful.get-returns-created'],
    configure(app) {
      onSendJson(app, opIs('getCampaign'), (json) =>
        json && json.campaign ? { data: json.campaign, counts: json.counts, calls: json.calls } : json,
      );
    },
  },
  {
    name: 'update-not-persisted',
    description: 'PATCH answers the change but GET still shows the old name',
    catches: ['stateful.update-persists'],
    configure(app) {
      onSendJson(app, opIs('getCampaign'), (json) =>
        json && json.campaign ? { ...json, campaign: { ...json.campaign, name: 'stale name' } } : json,
      );
    },
  },
  {
    name: 'update-drops-false',
    description: 'PATCH skips fields sent as false (a falsy value taken as absent): the record keeps true',
    catches: ['stateful.update-persists'],
    configure(_app, internals) {
      wrapValidate(internals, (original) => (operationId, parts) => {
        const body = parts.body as Json;
        if (operationId !== 'updateCampaign' || !body || typeof body !== 'object' || Array.isArray(body))
          return original(operationId, parts);
        return original(operationId, {
          ...parts,
          body: Object.fromEntries(Object.entries(body).filter(([, v]) => v !== false)),
        });
      });
    },
  },
  {
    name: 'status-not-persisted',
    description: 'PATCH answers the status as set, but GET still shows draft',
    catches: ['stateful.update-status-values'],
    configure(app) {
      onSendJson(app, opIs('getCampaign'), (json) =>
        json && json.campaign ? { ...json, campaign: { ...json.campaign, status: 'draft' } } : json,
      );
    },
  },
  {
    name: 'status-scheduled-rejected',
    description: 'PATCH rejects status "scheduled" as outside the enum',
    catches: ['stateful.update-status-values'],
    configure(_app, internals) {
      addIssue(internals, (operationId, body) =>
        operationId === 'updateCampaign' && body?.status === 'scheduled'
          ? {
              pointer: '/status',
              location: 'body',
              rule: 'enum',
              expected: ['draft', 'running', 'paused', 'completed'],
              actual: 'scheduled',
              message: '/status must be one of draft, running, paused, completed',
            }
          : undefined,
      );
    },
  },
  {
    name: 'recipient-answer-array',
    description: 'adding a recipient answers a JSON array, not an object',
    catches: ['stateful.add-recipient'],
    configure(app) {
      onSendJson(
        app,
        (r, reply) => opIs('addRecipient')(r) && reply.statusCode < 300,
        () => [],
      );
    },
  },
  {
    name: 'invite-wrong-email',
    description: 'the created invite carries another email than the one sent',
    catches: ['stateful.create-invite'],
    configure(app) {
      onSendJson(
        app,
        (r, reply) => opIs('createInvite')(r) && reply.statusCode < 300,
        (json) => ({ ...json, email: 'someone@else.example' }),
      );
    },
  },
  {
    name: 'regenerate-returns-same-key',
    description: 'regeneration rotates nothing and answers the key already in use',
    catches: ['stateful.regenerate-key'],
    configure(_app, internals) {
      const store = internals.store;
      store.regenerateKey = (keyId: string) =>
        keyId === store.data.apiKey.id
          ? { key: store.apiKey, id: store.data.apiKey.id, name: store.data.apiKey.name, upgraded: false }
          : undefined;
    },
  },
  {
    name: 'regenerated-key-unusable',
    description: 'the key returned by regeneration is not the one the server accepts',
    catches: ['stateful.regenerate-key'],
    configure(app) {
      onSendJson(
        app,
        (r, reply) => opIs('regenerateApiKey')(r) && reply.statusCode < 300,
        (json) => ({ ...json, key: 'vapc_not_the_key' }),
      );
    },
  },
  {
    name: 'regenerated-key-fake-old-kept',
    description: 'regeneration answers a key the server does not accept and leaves the key in use working',
    catches: ['stateful.regenerate-key'],
    configure(_app, internals) {
      const store = internals.store;
      store.regenerateKey = (keyId: string) =>
        keyId === store.data.apiKey.id
          ? {
              key: 'vapc_9f3Kq2m8X1x7Z4w6T0p5',
              id: store.data.apiKey.id,
              name: store.data.apiKey.name,
              upgraded: false,
            }
          : undefined;
    },
  },
  {
    name: 'example-string-secrets',
    description:
      'like a mock answering its schema\'s examples: the invite token and the regenerated key are the word "string"',
    catches: ['stateful.regenerate-key'],
    configure(app) {
      onSendJson(
        app,
        (r, reply) => opIs('createInvite')(r) && reply.statusCode < 300,
        (json) => ({ ...json, token: 'string' }),
      );
      onSendJson(
        app,
        (r, reply) => opIs('regenerateApiKey')(r) && reply.statusCode < 300,
        (json) => ({ ...json, key: 'string' }),
      );
    },
  },
  // ---- ratelimit ---------------------------------------------------------------------------------
  {
    name: 'remaining-header-missing',
    description: 'X-RateLimit-Remaining is never sent',
    catches: [
      { check: 'ratelimit.headers-present', kind: 'schema', field: '/x-ratelimit-remaining' },
      { check: 'schema.response-conforms', kind: 'schema', field: '/x-ratelimit-remaining' },
    ],
    configure(app) {
      onSendHeaders(
        app,
        () => true,
        (reply) => reply.removeHeader('x-ratelimit-remaining'),
      );
    },
  },
  {
    name: 'remaining-stuck',
    description: 'X-RateLimit-Remaining always equals the limit',
    catches: ['ratelimit.remaining-decreases'],
    configure(app, internals) {
      onSendHeaders(
        app,
        () => true,
        (reply) => reply.header('x-ratelimit-remaining', String(internals.rateLimit.max)),
      );
    },
  },
  {
    name: 'reset-implausible',
    description: 'X-RateLimit-Reset is 999999 (neither seconds within a day nor an epoch)',
    catches: [{ check: 'ratelimit.reset-plausible', kind: 'mismatch', field: '/x-ratelimit-reset' }],
    configure(app) {
      onSendHeaders(
        app,
        () => true,
        (reply) => reply.header('x-ratelimit-reset', '999999'),
      );
    },
  },
  {
    name: 'limit-overstated',
    description: 'the headers advertise 10 more requests than the server allows, so the 429 comes sooner',
    catches: ['ratelimit.burst-429'],
    options: { rateLimit: 20 },
    configure(app) {
      onSendHeaders(
        app,
        (_r, reply) => reply.statusCode !== 429,
        (reply) => {
          const limit = Number(reply.getHeader('x-ratelimit-limit'));
          const remaining = Number(reply.getHeader('x-ratelimit-remaining'));
          if (Number.isFinite(limit)) reply.header('x-ratelimit-limit', String(limit + 10));
          if (Number.isFinite(remaining)) reply.header('x-ratelimit-remaining', String(remaining + 10));
        },
      );
    },
  },
  {
    name: 'too-many-body-plain',
    description: 'the 429 body is plain text, not {detail: string}',
    catches: ['ratelimit.burst-429'],
    options: { rateLimit: 20 },
    configure(app) {
      app.addHook('onSend', async (_request, reply, payload) => {
        if (reply.statusCode !== 429) return payload;
        reply.header('content-type', 'text/plain');
        return 'slow down';
      });
    },
  },
  {
    name: 'too-many-detail-empty',
    description:
      'the 429 body is {detail: " "}: a string with no message in it, where section 7 has the message say the rate limit was exceeded (the wording itself is free)',
    catches: ['ratelimit.burst-429'],
    options: { rateLimit: 20 },
    configure(app) {
      onSendJson(
        app,
        (_request, reply) => reply.statusCode === 429,
        () => ({ detail: ' ' }),
      );
    },
  },
  {
    name: 'remaining-never-zero',
    description: 'X-RateLimit-Remaining never goes below 1 on a served answer, yet the next request gets 429',
    catches: ['ratelimit.burst-429'],
    options: { rateLimit: 20 },
    configure(app) {
      onSendHeaders(
        app,
        (_r, reply) => reply.statusCode !== 429,
        (reply) => {
          const remaining = Number(reply.getHeader('x-ratelimit-remaining'));
          if (Number.isFinite(remaining) && remaining < 1) reply.header('x-ratelimit-remaining', '1');
        },
      );
    },
  },
  {
    name: 'too-many-remaining-positive',
    description: 'the 429 advertises X-RateLimit-Remaining: 1 (the rule is 0: one off, where a `> 1` slips through)',
    catches: ['ratelimit.burst-429'],
    options: { rateLimit: 20 },
    configure(app) {
      onSendHeaders(
        app,
        (_r, reply) => reply.statusCode === 429,
        (reply) => reply.header('x-ratelimit-remaining', '1'),
      );
    },
  },
  // ---- cors --------------------------------------------------------------------------------------
  {
    name: 'preflight-405',
    description: 'the preflights are answered 405',
    catches: [{ check: 'cors.preflight-answered', kind: 'status' }],
    configure(app) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (request.method === 'OPTIONS') reply.code(405);
        return payload;
      });
    },
  },
  {
    name: 'preflight-no-allow-origin',
    description: 'the preflights carry no Access-Control-Allow-Origin',
    catches: ['cors.preflight-allow-origin'],
    configure(app) {
      onSendHeaders(
        app,
        (r) => r.method === 'OPTIONS',
        (reply) => reply.removeHeader('access-control-allow-origin'),
      );
    },
  },
  {
    name: 'preflight-no-allow-methods',
    description: 'the preflights carry no Access-Control-Allow-Methods',
    catches: ['cors.preflight-allow-methods'],
    configure(app) {
      onSendHeaders(
        app,
        (r) => r.method === 'OPTIONS',
        (reply) => reply.removeHeader('access-control-allow-methods'),
      );
    },
  },
  {
    name: 'preflight-headers-wildcard',
    description: 'the preflights allow the headers as *, which never covers Authorization in a browser',
    catches: ['cors.preflight-allow-headers'],
    configure(app) {
      onSendHeaders(
        app,
        (r) => r.method === 'OPTIONS',
        (reply) => reply.header('access-control-allow-headers', '*'),
      );
    },
  },
  {
    name: 'preflight-headers-narrow',
    description: 'the preflights allow only Content-Type',
    catches: ['cors.preflight-allow-headers'],
    configure(app) {
      onSendHeaders(
        app,
        (r) => r.method === 'OPTIONS',
        (reply) => reply.header('access-control-allow-headers', 'Content-Type'),
      );
    },
  },
  // ---- robustness --------------------------------------------------------------------------------
  {
    name: 'non-ascii-500',
    description: 'a body with a non-ASCII character crashes the server (500)',
    catches: [{ check: 'robustness.no-5xx-valid', kind: 'status' }],
    configure(app) {
      app.addHook('preHandler', async (request, reply) => {
        if (
          request.body !== undefined &&
          /[^\x20-\x7e]/.test(JSON.stringify(request.body).replace(/\\u[0-9a-f]{4}/gi, '\u0001'))
        ) {
          return reply.code(500).send({ detail: 'Internal Server Error' });
        }
        return undefined;
      });
    },
  },
  {
    name: 'non-object-body-500',
    description: 'a body that is not a JSON object crashes the server (500)',
    catches: [{ check: 'robustness.no-5xx-invalid', kind: 'status' }],
    configure(app) {
      app.addHook('preHandler', async (request, reply) => {
        const body = request.body;
        if (
          request.method !== 'GET' &&
          request.method !== 'OPTIONS' &&
          body !== undefined &&
          (body === null || typeof body !== 'object' || Array.isArray(body))
        ) {
          return reply.code(500).send({ detail: 'Internal Server Error' });
        }
        return undefined;
      });
    },
  },
  {
    name: 'large-body-500',
    description: 'a request body over 100 KiB crashes the server (500)',
    catches: [{ check: 'robustness.no-5xx-valid', kind: 'status' }],
    configure(app) {
      app.addHook('onRequest', async (request, reply) =>
        Number(request.headers['content-length'] ?? 0) > 100 * 1024
          ? reply.code(500).send({ detail: 'Internal Server Error' })
          : undefined,
      );
    },
  },
  bodyCrash(
    'unsafe-integer-500',
    'a body integer past 2^53 crashes the server (500)',
    ['ranges.numeric-edges', 'robustness.no-5xx-invalid'],
    (b) => Object.values(b).some((v) => typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)),
  ),
  bodyCrash(
    'null-field-500',
    'a body field sent as null crashes the server (500)',
    ['robustness.no-5xx-invalid'],
    (b) => Object.values(b).some((v) => v === null),
  ),
  {
    name: 'repeated-query-500',
    description: 'a query parameter given twice crashes the server (500)',
    catches: [{ check: 'robustness.no-5xx-invalid', kind: 'status' }],
    configure(app) {
      app.addHook('onRequest', async (request, reply) => {
        const names = [...new URLSearchParams(request.url.split('?')[1] ?? '').keys()];
        return new Set(names).size !== names.length
          ? reply.code(500).send({ detail: 'Internal Server Error' })
          : undefined;
      });
    },
  },
  bodyCrash(
    'empty-name-500',
    'a campaign name "" crashes the server (500)',
    ['robustness.no-5xx-valid'],
    (b) => b.name === '',
  ),
  bodyCrash('empty-object-500', 'speech_settings {} crashes the server (500)', ['robustness.no-5xx-valid'], (b) =>
    Boolean(b.speech_settings && typeof b.speech_settings === 'object' && Object.keys(b.speech_settings).length === 0),
  ),
  bodyCrash(
    'empty-body-500',
    'an empty JSON object as the body crashes the server (500)',
    ['robustness.no-5xx-valid'],
    (b) => Object.keys(b).length === 0,
  ),
  bodyCrash(
    'many-recipients-500',
    'more than 10 recipients crash the server (500)',
    ['robustness.no-5xx-valid'],
    (b) => Array.isArray(b.recipients) && b.recipients.length > 10,
  ),
  // ---- lenient variants: correct servers of another strictness -----------------------------------
  {
    name: 'lenient-coerces-numeric-strings',
    description: 'numeric strings are coerced to integers and "true"/"false" to booleans, as many frameworks do',
    catches: [],
    lenient: true,
    configure(_app, internals) {
      wrapValidate(
        internals,
        (original) => (operationId, parts) => original(operationId, { ...parts, body: coerceBody(parts.body) }),
      );
    },
  },
  {
    name: 'lenient-201-and-204',
    description: 'create answers 201, preflights 204 with no body',
    catches: [],
    lenient: true,
    configure(app) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode !== 200 && reply.statusCode !== 201) return payload;
        if (operationIdOf(request) === 'createCampaign') reply.code(201);
        if (request.method === 'OPTIONS') {
          reply.code(204);
          reply.removeHeader('content-type');
          return '';
        }
        return payload;
      });
    },
  },
  {
    name: 'lenient-reset-epoch',
    description: 'X-RateLimit-Reset is a Unix epoch in seconds',
    catches: [],
    lenient: true,
    configure(app) {
      onSendHeaders(
        app,
        () => true,
        (reply) => {
          const reset = Number(reply.getHeader('x-ratelimit-reset'));
          if (Number.isFinite(reset)) reply.header('x-ratelimit-reset', String(Math.ceil(Date.now() / 1000) + reset));
        },
      );
    },
  },
  {
    name: 'lenient-requires-name',
    description: 'campaign creation requires name and assistant_id (stricter where the contract is silent)',
    catches: [],
    lenient: true,
    configure(_app, internals) {
      addIssue(internals, (operationId, body) =>
        operationId === 'createCampaign' &&
        body &&
        typeof body === 'object' &&
        !Array.isArray(body) &&
        (body.name === undefined || body.assistant_id === undefined)
          ? {
              pointer: '',
              location: 'body',
              rule: 'required',
              expected: 'name',
              message: "/ must have required property 'name'",
            }
          : undefined,
      );
    },
  },
  {
    name: 'lenient-preflight-open',
    description: 'CORS preflights are answered 204 without looking at credentials, as CORS middleware does',
    catches: [],
    lenient: true,
    configure(app) {
      app.addHook('onRequest', async (request, reply) => {
        if (request.method !== 'OPTIONS') return undefined;
        return reply
          .code(204)
          .header('access-control-allow-origin', '*')
          .header('access-control-allow-methods', 'GET, POST, PATCH, OPTIONS')
          .header(
            'access-control-allow-headers',
            String(request.headers['access-control-request-headers'] ?? 'authorization, x-user-id'),
          )
          .send();
      });
    },
  },
  {
    name: 'lenient-update-nulls-omitted-fields',
    description:
      'PATCH answers the update record with the fields it omits present as null (a field not marked required may be absent or null)',
    catches: [],
    lenient: true,
    configure(app, internals) {
      // The omitted fields are those of the full record (what create answers) the update answer lacks.
      onSendJson(
        app,
        (request, reply) => opIs('updateCampaign')(request) && reply.statusCode < 300,
        (json) => {
          const full = internals.store.renderCampaign(json.id) ?? {};
          return {
            ...Object.fromEntries(
              Object.keys(full)
                .filter((f) => !(f in json))
                .map((f) => [f, null]),
            ),
            ...json,
          };
        },
      );
    },
  },
  {
    name: 'lenient-error-wording',
    description:
      'the 401 and 429 details are worded as common frameworks word them ("Not authenticated", "Too Many Requests")',
    catches: [],
    lenient: true,
    configure(app) {
      onSendJson(
        app,
        (_request, reply) => reply.statusCode === 401,
        () => ({ detail: 'Not authenticated' }),
      );
      onSendJson(
        app,
        (_request, reply) => reply.statusCode === 429,
        () => ({ detail: 'Too Many Requests' }),
      );
    },
  },
  {
    name: 'lenient-dotted-loc',
    description: 'a 422 loc names a nested member as one dotted item (["body", "speech_settings.style"])',
    catches: [],
    lenient: true,
    configure(app) {
      onSendJson(app, status(422), (json) => ({
        detail: (json.detail ?? []).map((d: Json) =>
          Array.isArray(d.loc) && d.loc.length > 2 ? { ...d, loc: [d.loc[0], d.loc.slice(1).join('.')] } : d,
        ),
      }));
    },
  },
  {
    name: 'lenient-refuses-negative-and-int32-overflow',
    description:
      'limit, offset and short_term_summaries_limit (no bound stated) refused with 422 when negative or past int32, as `ge=0` and int32 columns do',
    catches: [],
    lenient: true,
    configure(_app, internals) {
      refuseUnboundedOutsideInt32(internals);
    },
  },
  {
    name: 'lenient-wrong-user-404',
    description: 'unknown campaign ids get 404, and a wrong X-User-ID is answered 403',
    catches: [],
    lenient: true,
    configure(app, internals) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (
          reply.statusCode === 401 &&
          request.headers['x-user-id'] &&
          request.headers['x-user-id'] !== internals.store.userId &&
          bearer(request) === `Bearer ${internals.store.apiKey}`
        )
          reply.code(403);
        return payload;
      });
    },
  },
];

/**
 * Refuses, with 422 naming the parameter or field, integers the contract leaves unbounded when they
 * are negative or past int32: stricter where the contract is silent, as many real servers are
 * (`ge=0` on offset, an int32 column).
 */
function refuseUnboundedOutsideInt32(internals: ReferenceInternals): void {
  wrapValidate(internals, (original) => (operationId, parts) => {
    const issues: ValidationIssue[] = [];
    for (const t of numericTargets(internals.spec.operation(operationId))) {
      if (t.minimum !== undefined || t.maximum !== undefined || t.location === 'path') continue;
      const raw = t.location === 'query' ? parts.query?.[t.name] : getPointer(parts.body, t.pointer!);
      const n = typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
      if (typeof n !== 'number' || (n >= 0 && n <= 2 ** 31 - 1)) continue;
      const pointer = t.location === 'query' ? `/${t.name}` : t.pointer!;
      issues.push({
        pointer,
        location: t.location,
        rule: n < 0 ? 'minimum' : 'maximum',
        expected: n < 0 ? 0 : 2 ** 31 - 1,
        actual: n,
        message: `${pointer} must be within 0..${2 ** 31 - 1}`,
      });
    }
    return issues.length ? { ok: false, issues } : original(operationId, parts);
  });
}

function coerceBody(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(coerceBody);
  if (body && typeof body === 'object')
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, coerceBody(v)]));
  if (typeof body === 'string' && /^-?\d+$/.test(body)) return Number(body);
  if (body === 'true' || body === 'false') return body === 'true';
  return body;
}

export function runnerFault(name: string): Fault {
  const found = runnerFaults.find((f) => f.name === name);
  if (!found) throw new Error(`unknown runner fault ${name}`);
  return found;
}
