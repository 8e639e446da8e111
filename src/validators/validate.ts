/**
 * The validators' runtime: looks the precompiled AJV functions up in the generated manifest, guards
 * them against input that is not JSON, coerces parameter strings the way their schemas imply, and
 * turns AJV errors into issues. Knows nothing of HTTP servers, checks or output.
 */
import { VapcError } from '../errors.js';
import * as compiled from '../generated/validators.js';
import { manifest } from '../generated/manifest.js';
import type { SchemaName, SchemaTypes } from '../generated/types.js';
import type { OperationManifest, ParameterEntry } from './manifest-types.js';
import { DEFAULT_LIMITS, inspectJson, type InspectLimits } from './inspect.js';
import { issuesFromAjv, show, type ValidationIssue, type ValidationResult } from './issues.js';

export type { SchemaName, SchemaTypes };

interface AjvFunction {
  (data: unknown): boolean;
  errors?: import('ajv').ErrorObject[] | null;
}

// A plain Map of the module's exports: a lookup by computed key on a module namespace object is
// an exotic-object access V8 does not cache, and every validation does one or more.
const functions = new Map<string, AjvFunction>(Object.entries(compiled as unknown as Record<string, AjvFunction>));

/** Thrown for a schema name the contract does not define (a programming error, not bad data). */
export class UnknownSchemaError extends VapcError {
  readonly schemaName: string;
  constructor(schemaName: string) {
    super('E_UNKNOWN_SCHEMA', `unknown schema "${schemaName}"; the contract defines ${Object.keys(manifest.schemas).join(', ')}`);
    this.name = 'UnknownSchemaError';
    this.schemaName = schemaName;
  }
}

/** Thrown for an operationId the contract does not define. */
export class UnknownOperationError extends VapcError {
  readonly operationId: string;
  constructor(operationId: string) {
    super('E_UNKNOWN_OPERATION', `unknown operation "${operationId}"; the contract defines ${Object.keys(manifest.operations).join(', ')}`);
    this.name = 'UnknownOperationError';
    this.operationId = operationId;
  }
}

export interface ValidateOptions {
  /** Bounds of the input walk: nesting depth, number of values, number of issues reported. */
  limits?: Partial<InspectLimits>;
}

function limitsOf(options?: ValidateOptions): InspectLimits {
  return options?.limits ? { ...DEFAULT_LIMITS, ...options.limits } : DEFAULT_LIMITS;
}

/** Runs one precompiled function on `data` after the JSON guard; never throws on any data. */
function run(fn: AjvFunction, data: unknown, limits: InspectLimits, prefix = ''): ValidationIssue[] {
  try {
    const walk = inspectJson(data, limits);
    if (walk.length > 0) return prefix ? walk.map((i) => ({ ...i, message: `${prefix}${i.message}` })) : walk;
    if (fn(data)) return [];
    return issuesFromAjv(fn.errors, prefix, limits.maxIssues);
  } catch (error) {
    // A getter or proxy that throws while being read: the value cannot be validated as JSON.
    return [{ pointer: '', rule: 'json', message: `${prefix}/ cannot be read as JSON: ${error instanceof Error ? error.message : show(error)}` }];
  }
}

function fnOf(name: string): AjvFunction {
  const fn = functions.get(name);
  if (typeof fn !== 'function') throw new VapcError('E_TOOL_FAILED', `the precompiled validator ${name} is missing; rebuild with npm run build`);
  return fn;
}

function isSchemaName(name: string): name is SchemaName {
  return Object.prototype.hasOwnProperty.call(manifest.schemas, name);
}

/** Validates `data` against a component schema of the contract. */
export function validate<N extends SchemaName>(schemaName: N, data: unknown, options?: ValidateOptions): ValidationResult<SchemaTypes[N]> {
  if (typeof schemaName !== 'string' || !isSchemaName(schemaName)) throw new UnknownSchemaError(String(schemaName));
  const issues = run(fnOf(manifest.schemas[schemaName] as string), data, limitsOf(options));
  return issues.length === 0 ? { ok: true, value: data as SchemaTypes[N] } : { ok: false, issues };
}

/** The component schema names of the contract. */
export function schemaNames(): SchemaName[] {
  return Object.keys(manifest.schemas) as SchemaName[];
}

/** The operationIds of the contract. */
export function operationIds(): string[] {
  return Object.keys(manifest.operations);
}

function operationOf(operationId: string): OperationManifest {
  const op = typeof operationId === 'string' && Object.prototype.hasOwnProperty.call(manifest.operations, operationId) ? manifest.operations[operationId] : undefined;
  if (!op) throw new UnknownOperationError(String(operationId));
  return op;
}

// ---- parameter coercion ------------------------------------------------------------------------

const INTEGER = /^-?(?:0|[1-9]\d*)$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function typesOf(schema: { [key: string]: unknown }): string[] | undefined {
  const t = schema['type'];
  return typeof t === 'string' ? [t] : Array.isArray(t) ? (t as string[]) : undefined;
}

/**
 * A parameter arrives as a string (or several, for a repeated query parameter). Turn it into the
 * value its schema's type implies; a string no type accepts is left as it is, for AJV to report.
 */
