import { FAILURE_KINDS, type Failure } from '../../results/model.js';
import type { Secrets } from '../../secrets/index.js';
import { curlOf, recordRequest, recordResponse, redactValue } from '../../secrets/record.js';
import type { Operation } from '../../spec/model.js';
import type { Exchange } from '../../transport/types.js';
import type { CheckContext, RequestValidator } from '../../checks/check.js';

/**
 * Wire validations already made, by exchange and operation: several checks judge the same answer
 * (passive judges, the sender itself), and a validator is a pure function of the two.
 */
const validated = new WeakMap<RequestValidator, WeakMap<Exchange, Map<Operation, ReturnType<RequestValidator>>>>();

function validateOnce(
  validateRequest: RequestValidator,
  op: Operation,
  exchange: Exchange,
): ReturnType<RequestValidator> {
  let byExchange = validated.get(validateRequest);
  if (!byExchange) validated.set(validateRequest, (byExchange = new WeakMap()));
  let byOp = byExchange.get(exchange);
  if (!byOp) byExchange.set(exchange, (byOp = new Map()));
  let result = byOp.get(op);
  if (!result) byOp.set(op, (result = validateRequest(op, exchange)));
  return result;
}

type Evidence = Pick<CheckContext, 'failure' | 'record' | 'curl' | 'redact' | 'validateWire'>;

/** What a check may put in a report (failures, recorded exchanges, curl lines, wire validation), every part scrubbed of secrets. */
export function evidenceOf(secrets: Secrets, seed: number, validateRequest: RequestValidator | undefined): Evidence {
  const record: Evidence['record'] = (exchange: Exchange) => {
    const out: ReturnType<CheckContext['record']> = { request: recordRequest(secrets, exchange.request) };
    if (exchange.response) out.response = recordResponse(secrets, exchange.response, exchange.durationMs);
    return out;
  };
  return {
    record,
    curl: (exchange) => curlOf(secrets, exchange),
    redact: <T>(value: T): T => redactValue(secrets, value) as T,
    validateWire(op, exchange) {
      if (!validateRequest) return { available: false, valid: true, errors: [] };
      const result = validateOnce(validateRequest, op, exchange);
      return { available: true, valid: result.valid, errors: result.errors.map((e) => secrets.evidence(e)) };
    },
    failure(exchange, details): Failure {
      const recorded = record(exchange);
      const failure: Failure = {
        kind: details.kind ?? (exchange.response ? FAILURE_KINDS.mismatch : FAILURE_KINDS.noResponse),
        expected: secrets.evidence(details.expected),
        actual: secrets.evidence(details.actual),
        request: recorded.request,
        repro: curlOf(secrets, exchange),
        seed,
      };
      if (recorded.response) failure.response = recorded.response;
      if (details.input !== undefined) failure.input = redactValue(secrets, details.input);
      if (details.path !== undefined) failure.path = details.path;
      if (details.field !== undefined)
        failure.field = { ...details.field, pointer: secrets.evidence(details.field.pointer) };
      return failure;
    },
  };
}
