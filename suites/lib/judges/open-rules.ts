/**
 * The rules the contract leaves to the server (issue 21): an answer of one of these kinds is an
 * observation, never a failure, unless the run's own evidence contradicts it (a 403 to credentials
 * served before).
 */
import type { CheckContext } from '../../../src/checks/check.js';
import type { Operation } from '../../../src/spec/model.js';
import type { Exchange } from '../../../src/transport/types.js';
import type { InvalidCase } from '../../../src/generators/index.js';
import { FAILURE_KINDS, type FailureField } from '../../../src/results/model.js';
import { fail, unjudged, type Judgement } from '../outcomes.js';
import { label } from '../spec-queries.js';
import { locNames } from './error-bodies.js';

/**
 * Server-side rules the contract leaves open (issue 21): an answer of this kind is an observation
 * with the server's message, never a failure, in every suite that judges requests with these
 * judges (the auth suite judges 401 and 403 itself). docs/checks.md ("How the checks judge")
 * lists them; a test walks both lists.
 */
export const OPEN_RULES = [
  { status: 404, rule: '404 for an id the server does not know (a placeholder id; a lookup before validation)' },
  { status: 409, rule: '409 for a conflict or a state transition the server refuses (terminal states, names taken)' },
  { status: 403, rule: '403 for a record or an action the credentials may not reach (another organisation)' },
  {
    status: 422,
    rule: '422 on a valid body naming a field the contract does not constrain, or not the one under test (pairings, stricter formats)',
  },
] as const;

export interface OpenRuleContext {
  /** The path holds an invented id (no record could be had): a 404 is then the server's lookup, a 403 the server's own guard. */
  placeholder?: boolean;
  /** The request is valid as far as the property under test goes: a 422 not naming `fields` is the server's own rule. */
  valid?: boolean;
  /** The fields under test (a 422 naming one of them is judged, not open). */
  fields?: ReadonlyArray<Pick<InvalidCase, 'loc' | 'location'>>;
  /** What the request was, and what the contract expects of its answer: the words of a failure when the run's evidence contradicts the rule. */
  what?: string;
  expected?: string;
  /** The field a failure is located on (the one under test). */
  field?: FailureField;
}

/** The first field a 422's detail names (`body.x_internal_quota`), as a refusal's `loc`. */
function namedLoc(json: unknown): string | undefined {
  const detail = (json as { detail?: unknown } | undefined)?.detail;
  if (!Array.isArray(detail)) return undefined;
  const loc = (detail[0] as { loc?: unknown } | undefined)?.loc;
  return Array.isArray(loc) && loc.length > 0 ? loc.map(String).join('.').slice(0, 80) : undefined;
}

/**
 * A 403 the run's own evidence contradicts: the same credentials got a success answer from this
 * operation earlier in the run, and the path names no invented id (so not another organisation's
 * record: the run sends only its own). "Forbidden" then is not the server's choice but a refusal of
 * what it serves: a failure, with the evidence's request beside it.
 */
function contradicted403(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  context: OpenRuleContext,
): Judgement | undefined {
  if (context.placeholder) return undefined;
  const served = ctx.servedBefore?.(op);
  if (!served?.response) return undefined;
  const res = exchange.response!;
  const what = context.what ?? `a request to ${label(op)}`;
  const judged = fail(
    ctx,
    exchange,
    `${context.expected ?? 'the answer the contract documents'}: the same credentials were served ${label(op)} in this run (${served.response.status}), so a 403 ("forbidden access", section 7) is contradicted`,
    `status 403: ${res.text.slice(0, 120)}`,
    `${label(op)} answered 403 to ${what}, although the same credentials got ${served.response.status} from it earlier in this run`,
    undefined,
    { kind: FAILURE_KINDS.status, ...(context.field ? { field: context.field } : {}) },
  );
  if (judged.ok) return judged;
  const repro = `${judged.failure.repro ?? ctx.curl(exchange)}  # served before: ${ctx.curl(served)}`;
  return { ...judged, failure: { ...judged.failure, repro } };
}

/**
 * When the answer is one of the rules the contract leaves open (OPEN_RULES), observes it with the
 * server's message and returns a judgement that judged nothing (cause `refused`, with the status and
 * the field a 422 named); a 403 the run's own evidence contradicts is a failure instead
 * (contradicted403); else undefined (judge as usual). A 409 is contradicted only by a control
 * request (suites/lib/control.ts), which the sending check makes.
 */
export function openRule(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  context: OpenRuleContext = {},
): Judgement | undefined {
  const res = exchange.response;
  if (!res || op.method === 'OPTIONS') return undefined;
  const rule = OPEN_RULES.find((r) => r.status === res.status);
  if (!rule) return undefined;
  if (rule.status === 404 && !context.placeholder) return undefined;
  if (rule.status === 422) {
    if (!context.valid) return undefined;
    const detail = (res.json as { detail?: unknown } | undefined)?.detail;
    if ((context.fields ?? []).some((f) => locNames(detail, f))) return undefined;
  }
  if (rule.status === 403) {
    const against = contradicted403(ctx, op, exchange, context);
    if (against) return against;
  }
  const said = res.text.slice(0, 160) || '(no body)';
  ctx.observe({
    operation: label(op),
    message: `answered ${res.status} (${said}): ${rule.rule}, a rule the contract leaves to the server; not judged`,
  });
  const loc = rule.status === 422 ? namedLoc(res.json) : undefined;
  return unjudged(
    `${label(op)} answered ${res.status} (${said.slice(0, 100)}), a rule the contract leaves to the server`,
    {
      cause: 'refused',
      status: res.status,
      ...(loc ? { loc } : {}),
    },
  );
}
