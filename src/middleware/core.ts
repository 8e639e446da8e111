/**
 * The middleware's engine, shared by every adapter: routes a request to its operation, judges it
 * with the precompiled validators (422 with the contract's body, built as the reference server
 * builds its own), decides whether the response is held (test), copied (a production sample) or
 * left alone, judges it, and reports findings. Frameworks stay in the adapters.
 */
import { readJsonRequestBody } from '../http/json-body.js';
import { requestErrorItems, validationBody, type BodyProblem } from '../http/validation-error.js';
import {
  responseSchemaFor,
  validateRequest,
  validateResponse,
  manifest,
  type HeadersInput,
  type OperationId,
  type ValidationIssue,
} from '../index.js';
import { Router, type Route } from './router.js';
import type {
  ContractFinding,
  ContractMiddlewareOptions,
  ResolvedOptions,
  ResponseFinding,
  ResponseMode,
} from './types.js';

export type { Route };

/** A request body as an adapter holds it: its bytes, or a value a body parser already made. */
export type RequestBody =
  | { bytes: Uint8Array; contentType: string | undefined }
  | { parsed: unknown; problem?: BodyProblem | undefined }
  | undefined;

/** A response body as an adapter holds it. */
export type ResponseBody = { bytes: Uint8Array } | { text: string } | { parsed: unknown } | undefined;

/** What an adapter sends instead of calling the handler, or sends in place of a response. */
export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

export type RequestVerdict = { ok: true; body: unknown } | { ok: false; answer: Answer };

/** How a response is looked at: held until judged (test), copied and judged once sent (a sample), or not at all. */
export type ResponsePlan = 'hold' | 'copy' | undefined;

const JSON_TYPE = 'application/json';

/** The headers of the body a breaching response had, taken off before its 500 is sent in their place. */
export const ENTITY_HEADERS = [
  'content-length',
  'content-type',
  'content-encoding',
  'content-range',
  'etag',
  'last-modified',
] as const;

function answer(status: number, body: unknown): Answer {
  return { status, contentType: JSON_TYPE, text: JSON.stringify(body) };
}

