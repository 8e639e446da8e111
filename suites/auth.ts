/**
 * auth: every credential the contract requires, tried missing, empty, malformed and wrong, gets
 * 401 with {detail: string}; health answers without credentials; the operations documented with
 * the bearer only work with the bearer only; GET /protected echoes the user id (sections 4.12, 5, 7).
 * Every case of a check goes to one operation (GET /users/me) and one case of each check to every
 * other operation, fixed across seeds (`coveringPick`): docs/checks.md says what that leaves out.
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext, type CheckDefinition } from '../src/checks/check.js';
import { judgeAnswer } from '../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../src/results/model.js';
import { credentialHeader, type Credential, type Operation, type SpecModel } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import {
  Findings,
  OK,
  checkProperty,
  errorDetailProblem,
  errorDetailWording,
  unjudged,
  isCredentialedRead,
  recordCost,
  fail,
  isSuccess,
  judgeResponse,
  label,
  sampleBody,
  sharedPathForRecord,
  request,
  skipped,
  statusText,
  successSchema,
  type Judgement,
  preflightHeaders,
} from './lib.js';
import { propertiesOf } from '../src/generators/index.js';

const UNAUTHORIZED = 'a 401 with {detail: string} saying the credentials are invalid (sections 5.5, 7)';

/** The documented credential headers of an operation, with the run's values. */
function documentedHeaders(ctx: CheckContext, op: Operation): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of op.credentials) {
    const header = credentialHeader(ctx.spec, c);
    if (c === 'bearer') out[header] = `Bearer ${ctx.credentials.apiKey ?? ''}`;
    else out[header] = ctx.credentials.userId ?? '';
  }
  return out;
}

function judge401(ctx: CheckContext, op: Operation, exchange: Exchange, what: string, input?: unknown): Judgement {
  const rules = { what, expected: UNAUTHORIZED, input };
  return judgeAnswer(ctx, op, exchange, rules, (res) => {
    if (res.status !== 401 && op.method === 'OPTIONS') {
      // Browsers send CORS preflights without credentials: a preflight served without them is
      // noted, not failed (the contract documents these with the bearer; see 4.11 and rule 5.4),
      // and judges nothing (the same answer would come if credentials were checked elsewhere).
      ctx.observe({
        operation: label(op),
        message: `the preflight with ${what} was answered ${res.status}, not 401 (browsers send preflights without credentials)`,
      });
      return unjudged(`the preflight with ${what} was answered ${res.status}: credentials are not read there`, {
        cause: 'untestable',
        status: res.status,
      });
    }
    if (res.status !== 401) {
      // The id in the path may be invented (no record could be had): the failure says so.
      const where = exchange.request.url.includes(PLACEHOLDER_ID)
        ? ` (its path holds the placeholder id ${PLACEHOLDER_ID})`
        : '';
      return fail(
        ctx,
        exchange,
        UNAUTHORIZED,
        `status ${res.status}`,
        `${label(op)}${where} with ${what} answered ${res.status}, not 401`,
        input,
        { kind: KIND.status },
      );
    }
    const problem = errorDetailProblem(401, res);
    if (problem)
      return fail(ctx, exchange, UNAUTHORIZED, problem, `the 401 of ${label(op)}: ${problem}`, input, {
        kind: KIND.errorDetail,
        field: { location: 'response', pointer: '/detail', status: '401' },
      });
    const wording = errorDetailWording(401, res);
    if (wording) ctx.observe({ operation: label(op), message: wording });
    return OK;
  });
}

/** The id sent where a path needs a record and the run has none: credentials are checked before any lookup. */
const PLACEHOLDER_ID = 'vapc-placeholder';

/** Path values for probing an operation; records are created when the path needs one. */
async function probePath(ctx: CheckContext, op: Operation): Promise<Record<string, string>> {
  const found = await sharedPathForRecord(ctx, op);
  // Credentials are checked before the resource is looked up; a placeholder id is enough.
  return (
    found.values ??
    Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, PLACEHOLDER_ID]))
  );
}

