import { VapcError } from '../errors.js';

/** A JSON Schema as it appears in the dereferenced document (2020-12 dialect). */
export type JsonSchema = { [key: string]: unknown };

export interface OpenAPIDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema>; [key: string]: unknown };
  [key: string]: unknown;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';
export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface Parameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  schema: JsonSchema;
  description?: string;
}

export interface ResponseHeader {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface ResponseSpec {
  /** The status key as written in the spec: '200', '2XX', '422', ... */
  status: string;
  description: string;
  headers: ResponseHeader[];
  /** The JSON schema of the body, when the response documents one. */
  schema?: JsonSchema;
  contentType?: string;
}

/** The credential kinds of this contract's security schemes. */
export type Credential = 'bearer' | 'userId';

export interface SecurityScheme {
  name: string;
  credential: Credential;
  type: string;
  /** HTTP header that carries it. */
  header: string;
}

export interface Operation {
  id: string;
  method: HttpMethod;
  path: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: Parameter[];
  requestBody?: { required: boolean; contentType: string; schema: JsonSchema };
  responses: ResponseSpec[];
  /** Alternatives of the security requirement; an empty alternative means "no credentials". */
  security: SecurityScheme[][];
  /** True when every alternative needs at least one credential. */
  requiresCredentials: boolean;
  /** Credentials of the strictest alternative (the ones a client is documented to send). */
  credentials: Credential[];
  unspecified: string[];
  conflict?: string;
  /** Present when the operation has effects outside test data (x-side-effects). */
  sideEffects?: string;
}

/** `METHOD /path` of an operation, as results, reports and selections name it. */
export const operationLabel = (op: Pick<Operation, 'method' | 'path'>): string => `${op.method} ${op.path}`;

/** A numeric bound stated by the contract on a request body field. */
export interface NumericBound {
  operationId: string;
  /** JSON Pointer into the body, e.g. /max_concurrency. */
  pointer: string;
  field: string;
  minimum?: number;
  maximum?: number;
  type: 'integer' | 'number';
}

export interface SpecModel {
  document: OpenAPIDocument;
  version: string;
  operations: Operation[];
  securitySchemes: SecurityScheme[];
  operation(id: string): Operation;
  schema(name: string): JsonSchema;
  schemaNames(): string[];
  /** Numeric bounds of request bodies, read from minimum/maximum of the schemas. */
  bounds(): NumericBound[];
  /** JSON Pointers (with `*` for array items) of fields marked x-secret, per schema name. */
  secretFields(): string[];
}

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/** The value as a plain object, or `{}` when it is not one (arrays included): reads a parsed document without casts. */
export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The header that carries a credential, as the spec's security schemes name it (the contract's names when it has none). */
export function credentialHeader(spec: Pick<SpecModel, 'securitySchemes'>, credential: Credential): string {
  return (
    spec.securitySchemes.find((s) => s.credential === credential)?.header ??
    (credential === 'bearer' ? 'Authorization' : 'X-User-ID')
  );
}

function credentialOf(scheme: Record<string, unknown>): Credential {
  return scheme['type'] === 'http' && scheme['scheme'] === 'bearer' ? 'bearer' : 'userId';
}

function securitySchemesOf(components: Record<string, unknown>): SecurityScheme[] {
  return Object.entries(asRecord(components['securitySchemes'])).map(([name, raw]) => {
    const scheme = asRecord(raw);
    const credential = credentialOf(scheme);
    return {
      name,
      credential,
      type: String(scheme['type']),
      header: credential === 'bearer' ? 'Authorization' : String(scheme['name']),
    };
  });
}

/** Path-level parameters overridden by the operation's own (same location and name). */
function parametersOf(shared: Record<string, unknown>[], own: Record<string, unknown>[]): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const p of [...shared, ...own]) {
    const param: Parameter = {
      name: String(p['name']),
      in: p['in'] as ParameterLocation,
      required: p['required'] === true,
      schema: asRecord(p['schema']),
    };
    if (typeof p['description'] === 'string') param.description = p['description'];
    byKey.set(`${param.in}:${param.name}`, param);
  }
  return [...byKey.values()];
}

