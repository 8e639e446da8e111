import type { Operation } from '../spec/model.js';
import { parsePathTemplate, pathPattern } from '../spec/path-template.js';
import type { Exchange } from '../transport/types.js';
import { validateRequest } from '../validators/index.js';
import type { RequestValidator } from './check.js';

/**
 * Splits a wire request back into the parts the validators read: path parameters matched from the
 * URL against the operation's template (decoded), the query as serialised, the headers as sent,
 * the body parsed from the text that went over the wire.
 */
export function wireParts(
  op: Operation,
  exchange: Pick<Exchange, 'request'>,
):
  | {
      ok: true;
      parts: {
        path: Record<string, string>;
        query: Record<string, string | string[]>;
        headers: Record<string, string>;
        body?: unknown;
      };
    }
  | { ok: false; errors: string[] } {
  const url = new URL(exchange.request.url);
  const names = parsePathTemplate(op.path).names;
  // Not anchored at the start: the URL's path may begin with the base URL's own path.
  const match = pathPattern(op.path, { anchored: false, emptyParams: true }).exec(url.pathname);
  const path: Record<string, string> = {};
  if (match) {
    names.forEach((name, i) => {
      const raw = match[i + 1] ?? '';
      try {
        path[name] = decodeURIComponent(raw);
      } catch {
        path[name] = raw;
      }
    });
  }
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  // Every part is passed, the body too when none was sent: the validators check only the parts
  // they are given, and a request as sent is judged whole (a missing required body included).
  const parts: {
    path: Record<string, string>;
    query: Record<string, string | string[]>;
    headers: Record<string, string>;
    body?: unknown;
  } = {
    path,
    query,
    headers: { ...exchange.request.headers },
    body: undefined,
  };
  const text = exchange.request.body;
  if (text !== undefined) {
    try {
      parts.body = JSON.parse(text);
    } catch (error) {
      return { ok: false, errors: [`body is not JSON (${error instanceof Error ? error.message : String(error)})`] };
    }
  }
  return { ok: true, parts };
}

/** The project's validators, applied to the request exactly as it went over the wire. */
export const validateWireRequest: RequestValidator = (op, exchange) => {
  const split = wireParts(op, exchange);
  if (!split.ok) return { valid: false, errors: split.errors };
  const result = validateRequest(op.id, split.parts);
  return result.ok ? { valid: true, errors: [] } : { valid: false, errors: result.issues.map((i) => i.message) };
};
