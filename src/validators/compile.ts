/**
 * From the bundled OpenAPI document to AJV validators: the one place that decides which validators
 * exist (one per component schema and per operation part) and how AJV is configured. The build
 * (scripts/build-validators.ts) emits them as standalone code; the benchmark compiles them at run
 * time with the very same function. Nothing here restates the contract: every schema is read from
 * the document.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { AnySchema } from 'ajv';
import { loadDocument } from '../spec/load.js';
import { paths } from '../paths.js';
import type { OperationManifest, ParameterEntry, ResponseManifest, ValidatorsManifest } from './manifest-types.js';

type Json = { [key: string]: unknown };

/** `$id` under which each component schema is registered (one compiled function per component). */
export const COMPONENT_ID_PREFIX = 'urn:vapc:schema:';
export function componentId(name: string): string {
  return `${COMPONENT_ID_PREFIX}${name}`;
}
const SCHEMA_REF = '#/components/schemas/';

/** Annotation keywords OpenAPI adds to JSON Schema that the 2020-12 vocabularies do not know. */
const OPENAPI_ANNOTATIONS = ['example', 'xml', 'externalDocs'];

/** One validator to compile: its export name, and its schema or the id of a component schema. */
export interface ValidatorPart {
  name: string;
  /** The schema id to compile: `name` for an operation part, componentId() for a component. */
  id: string;
  schema?: Json;
}

export interface CompiledPlan {
  parts: ValidatorPart[];
  manifest: ValidatorsManifest;
  /** The component schemas with references rewritten to componentId(). */
  components: Record<string, Json>;
  /** Every `x-*` key present in the document's schemas. */
  extensions: string[];
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows local `$ref`s of non-schema objects (parameters, responses, headers, request bodies). */
function resolve(document: Json, value: unknown): Json {
  let current = value;
  for (let hops = 0; isObject(current) && typeof current['$ref'] === 'string'; hops++) {
    const ref = current['$ref'] as string;
    if (!ref.startsWith('#/') || hops > 32) throw new Error(`unsupported reference ${ref}`);
    let target: unknown = document;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) || Array.isArray(target) ? (target as Json)[key] : undefined;
    }
    if (target === undefined) throw new Error(`unresolvable reference ${ref}`);
    current = target;
  }
  return isObject(current) ? current : {};
}

/** A deep copy of a schema with `#/components/schemas/X` references made absolute. */
function rewriteSchema(schema: unknown): Json {
  const copy = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(copy);
    if (!isObject(value)) return value;
    const out: Json = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') {
        if (!inner.startsWith(SCHEMA_REF)) throw new Error(`unsupported schema reference ${inner}`);
        out[key] = componentId(inner.slice(SCHEMA_REF.length));
      } else {
        out[key] = copy(inner);
      }
    }
    return out;
  };
  return copy(schema) as Json;
}