function responsesOf(op: Record<string, unknown>): ResponseSpec[] {
  return Object.entries(asRecord(op['responses'])).map(([status, raw]) => {
    const response = asRecord(raw);
    const content = asRecord(response['content']);
    const contentType = Object.keys(content)[0];
    const spec: ResponseSpec = {
      status,
      description: String(response['description'] ?? ''),
      headers: Object.entries(asRecord(response['headers'])).map(([name, h]) => ({
        name,
        required: asRecord(h)['required'] === true,
        schema: asRecord(asRecord(h)['schema']),
      })),
    };
    if (contentType) {
      spec.contentType = contentType;
      spec.schema = asRecord(asRecord(content[contentType])['schema']);
    }
    return spec;
  });
}

function requestBodyOf(op: Record<string, unknown>): Operation['requestBody'] {
  const body = asRecord(op['requestBody']);
  const bodyContent = asRecord(body['content']);
  const bodyType = Object.keys(bodyContent)[0];
  if (!bodyType) return undefined;
  return {
    required: body['required'] === true,
    contentType: bodyType,
    schema: asRecord(asRecord(bodyContent[bodyType])['schema']),
  };
}

interface SecurityContext {
  schemeByName: Map<string, SecurityScheme>;
  globalSecurity: Record<string, string[]>[];
}

function operationOf(
  path: string,
  method: HttpMethod,
  op: Record<string, unknown>,
  shared: Record<string, unknown>[],
  sec: SecurityContext,
): Operation {
  const rawSecurity = (op['security'] as Record<string, string[]>[] | undefined) ?? sec.globalSecurity;
  const security = rawSecurity.map((alt) =>
    Object.keys(alt).map((name) => {
      const scheme = sec.schemeByName.get(name);
      if (!scheme)
        throw new VapcError('E_SPEC_INVALID', `operation ${method} ${path} names an unknown security scheme ${name}`);
      return scheme;
    }),
  );
  const strictest = security.reduce<SecurityScheme[]>((a, b) => (b.length > a.length ? b : a), []);
  const operation: Operation = {
    id: String(op['operationId']),
    method,
    path,
    summary: String(op['summary'] ?? ''),
    description: String(op['description'] ?? ''),
    tags: (op['tags'] as string[] | undefined) ?? [],
    parameters: parametersOf(shared, (op['parameters'] as Record<string, unknown>[] | undefined) ?? []),
    responses: responsesOf(op),
    security,
    requiresCredentials: security.length > 0 && security.every((alt) => alt.length > 0),
    credentials: strictest.map((s) => s.credential),
    unspecified: (op['x-unspecified'] as string[] | undefined) ?? [],
  };
  const requestBody = requestBodyOf(op);
  if (requestBody) operation.requestBody = requestBody;
  if (typeof op['x-contract-conflict'] === 'string') operation.conflict = op['x-contract-conflict'];
  if (typeof op['x-side-effects'] === 'string') operation.sideEffects = op['x-side-effects'];
  return operation;
}

function operationsOf(document: OpenAPIDocument, sec: SecurityContext): Operation[] {
  const operations: Operation[] = [];
  for (const [path, rawItem] of Object.entries(document.paths ?? {})) {
    const item = asRecord(rawItem);
    const shared = (item['parameters'] as Record<string, unknown>[] | undefined) ?? [];
    for (const method of METHODS) {
      if (!item[method.toLowerCase()]) continue;
      operations.push(operationOf(path, method, asRecord(item[method.toLowerCase()]), shared, sec));
    }
  }
  return operations;
}

