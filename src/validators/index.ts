/**
 * The validators of the contract, precompiled from the spec at build time (AJV 2020-12 standalone):
 * one per component schema and per operation part. Import them; nothing is compiled at import.
 */
export type { ValidationIssue, ValidationResult } from './issues.js';
export type { InspectLimits } from './inspect.js';
export type { OperationManifest, ParameterEntry, ResponseManifest, ValidatorsManifest } from './manifest-types.js';
export {
  UnknownOperationError,
  UnknownSchemaError,
  operationIds,
  responseSchemaFor,
  schemaNames,
  validate,
  validateRequest,
  validateResponse,
  type CheckedResult,
  type HeadersInput,
  type HeadersLike,
  type RequestPart,
  type RequestParts,
  type ResponsePart,
  type ResponseParts,
  type SchemaName,
  type SchemaTypes,
  type ValidateOptions,
  type ValidatedRequest,
} from './validate.js';
export * from '../generated/guards.js';
export type * from '../generated/types.js';
export { manifest } from '../generated/manifest.js';
