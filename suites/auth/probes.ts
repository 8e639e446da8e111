/**
 * What the auth suite's checks share: the credential headers with the run's values, the judge of a
 * 401 {detail}, the path and body a probe carries (so only the credentials are wrong), and the
 * covering design (every variant on one operation, one rotated variant on each other).
 */
import type { CheckContext } from '../../src/checks/check.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND } from '../../src/results/model.js';
import { credentialHeader, type Operation, type SpecModel } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import {
  OK,
  errorDetailProblem,
  errorDetailWording,
  unjudged,
  isCredentialedRead,
  fail,
  label,
  sampleBody,
  sharedPathForRecord,
  type Judgement,
} from '../lib.js';

const UNAUTHORIZED = 'a 401 with {detail: string} saying the credentials are invalid (sections 5.5, 7)';

/** The documented credential headers of an operation, with the run's values. */
export function documentedHeaders(ctx: CheckContext, op: Operation): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of op.credentials) {
    const header = credentialHeader(ctx.spec, c);
    if (c === 'bearer') out[header] = `Bearer ${ctx.credentials.apiKey ?? ''}`;
    else out[header] = ctx.credentials.userId ?? '';
  }
  return out;
}

export function judge401(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  what: string,
  input?: unknown,
): Judgement {
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
export async function probePath(ctx: CheckContext, op: Operation): Promise<Record<string, string>> {
  const found = await sharedPathForRecord(ctx, op);
  // Credentials are checked before the resource is looked up; a placeholder id is enough.
  return (
    found.values ??
    Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, PLACEHOLDER_ID]))
  );
}

/** Probes carry a valid body where the operation has one, so only the credentials are wrong. */
export function withBody<T extends object>(ctx: CheckContext, op: Operation, parts: T): T & { json?: unknown } {
  const body = sampleBody(ctx, op, 31);
  return body === undefined ? parts : { ...parts, json: body };
}

export const requiresCredentials = (op: Operation): boolean => op.requiresCredentials && op.credentials.length > 0;

/**
 * Operations probed with empty, wrong and malformed credentials: all that need credentials but the
 * CORS preflights. Browsers send preflights without credentials, so a preflight's answer to a bad
 * credential is only observed (see judge401); its one judged property, the 401 body, is seen by
 * auth.missing-credentials there, and the other forms' 401 bodies on every other operation.
 */
export const probedWithBadValues = (op: Operation): boolean => requiresCredentials(op) && op.method !== 'OPTIONS';
export const malformedApplies = (op: Operation): boolean =>
  probedWithBadValues(op) && op.credentials.includes('bearer');

/**
 * The operation every auth check sends its full set of variants to: the first plain read needing
 * both credentials (GET /users/me). It is where an auth fault is likeliest to show and cheapest to
 * see: a client calls it first to check its key, it needs no record and changes nothing, and its
 * answer names the user the server took the caller for. It also gets the near misses of the real
 * credentials.
 */
export function fullSetOperation(spec: SpecModel): Operation | undefined {
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
export function coveringPick<T>(
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
