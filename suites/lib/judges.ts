/**
 * The contract's judges: a response to an invalid request (422 with the validation error body,
 * "accepted" confirmed on the wire form), a response against its documented schema, the detail of
 * a 401 or 429.
 */
import type { CheckContext } from '../../src/checks/check.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { setPointer, type InvalidCase } from '../../src/generators/index.js';
import { validate, validateResponse } from '../../src/validators/index.js';
import { FAILURE_KINDS, pointerOf, type FailureField } from '../../src/results/model.js';
import type { ValidationIssue } from '../../src/validators/issues.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import { BODY_CUT, fail, isSuccess, OK, unjudged, type Judgement } from './outcomes.js';
import { isEnumConflict, label } from './spec-queries.js';
import type { Refusal } from './learned.js';

/**
 * What section 7 says the `detail` of a 401 and of a 429 says. The contract fixes no wording, so the
 * words are only noted: a message naming none of these (in another language, or "No.") is an
 * observation, never a failure (errorDetailWording).
 */
const DETAIL_SAYS = {
  401: {
    what: 'that the credentials are invalid',
    words:
      /invalid|credential|auth|unauthori[sz]|not allowed|denied|api[\s_-]?key|\bkeys?\b|token|bearer|user|missing|expired|incorrect|wrong|not valid|unknown|forbidden|permission|log\s?in|sign[\s-]?in|access/i,
  },
  429: {
    what: 'that the rate limit was exceeded',
    words: /rate|limit|too many|exceed|throttl|quota|slow|retry|try again|requests|capacity/i,
  },
} as const;

/**
 * Judges an error body of section 7 (401 or 429) on what the contract fixes: `{detail: string}`
 * with a message in it (not empty). Undefined when it is; else the reason, for a failure.
 */
export function errorDetailProblem(_status: 401 | 429, response: { json?: unknown; text: string }): string | undefined {
  if (!validate('ErrorDetail', response.json).ok)
    return `body ${response.text.slice(0, 120) || '(empty)'} is not {detail: string}`;
  const detail = (response.json as { detail: string }).detail;
  if (detail.trim() === '') return 'detail is an empty message';
  return undefined;
}

/**
 * The observation for a `detail` whose words say nothing recognisable of what section 7 says it
 * says (the wording is free: another language is fine), or undefined. Only for a body that passed
 * errorDetailProblem.
 */
export function errorDetailWording(status: 401 | 429, response: { json?: unknown }): string | undefined {
  const detail = (response.json as { detail?: unknown } | undefined)?.detail;
  if (typeof detail !== 'string') return undefined;
  const says = DETAIL_SAYS[status];
  if (says.words.test(detail)) return undefined;
  return `the ${status}'s detail ${JSON.stringify(detail.slice(0, 120))} names none of the words that would say ${says.what} (the contract fixes no wording: noted, not judged)`;
}

/** Does a validation error body locate the fault at `loc` (with or without the `body`/`query` prefix)? */
export function locNames(detail: unknown, kase: Pick<InvalidCase, 'loc' | 'location'>): boolean {
  if (!Array.isArray(detail)) return false;
  const want = kase.loc.map(String);
  const named = want.filter((p) => !/^\d+$/.test(p));
  const field = named[named.length - 1];
  return detail.some((item) => {
    const loc = Array.isArray((item as { loc?: unknown })?.loc)
      ? ((item as { loc: unknown[] }).loc.map(String) as string[])
      : [];
    const rest = loc[0] === kase.location ? loc.slice(1) : loc;
    if (rest.length >= want.length && want.every((p, i) => rest[i] === p)) return true;
    // An item may name a nested member as one dotted path ("speech_settings.style"): 2.8 only
    // asks for strings and integers.
    return field !== undefined && loc.some((item) => item === field || item.split('.').includes(field));
  });
}

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

export interface ResponseJudgeOptions {
  /** What was asked for, for the messages. */
  what?: string;
  /** The path holds a placeholder id (see `openRule`). */
  placeholder?: boolean;
}

/**
 * Judges a response to a valid request against what the contract documents for its status:
 * headers, content type and body. The contract's `scheduled` conflict is an observation; a 2xx the
 * contract leaves open (x-unspecified success status) is an observation.
 */
export function judgeResponse(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  options: ResponseJudgeOptions = {},
): Judgement {
  const what = options.what ?? `a valid request to ${label(op)}`;
  const expected = `an answer to ${what}`;
  const open = () =>
    openRule(ctx, op, exchange, {
      placeholder: options.placeholder ?? false,
      what,
      expected: `a success answer to ${what}`,
    });
  return judgeAnswer(ctx, op, exchange, { what, expected, open }, (res) => documentedAnswer(ctx, op, exchange, res));
}

/** The answer against what the contract documents for its status: the status, the content type, the headers and the body. */
function documentedAnswer(ctx: CheckContext, op: Operation, exchange: Exchange, res: AnsweredResponse): Judgement {
  const documented = op.responses.find(
    (r) => r.status === String(res.status) || r.status === `${String(res.status)[0]}XX`,
  );
  if (!documented) return judgeUndocumentedStatus(ctx, op, exchange);
  // A body cut at the runner's cap: its content type (a header) is judged, its content is not.
  const typeProblem = contentTypeProblem(ctx, op, exchange, documented);
  if (typeProblem) return typeProblem;
  if (res.truncated) return BODY_CUT;
  const result = withoutContractConflicts(
    ctx,
    op,
    res,
    validateResponse(op.id, res.status, { headers: res.headers, body: res.json }),
  );
  if (result.ok) return OK;
  const issues = judgedIssues(
    ctx,
    op,
    result.issues.filter((i) => !isEnumConflict(ctx.spec, i)),
  );
  if (!issues.length) return OK;
  const text = issues
    .slice(0, 4)
    .map((i) => i.message)
    .join('; ');
  return fail(
    ctx,
    exchange,
    `the ${documented.status} response documented for ${label(op)} (its headers and body schema)`,
    text,
    `${label(op)} ${res.status}: ${issues[0]!.message}`,
    undefined,
    {
      kind: FAILURE_KINDS.schema,
      field: issueField(issues[0]!, res.status),
    },
  );
}