/** Probes carry a valid body where the operation has one, so only the credentials are wrong. */
function withBody<T extends object>(ctx: CheckContext, op: Operation, parts: T): T & { json?: unknown } {
  const body = sampleBody(ctx, op, 31);
  return body === undefined ? parts : { ...parts, json: body };
}

const requiresCredentials = (op: Operation): boolean => op.requiresCredentials && op.credentials.length > 0;

/**
 * Operations probed with empty, wrong and malformed credentials: all that need credentials but the
 * CORS preflights. Browsers send preflights without credentials, so a preflight's answer to a bad
 * credential is only observed (see judge401); its one judged property, the 401 body, is seen by
 * auth.missing-credentials there, and the other forms' 401 bodies on every other operation.
 */
const probedWithBadValues = (op: Operation): boolean => requiresCredentials(op) && op.method !== 'OPTIONS';
const malformedApplies = (op: Operation): boolean => probedWithBadValues(op) && op.credentials.includes('bearer');

/**
 * The operation every auth check sends its full set of variants to: the first plain read needing
 * both credentials (GET /users/me). It is where an auth fault is likeliest to show and cheapest to
 * see: a client calls it first to check its key, it needs no record and changes nothing, and its
 * answer names the user the server took the caller for. It also gets the near misses of the real
 * credentials.
 */
function fullSetOperation(spec: SpecModel): Operation | undefined {
  return (
    spec.operations.find((op) => isCredentialedRead(op) && op.credentials.length === 2) ??
    spec.operations.find(requiresCredentials)
  );
}

/**
 * The covering design across operations. Credentials are checked by one gate in most servers, so
 * each auth check sends every variant to the full-set operation and one variant to each other
 * operation: enough to see an operation that skips the gate, or one of its credentials (every
 * operation gets a probe of each of its credentials across the checks: the bearer from
 * wrong-credentials and malformed-bearer, the user id from empty-credentials; a preflight's bearer
 * from missing-credentials). Where a check has several variants for the other operations, the one
 * sent is picked by the operation's place among those `rotation` names, in the spec's order: fixed,
 * so every seed sends the same cases.
 */
function coveringPick<T>(
  spec: SpecModel,
  op: Operation,
  variants: readonly T[],
  rotation: (op: Operation) => boolean,
): T[] {
  const full = fullSetOperation(spec);
  if (op === full || variants.length <= 1) return [...variants];
  const index = spec.operations.filter((o) => rotation(o) && o !== full).indexOf(op);
  return [variants[Math.max(0, index) % variants.length]!];
}

/** The credentials left out, per request: each one alone, then all of them; one rotated variant off the full-set operation. */
function missingVariants(spec: SpecModel, op: Operation): Credential[][] {
  const variants = op.credentials.map((c) => [c]);
  if (op.credentials.length > 1) variants.push([...op.credentials]);
  return coveringPick(spec, op, variants, (o) => requiresCredentials(o) && o.credentials.length > 1);
}

/**
 * The credentials sent empty: every one on the full-set operation; elsewhere the user id, the one
 * credential no other check probes there (the bearer gets a wrong and a malformed value).
 */
function emptyVariants(spec: SpecModel, op: Operation): Credential[] {
  if (op === fullSetOperation(spec)) return [...op.credentials];
  return [op.credentials.find((c) => c !== 'bearer') ?? op.credentials[0]!];
}

/**
 * The credentials sent wrong: every one on the full-set operation (with the near misses there);
 * elsewhere the bearer, whose refusal is judged on every server (a wrong user id may be answered
 * 403, which is observed, so a probe of it alone could judge nothing).
 */
function wrongVariants(spec: SpecModel, op: Operation): Credential[] {
  if (op === fullSetOperation(spec)) return [...op.credentials];
  return [op.credentials.includes('bearer') ? 'bearer' : op.credentials[0]!];
}

/** Near misses of the real credentials (the key or user id with something appended), sent on the full-set operation only. */
const NEAR_MISSES = 3;

