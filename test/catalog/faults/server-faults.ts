/**
 * The reference server's own fault catalogue: each fault is the reference server with one
 * behaviour broken through its generic `configure(app, internals)` seam (Fastify hooks, or a
 * wrapped validator/authenticator/store method). The shipped server contains none of this.
 * test/catalog/faults/faults.test.ts proves that each fault really changes what the server answers.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operationIdOf, type ReferenceInternals, type ReferenceServerOptions } from '../../../src/server/index.js';
import type { ValidationIssue } from '../../../src/validators/index.js';
import type { CatchSpec } from './catches.js';

/** A named fault: what the runner's faults also satisfy (they add `lenient`). */
export interface ServerFault {
  name: string;
  /** One line: what is broken. */
  description: string;
  /**
   * The check ids this fault must make fail: the one fault → check mapping, read by
   * test/checks/checks.test.ts (each pair run on its own server) and test/checks/registry.test.ts
   * (every check is caught by some fault). Empty for a correct server (lenient variants) and for a
   * fault the contract leaves unjudged.
   */
  catches: readonly CatchSpec[];
  /** Server options the fault needs (e.g. a small rate limit). */
  options?: Partial<ReferenceServerOptions>;
  configure(app: FastifyInstance, internals: ReferenceInternals): void | Promise<void>;
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type When = (request: FastifyRequest, reply: FastifyReply) => boolean;

const op =
  (...ids: string[]): When =>
  (request) =>
    ids.includes(operationIdOf(request) ?? '');
const statusIs =
  (code: number): When =>
  (_request, reply) =>
    reply.statusCode === code;
const always: When = () => true;

/** Rewrites the JSON body of matching responses. */
function rewriteJson(app: FastifyInstance, when: When, transform: (json: Json) => Json): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!when(request, reply) || typeof payload !== 'string' || payload === '') return payload;
    try {
      return JSON.stringify(transform(JSON.parse(payload)));
    } catch {
      return payload;
    }
  });
}

/** Edits the headers of matching responses. */
function editHeaders(app: FastifyInstance, when: When, edit: (reply: FastifyReply) => void): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (when(request, reply)) edit(reply);
    return payload;
  });
}

/**
 * Accepts one value just outside a bound of the spec (read from `spec.bounds()`): the issue the
 * validator reports for exactly that value is dropped.
 */
function acceptOutOfBound(internals: ReferenceInternals, field: string, side: 'minimum' | 'maximum'): void {
  const bounds = internals.spec.bounds().filter((b) => b.field === field);
  if (bounds.length === 0) throw new Error(`the spec states no bound on ${field}`);
  const original = internals.validateRequest;
  internals.validateRequest = (operationId, parts) => {
    const result = original(operationId, parts);
    if (result.ok) return result;
    const bound = bounds.find((b) => b.operationId === operationId);
    const limit = bound?.[side];
    if (limit === undefined) return result;
    const offByOne = side === 'minimum' ? limit - 1 : limit + 1;
    const issues = result.issues.filter(
      (i) => !(i.rule === side && i.pointer === `/${field}` && i.actual === offByOne),
    );
    if (issues.length > 0) return { ok: false, issues };
    // Nothing else was wrong: validate again with the bound value, then put the sent value back.
    const body = { ...(parts.body as Json), [field]: limit };
    const retry = original(operationId, { ...parts, body });
    if (!retry.ok) return retry;
    return { ok: true, value: { ...retry.value, body: { ...(retry.value.body as Json), [field]: offByOne } } };
  };
}

/** Rejects a request with one extra issue when `reject` says so. */
function rejectAlso(
  internals: ReferenceInternals,
  reject: (operationId: string, body: Json) => ValidationIssue | undefined,
): void {
  const original = internals.validateRequest;
  internals.validateRequest = (operationId, parts) => {
    const issue = reject(operationId, parts.body);
    return issue ? { ok: false, issues: [issue] } : original(operationId, parts);
  };
}

/** Rewrites the query the operation sees after validation. */
function editQuery(
  internals: ReferenceInternals,
  operationId: string,
  edit: (query: Record<string, unknown>) => void,
): void {
  const original = internals.validateRequest;
  internals.validateRequest = (id, parts) => {
    const result = original(id, parts);
    if (result.ok && id === operationId) edit(result.value.query);
    return result;
  };
}

function bumpHeader(reply: FastifyReply, name: string, to: (n: number) => string): void {
  const value = Number(reply.getHeader(name));
  if (Number.isFinite(value)) reply.header(name, to(value));
}