type AnsweredResponse = NonNullable<Exchange['response']>;
type ResponseCheck = ReturnType<typeof validateResponse>;

/** A status the operation does not document: a failure, unless it is a success status the contract leaves open (an observation). */
function judgeUndocumentedStatus(ctx: CheckContext, op: Operation, exchange: Exchange): Judgement {
  const status = exchange.response!.status;
  if (isSuccess(status) && op.unspecified.some((u) => /success status/i.test(u))) {
    ctx.observe({ operation: label(op), message: `answered ${status}, a success status the contract leaves open` });
    return OK;
  }
  return fail(
    ctx,
    exchange,
    `one of the documented statuses ${op.responses.map((r) => r.status).join(', ')}`,
    `status ${status}`,
    `${label(op)} answered ${status}, which the contract does not document for it`,
    undefined,
    { kind: FAILURE_KINDS.undocumentedStatus },
  );
}

/** The failure when the response's content type is not the documented one (any `+json` stands for JSON) or its JSON body does not parse; else undefined. */
function contentTypeProblem(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  documented: Operation['responses'][number],
): Judgement | undefined {
  const res = exchange.response!;
  if (!documented.contentType) return undefined;
  const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== documented.contentType && !(documented.contentType === 'application/json' && /\+json$/.test(type))) {
    return fail(
      ctx,
      exchange,
      `content type ${documented.contentType} (section 4)`,
      `content type ${type || '(none)'}`,
      `${label(op)} answered ${res.status} with content type ${type || '(none)'}, not ${documented.contentType}`,
      undefined,
      {
        kind: FAILURE_KINDS.contentType,
        field: { location: 'response-header', pointer: '/content-type', status: String(res.status) },
      },
    );
  }
  if (res.json === undefined && !res.truncated) {
    return fail(
      ctx,
      exchange,
      `a JSON body`,
      res.jsonError ?? 'no JSON body',
      `${label(op)} answered ${res.status} with a body that is not JSON`,
      undefined,
      { kind: FAILURE_KINDS.invalidJson, field: { location: 'response', pointer: '', status: String(res.status) } },
    );
  }
  return undefined;
}

/**
 * The contract's own conflict (3.1): a record status its list lacks while the update accepts it is
 * observed, and the rest of the body judged as if the status were allowed.
 */
function withoutContractConflicts(
  ctx: CheckContext,
  op: Operation,
  res: AnsweredResponse,
  result: ResponseCheck,
): ResponseCheck {
  if (result.ok) return result;
  const conflicts = result.issues.filter((i) => isEnumConflict(ctx.spec, i));
  if (!conflicts.length) return result;
  ctx.observe({
    id: 'contract-conflict.campaign-status-scheduled',
    operation: label(op),
    message: conflicts
      .map(
        (c) =>
          `the record's ${c.pointer.split('/').pop()} is ${JSON.stringify(c.actual)}, which the record's list lacks while the update accepts it (contract section 3.1): not judged`,
      )
      .join('; '),
  });
  let body = res.json;
  for (const c of conflicts) {
    const allowed = Array.isArray(c.expected) ? c.expected.find((v) => typeof v === 'string') : undefined;
    body = setPointer(body, c.pointer, allowed ?? null);
  }
  return validateResponse(op.id, res.status, { headers: res.headers, body });
}

/**
 * The issues a response is failed on. A CORS preflight is usually answered by a CORS layer ahead
 * of any rate limiter, and browsers never read its headers: missing rate-limit headers there are
 * noted, not failed (the ratelimit suite judges them on ordinary responses).
 */
function judgedIssues(ctx: CheckContext, op: Operation, issues: ValidationIssue[]): ValidationIssue[] {
  if (op.method !== 'OPTIONS') return issues;
  const headerIssues = issues.filter((i) => i.location === 'header');
  if (!headerIssues.length) return issues;
  ctx.observe({
    operation: label(op),
    message: `the preflight answer lacks documented headers (${headerIssues.map((i) => i.message).join('; ')}); not judged on a preflight`,
  });
  return issues.filter((i) => i.location !== 'header');
}

/**
 * Where a response issue is, as a failure's field: the body (`response`) or a header
 * (`response-header`, the name lower-cased); a missing required property is located on the
 * property itself.
 */
export function issueField(issue: ValidationIssue, status: number): FailureField {
  const missing = issue.rule === 'required' && typeof issue.expected === 'string' ? pointerOf([issue.expected]) : '';
  const pointer = `${issue.pointer}${missing}`;
  // Header names are case-insensitive: lower-cased, as HTTP/2 and the recorded headers spell them.
  if (issue.location === 'header')
    return { location: 'response-header', pointer: pointer.toLowerCase(), status: String(status) };
  return { location: 'response', pointer, status: String(status) };
}