/** The numeric request-body fields with a documented minimum or maximum. */
function numericBounds(operations: Operation[]): NumericBound[] {
  const out: NumericBound[] = [];
  for (const op of operations) {
    if (!op.requestBody) continue;
    walkProperties(op.requestBody.schema, '', (pointer, field, schema) => {
      const type = schema['type'];
      if (
        (type === 'integer' || type === 'number') &&
        (schema['minimum'] !== undefined || schema['maximum'] !== undefined)
      ) {
        const bound: NumericBound = { operationId: op.id, pointer, field, type };
        if (typeof schema['minimum'] === 'number') bound.minimum = schema['minimum'];
        if (typeof schema['maximum'] === 'number') bound.maximum = schema['maximum'];
        out.push(bound);
      }
    });
  }
  return out;
}

/** The names of the fields marked x-secret in any schema. */
function secretFieldsOf(schemas: Record<string, JsonSchema>): string[] {
  const out = new Set<string>();
  for (const schema of Object.values(schemas)) {
    walkProperties(schema, '', (_pointer, field, s) => {
      if (s['x-secret'] === true) out.add(field);
    });
  }
  return [...out];
}

export function buildModel(document: OpenAPIDocument): SpecModel {
  const components = asRecord(document.components);
  const securitySchemes = securitySchemesOf(components);
  const schemeByName = new Map(securitySchemes.map((s) => [s.name, s]));
  const globalSecurity = (document['security'] as Record<string, string[]>[] | undefined) ?? [];
  const operations = operationsOf(document, { schemeByName, globalSecurity });
  const byId = new Map(operations.map((o) => [o.id, o]));
  const schemas = asRecord(components['schemas']) as Record<string, JsonSchema>;
  // The document does not change once loaded: bounds and secret fields are walked once, and each
  // caller gets its own copy.
  let boundsCache: NumericBound[] | undefined;
  let secretsCache: string[] | undefined;

  return {
    document,
    version: document.info.version,
    operations,
    securitySchemes,
    operation(id) {
      const found = byId.get(id);
      if (!found) {
        throw new VapcError('E_UNKNOWN_OPERATION', `unknown operation "${id}"; known: ${[...byId.keys()].join(', ')}`);
      }
      return found;
    },
    schema(name) {
      const found = schemas[name];
      if (!found) {
        throw new VapcError('E_UNKNOWN_SCHEMA', `unknown schema "${name}"; known: ${Object.keys(schemas).join(', ')}`);
      }
      return found;
    },
    schemaNames: () => Object.keys(schemas),
    bounds() {
      boundsCache ??= numericBounds(operations);
      return boundsCache.map((b) => ({ ...b }));
    },
    secretFields() {
      secretsCache ??= secretFieldsOf(schemas);
      return [...secretsCache];
    },
  };
}

/**
 * The JSON Pointers (`*` for array items) of the x-secret fields in an operation's documented
 * success responses: where a successful answer to it carries a secret (an invite token, a key).
 */
export function secretResponsePointers(op: Operation): string[] {
  const pointers: string[] = [];
  for (const response of op.responses) {
    if (!/^2/.test(response.status) || !response.schema) continue;
    walkProperties(response.schema, '', (pointer, _field, schema) => {
      if (schema['x-secret'] === true && !pointers.includes(pointer)) pointers.push(pointer);
    });
  }
  return pointers;
}

/** Visits every named property of a schema (through allOf/anyOf/oneOf and array items). */
export function walkProperties(
  schema: JsonSchema,
  pointer: string,
  visit: (pointer: string, field: string, schema: JsonSchema) => void,
  seen: Set<unknown> = new Set(),
): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    for (const sub of (schema[key] as JsonSchema[] | undefined) ?? []) walkProperties(sub, pointer, visit, seen);
  }
  for (const [field, sub] of Object.entries(asRecord(schema['properties']))) {
    const child = asRecord(sub);
    const childPointer = `${pointer}/${field}`;
    visit(childPointer, field, child);
    walkProperties(child, childPointer, visit, seen);
  }
  if (schema['items'] && typeof schema['items'] === 'object') {
    walkProperties(asRecord(schema['items']), `${pointer}/*`, visit, seen);
  }
}