export const missingCredentials = defineCheck({
  id: 'auth.missing-credentials',
  suite: 'auth',
  rule: 'A request without one of the credentials the operation requires (or without any) is answered 401 {detail: string}; every case on one operation, one case (rotated, the same on every seed) on each other',
  contractRef: '5.1, 5.4, 5.5, 7',
  severity: 'critical',
  core: true,
  appliesTo: requiresCredentials,
  // The first check on an operation that needs a created record pays for creating it.
  plannedRequests: (op, _runs, spec) => missingVariants(spec, op).length + recordCost(op, spec),
  async run(ctx, op) {
    const values = await probePath(ctx, op);
    const all = documentedHeaders(ctx, op);
    const findings = new Findings();
    const variants: Array<[string, Record<string, string>]> = missingVariants(ctx.spec, op).map((left) => {
      const rest = { ...all };
      for (const c of left) delete rest[credentialHeader(ctx.spec, c)];
      const what =
        left.length > 1 && left.length === op.credentials.length
          ? 'no credentials at all'
          : `no ${credentialHeader(ctx.spec, left[0]!)} header`;
      return [what, rest];
    });
    for (const [what, headers] of variants) {
      const exchange = await ctx.send({
        ...request(op, ctx, withBody(ctx, op, { pathValues: values, headers })),
        auth: 'none',
      });
      findings.add(judge401(ctx, op, exchange, what));
    }
    return findings.outcome(`401 {detail} for ${variants.map((v) => v[0]).join(', ')}`);
  },
});

export const emptyCredentials = defineCheck({
  id: 'auth.empty-credentials',
  suite: 'auth',
  rule: 'A required credential sent empty ("Bearer " or an empty X-User-ID) is answered 401 {detail: string}; both on one operation, the user id on each other',
  contractRef: '5.1, 5.5, 7',
  severity: 'major',
  appliesTo: probedWithBadValues,
  plannedRequests: (op, _runs, spec) => emptyVariants(spec, op).length,
  async run(ctx, op) {
    const values = await probePath(ctx, op);
    const findings = new Findings();
    for (const c of emptyVariants(ctx.spec, op)) {
      const header = credentialHeader(ctx.spec, c);
      const headers = { ...documentedHeaders(ctx, op), [header]: c === 'bearer' ? 'Bearer ' : '' };
      const exchange = await ctx.send({
        ...request(op, ctx, withBody(ctx, op, { pathValues: values, headers })),
        auth: 'none',
      });
      findings.add(judge401(ctx, op, exchange, `an empty ${header}`));
    }
    return findings.outcome('401 {detail} for every empty credential');
  },
});

/** Token-shaped strings; built once (stringMatching compiles the pattern into an arbitrary tree). */
const TOKEN = fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,48}$/);

/**
 * Random bearers that are not the run's key (token-shaped, or any printable text), drawn after the
 * fixed values of `malformedExamples`, which already send the other schemes and no scheme.
 */
function malformedBearer(apiKey: string): fc.Arbitrary<string> {
  const token = TOKEN.filter((t) => t !== apiKey);
  return fc.oneof(
    token.map((t) => `Bearer ${t}`),
    fc
      .string({ minLength: 1, maxLength: 40 })
      .filter((s) => /^[\x21-\x7e]+$/.test(s) && !s.includes(apiKey))
      .map((s) => `Bearer ${s}`),
  );
}

/** The fixed malformed values: another scheme, no scheme, no space after the scheme, a token that is not a key. */
const malformedExamples = (apiKey: string): string[] => [
  `Basic ${apiKey}`,
  apiKey,
  `Token ${apiKey}`,
  `Bearer${apiKey}`,
  'Bearer vapc-not-a-key',
];

/** Random malformed values after the fixed ones, on the full-set operation only. */
const MALFORMED_RUNS = 3;

/** The fixed values an operation gets (all on the full-set one, one rotated elsewhere) and how many random ones. */
function malformedPlan(
  spec: SpecModel,
  op: Operation,
  runs: number,
  apiKey: string,
): { examples: string[]; numRuns: number } {
  const full = op === fullSetOperation(spec);
  return {
    examples: coveringPick(spec, op, malformedExamples(apiKey), malformedApplies),
    numRuns: full ? Math.min(runs, MALFORMED_RUNS) : 0,
  };
}

