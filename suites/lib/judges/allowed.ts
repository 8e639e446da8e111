/**
 * The judge of values the contract allows (the numeric and string edges): never a server fault;
 * accepted with the documented answer, or refused with the validation error body.
 */
import type { CheckContext } from '../../../src/checks/check.js';
import type { Operation } from '../../../src/spec/model.js';
import type { Exchange } from '../../../src/transport/types.js';
import type { InvalidCase } from '../../../src/generators/index.js';
import { validate } from '../../../src/validators/index.js';
import { FAILURE_KINDS, type FailureField } from '../../../src/results/model.js';
import { judgeAnswer } from '../../../src/checks/judge.js';
import { fail, isSuccess, OK, unjudged, type Judgement } from '../outcomes.js';
import { label } from '../spec-queries.js';
import { openRule } from './open-rules.js';
import { documentedAnswer } from './response.js';

/** A probe of values the contract allows, for judgeAllowed. */
export interface AllowedProbe {
  /** What was sent ("limit=-1", "an empty string in name"). */
  what: string;
  /** Where the values under test are: a 422 naming one of them judged the value (the server read it). */
  fields: ReadonlyArray<Pick<InvalidCase, 'loc' | 'location'>>;
  /** Where a 5xx is located. */
  field?: FailureField;
  input?: unknown;
  /** Every value under test is a path id: any 4xx (a 404, a 400 for an id it cannot parse) is an honest answer to that id. */
  pathOnly?: boolean;
  /** Some path value is invented (a 404 or 403 is then the server's lookup). */
  placeholder?: boolean;
}

/**
 * Judges the answer to values the contract allows (the numeric and string edges): never no answer
 * or a 5xx; accepted, the answer is what the contract documents; refused with 422 naming a field
 * under test, the body is the validation error body (the server read the value and is stricter
 * where the contract is silent: judged); a 422 naming none of them, or another refusal (403, 409,
 * 413, 400...), says the value may never have been read: judged nothing, its cause the refusal. One
 * judge for both suites (the ranges and the strings edges).
 */
export function judgeAllowed(ctx: CheckContext, op: Operation, exchange: Exchange, probe: AllowedProbe): Judgement {
  const expected = `${probe.what}: a value the contract allows is accepted, or refused with 422 and the validation error body, never a server fault (sections 2.8, 4, 7, 8)`;
  const openRules = () =>
    openRule(ctx, op, exchange, {
      valid: true,
      fields: probe.fields,
      ...(probe.placeholder ? { placeholder: true } : {}),
      what: probe.what,
      expected: `a success answer to ${probe.what}`,
      ...(probe.field ? { field: probe.field } : {}),
    });
  const open = (res: { status: number }): Judgement | undefined => {
    if (isSuccess(res.status) || res.status === 422) return undefined;
    if (probe.pathOnly && res.status >= 400 && res.status < 500) return OK;
    return openRules() ?? refusedOther(op, exchange, probe.what);
  };
  const rules = {
    what: probe.what,
    expected,
    open,
    ...(probe.field ? { field: probe.field } : {}),
    input: probe.input,
  };
  return judgeAnswer(ctx, op, exchange, rules, (res) => {
    if (isSuccess(res.status)) return documentedAnswer(ctx, op, exchange, res);
    if (!validate('HTTPValidationError', res.json).ok)
      return fail(
        ctx,
        exchange,
        expected,
        `422 ${res.text.slice(0, 120)}`,
        `the 422 of ${label(op)} for ${probe.what} is not the validation error body`,
        probe.input,
        { kind: FAILURE_KINDS.validationBody, ...(probe.field ? { field: probe.field } : {}) },
      );
    // Naming a field under test: the value was read and refused (stricter where the contract is silent).
    return openRules() ?? OK;
  });
}

/** A refusal the contract does not describe (a 400, a 413 past a payload limit it leaves open): judged nothing, noted by the caller. */
function refusedOther(op: Operation, exchange: Exchange, what: string): Judgement {
  const status = exchange.response!.status;
  return unjudged(`${label(op)} answered ${status} to ${what}, a refusal the contract does not describe`, {
    cause: 'refused',
    status,
  });
}
