/**
 * Open rules tested against the run's own evidence: an invalid request answered 403 or 409 (rules
 * the contract leaves to the server: forbidden access, a conflict) is followed by its control, the
 * same request on the same record with valid values, sent once per operation and path in the run.
 * When the control is served (2xx), the refusal was for the invalid value, which the contract
 * answers 422 (sections 2.8, 7): a failure, with the control's request beside it. When the control
 * is refused too, the refusal is the server's own rule (a read-only key, a locked record): judged
 * nothing, and the cause says so.
 */
import type { CheckContext, Judgement } from '../../src/checks/check.js';
import { FAILURE_KINDS, type FailureField } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange, HttpRequest } from '../../src/transport/types.js';
import { fail, isSuccess, unjudged } from './outcomes.js';
import { label } from './spec-queries.js';

/** Statuses of the open rules whose refusal a control request can test. */
const CONTROLLED = new Set([403, 409]);

/** The controls sent in a run, by operation and path (the run's fixtures object identifies the run). */
const sentControls = new WeakMap<object, Map<string, Promise<Exchange>>>();

/** The request a control sends: the same operation and path, valid values (`json`, `query`). */
export type ControlRequest = HttpRequest & { operation: Operation };

const pathOf = (url: string): string => new URL(url, 'http://control.invalid').pathname;

function controlFor(ctx: CheckContext, key: string, request: () => ControlRequest): Promise<Exchange> {
  let byKey = sentControls.get(ctx.fixtures);
  if (!byKey) sentControls.set(ctx.fixtures, (byKey = new Map()));
  let sent = byKey.get(key);
  if (!sent) {
    // Tagged as setup: made once per run for whichever check meets the refusal first.
    sent = ctx.send({ ...request(), checkId: 'setup' });
    byKey.set(key, sent);
  }
  return sent;
}

export interface Controlled {
  /** What the invalid request was (its case), for the failure's words. */
  what: string;
  /** The rule the invalid request is held to (the 422 of 2.8). */
  expected: string;
  field?: FailureField;
  input?: unknown;
  /** The control: the same request with valid values. */
  control: () => ControlRequest;
}

/**
 * The judgement of an invalid request, with a 403 or 409 refusal tested by its control (see the
 * module comment); any other judgement is returned as it is.
 */
export async function withControl(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  judgement: Judgement,
  c: Controlled,
): Promise<Judgement> {
  if (!judgement.ok || judgement.unjudged === undefined) return judgement;
  const { why } = judgement;
  if (why.cause !== 'refused' || why.status === undefined || !CONTROLLED.has(why.status)) return judgement;
  const key = `${op.id} ${pathOf(exchange.request.url)}`;
  const control = await controlFor(ctx, key, c.control);
  const served = control.response && isSuccess(control.response.status);
  if (!served)
    return unjudged(
      `${judgement.unjudged}; the same request with valid values was refused too (${control.response?.status ?? 'no answer'})`,
      why,
    );
  const status = exchange.response!.status;
  const judged = fail(
    ctx,
    exchange,
    `${c.expected}: the same request with valid values was served (${control.response!.status}), so the ${status} was for the invalid value`,
    `status ${status}: ${exchange.response!.text.slice(0, 120)}`,
    `${c.what} on ${label(op)} answered ${status}, while the same request with valid values got ${control.response!.status}`,
    c.input,
    { kind: FAILURE_KINDS.status, ...(c.field ? { field: c.field } : {}) },
  );
  if (judged.ok) return judged;
  return {
    ...judged,
    failure: { ...judged.failure, repro: `${judged.failure.repro}  # served: ${ctx.curl(control)}` },
  };
}
