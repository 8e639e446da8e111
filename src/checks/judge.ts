/**
 * The one verdict path of an answer (STYLE.md 15): every check judges every answer through
 * `judgeAnswer`, in one order: no answer (a failure), a 429 (never a pass, never a failure: not
 * judged, and counted by the run), a 5xx (a failure, located on the field under test), the rules
 * the contract leaves to the server (the profile's, given by the caller), and only then the check's
 * own judgement. A judged answer (a pass or a failure, not an `unjudged`) is noted on the context,
 * so coverage counts a cell judged only through an answer that was judged. Generic: the contract's
 * own open rules come in as a function (suites/lib/judges.ts).
 */
import { FAILURE_KINDS, type FailureField } from '../results/model.js';
import { operationLabel, type Operation } from '../spec/model.js';
import type { Exchange, HttpResponse } from '../transport/types.js';
import type { CheckContext, Judgement } from './check.js';
import { fail, RATE_LIMITED, statusText } from './outcomes.js';

export interface AnswerRules {
  /** What was sent, for the messages ("a valid request to GET /calls", "max_concurrency=201"). */
  what: string;
  /** The rule the answer is held to, in words: a failure's `expected` when no answer or a 5xx came. */
  expected: string;
  /** The field under test: where a 5xx is located. */
  field?: FailureField;
  /** The input a failure shows (the shrunk value). */
  input?: unknown;
  /**
   * The rules the contract leaves to the server, consulted after a 5xx and before the check's own
   * judgement: a judgement (usually `unjudged` with the server's status, or a failure when the
   * run's own evidence contradicts the rule) or undefined to go on.
   */
  open?: (response: HttpResponse) => Judgement | undefined;
}

/** The start every answer goes through: a judgement, or undefined when the check's own judgement decides. */
export function answerStart(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  rules: AnswerRules,
): Judgement | undefined {
  const res = exchange.response;
  const label = operationLabel(op);
  // The operation named once: a `what` that already names it ("a valid request to GET /calls") is said as it is.
  const what = rules.what.includes(label) ? rules.what : `${label}: ${rules.what}`;
  if (!res)
    return fail(ctx, exchange, rules.expected, statusText(exchange), `${what} got no response`, rules.input, {
      kind: FAILURE_KINDS.noResponse,
      ...(rules.field ? { field: rules.field } : {}),
    });
  if (res.status === 429) return RATE_LIMITED;
  if (res.status >= 500)
    return fail(
      ctx,
      exchange,
      `${rules.expected}; never a server fault (5xx)`,
      `status ${res.status}`,
      `${label} answered ${res.status} to ${rules.what}`,
      rules.input,
      { kind: FAILURE_KINDS.status, ...(rules.field ? { field: rules.field } : {}) },
    );
  return rules.open?.(res);
}

/**
 * Judges one answer: the start (no answer, 429, 5xx, the open rules), then `own` with the response.
 * An answer judged on the check's property is noted (`ctx.noteJudged`).
 */
export function judgeAnswer(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  rules: AnswerRules,
  own: (response: HttpResponse) => Judgement,
): Judgement {
  const judgement = answerStart(ctx, op, exchange, rules) ?? own(exchange.response!);
  if (!judgement.ok || judgement.unjudged === undefined) ctx.noteJudged?.(exchange);
  return judgement;
}
