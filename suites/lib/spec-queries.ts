/** Questions the suites ask of the spec: labels, documented success responses, enum conflicts, bounds. */
import {
  operationLabel,
  walkProperties,
  type JsonSchema,
  type NumericBound,
  type Operation,
  type SpecModel,
} from '../../src/spec/model.js';
import type { ValidationIssue } from '../../src/validators/index.js';

/** `METHOD /path` of an operation (the spec's one label). */
export const label = operationLabel;

/** The success response the contract documents for an operation (200/201/2XX), if any. */
export function successResponse(op: Operation) {
  return op.responses.find((r) => /^2/.test(r.status));
}

export function successSchema(op: Operation): JsonSchema | undefined {
  return successResponse(op)?.schema;
}

const enumConflictCache = new WeakMap<SpecModel, Map<string, Set<unknown>>>();

/**
 * Field → the values a request body's enum accepts that every response enum of that field lacks:
 * the contract's own conflict (3.1: the update accepts campaign status `scheduled`, the record's
 * status list lacks it), read from the spec rather than typed here.
 */
export function enumConflicts(spec: SpecModel): Map<string, Set<unknown>> {
  const cached = enumConflictCache.get(spec);
  if (cached) return cached;
  const collect = (into: Map<string, Set<unknown>>) => (_pointer: string, field: string, schema: JsonSchema) => {
    if (!Array.isArray(schema['enum'])) return;
    const values = into.get(field) ?? new Set<unknown>();
    for (const v of schema['enum']) values.add(v);
    into.set(field, values);
  };
  const accepted = new Map<string, Set<unknown>>();
  const returned = new Map<string, Set<unknown>>();
  for (const op of spec.operations) {
    if (op.requestBody) walkProperties(op.requestBody.schema, '', collect(accepted));
    for (const response of op.responses) if (response.schema) walkProperties(response.schema, '', collect(returned));
  }
  const conflicts = new Map<string, Set<unknown>>();
  for (const [field, values] of accepted) {
    const known = returned.get(field);
    if (!known) continue;
    const missing = [...values].filter((v) => !known.has(v));
    if (missing.length) conflicts.set(field, new Set(missing));
  }
  enumConflictCache.set(spec, conflicts);
  return conflicts;
}

/** True for a response issue caused by the contract's own enum conflict (see enumConflicts). */
export function isEnumConflict(spec: SpecModel, issue: ValidationIssue): boolean {
  if (issue.rule !== 'enum') return false;
  const field = issue.pointer.split('/').pop() ?? '';
  return enumConflicts(spec).get(field)?.has(issue.actual) ?? false;
}

/** The stated numeric bound of a body field of an operation (spec.bounds()), if any. */
export function boundOf(spec: SpecModel, op: Operation, field: string): NumericBound | undefined {
  return spec.bounds().find((b) => b.operationId === op.id && b.field === field);
}

/**
 * A plain credentialed read: GET, credentials required, no parameters, no body, no side effects
 * (GET /users/me). Checks that need one request any valid credentials must pass pick the first.
 */
export const isCredentialedRead = (op: Operation): boolean =>
  op.method === 'GET' &&
  op.requiresCredentials &&
  op.credentials.length > 0 &&
  op.parameters.length === 0 &&
  !op.requestBody &&
  !op.sideEffects;