export const malformedBearerCheck = defineCheck({
  id: 'auth.malformed-bearer',
  suite: 'auth',
  rule: 'An Authorization header that is not "Bearer <API key>" (another scheme, no scheme, a random token) is answered 401 {detail: string}; every fixed case and a few random ones on one operation, one fixed case (rotated) on each other',
  contractRef: '5.1, 5.2, 5.5, 7',
  severity: 'critical',
  appliesTo: malformedApplies,
  plannedRequests: (op, runs, spec) => {
    const plan = malformedPlan(spec, op, runs, 'key');
    return plan.examples.length + plan.numRuns;
  },
  async run(ctx, op) {
    const values = await probePath(ctx, op);
    const apiKey = ctx.credentials.apiKey ?? 'vapc';
    const header = credentialHeader(ctx.spec, 'bearer');
    const { examples, numRuns } = malformedPlan(ctx.spec, op, ctx.runs, apiKey);
    const verdict = await checkProperty(
      ctx,
      malformedBearer(apiKey),
      async (value) => {
        const headers = { ...documentedHeaders(ctx, op), [header]: value };
        const exchange = await ctx.send({
          ...request(op, ctx, withBody(ctx, op, { pathValues: values, headers })),
          auth: 'none',
        });
        return judge401(ctx, op, exchange, `Authorization "${ctx.redact(value)}"`, value);
      },
      { examples, numRuns },
    );
    const findings = new Findings();
    findings.add(verdict);
    return findings.outcome('401 {detail} for every malformed Authorization value tried');
  },
});

/** The wrong values to send: a made-up one per credential of `wrongVariants`, and the near misses on the full-set operation. */
function wrongTries(ctx: CheckContext, op: Operation): Array<{ credential: Credential; value: string; what: string }> {
  const tries: Array<{ credential: Credential; value: string; what: string }> = [];
  for (const c of wrongVariants(ctx.spec, op)) {
    const header = credentialHeader(ctx.spec, c);
    const made =
      c === 'bearer'
        ? `Bearer vapc_wrong_${(ctx.credentials.apiKey ?? 'key').length}_${ctx.seed}`
        : `vapc-wrong-user-${ctx.seed}`;
    tries.push({ credential: c, value: made, what: `a wrong ${header}` });
  }
  // On one operation, near misses of the real values too: a check by prefix or length lets the
  // real key or user id with something appended through (written with the placeholder in reports).
  if (op !== fullSetOperation(ctx.spec)) return tries;
  for (const c of op.credentials) {
    const header = credentialHeader(ctx.spec, c);
    if (c === 'bearer' && ctx.credentials.apiKey) {
      tries.push({
        credential: c,
        value: `Bearer ${ctx.credentials.apiKey}x`,
        what: `the API key with "x" appended in ${header}`,
      });
      tries.push({
        credential: c,
        value: `Bearer ${ctx.credentials.apiKey} x`,
        what: `the API key followed by " x" in ${header}`,
      });
    }
    if (c === 'userId' && ctx.credentials.userId)
      tries.push({
        credential: c,
        value: `${ctx.credentials.userId}-x`,
        what: `the user id with "-x" appended in ${header}`,
      });
  }
  return tries;
}

export const wrongCredentials = defineCheck({
  id: 'auth.wrong-credentials',
  suite: 'auth',
  rule: 'A well-formed bearer that is not a valid API key, or an X-User-ID naming no user, is answered 401 {detail: string}, near misses of the real ones included (the key or user id with characters appended, the key followed by a space and more); all of them on one operation, a wrong bearer on each other; 403 for the user id is observed, not failed',
  contractRef: '5.1, 5.5, 7',
  severity: 'critical',
  core: true,
  appliesTo: probedWithBadValues,
  plannedRequests: (op, _runs, spec) =>
    wrongVariants(spec, op).length + (op === fullSetOperation(spec) ? NEAR_MISSES : 0),
  async run(ctx, op) {
    const values = await probePath(ctx, op);
    const findings = new Findings();
    for (const { credential, value, what } of wrongTries(ctx, op)) {
      const headers = { ...documentedHeaders(ctx, op), [credentialHeader(ctx.spec, credential)]: value };
      const exchange = await ctx.send({
        ...request(op, ctx, withBody(ctx, op, { pathValues: values, headers })),
        auth: 'none',
      });
      if (credential === 'userId' && exchange.response?.status === 403) {
        // A user id naming no user with a valid key: 401 is what 5.5 names; 403 ("authenticated,
        // not allowed") is how many frameworks answer it, and still refuses.
        ctx.observe({ operation: label(op), message: `${what} was answered 403 (the contract names 401)` });
        continue;
      }
      findings.add(judge401(ctx, op, exchange, what));
    }
    return findings.outcome('401 {detail} for wrong credentials');
  },
});

