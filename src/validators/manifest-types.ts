/** The shape of the generated manifest (src/generated/manifest.ts): what the runtime reads to use the validators. */

/** A documented parameter or response header: its name as the spec spells it, and its schema. */
export interface ParameterEntry {
  name: string;
  required: boolean;
  schema: { [key: string]: unknown };
}

export interface ResponseManifest {
  headers: ParameterEntry[];
  /** Export name of the validator of the documented headers, when there are any. */
  headersValidator?: string;
  /** Export name of the validator of the JSON body, when the response documents one. */
  bodyValidator?: string;
  contentType?: string;
}

export interface OperationManifest {
  method: string;
  path: string;
  parameters: { path: ParameterEntry[]; query: ParameterEntry[]; header: ParameterEntry[] };
  /** Export names of the parameter validators, per location that has parameters. */
  validators: { path?: string; query?: string; header?: string };
  body?: { required: boolean; contentType: string; validator: string };
  /** Keyed by the status as the spec writes it: '200', '2XX', '422', 'default'. */
  responses: Record<string, ResponseManifest>;
}

export interface ValidatorsManifest {
  specVersion: string;
  /** Component schema name -> export name of its validator. */
  schemas: Record<string, string>;
  operations: Record<string, OperationManifest>;
}
