import type SwaggerParser from '@apidevtools/swagger-parser';
import { createRequire } from 'node:module';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VapcError } from '../errors.js';
import { paths } from '../paths.js';
import { readSpecFiles, SPEC_LIMITS, type SpecFiles, type SpecLimits } from './files.js';
import { buildModel, type OpenAPIDocument, type SpecModel } from './model.js';
import { shown } from './remote.js';
import { readPackagedDocument } from './packaged.js';

export { SPEC_LIMITS, type SpecLimits } from './files.js';

export interface LoadOptions {
  /** The document to load: the authored spec/openapi.yaml by default. */
  path?: string;
  /**
   * Validate against the OpenAPI 3.1 meta-schema (default true). `vapc diff` turns it off: it is
   * most of the load time, and lint is the place for it; the structural checks still run.
   */
  validateSchema?: boolean;
  /** Hosts whose http(s) `$ref`s may be fetched (`--allow-ref-host`); none by default. */
  allowRefHosts?: readonly string[];
  /** Caps of the load (tests lower them); SPEC_LIMITS by default. */
  limits?: Partial<SpecLimits>;
}

/** The key a file of `files` has for a URL the ref parser asks for (a path, a file: URL or an http URL). */
function keyOf(url: string): string {
  if (/^https?:/i.test(url)) return url;
  if (/^file:/i.test(url)) return fileURLToPath(url);
  return isAbsolute(url) ? url : resolve(url);
}

/**
 * The ref parser's options: every file comes from what `readSpecFiles` already read and parsed
 * within the folder and the caps; a URL it did not read is refused, and no built-in resolver
 * (disk or network) or parser runs.
 */
function fromFiles(files: SpecFiles): SwaggerParser.Options {
  const cached = {
    order: 1,
    canRead: true,
    read(file: { url: string }) {
      const key = keyOf(file.url);
      if (!files.files.has(key))
        throw new VapcError('E_SPEC_REFUSED', `$ref to "${shown(file.url)}" refused: not a file of the spec folder`);
      return files.files.get(key);
    },
  };
  const parsed = { order: 1, canParse: true, allowEmpty: false, parse: (file: { data: unknown }) => file.data };
  return {
    resolve: { external: true, file: cached, http: false },
    parse: { json: false, yaml: false, text: false, binary: false, parsed },
  } as unknown as SwaggerParser.Options;
}

/**
 * How many nodes the dereferenced document has when walked as a tree (shared objects counted at
 * each use, a circular reference once): a few `$ref`s that each name the next twice would make
 * every later walk (validation, diff) exponential, so that size is capped like the files'.
 */
function expandedSize(root: unknown, max: number): number {
  const sizes = new Map<object, number>();
  const visit = (node: unknown, path: Set<object>): number => {
    if (typeof node !== 'object' || node === null) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    if (path.has(node)) return 1;
    path.add(node);
    let total = 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      total += visit(child, path);
      if (total > max) break;
    }
    path.delete(node);
    sizes.set(node, total);
    return total;
  };
  return visit(root, new Set());
}

/**
 * Loads a spec as untrusted input: reads its files within its folder and the caps
 * (src/spec/files.ts), then validates (OpenAPI 3.1 meta-schema unless `validateSchema: false`)
 * and dereferences it from those files alone. Every command that reads a spec comes here.
 */
export async function loadDocument(options: LoadOptions = {}): Promise<OpenAPIDocument> {
  const path = resolve(options.path ?? paths.specSource);
  const limits = { ...SPEC_LIMITS, ...options.limits };
  const files = await readSpecFiles(path, {
    ...(options.allowRefHosts ? { allowRefHosts: options.allowRefHosts } : {}),
    limits,
  });
  let document: OpenAPIDocument;
  try {
    // validate() dereferences too; the result has no $ref left.
    const validate = options.validateSchema === false ? { validate: { schema: false, spec: true } } : {};
    // Loaded when used: a run on the packaged spec never needs the parser (see packaged.ts). Required,
    // not imported: the CLI bundle (scripts/build-cli.ts) runs as a script, which has no import().
    const parser = createRequire(import.meta.url)('@apidevtools/swagger-parser') as typeof SwaggerParser;
    document = (await parser.validate(path, { ...fromFiles(files), ...validate })) as unknown as OpenAPIDocument;
  } catch (error) {
    if (error instanceof VapcError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new VapcError(
      'E_SPEC_INVALID',
      `cannot load the OpenAPI document ${shown(path)}: ${message.split('\n').slice(0, 12).join('\n')}`,
      {
        cause: error,
      },
    );
  }
  if (expandedSize(document, limits.maxNodes) > limits.maxNodes) {
    throw new VapcError(
      'E_SPEC_REFUSED',
      `${shown(path)}: more than ${limits.maxNodes} nodes once its $refs are expanded`,
    );
  }
  return document;
}

/**
 * Reads a spec's files within its folder and the caps and parses them, without validating or
 * dereferencing: for the commands that hand the spec to another tool (Redocly's lint, bundle and
 * docs), which then reads only files this accepted.
 */
export async function checkSpecFiles(
  path: string,
  options: Pick<LoadOptions, 'allowRefHosts' | 'limits'> = {},
): Promise<void> {
  await readSpecFiles(resolve(path), {
    ...(options.allowRefHosts ? { allowRefHosts: options.allowRefHosts } : {}),
    limits: { ...SPEC_LIMITS, ...options.limits },
  });
}

/**
 * Loads the spec and returns the model the rest of the toolkit reads (operations, security, bounds).
 * The packaged spec comes from the build's validated copy while the spec folder is unchanged; a
 * spec named by `path` is always validated.
 */
export async function loadSpec(options: LoadOptions = {}): Promise<SpecModel> {
  const packaged = options.path === undefined ? readPackagedDocument() : undefined;
  return buildModel(packaged ?? (await loadDocument(options)));
}
