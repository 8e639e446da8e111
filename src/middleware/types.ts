/**
 * The middleware's public types: its options, the findings it reports and the logger it writes
 * them to. Framework types are not imported: each adapter declares the few members it uses, so the
 * validators package needs no framework, not even for its declarations.
 */
import type { ValidationIssue } from '../index.js';
import type { ValidationErrorItem } from '../http/validation-error.js';

export type { ValidationErrorItem };

/**
 * What is done with responses:
 * - `test`: every response to an operation of the contract is held until it is complete and
 *   validated (status, documented headers, body); one that breaks the contract is replaced by a
 *   500 `{detail}` and the finding is logged with `logger.error`.
 * - `production`: one response in `sampleEvery` is validated after it has been sent, and a
 *   breach is logged with `logger.warn`; the response is never held, delayed or changed.
 * - `off`: responses are not looked at.
 */
export type ResponseMode = 'test' | 'production' | 'off';

/** Where a finding's logger line goes: `console` fits, and so do pino, winston and bunyan loggers. */
export interface ContractLogger {
  warn(object: { finding: ContractFinding }, message: string): void;
  error(object: { finding: ContractFinding }, message: string): void;
}

export interface ContractMiddlewareOptions {
  /** Validate requests and answer those that break the contract with its 422 body. Default true. */
  requests?: boolean;
  /** What to do with responses (see ResponseMode). Default `production`. */
  responses?: ResponseMode;
  /** In `production` mode, validate one response in this many: the 1st, the N+1st, … Default 100. */
  sampleEvery?: number;
  /** Where response findings are logged. Default `console`. */
  logger?: ContractLogger;
  /** Called with every finding, request and response alike (request findings are not logged). */
  onFinding?: (finding: ContractFinding) => void;
  /** The path the contract's paths are served under (`/api` serves `/api/calls`). Default none. */
  basePath?: string;
  /** Request bodies longer than this are answered 413 `{detail}` unread. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Responses longer than this are sent unjudged (in `test` mode too). Default 4 MiB. */
  maxResponseBytes?: number;
}

/** The options with every default filled in. */
export interface ResolvedOptions {
  requests: boolean;
  responses: ResponseMode;
  sampleEvery: number;
  logger: ContractLogger;
  onFinding: ((finding: ContractFinding) => void) | undefined;
  basePath: string;
  maxBodyBytes: number;
  maxResponseBytes: number;
}

interface FindingBase {
  /** The operation of the contract the request was routed to. */
  operationId: string;
  method: string;
  /** The path template of the operation (`/campaign/{campaign_id}`), never the concrete URL. */
  path: string;
  /** The validators' issues: pointer, location, rule, expected, actual (`[redacted]` where the spec marks a secret). */
  issues: ValidationIssue[];
}

/** A request that broke the contract; it was answered 422 with `items` and never reached the handler. */
export interface RequestFinding extends FindingBase {
  side: 'request';
  /** The contract's validation error items the 422 carried. */
  items: ValidationErrorItem[];
}

/** A response that broke the contract: replaced by a 500 in `test` mode, only reported in `production`. */
export interface ResponseFinding extends FindingBase {
  side: 'response';
  mode: 'test' | 'production';
  /** The status the handler answered with. */
  status: number;
}

export type ContractFinding = RequestFinding | ResponseFinding;