function collectExtensions(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectExtensions(item, into);
  } else if (isObject(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (key.startsWith('x-')) into.add(key);
      collectExtensions(inner, into);
    }
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const LOCATIONS = ['path', 'query', 'header'] as const;

function jsonBodySchema(content: unknown): { contentType: string; schema: unknown } | undefined {
  if (!isObject(content)) return undefined;
  const entries = Object.entries(content);
  const json = entries.find(([type]) => /^application\/(.+\+)?json\b/i.test(type)) ?? entries[0];
  if (!json || !isObject(json[1]) || json[1]['schema'] === undefined) return undefined;
  return { contentType: json[0], schema: json[1]['schema'] };
}

function objectOf(entries: ParameterEntry[]): Json {
  return {
    type: 'object',
    properties: Object.fromEntries(entries.map((e) => [e.name, e.schema])),
    required: entries.filter((e) => e.required).map((e) => e.name),
  };
}

/** The manifest of each documented response of an operation; its header and body validators join `parts`. */
function responseManifests(
  document: Json,
  op: Json,
  prefix: string,
  parts: ValidatorPart[],
): Record<string, ResponseManifest> {
  const responses: Record<string, ResponseManifest> = {};
  for (const [status, rawResponse] of Object.entries(isObject(op['responses']) ? op['responses'] : {})) {
    const response = resolve(document, rawResponse);
    const key = status.replace(/[^A-Za-z0-9]/g, '_');
    const headers: ParameterEntry[] = Object.entries(isObject(response['headers']) ? response['headers'] : {}).map(
      ([name, raw]) => {
        const h = resolve(document, raw);
        return { name, required: h['required'] === true, schema: rewriteSchema(h['schema'] ?? {}) };
      },
    );
    const entry: ResponseManifest = { headers };
    if (headers.length > 0) {
      entry.headersValidator = `${prefix}_${key}_headers`;
      parts.push({ name: entry.headersValidator, id: entry.headersValidator, schema: objectOf(headers) });
    }
    const json = jsonBodySchema(response['content']);
    if (json) {
      entry.bodyValidator = `${prefix}_${key}_body`;
      entry.contentType = json.contentType;
      parts.push({ name: entry.bodyValidator, id: entry.bodyValidator, schema: rewriteSchema(json.schema) });
    }
    responses[status] = entry;
  }
  return responses;
}

/** Reads every validator the document implies and the manifest the runtime needs to use them. */
export function planValidators(document: Json): CompiledPlan {
  const componentsRaw = isObject(document['components']) ? document['components'] : {};
  const schemasRaw = isObject(componentsRaw['schemas']) ? componentsRaw['schemas'] : {};
  const components = Object.fromEntries(Object.entries(schemasRaw).map(([name, s]) => [name, rewriteSchema(s)]));
  const extensions = new Set<string>();
  collectExtensions(document, extensions);

  const parts: ValidatorPart[] = [];
  const schemaValidators: Record<string, string> = {};
  for (const name of Object.keys(components)) {
    const exportName = `schema_${name}`;
    parts.push({ name: exportName, id: componentId(name) });
    schemaValidators[name] = exportName;
  }

  const operations: Record<string, OperationManifest> = {};
  const pathsRaw = isObject(document['paths']) ? document['paths'] : {};
  for (const [path, rawItem] of Object.entries(pathsRaw)) {
    const item = resolve(document, rawItem);
    const shared = Array.isArray(item['parameters']) ? item['parameters'] : [];
    for (const method of METHODS) {
      if (!isObject(item[method])) continue;
      const op = item[method] as Json;
      const id = typeof op['operationId'] === 'string' ? op['operationId'] : `${method}_${path}`;
      const prefix = `op_${id.replace(/[^A-Za-z0-9_$]/g, '_')}`;
      const own = Array.isArray(op['parameters']) ? op['parameters'] : [];
      const byKey = new Map<string, ParameterEntry & { in: string }>();
      for (const raw of [...shared, ...own]) {
        const p = resolve(document, raw);
        const entry = {
          name: String(p['name']),
          in: String(p['in']),
          required: p['required'] === true,
          schema: rewriteSchema(p['schema'] ?? {}),
        };
        byKey.set(`${entry.in}:${entry.in === 'header' ? entry.name.toLowerCase() : entry.name}`, entry);
      }
      const manifest: OperationManifest = {
        method: method.toUpperCase(),
        path,
        parameters: { path: [], query: [], header: [] },
        validators: {},
        responses: {},
      };
      for (const location of LOCATIONS) {
        const entries = [...byKey.values()]
          .filter((p) => p.in === location)
          .map(({ name, required, schema }) => ({ name, required, schema }));
        manifest.parameters[location] = entries;
        if (entries.length > 0) {
          const exportName = `${prefix}_${location}`;
          parts.push({ name: exportName, id: exportName, schema: objectOf(entries) });
          manifest.validators[location] = exportName;
        }
      }
      if (op['requestBody'] !== undefined) {
        const body = resolve(document, op['requestBody']);
        const json = jsonBodySchema(body['content']);
        if (json) {
          const exportName = `${prefix}_body`;
          parts.push({ name: exportName, id: exportName, schema: rewriteSchema(json.schema) });
          manifest.body = { required: body['required'] === true, contentType: json.contentType, validator: exportName };
        }
      }
      manifest.responses = responseManifests(document, op, prefix, parts);
      operations[id] = manifest;
    }
  }
  const info = isObject(document['info']) ? document['info'] : {};
  return {
    parts,
    components,
    extensions: [...extensions].sort(),
    manifest: { specVersion: String(info['version'] ?? ''), schemas: schemaValidators, operations },
  };
}

/** Annotations that never change a verdict; x-secret stays (issues redact the values it marks). */
const PROSE = new Set([
  'title',
  'description',
  'examples',
  'example',
  'x-unspecified',
  'x-contract-conflict',
  'x-side-effects',
]);

/**
 * A copy of a schema without its prose, so the standalone module (which embeds the schemas for
 * verbose errors) stays small. Only keys of schema objects are dropped, never a property named so.
 */
function withoutProse<T>(schema: T): T {
  const strip = (value: unknown, inProperties: boolean): unknown => {
    if (Array.isArray(value)) return value.map((v) => strip(v, false));
    if (!isObject(value)) return value;
    const out: Json = {};
    for (const [key, inner] of Object.entries(value)) {
      if (!inProperties && PROSE.has(key)) continue;
      if (!inProperties && (key === 'enum' || key === 'const' || key === 'default')) {
        out[key] = inner;
        continue;
      }
      const mapOfSchemas =
        !inProperties &&
        (key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'dependentSchemas');
      out[key] = strip(inner, mapOfSchemas);
    }
    return out;
  };
  return strip(schema, false) as T;
}

export interface AjvOptions {
  /** Emit source for standalone code (the build); false compiles functions only (run time). */
  standalone: boolean;
}

/**
 * The AJV instance every validator is compiled with: JSON Schema 2020-12, strict mode, all errors,
 * verbose errors (so an issue can report the offending value and see x-secret on its schema), no AJV
 * messages (issues write their own), the
 * formats of ajv-formats, OpenAPI's discriminator, and the spec's x-* extensions and OpenAPI's
 * annotation keywords declared as known annotation keywords.
 */
export function createAjv(plan: CompiledPlan, options: AjvOptions): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    // "type": ["string", "null"] is how OpenAPI 3.1 writes a nullable field.
    allowUnionTypes: true,
    allErrors: true,
    verbose: true,
    // Issues carry their own sentences (issues.ts); AJV's would only add bytes to the module.
    messages: false,
    discriminator: true,
    code: options.standalone ? { source: true, esm: true } : {},
  });
  addFormats.default(ajv);
  for (const keyword of [...OPENAPI_ANNOTATIONS, ...plan.extensions]) {
    if (!ajv.getKeyword(keyword))
      ajv.addKeyword({ keyword, schemaType: ['string', 'number', 'boolean', 'object', 'array', 'null'] });
  }
  for (const [name, schema] of Object.entries(plan.components))
    ajv.addSchema({ ...withoutProse(schema), $id: componentId(name) } as AnySchema);
  for (const part of plan.parts) if (part.schema) ajv.addSchema(withoutProse(part.schema) as AnySchema, part.id);
  return ajv;
}

/** Reads the bundled document without dereferencing it (references become shared functions). */
export async function readBundledDocument(path: string = paths.bundledJson): Promise<Json> {
  // Validates against the OpenAPI 3.1 meta-schema first (throws a VapcError when invalid).
  await loadDocument({ path });
  return JSON.parse(readFileSync(path, 'utf8')) as Json;
}

/** Compiles every validator at run time: what the precompiled module spares its importers. */
export async function compileAtRuntime(
  path: string = paths.bundledJson,
): Promise<{ plan: CompiledPlan; validators: Record<string, (data: unknown) => boolean> }> {
  const plan = planValidators(await readBundledDocument(path));
  const ajv = createAjv(plan, { standalone: false });
  const validators: Record<string, (data: unknown) => boolean> = {};
  for (const part of plan.parts)
    validators[part.name] = ajv.getSchema(part.id) as unknown as (data: unknown) => boolean;
  return { plan, validators };
}
