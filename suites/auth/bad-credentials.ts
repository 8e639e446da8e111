/**
 * The auth suite's refusals: a credential missing, empty, malformed or wrong is answered 401
 * {detail: string} (sections 5.1, 5.2, 5.5, 7).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../../src/checks/check.js';
import { credentialHeader, type Credential, type Operation, type SpecModel } from '../../src/spec/model.js';
import { Findings, checkProperty, recordCost, label, request } from '../lib.js';
import {
  coveringPick,
  documentedHeaders,
  fullSetOperation,
  judge401,
  malformedApplies,
  probedWithBadValues,
  probePath,
  requiresCredentials,
  withBody,
} from './probes.js';

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
