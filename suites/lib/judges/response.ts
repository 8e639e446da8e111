/**
 * The judge of a response to a valid request against what the contract documents for its status:
 * the status, the content type, the headers and the body; the contract's own conflicts observed.
 */
import type { CheckContext } from '../../../src/checks/check.js';
import type { Operation } from '../../../src/spec/model.js';
import type { Exchange } from '../../../src/transport/types.js';
import { setPointer } from '../../../src/generators/index.js';
import { validateResponse } from '../../../src/validators/index.js';
import { FAILURE_KINDS, pointerOf, type FailureField } from '../../../src/results/model.js';
import type { ValidationIssue } from '../../../src/validators/issues.js';
import { judgeAnswer } from '../../../src/checks/judge.js';
import { BODY_CUT, fail, isSuccess, OK, type Judgement } from '../outcomes.js';
import { isEnumConflict, label } from '../spec-queries.js';
import { openRule } from './open-rules.js';

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
export function documentedAnswer(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  res: AnsweredResponse,
): Judgement {
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