function resolve(options: ContractMiddlewareOptions = {}): ResolvedOptions {
  const sampleEvery = options.sampleEvery ?? 100;
  if (!Number.isInteger(sampleEvery) || sampleEvery < 1)
    throw new TypeError(`sampleEvery must be a positive integer, got ${String(sampleEvery)}`);
  const responses: ResponseMode = options.responses ?? 'production';
  if (!['test', 'production', 'off'].includes(responses))
    throw new TypeError(`responses must be test, production or off, got ${String(responses)}`);
  return {
    requests: options.requests ?? true,
    responses,
    sampleEvery,
    logger: options.logger ?? console,
    onFinding: options.onFinding,
    basePath: options.basePath ?? '',
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    maxResponseBytes: options.maxResponseBytes ?? 4 * 1024 * 1024,
  };
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaType(value: unknown): string {
  const text = Array.isArray(value) ? String(value[0] ?? '') : value === undefined ? '' : String(value);
  return text.split(';')[0]!.trim().toLowerCase();
}

function headerOf(headers: Record<string, unknown>, name: string): unknown {
  if (name in headers) return headers[name];
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

export class ContractEngine {
  readonly options: ResolvedOptions;
  private readonly router: Router;
  private responses = 0;

  constructor(options?: ContractMiddlewareOptions) {
    this.options = resolve(options);
    this.router = new Router(this.options.basePath);
  }

  /** The operation a request is for; undefined for a route the contract does not have (left untouched). */
  match(method: string | undefined, url: string | undefined): Route | undefined {
    return this.router.match(method, url);
  }

  /** Whether the adapter must read the request's body before the handler runs. */
  readsBody(route: Route): boolean {
    return this.options.requests && route.hasBody;
  }

  /** The answer to a body longer than maxBodyBytes (as the reference server words it). */
  tooLarge(): Answer {
    return answer(413, { detail: `Request body larger than ${this.options.maxBodyBytes} bytes` });
  }

  /** Judges a request; a breach is answered 422 with the contract's validation error body. */
  checkRequest(route: Route, headers: HeadersInput, body: RequestBody): RequestVerdict {
    let value: unknown;
    let problem: BodyProblem | undefined;
    if (body && 'bytes' in body) ({ value, problem } = readJsonRequestBody(body.contentType, body.bytes));
    else if (body) ({ parsed: value, problem } = body);
    if (!this.options.requests) return { ok: true, body: value };
    const parts = {
      path: route.path,
      query: route.query,
      // Passed only to an operation that documents header parameters: reading every header costs a
      // walk over all of them, and the validators judge no other (credentials are not parameters).
      ...(route.headerParameters ? { headers } : {}),
      body: route.hasBody && !problem ? value : undefined,
    };
    const result = validateRequest(route.operationId as OperationId, parts);
    const issues = result.ok ? [] : result.issues;
    const items = requestErrorItems(route.hasBody ? problem : undefined, issues);
    if (items.length === 0) return { ok: true, body: value };
    this.report({
      side: 'request',
      operationId: route.operationId,
      method: route.method,
      path: route.template,
      issues: problem ? [problemIssue(problem), ...issues.filter((i) => i.location !== 'body')] : issues,
      items,
    });
    return { ok: false, answer: answer(422, validationBody(items)) };
  }

  /** Decided once per exchange, before the handler runs: test holds every response, production copies 1 in N. */
  responsePlan(): ResponsePlan {
    const mode = this.options.responses;
    if (mode === 'test') return 'hold';
    if (mode === 'off') return undefined;
    return this.responses++ % this.options.sampleEvery === 0 ? 'copy' : undefined;
  }

  /**
   * Judges a response by the contract: only a status the operation documents is judged (errors
   * the contract leaves "not shown", such as a 404 or a 500, pass); then its content type, its
   * documented headers (X-RateLimit-*) and its JSON body. Reports and returns the finding.
   */
  judgeResponse(
    route: Route,
    status: number,
    headers: Record<string, unknown>,
    body: ResponseBody,
  ): ResponseFinding | undefined {
    const documented = responseSchemaFor(route.operationId as OperationId, status);
    if (!documented) return undefined;
    const response = manifest.operations[route.operationId]!.responses[documented.status]!;
    const issues: ValidationIssue[] = [];
    const encoded = mediaTypeOrIdentity(headerOf(headers, 'content-encoding'));
    let parsed: unknown;
    if (response.contentType && body !== undefined && encoded === 'identity') {
      const read = readResponseJson(response.contentType, headerOf(headers, 'content-type'), body);
      if ('issue' in read) issues.push(read.issue);
      else parsed = read.value;
    }
    const judgeBody = issues.length === 0 && encoded === 'identity' && body !== undefined;
    const parts = judgeBody ? { headers: headers as HeadersInput, body: parsed } : { headers: headers as HeadersInput };
    const result = validateResponse(route.operationId as OperationId, status, parts);
    if (!result.ok) issues.push(...result.issues);
    if (issues.length === 0) return undefined;
    const finding: ResponseFinding = {
      side: 'response',
      mode: this.options.responses === 'test' ? 'test' : 'production',
      operationId: route.operationId,
      method: route.method,
      path: route.template,
      status,
      issues,
    };
    this.report(finding);
    return finding;
  }

  /** The 500 a held response that breaks the contract is replaced with (test mode). */
  breachAnswer(finding: ResponseFinding): Answer {
    return answer(500, {
      detail: `Internal Server Error: the ${finding.status} response of ${finding.method} ${finding.path} breaks the contract (test mode): ${summary(finding)}`,
    });
  }

  private report(finding: ContractFinding): void {
    const { logger, onFinding } = this.options;
    // A logger or callback that throws must not break the exchange it reports on.
    try {
      onFinding?.(finding);
      if (finding.side !== 'response') return;
      const message = `vapc: the ${finding.status} response of ${finding.method} ${finding.path} breaks the contract: ${summary(finding)}`;
      if (finding.mode === 'test') logger.error({ finding }, message);
      else logger.warn({ finding }, message);
    } catch {
      // ignored on purpose
    }
  }
}

function summary(finding: ContractFinding): string {
  const shown = finding.issues.slice(0, 3).map((i) => i.message);
  const more = finding.issues.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

function mediaTypeOrIdentity(value: unknown): string {
  return mediaType(value) || 'identity';
}

/** A body problem as an issue, so a request finding lists it beside the validators' issues. */
function problemIssue(problem: BodyProblem): ValidationIssue {
  return problem.kind === 'json_invalid'
    ? {
        pointer: '',
        location: 'body',
        rule: 'json',
        message: `body / is not JSON: ${problem.msg} at ${problem.position}`,
      }
    : {
        pointer: '',
        location: 'body',
        rule: 'content-type',
        expected: JSON_TYPE,
        message: 'body / is not sent as JSON',
      };
}

/** The response body as JSON, or the issue that keeps it from being judged as the documented JSON. */
function readResponseJson(
  documented: string,
  contentType: unknown,
  body: NonNullable<ResponseBody>,
): { value: unknown } | { issue: ValidationIssue } {
  const type = mediaType(contentType);
  if (type !== documented && !(documented === JSON_TYPE && /^application\/[\w.+-]+\+json$/.test(type)))
    return {
      issue: {
        pointer: '/content-type',
        location: 'header',
        rule: 'content-type',
        expected: documented,
        actual: type || '(none)',
        message: `header /content-type must be ${documented}, got ${type || '(none)'}`,
      },
    };
  if ('parsed' in body) return { value: body.parsed };
  const text = 'text' in body ? body.text : utf8.decode(body.bytes);
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return {
      issue: { pointer: '', location: 'body', rule: 'json', message: 'body / is not JSON', expected: documented },
    };
  }
}