export const healthOpen = defineCheck({
  id: 'auth.health-open',
  suite: 'auth',
  rule: 'Health checks need no credentials: GET /health without any header is answered 200 with an application/json body',
  contractRef: '4.10, 5.1, 5.3',
  severity: 'major',
  expects: 'success',
  appliesTo: (op) => !op.requiresCredentials,
  plannedRequests: () => 1,
  async run(ctx, op) {
    const exchange = await ctx.send({ ...request(op, ctx), auth: 'none' });
    const what = `${label(op)} without credentials`;
    const findings = new Findings();
    findings.add(
      judgeAnswer(ctx, op, exchange, { what, expected: `${what} answered (rule 5.1)` }, (res) =>
        isSuccess(res.status)
          ? judgeResponse(ctx, op, exchange, { what })
          : fail(
              ctx,
              exchange,
              `${what} answered (rule 5.1)`,
              `status ${res.status}`,
              `${what} answered ${res.status}`,
              undefined,
              {
                kind: KIND.status,
              },
            ),
      ),
    );
    return findings.outcome(`${label(op)} answers without credentials`);
  },
});

/**
 * A preflight served with the bearer only proves the rule only if credentials are read there: the
 * same preflight without any credential is refused. When it is served too, the answer came before
 * any credential was read (a CORS layer ahead of auth): the rule cannot be judged on it.
 */
async function readsCredentials(ctx: CheckContext, op: Operation, values: Record<string, string>): Promise<boolean> {
  const bare = await ctx.send({
    ...request(op, ctx, withBody(ctx, op, { pathValues: values, headers: preflightHeaders(ctx.spec) })),
    auth: 'none',
  });
  return bare.response !== undefined && !isSuccess(bare.response.status) && bare.response.status !== 429;
}

export const bearerOnly = defineCheck({
  id: 'auth.bearer-only',
  suite: 'auth',
  rule: 'The operations documented with the bearer header only are served with the bearer only (no X-User-ID); on a preflight, judged only where the same preflight without credentials is refused (else credentials are not read there)',
  contractRef: '4.9, 4.11, 5.4',
  severity: 'major',
  expects: 'success',
  // Key regeneration is exercised (bearer only) by stateful.regenerate-key, with the destructive flag.
  appliesTo: (op) =>
    op.requiresCredentials && op.credentials.length === 1 && op.credentials[0] === 'bearer' && !op.sideEffects,
  plannedRequests: (op) => (op.method === 'OPTIONS' ? 2 : 1),
  async run(ctx, op) {
    const values = await probePath(ctx, op);
    const headers = { ...(op.method === 'OPTIONS' ? preflightHeaders(ctx.spec) : {}), ...documentedHeaders(ctx, op) };
    const exchange = await ctx.send({
      ...request(op, ctx, withBody(ctx, op, { pathValues: values, headers })),
      auth: 'none',
    });
    const what = `${label(op)} with the bearer only`;
    const expected = `${what} served (section 5.4)`;
    const findings = new Findings();
    const judged = judgeAnswer(ctx, op, exchange, { what, expected }, (res) => {
      if (res.status === 401 || res.status === 403)
        return fail(ctx, exchange, expected, `status ${res.status}`, `${what} was refused (${res.status})`, undefined, {
          kind: KIND.status,
        });
      return isSuccess(res.status)
        ? judgeResponse(ctx, op, exchange, { what })
        : unjudged(`${what} was answered ${res.status}`, { cause: 'refused', status: res.status });
    });
    if (
      judged.ok &&
      judged.unjudged === undefined &&
      op.method === 'OPTIONS' &&
      !(await readsCredentials(ctx, op, values))
    )
      findings.add(
        unjudged(`the preflight of ${op.path} is served without any credential too: credentials are not read there`, {
          cause: 'untestable',
        }),
      );
    else findings.add(judged);
    return findings.outcome(`${label(op)} is served with the bearer only`);
  },
});