function coerce(value: unknown, schema: { [key: string]: unknown }): unknown {
  const types = typesOf(schema);
  if (types?.includes('array')) {
    const items = (schema['items'] && typeof schema['items'] === 'object' ? schema['items'] : {}) as { [key: string]: unknown };
    return (Array.isArray(value) ? value : [value]).map((v) => coerce(v, items));
  }
  if (Array.isArray(value)) return value.length === 1 ? coerce(value[0], schema) : value;
  if (typeof value !== 'string' || !types || types.includes('string')) return value;
  if (types.includes('integer') && INTEGER.test(value)) return Number(value);
  if (types.includes('number') && NUMBER.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if (types.includes('null') && (value === 'null' || value === '')) return null;
  return value;
}

type Location = 'path' | 'query' | 'header';

function coerceAll(given: Record<string, unknown> | undefined, entries: ParameterEntry[], location: Location): { all: Record<string, unknown>; documented: Record<string, unknown> } {
  const all: Record<string, unknown> = {};
  if (given) for (const key of Object.keys(given)) all[location === 'header' ? key.toLowerCase() : key] = given[key];
  const documented: Record<string, unknown> = {};
  for (const entry of entries) {
    const key = location === 'header' ? entry.name.toLowerCase() : entry.name;
    if (Object.prototype.hasOwnProperty.call(all, key)) {
      const value = coerce(all[key], entry.schema);
      documented[entry.name] = value;
      all[key] = value;
    } else if (location === 'query' && entry.schema['default'] !== undefined) {
      all[key] = entry.schema['default'];
    }
  }
  return { all, documented };
}

function located(issues: ValidationIssue[], location: ValidationIssue['location']): ValidationIssue[] {
  return issues.map((i) => ({ ...i, location }));
}

export interface RequestParts {
  path?: Record<string, string>;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ValidatedRequest {
  /** Path parameters, coerced. */
  path: Record<string, unknown>;
  /** Query parameters, coerced, with the documented defaults of absent ones filled in. */
  query: Record<string, unknown>;
  /** Every header given, names lower-cased; documented header parameters coerced. */
  headers: Record<string, unknown>;
  body: unknown;
}

/**
 * Validates a request of an operation: path, query and header parameters (coerced from strings as
 * their schemas imply; header names case-insensitive) and the JSON body. Security headers
 * (Authorization, X-User-ID) are not parameters and are not validated here.
 */
export function validateRequest(operationId: string, parts: RequestParts, options?: ValidateOptions): ValidationResult<ValidatedRequest> {
  const op = operationOf(operationId);
  const limits = limitsOf(options);
  const issues: ValidationIssue[] = [];
  const value: ValidatedRequest = { path: {}, query: {}, headers: {}, body: parts?.body };
  const locations: [Location, keyof ValidatedRequest, Record<string, unknown> | undefined][] = [
    ['path', 'path', parts?.path],
    ['query', 'query', parts?.query],
    ['header', 'headers', parts?.headers],
  ];
  for (const [location, key, given] of locations) {
    const safeGiven = given && typeof given === 'object' ? given : undefined;
    const { all, documented } = coerceAll(safeGiven, op.parameters[location], location);
    value[key] = all as never;
    const validator = op.validators[location];
    if (validator) issues.push(...located(run(fnOf(validator), documented, limits, `${location} `), location));
  }
  if (op.body) {
    if (parts?.body === undefined) {
      if (op.body.required) issues.push({ pointer: '', location: 'body', rule: 'required', expected: op.body.contentType, message: 'body / is required by the contract and is missing' });
    } else {
      issues.push(...located(run(fnOf(op.body.validator), parts.body, limits, 'body '), 'body'));
    }
  }
  return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
}

/**
 * Which documented response a status maps to: the exact code first, then its range ('2XX'), then
 * 'default'. Undefined when the contract documents no response for it.
 */
export function responseSchemaFor(operationId: string, status: number): { status: string } | undefined {
  const op = operationOf(operationId);
  const keys = Object.keys(op.responses);
  const exact = keys.find((k) => k === String(status));
  if (exact) return { status: exact };
  const range = keys.find((k) => k.toUpperCase() === `${String(status).charAt(0)}XX` && String(status).length === 3);
  if (range) return { status: range };
  return keys.includes('default') ? { status: 'default' } : undefined;
}

export interface ResponseParts {
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * Validates a response of an operation: the status must be documented, the documented headers
 * present and of their type (the rate-limit headers must parse as integers), the body valid.
 * On success the value is the body.
 */
export function validateResponse(operationId: string, status: number, parts: ResponseParts, options?: ValidateOptions): ValidationResult<unknown> {
  const op = operationOf(operationId);
  const limits = limitsOf(options);
  const documented = responseSchemaFor(operationId, status);
  if (!documented) {
    const known = Object.keys(op.responses);
    return {
      ok: false,
      issues: [{ pointer: '', rule: 'status', expected: known, actual: status, message: `status ${status} is not documented for ${operationId}; the contract documents ${known.join(', ')}` }],
    };
  }
  const response = op.responses[documented.status];
  const issues: ValidationIssue[] = [];
  if (response?.headersValidator) {
    const { documented: headers } = coerceAll(parts?.headers && typeof parts.headers === 'object' ? parts.headers : undefined, response.headers, 'header');
    issues.push(...located(run(fnOf(response.headersValidator), headers, limits, 'header '), 'header'));
  }
  if (response?.bodyValidator) {
    if (parts?.body === undefined) {
      issues.push({ pointer: '', location: 'body', rule: 'required', expected: response.contentType, message: `body / is missing; the contract documents a ${response.contentType ?? 'JSON'} body for ${documented.status}` });
    } else {
      issues.push(...located(run(fnOf(response.bodyValidator), parts.body, limits, 'body '), 'body'));
    }
  }
  return issues.length === 0 ? { ok: true, value: parts?.body } : { ok: false, issues };
}
