/**
 * The public surface of `voice-agent-contract`: every symbol a consumer may import, by name.
 * Validators of the contract (precompiled from the spec), their types and type guards, and the
 * error classes with stable codes. The bundled document itself is exported as `voice-agent-contract/spec`.
 */
export {
  UnknownOperationError,
  UnknownSchemaError,
  manifest,
  operationIds,
  responseSchemaFor,
  schemaNames,
  validate,
  validateRequest,
  validateResponse,
} from './validators/index.js';
export * from './generated/guards.js';
export type * from './generated/types.js';
export type {
  CheckedResult,
  HeadersInput,
  HeadersLike,
  RequestPart,
  ResponsePart,
} from './validators/index.js';
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
