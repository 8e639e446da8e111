/**
 * The public surface of `voice-agent-contract`: every symbol a consumer may import, by name.
 * Validators of the contract (precompiled from the spec), their types and type guards, and the
 * error classes with stable codes. Operation ids are typed as the literal union `OperationId`. The bundled document itself is exported as `voice-agent-contract/spec`.
 */
export { UnknownOperationError, UnknownSchemaError, manifest, schemaNames, validate } from './validators/index.js';
export {
  operationIds,
  responseSchemaFor,
  validateRequest,
  validateResponse,
  type OperationId,
} from './validators/public.js';
export * from './generated/guards.js';
export type * from './generated/types.js';
export type { CheckedResult, HeadersInput, HeadersLike, RequestPart, ResponsePart } from './validators/index.js';
export type {
  InspectLimits,
  OperationManifest,
  ParameterEntry,
  RequestParts,
  ResponseManifest,
  ResponseParts,
  SchemaName,
  SchemaTypes,
  ValidateOptions,
  ValidatedRequest,
  ValidationIssue,
  ValidationResult,
  ValidatorsManifest,
} from './validators/index.js';
export { VapcError, isVapcError, type ErrorCode } from './errors.js';
