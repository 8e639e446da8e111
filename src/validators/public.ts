/**
 * The validators as consumers see them (the package's '.' and the validators package): the same
 * functions as ./validate.ts, typed with the contract's operationIds as a literal union, so a
 * misspelt id ('createCampaing') fails to compile. The toolkit's own code (the server, the checks)
 * walks the spec and passes ids as strings: it imports ./index.ts, whose signatures take `string`.
 */
import type { OperationId } from '../generated/manifest.js';
import * as untyped from './validate.js';
import type {
  CheckedResult,
  RequestPart,
  RequestParts,
  ResponsePart,
  ResponseParts,
  ValidateOptions,
  ValidatedRequest,
} from './validate.js';

export type { OperationId };

/** The operationIds of the contract, in the order of the spec. */
export const operationIds: () => OperationId[] = untyped.operationIds as () => OperationId[];

/** Validates the parts of a request passed (path, query, headers, body) against an operation. */
export const validateRequest: (
  operationId: OperationId,
  parts: RequestParts,
  options?: ValidateOptions,
) => CheckedResult<ValidatedRequest, RequestPart> = untyped.validateRequest;

/** Validates a response of an operation: a documented status, then the headers and body passed. */
export const validateResponse: (
  operationId: OperationId,
  status: number,
  parts: ResponseParts,
  options?: ValidateOptions,
) => CheckedResult<unknown, ResponsePart> = untyped.validateResponse;

/** Which documented response a status maps to (exact, then '2XX', then 'default'); undefined when none. */
export const responseSchemaFor: (operationId: OperationId, status: number) => { status: string } | undefined =
  untyped.responseSchemaFor;