/**
 * Is `found` the user id sent, as a server may write it back? The whitespace around the value is
 * not part of it (RFC 9110 5.5), and a UUID (RFC 9562 4: case-insensitive on input) or an e-mail
 * address (used case-insensitively by identity providers) may come back in another case: a server
 * that keeps user ids canonical echoes the canonical form of the id it was sent.
 */
function isUserId(sent: string, found: string, contains: boolean): boolean {
  const id = sent.trim();
  const caseless = /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(id) || /^[^\s@]+@[^\s@]+$/.test(id);
  const [want, have] = caseless ? [id.toLowerCase(), found.toLowerCase()] : [id, found];
  return contains ? have.includes(want) : have === want;
}

export const protectedEchoesUserId = defineCheck({
  id: 'auth.protected-echoes-user-id',
  suite: 'auth',
  rule: 'GET /protected answers with `user_id` equal to the X-User-ID sent and a `message` that contains it (a UUID or e-mail user id in any case, whitespace around it ignored)',
  contractRef: '4.12',
  severity: 'minor',
  expects: 'success',
  appliesTo: (op) => {
    const schema = successSchema(op);
    if (!schema || !op.credentials.includes('userId')) return false;
    const props = Object.keys(propertiesOf(schema));
    return props.includes('user_id') && props.includes('message');
  },
  plannedRequests: () => 1,
  async run(ctx, op) {
    const userId = ctx.credentials.userId;
    if (!userId) return skipped('no user id configured (--user-id)', { cause: 'runner' });
    const exchange = await ctx.send(request(op, ctx));
    const findings = new Findings();
    const what = `${label(op)} with valid credentials`;
    const served = judgeAnswer(ctx, op, exchange, { what, expected: `${what} served` }, (res) =>
      isSuccess(res.status)
        ? OK
        : fail(ctx, exchange, `${what} served`, statusText(exchange), `${what} answered ${res.status}`, undefined, {
            kind: KIND.status,
          }),
    );
    const res = exchange.response;
    if (!served.ok || served.unjudged !== undefined || !res) {
      findings.add(served);
      return findings.outcome(`${label(op)} echoes the user id`);
    }
    const body = res.json as { user_id?: unknown; message?: unknown } | undefined;
    if (typeof body?.user_id !== 'string' || !isUserId(userId, body.user_id, false)) {
      findings.add(
        fail(
          ctx,
          exchange,
          'user_id equal to the X-User-ID sent (section 4.12)',
          `user_id ${JSON.stringify(ctx.redact(body?.user_id))}`,
          `${label(op)} does not echo the user id in user_id`,
          undefined,
          { kind: KIND.mismatch, field: { location: 'response', pointer: '/user_id', status: String(res.status) } },
        ),
      );
    }
    if (typeof body?.message !== 'string' || !isUserId(userId, body.message, true)) {
      findings.add(
        fail(
          ctx,
          exchange,
          'a message that contains the user id (section 4.12)',
          `message ${JSON.stringify(ctx.redact(body?.message))}`,
          `${label(op)}'s message does not contain the user id`,
          undefined,
          { kind: KIND.mismatch, field: { location: 'response', pointer: '/message', status: String(res.status) } },
        ),
      );
    }
    findings.add(OK); // the answer was judged on both clauses
    return findings.outcome(`${label(op)} echoes the user id`);
  },
});

export const authChecks: CheckDefinition[] = [
  missingCredentials,
  emptyCredentials,
  malformedBearerCheck,
  wrongCredentials,
  healthOpen,
  bearerOnly,
  protectedEchoesUserId,
];