export const serverFaults: ServerFault[] = [
  // ---- ranges (bounds read from the spec) -------------------------------------------------------
  {
    name: 'range-max-concurrency-above-max',
    catches: [{ check: 'ranges.max-concurrency-above-maximum', kind: 'accepted-invalid', field: '/max_concurrency' }],
    description: 'max_concurrency one above its maximum (201) is accepted',
    configure: (_app, internals) => acceptOutOfBound(internals, 'max_concurrency', 'maximum'),
  },
  {
    name: 'range-max-concurrency-below-min',
    catches: [{ check: 'ranges.max-concurrency-below-minimum', kind: 'accepted-invalid', field: '/max_concurrency' }],
    description: 'max_concurrency one below its minimum (0) is accepted',
    configure: (_app, internals) => acceptOutOfBound(internals, 'max_concurrency', 'minimum'),
  },
  {
    name: 'range-machine-detection-above-max',
    catches: [{ check: 'ranges.machine-detection-timeout-seconds-above-maximum', kind: 'accepted-invalid' }],
    description: 'machine_detection_timeout_seconds one above its maximum (61) is accepted',
    configure: (_app, internals) => acceptOutOfBound(internals, 'machine_detection_timeout_seconds', 'maximum'),
  },
  {
    name: 'range-machine-detection-below-min',
    catches: [{ check: 'ranges.machine-detection-timeout-seconds-below-minimum', kind: 'accepted-invalid' }],
    description: 'machine_detection_timeout_seconds one below its minimum (2) is accepted',
    configure: (_app, internals) => acceptOutOfBound(internals, 'machine_detection_timeout_seconds', 'minimum'),
  },
  {
    name: 'range-violation-400',
    catches: [
      { check: 'ranges.max-concurrency-above-maximum', kind: 'status' },
      { check: 'ranges.machine-detection-timeout-seconds-below-minimum', kind: 'status' },
    ],
    description: 'a range violation is answered 400 instead of 422',
    configure(app) {
      editHeaders(
        app,
        (_r, reply) => reply.statusCode === 422,
        (reply) => reply.code(400),
      );
    },
  },
  // ---- validation error body -------------------------------------------------------------------
  {
    name: 'error-422-wrong-shape',
    catches: [
      { check: 'validation.wrong-type', kind: 'validation-body' },
      { check: 'validation.non-integer-query', kind: 'validation-body' },
    ],
    description: 'the 422 body is {errors: [{field, message}]}, not {detail: [{loc, msg, type}]}',
    configure(app) {
      rewriteJson(app, statusIs(422), (json) => ({
        errors: (json.detail ?? []).map((d: Json) => ({ field: String(d.loc?.[d.loc.length - 1]), message: d.msg })),
      }));
    },
  },
  {
    name: 'error-422-loc-without-location',
    catches: [],
    description: 'loc in the 422 body leaves out where the fault is (body/query/path)',
    configure(app) {
      rewriteJson(app, statusIs(422), (json) => ({
        detail: (json.detail ?? []).map((d: Json) => ({ ...d, loc: d.loc.slice(1) })),
      }));
    },
  },
  {
    name: 'malformed-json-500',
    catches: [
      { check: 'validation.malformed-json', kind: 'status' },
      { check: 'robustness.no-5xx-invalid', kind: 'status' },
    ],
    description: 'a malformed JSON body crashes the server (500) instead of a 422',
    configure(app) {
      app.addHook('onSend', async (_request, reply, payload) => {
        if (reply.statusCode === 422 && typeof payload === 'string' && payload.includes('json_invalid')) {
          reply.code(500);
          return JSON.stringify({ detail: 'Internal Server Error' });
        }
        return payload;
      });
    },
  },
  // ---- rate-limit headers and 429 ---------------------------------------------------------------
  {
    name: 'ratelimit-reset-missing',
    catches: [
      { check: 'ratelimit.headers-present', kind: 'schema', field: '/x-ratelimit-reset' },
      { check: 'schema.response-conforms', kind: 'schema', field: '/x-ratelimit-reset' },
    ],
    description: 'X-RateLimit-Reset is never sent',
    configure: (app) => editHeaders(app, always, (reply) => reply.removeHeader('x-ratelimit-reset')),
  },
  {
    name: 'ratelimit-limit-not-integer',
    catches: [{ check: 'ratelimit.headers-present', kind: 'schema' }],
    description: 'X-RateLimit-Limit is not an integer ("100.0")',
    configure: (app) => editHeaders(app, always, (reply) => bumpHeader(reply, 'x-ratelimit-limit', (n) => `${n}.0`)),
  },
  {
    name: 'ratelimit-remaining-above-limit',
    catches: [{ check: 'ratelimit.headers-present', kind: 'mismatch', field: '/x-ratelimit-remaining' }],
    description: 'X-RateLimit-Remaining is larger than X-RateLimit-Limit',
    configure: (app) =>
      editHeaders(app, always, (reply) => {
        const limit = Number(reply.getHeader('x-ratelimit-limit'));
        if (Number.isFinite(limit)) reply.header('x-ratelimit-remaining', String(limit + 5));
      }),
  },
  {
    name: 'ratelimit-never-429',
    catches: ['ratelimit.burst-429'],
    description: 'past the advertised limit the server keeps answering (a fresh bucket every `limit` requests)',
    options: { rateLimit: 5 },
    configure(_app, internals) {
      let count = 0;
      internals.rateLimitKey = () => `bucket-${Math.floor(count++ / internals.rateLimit.max)}`;
    },
  },
  {
    name: 'ratelimit-429-without-detail',
    catches: ['ratelimit.burst-429'],
    description: 'the 429 body is {error: "..."}, without detail',
    options: { rateLimit: 5 },
    configure: (app) => rewriteJson(app, statusIs(429), () => ({ error: 'too many requests' })),
  },
  // ---- authentication --------------------------------------------------------------------------
  {
    name: 'auth-skipped-list-calls',
    catches: [
      { check: 'auth.missing-credentials', kind: 'status' },
      { check: 'auth.wrong-credentials', kind: 'status' },
    ],
    description: 'GET /calls is served without any credentials',
    configure(_app, internals) {
      const original = internals.authenticate;
      internals.authenticate = (operation, headers) => operation.id === 'listCalls' || original(operation, headers);
    },
  },
  {
    name: 'auth-user-id-ignored',
    catches: [{ check: 'auth.missing-credentials', kind: 'status' }],
    description: 'any X-User-ID value (or none) is accepted with the right bearer',
    configure(_app, internals) {
      const original = internals.authenticate;
      internals.authenticate = (operation, headers) =>
        original(operation, { ...headers, 'x-user-id': internals.store.userId });
    },
  },
  {
    name: 'regenerate-requires-user-id',
    catches: ['stateful.regenerate-key'],
    description: 'key regeneration (documented with the bearer only) also demands X-User-ID',
    configure(_app, internals) {
      const original = internals.authenticate;
      internals.authenticate = (operation, headers) =>
        original(operation, headers) &&
        (operation.id !== 'regenerateApiKey' || headers['x-user-id'] === internals.store.userId);
    },
  },
  {
    name: 'error-401-without-detail',
    catches: [
      { check: 'auth.missing-credentials', kind: 'error-detail', field: '/detail' },
      { check: 'auth.malformed-bearer', kind: 'error-detail', field: '/detail' },
    ],
    description: 'the 401 body is {message: "..."}, without detail',
    configure: (app) => rewriteJson(app, statusIs(401), () => ({ message: 'unauthorized' })),
  },
  // ---- GET /calls --------------------------------------------------------------------------------
  {
    name: 'call-duration-string',
    catches: [{ check: 'schema.response-conforms', kind: 'schema', field: '/0/duration_seconds' }],
    description: 'Call.duration_seconds is a string ("42") instead of an integer',
    configure: (app) =>
      rewriteJson(app, op('listCalls'), (json) =>
        Array.isArray(json) ? json.map((c) => ({ ...c, duration_seconds: String(c.duration_seconds) })) : json,
      ),
  },
  {
    name: 'call-missing-to-number',
    catches: [{ check: 'schema.response-conforms', kind: 'schema' }],
    description: 'the required Call field to_number is left out',
    configure: (app) =>
      rewriteJson(app, op('listCalls'), (json) =>
        Array.isArray(json) ? json.map(({ to_number: _dropped, ...rest }) => rest) : json,
      ),
  },
  {
    name: 'calls-limit-not-applied',
    catches: ['schema.calls-limit'],
    description: 'GET /calls ignores limit (returns every call after offset)',
    configure: (_app, internals) => editQuery(internals, 'listCalls', (q) => (q['limit'] = Number.MAX_SAFE_INTEGER)),
  },
  {
    name: 'calls-offset-not-applied',
    catches: ['schema.calls-offset'],
    description: 'GET /calls ignores offset',
    configure: (_app, internals) => editQuery(internals, 'listCalls', (q) => (q['offset'] = 0)),
  },
  {
    name: 'calls-provider-not-applied',
    catches: ['schema.calls-provider-filter'],
    description: 'GET /calls ignores the provider filter',
    configure: (_app, internals) => editQuery(internals, 'listCalls', (q) => delete q['provider']),
  },
  // ---- campaigns ---------------------------------------------------------------------------------
  {
    name: 'create-omits-campaign-context',
    catches: ['stateful.get-returns-created'],
    description: 'campaign_context sent on create is not stored nor echoed',
    configure(_app, internals) {
      const store = internals.store;
      const original = store.createCampaign.bind(store);
      store.createCampaign = (body) => {
        const { campaign_context: _dropped, ...rest } = body;
        return original(rest);
      };
    },
  },
  {
    name: 'create-drops-camelcase-schedule',
    catches: ['stateful.get-returns-created'],
    description:
      'scheduleStartTime/scheduleEndTime sent on create do not land in schedule_start_time/schedule_end_time',
    configure(_app, internals) {
      const store = internals.store;
      const original = store.createCampaign.bind(store);
      store.createCampaign = (body) => {
        const { scheduleStartTime: _s, scheduleEndTime: _e, ...rest } = body;
        return original(rest);
      };
    },
  },
  {
    name: 'update-not-stored',
    catches: ['stateful.update-persists'],
    description: 'PATCH answers the changed record but does not store it (GET shows the old values)',
    configure(_app, internals) {
      const store = internals.store;
      store.updateCampaign = (id, body) => {
        const current = store.renderCampaign(id);
        if (!current) return undefined;
        const merged = { ...current };
        for (const [key, value] of Object.entries(body)) if (key in merged) merged[key] = value;
        return store.updatedShape(merged);
      };
    },
  },
  {
    name: 'update-status-paused-rejected',
    catches: [{ check: 'stateful.update-status-values', kind: 'rejected-valid', field: '/status' }],
    description: 'PATCH rejects status "paused", a value of the update enum, with 422',
    configure: (_app, internals) =>
      rejectAlso(internals, (operationId, body) =>
        operationId === 'updateCampaign' && body?.status === 'paused'
          ? {
              pointer: '/status',
              location: 'body',
              rule: 'enum',
              expected: ['draft', 'running'],
              actual: 'paused',
              message: 'body /status must be one of draft, running',
            }
          : undefined,
      ),
  },
  {
    name: 'update-returns-full-record',
    catches: ['stateful.update-record-shape'],
    description: 'PATCH returns the full record, including the six fields the update record omits',
    configure(app, internals) {
      rewriteJson(
        app,
        (r, reply) => op('updateCampaign')(r, reply) && reply.statusCode < 300,
        (json) => internals.store.renderCampaign(json.id) ?? json,
      );
    },
  },
  // ---- CORS --------------------------------------------------------------------------------------
  {
    name: 'cors-preflight-no-allow-origin',
    catches: ['cors.preflight-allow-origin'],
    description: 'the documented preflights answer without Access-Control-Allow-Origin',
    configure: (app) =>
      editHeaders(app, op('preflightUserCredential', 'preflightChatLogs', 'preflightChatSessions'), (reply) =>
        reply.removeHeader('access-control-allow-origin'),
      ),
  },
  // ---- robustness and response encoding ---------------------------------------------------------
  {
    name: 'unicode-body-500',
    catches: [{ check: 'robustness.no-5xx-valid', kind: 'status' }],
    description: 'a request body with a non-ASCII character crashes the server (500)',
    configure(app) {
      app.addHook('preHandler', async (request) => {
        if (request.body !== undefined && /[^\x00-\x7f]/.test(JSON.stringify(request.body)))
          throw new Error('cannot encode');
      });
    },
  },
  {
    name: 'response-invalid-json',
    catches: [{ check: 'schema.response-conforms', kind: 'invalid-json' }],
    description: 'GET /health answers a truncated, invalid JSON body under application/json',
    configure(app) {
      app.addHook('onSend', async (request, _reply, payload) =>
        operationIdOf(request) === 'getHealth' && typeof payload === 'string' ? payload.slice(0, -1) : payload,
      );
    },
  },
  {
    name: 'response-wrong-content-type',
    catches: [{ check: 'schema.response-conforms', kind: 'content-type' }],
    description: 'GET /protected answers its JSON body as text/html',
    configure: (app) =>
      editHeaders(app, op('getProtected'), (reply) => reply.header('content-type', 'text/html; charset=utf-8')),
  },
];
