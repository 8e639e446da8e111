import { VapcError } from '../errors.js';
import { paths } from '../paths.js';
import { buildModel, type OpenAPIDocument, type SpecModel } from './model.js';
import { readPackagedDocument } from './packaged.js';

export interface LoadOptions {
  /** The document to load: the authored spec/openapi.yaml by default. */
  path?: string;
  /**
   * Validate against the OpenAPI 3.1 meta-schema (default true). `vapc diff` turns it off: it is
   * most of the load time, and lint is the place for it; the structural checks still run.
   */
  validateSchema?: boolean;
}

/** Validates the document against the OpenAPI 3.1 meta-schema and returns it dereferenced. */
export async function loadDocument(options: LoadOptions = {}): Promise<OpenAPIDocument> {
  const path = options.path ?? paths.specSource;
  try {
    // validate() dereferences too; the result has no $ref left.
    const validate = options.validateSchema === false ? { validate: { schema: false, spec: true } } : {};
    // Loaded when used: a run on the packaged spec never needs the parser (see packaged.ts).
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    return (await SwaggerParser.validate(path, validate)) as unknown as OpenAPIDocument;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = /ENOENT|Error opening file|Error reading file/i.test(message) ? 'E_SPEC_UNREADABLE' : 'E_SPEC_INVALID';
    throw new VapcError(code, `cannot load the OpenAPI document ${path}: ${message.split('\n').slice(0, 12).join('\n')}`, {
      cause: error,
    });
  }
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
