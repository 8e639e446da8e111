/**
 * The judge of a request that breaks one stated constraint: 422 with the validation error body
 * naming the fault; "accepted" a failure only when the request on the wire is still invalid.
 */
import type { CheckContext } from '../../../src/checks/check.js';
import type { Operation } from '../../../src/spec/model.js';
import type { Exchange } from '../../../src/transport/types.js';
import type { InvalidCase } from '../../../src/generators/index.js';
import { validate } from '../../../src/validators/index.js';
import { FAILURE_KINDS, pointerOf, type FailureField } from '../../../src/results/model.js';
import { judgeAnswer } from '../../../src/checks/judge.js';
import { fail, isSuccess, OK, unjudged, type Judgement } from '../outcomes.js';
import { label } from '../spec-queries.js';
import type { Refusal } from '../learned.js';
import { locNames } from './error-bodies.js';
import { openRule } from './open-rules.js';

export interface InvalidJudgeOptions {
  /** Judge the `loc` of the 422 body (off for malformed JSON, which has no field). */
  checkLoc?: boolean;
  /**
   * For a constraint the spec cannot state (the two provider ids, known from the run's fixtures):
   * whether the request as sent over the wire still breaks it, used instead of the validators.
   */
  stillInvalid?: (exchange: Exchange) => boolean;
  /** Why a valid body of this operation is refused too (every valid create refused): a 422 not naming the field then judges nothing. */
  validRefused?: Refusal;
  /** The path holds a placeholder id (see `openRule`). */
  placeholder?: boolean;
}

/**
 * Judges the answer to a request that breaks one stated constraint: 422 with the validation error
 * body whose `loc` names the fault. "Accepted" (2xx) is a failure only when the request as it went
 * over the wire is still invalid by the project's validators. Through the one start (judgeAnswer):
 * no answer and a 5xx fail, a 429 judges nothing, the open rules come before the 422.
 */
export function judgeInvalid(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  kase: InvalidCase,
  options: InvalidJudgeOptions = {},
): Judgement {
  const rule = `${kase.description}: the contract answers a validation failure with 422 and the validation error body (sections 2.8, 4, 7)`;
  const field: FailureField = { location: kase.location, pointer: pointerOf(kase.loc) };
  const open = (res: { status: number }) =>
    isSuccess(res.status)
      ? undefined
      : openRule(ctx, op, exchange, {
          ...(options.placeholder ? { placeholder: true } : {}),
          what: kase.description,
          expected: rule,
          field,
        });
  return judgeAnswer(
    ctx,
    op,
    exchange,
    { what: kase.description, expected: rule, field, input: kase.value, open },
    (res) => {
      if (isSuccess(res.status)) return judgeAccepted(ctx, op, exchange, kase, options, { rule, field });
      if (res.status !== 422)
        return fail(
          ctx,
          exchange,
          rule,
          `status ${res.status}`,
          `${kase.description} on ${label(op)} answered ${res.status}, not 422`,
          kase.value,
          { kind: FAILURE_KINDS.status, field },
        );
      return judgeValidationBody(ctx, op, exchange, kase, options, { rule, field });
    },
  );
}

/** An invalid case the wire carried as a valid value (a framework's encoding): nothing to judge. */
const WENT_VALID = (kase: InvalidCase): Judgement =>
  unjudged(`${kase.description} went over the wire as a valid value`, { cause: 'runner' });

/** The rule an invalid request is judged by, and the field it breaks, as judgeInvalid's helpers report them. */
interface InvalidFinding {
  rule: string;
  field: FailureField;
}

/**
 * An invalid request answered 2xx: a failure only when the request as it went over the wire is
 * still invalid (by `stillInvalid`, else by the project's validators); unjudged when it is not, or
 * when the wire form cannot be re-validated (then also an observation).
 */
function judgeAccepted(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  kase: InvalidCase,
  options: InvalidJudgeOptions,
  finding: InvalidFinding,
): Judgement {
  const status = exchange.response!.status;
  const accepted = () =>
    fail(
      ctx,
      exchange,
      finding.rule,
      `accepted with ${status}`,
      `${kase.description} was accepted (${status}) on ${label(op)}`,
      kase.value,
      { kind: FAILURE_KINDS.acceptedInvalid, field: finding.field },
    );
  if (options.stillInvalid) {
    if (!options.stillInvalid(exchange)) return WENT_VALID(kase);
    return accepted();
  }
  const wire = ctx.validateWire(op, exchange);
  if (!wire.available) {
    ctx.observe({
      operation: label(op),
      message: `${kase.description} was accepted (${status}); could not re-validate the wire request, so not judged`,
    });
    return unjudged(`${kase.description} was accepted and the wire request could not be re-validated`, {
      cause: 'runner',
    });
  }
  if (wire.valid) return WENT_VALID(kase);
  return accepted();
}

/**
 * A 422 to an invalid request: its body must be the validation error body, and (unless
 * `checkLoc` is off) one of its `loc`s must name the field the request broke.
 */
function judgeValidationBody(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  kase: InvalidCase,
  options: InvalidJudgeOptions,
  finding: InvalidFinding,
): Judgement {
  const res = exchange.response!;
  const { rule, field } = finding;
  const shape = validate('HTTPValidationError', res.json);
  if (!shape.ok) {
    const why =
      res.json === undefined
        ? 'the body is not JSON'
        : shape.issues
            .map((i) => i.message)
            .slice(0, 3)
            .join('; ');
    return fail(
      ctx,
      exchange,
      `${rule}: {detail: [{loc, msg, type}]}`,
      why,
      `the 422 body of ${label(op)} is not the validation error body (${why})`,
      kase.value,
      { kind: FAILURE_KINDS.validationBody, field },
    );
  }
  if (options.checkLoc === false || kase.loc.length === 0) return OK;
  const detail = (res.json as { detail: unknown }).detail;
  if (locNames(detail, kase)) return OK;
  if (options.validRefused !== undefined)
    return unjudged(`a valid body is refused too (${options.validRefused.reason})`, options.validRefused.why);
  const locs = (detail as Array<{ loc: unknown }>).map((d) => JSON.stringify(d.loc)).join(', ');
  return fail(
    ctx,
    exchange,
    `a 422 whose loc names ${[kase.location, ...kase.loc].join('.')} (section 2.8)`,
    `loc ${locs || '(none)'}`,
    `the 422 of ${label(op)} for ${kase.description} does not name ${kase.loc.join('.')} in loc`,
    kase.value,
    { kind: FAILURE_KINDS.loc, field },
  );
}
