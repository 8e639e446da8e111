/**
 * The parts of an Arazzo 1.0.1 document vapc reads and writes (https://spec.openapis.org/arazzo/v1.0.1):
 * source descriptions, workflows of steps by `operationId` (or `operationPath`), parameters and
 * request bodies with runtime expressions, success criteria (simple, regex, RFC 9535 JSONPath),
 * outputs, and the success and failure actions (`end`, `goto` a step, `retry`). Redocly respect's
 * `x-security` extension (credentials per step, by security scheme) is read too: a team that runs
 * its workflows with `redocly respect` writes it.
 */
import type { JsonSchema } from '../spec/model.js';

/** The versions of the document format vapc reads; it writes 1.0.1. */
export const ARAZZO_VERSION = '1.0.1';
export const READABLE_VERSIONS = /^1\.0\.\d+$/;

export interface ArazzoDocument {
  arazzo: string;
  info: { title: string; version: string; summary?: string; description?: string };
  sourceDescriptions: SourceDescription[];
  workflows: Workflow[];
  components?: Components;
}

export interface SourceDescription {
  name: string;
  url: string;
  type?: 'openapi' | 'arazzo';
}

/** Reusable objects a step or action refers to with `reference: $components.<kind>.<name>`. */
export interface Components {
  inputs?: Record<string, JsonSchema>;
  parameters?: Record<string, Parameter>;
  successActions?: Record<string, Action>;
  failureActions?: Record<string, Action>;
}

export interface Workflow {
  workflowId: string;
  summary?: string;
  description?: string;
  /** A JSON Schema (an object's `properties`) of the values the workflow takes. */
  inputs?: JsonSchema;
  dependsOn?: string[];
  steps: Step[];
  successActions?: Array<Action | Reusable>;
  failureActions?: Array<Action | Reusable>;
  outputs?: Record<string, string>;
  parameters?: Array<Parameter | Reusable>;
}

/** The security a step sends, as Redocly respect reads it: a scheme of the source description and the values it takes. */
export interface XSecurity {
  schemeName: string;
  values: Record<string, unknown>;
}

export interface Step {
  stepId: string;
  description?: string;
  operationId?: string;
  operationPath?: string;
  /** A step that runs another workflow (the export writes none). */
  workflowId?: string;
  parameters?: Array<Parameter | Reusable>;
  requestBody?: RequestBody;
  successCriteria?: Criterion[];
  onSuccess?: Array<Action | Reusable>;
  onFailure?: Array<Action | Reusable>;
  outputs?: Record<string, string>;
  'x-security'?: XSecurity[];
}

export interface Parameter {
  name: string;
  in?: 'path' | 'query' | 'header' | 'cookie';
  value: unknown;
}

export interface Reusable {
  reference: string;
  value?: unknown;
}

export interface RequestBody {
  contentType?: string;
  payload?: unknown;
  replacements?: Array<{ target: string; value: unknown }>;
}

export type CriterionType = 'simple' | 'regex' | 'jsonpath';

export interface Criterion {
  condition: string;
  context?: string;
  type?: CriterionType | { type: CriterionType; version: string };
}

export interface Action {
  name: string;
  type: 'end' | 'goto' | 'retry';
  stepId?: string;
  workflowId?: string;
  retryAfter?: number;
  retryLimit?: number;
  criteria?: Criterion[];
}

/** The criterion's type as a word (`simple` when none is given). */
export const criterionType = (c: Criterion): CriterionType =>
  c.type === undefined ? 'simple' : typeof c.type === 'string' ? c.type : c.type.type;

/** True for a reusable object (`reference: $components...`). */
export const isReusable = (value: unknown): value is Reusable =>
  Boolean(value && typeof value === 'object' && typeof (value as Reusable).reference === 'string');
