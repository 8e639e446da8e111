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
import { issuesFromAjv, show, type ErrorObject, type ValidationIssue, type ValidationResult } from './issues.js';

export type { SchemaName, SchemaTypes };

interface AjvFunction {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

// A plain Map of the module's exports: a lookup by computed key on a module namespace object is
// an exotic-object access V8 does not cache, and every validation does one or more.
const functions = new Map<string, AjvFunction>(Object.entries(compiled as unknown as Record<string, AjvFunction>));

/** Thrown for a schema name the contract does not define (a programming error, not bad data). */
export class UnknownSchemaError extends VapcError {
  readonly schemaName: string;
  constructor(schemaName: string) {
    super(
      'E_UNKNOWN_SCHEMA',
      `unknown schema "${schemaName}"; the contract defines ${Object.keys(manifest.schemas).join(', ')}`,
    );
    this.name = 'UnknownSchemaError';
    this.schemaName = schemaName;
  }
}

/** Thrown for an operationId the contract does not define. */
export class UnknownOperationError extends VapcError {
  readonly operationId: string;
  constructor(operationId: string) {
    super(
      'E_UNKNOWN_OPERATION',
      `unknown operation "${operationId}"; the contract defines ${Object.keys(manifest.operations).join(', ')}`,
    );
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
    return [
      {
        pointer: '',
        rule: 'json',
        message: `${prefix}/ cannot be read as JSON: ${error instanceof Error ? error.message : show(error)}`,
      },
    ];
  }
}

function fnOf(name: string): AjvFunction {
  const fn = functions.get(name);
  if (typeof fn !== 'function')
    throw new VapcError('E_TOOL_FAILED', `the precompiled validator ${name} is missing; rebuild with npm run build`);
  return fn;
}

function isSchemaName(name: string): name is SchemaName {
  return Object.prototype.hasOwnProperty.call(manifest.schemas, name);
}

/** Validates `data` against a component schema of the contract. */
export function validate<N extends SchemaName>(
  schemaName: N,
  data: unknown,
  options?: ValidateOptions,
): ValidationResult<SchemaTypes[N]> {
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
  const op =
    typeof operationId === 'string' && Object.prototype.hasOwnProperty.call(manifest.operations, operationId)
      ? manifest.operations[operationId]
      : undefined;
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
    const items = (schema['items'] && typeof schema['items'] === 'object' ? schema['items'] : {}) as {
      [key: string]: unknown;
    };
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

/**
 * Headers as callers hold them: a fetch `Headers` (or anything with the same `forEach`, such as a
 * `Map`), Node's `IncomingHttpHeaders` (string or string[] values, `undefined` for absent ones), or
 * a plain record. Names are compared case-insensitively.
 */
export type HeadersInput = HeadersLike | Readonly<Record<string, string | readonly string[] | number | undefined>>;

/** The part of a fetch `Headers` the validators read (a DOM, undici or Node `Headers` fits). */
export interface HeadersLike {
  forEach(callback: (value: string, name: string) => void): void;
}

/** The parts of a request that can be validated, named as in `RequestParts`. */
export type RequestPart = 'path' | 'query' | 'headers' | 'body';
/** The parts of a response that can be validated (the status is always checked). */
export type ResponsePart = 'headers' | 'body';

/** A validation result that also says which parts were checked: a part not passed is not checked. */
export type CheckedResult<T, P extends string> = ValidationResult<T> & { checked: P[] };

export interface RequestParts {
  path?: Record<string, string>;
  query?: Record<string, string | string[]>;
  headers?: HeadersInput;
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

export interface ResponseParts {
  headers?: HeadersInput;
  body?: unknown;
}

function isHeadersLike(value: object): value is HeadersLike {
  return typeof (value as { forEach?: unknown }).forEach === 'function' && !Array.isArray(value);
}

/** One header value as the validators read it: a string, or several for a repeated header. */
function headerValue(value: unknown): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String);
  return String(value);
}

/**
 * Any accepted form of headers as one record with lower-cased names. Two names differing only in
 * case (possible in a plain record) are joined as a repeated header, as Node joins them.
 */
export function headerRecord(input: HeadersInput | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const add = (name: string, raw: unknown): void => {
    const value = headerValue(raw);
    if (value === undefined) return;
    const key = String(name).toLowerCase();
    const prev = out[key];
    out[key] =
      prev === undefined
        ? value
        : [...(Array.isArray(prev) ? prev : [prev]), ...(Array.isArray(value) ? value : [value])];
  };
  if (!input || typeof input !== 'object') return out;
  if (isHeadersLike(input)) input.forEach((value, name) => add(name, value));
  else for (const name of Object.keys(input)) add(name, (input as Record<string, unknown>)[name]);
  return out;
}

function coerceAll(
  given: Record<string, unknown> | undefined,
  entries: ParameterEntry[],
  location: Location,
): { all: Record<string, unknown>; documented: Record<string, unknown> } {
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

/** Whether the caller passed this part (even as `undefined`): only passed parts are checked. */
function passed(parts: unknown, key: RequestPart): boolean {
  return parts !== null && typeof parts === 'object' && Object.prototype.hasOwnProperty.call(parts, key);
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
}

/**
 * Validates a request of an operation: path, query and header parameters (coerced from strings as
 * their schemas imply; header names case-insensitive, headers in any `HeadersInput` form) and the
 * JSON body. Only the parts passed are checked, each fully (required parameters and a required body
 * included); `checked` names them. Security headers (Authorization, X-User-ID) are not parameters
 * and are not validated here.
 */
export function validateRequest(
  operationId: string,
  parts: RequestParts,
  options?: ValidateOptions,
): CheckedResult<ValidatedRequest, RequestPart> {
  const op = operationOf(operationId);
  const limits = limitsOf(options);
  const issues: ValidationIssue[] = [];
  const checked: RequestPart[] = [];
  const value: ValidatedRequest = { path: {}, query: {}, headers: {}, body: parts?.body };
  const locations: [Location, RequestPart & keyof ValidatedRequest][] = [
    ['path', 'path'],
    ['query', 'query'],
    ['header', 'headers'],
  ];
  for (const [location, key] of locations) {
    if (!passed(parts, key)) continue;
    checked.push(key);
    const given = key === 'headers' ? headerRecord(parts.headers) : recordOf(parts[key]);
    const { all, documented } = coerceAll(given, op.parameters[location], location);
    value[key] = all as never;
    const validator = op.validators[location];
    if (validator) issues.push(...located(run(fnOf(validator), documented, limits, `${location} `), location));
  }
  if (passed(parts, 'body')) {
    checked.push('body');
    if (op.body && parts.body === undefined) {
      if (op.body.required)
        issues.push({
          pointer: '',
          location: 'body',
          rule: 'required',
          expected: op.body.contentType,
          message: 'body / is required by the contract and is missing',
        });
    } else if (op.body) {
      issues.push(...located(run(fnOf(op.body.validator), parts.body, limits, 'body '), 'body'));
    }
  }
  return issues.length === 0 ? { ok: true, value, checked } : { ok: false, issues, checked };
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

/**
 * Validates a response of an operation: the status must be documented; then, of the parts passed,
 * the documented headers present and of their type (the rate-limit headers must parse as integers;
 * headers in any `HeadersInput` form, names case-insensitive) and the body valid. A part not passed
 * is not checked (`checked` names those that were). On success the value is the body.
 */
export function validateResponse(
  operationId: string,
  status: number,
  parts: ResponseParts,
  options?: ValidateOptions,
): CheckedResult<unknown, ResponsePart> {
  const op = operationOf(operationId);
  const limits = limitsOf(options);
  const documented = responseSchemaFor(operationId, status);
  if (!documented) {
    const known = Object.keys(op.responses);
    return {
      ok: false,
      checked: [],
      issues: [
        {
          pointer: '',
          rule: 'status',
          expected: known,
          actual: status,
          message: `status ${status} is not documented for ${operationId}; the contract documents ${known.join(', ')}`,
        },
      ],
    };
  }
  const response = op.responses[documented.status];
  const issues: ValidationIssue[] = [];
  const checked: ResponsePart[] = [];
  if (passed(parts, 'headers')) {
    checked.push('headers');
    if (response?.headersValidator) {
      const { documented: headers } = coerceAll(headerRecord(parts.headers), response.headers, 'header');
      issues.push(...located(run(fnOf(response.headersValidator), headers, limits, 'header '), 'header'));
    }
  }
  if (passed(parts, 'body')) {
    checked.push('body');
    if (response?.bodyValidator && parts.body === undefined) {
      issues.push({
        pointer: '',
        location: 'body',
        rule: 'required',
        expected: response.contentType,
        message: `body / is missing; the contract documents a ${response.contentType ?? 'JSON'} body for ${documented.status}`,
      });
    } else if (response?.bodyValidator) {
      issues.push(...located(run(fnOf(response.bodyValidator), parts.body, limits, 'body '), 'body'));
    }
  }
  return issues.length === 0 ? { ok: true, value: parts?.body, checked } : { ok: false, issues, checked };
}
