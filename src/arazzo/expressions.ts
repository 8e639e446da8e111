/**
 * Arazzo runtime expressions (1.0.1, "Runtime Expressions"): `$url`, `$method`, `$statusCode`,
 * `$request.{header.N|query.N|path.N|body}`, `$response.{header.N|body}` (a body with `#/json-pointer`),
 * `$inputs.N`, `$outputs.N`, `$steps.S.outputs.N`, `$workflows.W.outputs.N` (each output or input
 * may carry a `#/json-pointer` too), and expressions embedded in a string as `{$...}`. Evaluation
 * reads a scope; a pointer that reaches no value is an error (as in Redocly respect), never `undefined`
 * taken for a value.
 */
import type { Exchange } from '../transport/types.js';

/** One exchange of a step as expressions read it: the request as sent, the answer as received. */
export interface StepExchange {
  url: string;
  method: string;
  request: {
    headers: Record<string, string>;
    query: Record<string, string>;
    path: Record<string, string>;
    body?: unknown;
  };
  response?: { status: number; headers: Record<string, string>; body?: unknown };
}

/** An exchange as the expressions read it: the request's query, path values and JSON body as sent, the answer with its JSON. */
export function toStepExchange(
  exchange: Exchange,
  sent: { query: Record<string, string>; path: Record<string, string>; body?: unknown },
): StepExchange {
  const res = exchange.response;
  return {
    url: exchange.request.url,
    method: exchange.request.method,
    request: {
      headers: exchange.request.headers,
      query: sent.query,
      path: sent.path,
      ...(sent.body === undefined ? {} : { body: sent.body }),
    },
    ...(res
      ? {
          response: { status: res.status, headers: res.headers, ...(res.json === undefined ? {} : { body: res.json }) },
        }
      : {}),
  };
}

export interface ExpressionScope {
  inputs: Record<string, unknown>;
  steps: Record<string, { outputs: Record<string, unknown> }>;
  workflows: Record<string, { outputs: Record<string, unknown> }>;
  outputs?: Record<string, unknown>;
  /** The step being judged: what `$request`, `$response`, `$statusCode`, `$url` and `$method` read. */
  current?: StepExchange;
}

/** An expression that cannot be evaluated: unknown, or reaching no value. */
export class ExpressionError extends Error {}

/** The characters an expression is made of, up to where a condition goes on (a blank, an operator, a closing brace). */
export const EXPRESSION =
  /\$(?:url|method|statusCode|request|response|inputs|outputs|steps|workflows)\b[^\s=!<>&|(){}]*/;

const own = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

/** The value at an RFC 6901 pointer; ExpressionError when it reaches no value. */
export function atPointer(value: unknown, pointer: string, what: string): unknown {
  if (pointer === '' || pointer === '/') return pointer === '' ? value : atPointer(value, '/', what);
  if (!pointer.startsWith('/')) throw new ExpressionError(`${what}: "${pointer}" is not a JSON pointer`);
  let current = value;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object' || !own(current, part))
      throw new ExpressionError(`${what}: the JSON pointer ${pointer} reaches no value`);
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A named member of a map (an input, an output, a header), then the pointer after `#` if any. */
function member(map: Record<string, unknown> | undefined, rest: string, what: string, caseless = false): unknown {
  const hash = rest.indexOf('#');
  const name = hash === -1 ? rest : rest.slice(0, hash);
  const found =
    map === undefined
      ? undefined
      : caseless
        ? Object.keys(map).find((k) => k.toLowerCase() === name.toLowerCase())
        : own(map, name)
          ? name
          : undefined;
  if (found === undefined) throw new ExpressionError(`${what}: ${name || '(no name)'} has no value`);
  const value = map![found];
  return hash === -1 ? value : atPointer(value, rest.slice(hash + 1), what);
}

function fromExchange(source: 'request' | 'response', rest: string, scope: ExpressionScope, expr: string): unknown {
  const current = scope.current;
  const part = source === 'request' ? current?.request : current?.response;
  if (!part) throw new ExpressionError(`${expr}: no ${source} to read`);
  const [kind, ...name] = rest.split('.');
  if (kind === 'header') return member(part.headers, name.join('.'), expr, true);
  if (source === 'request' && (kind === 'query' || kind === 'path'))
    return member(current!.request[kind], name.join('.'), expr);
  if (rest === 'body' || rest.startsWith('body#')) {
    if (part.body === undefined) throw new ExpressionError(`${expr}: the ${source} has no JSON body`);
    return rest === 'body' ? part.body : atPointer(part.body, rest.slice('body#'.length), expr);
  }
  throw new ExpressionError(`${expr}: not a runtime expression vapc knows`);
}

/** `$steps.S.outputs.N` or `$workflows.W.outputs.N`. */
function outputOf(map: ExpressionScope['steps'], rest: string, expr: string): unknown {
  const m = /^([A-Za-z0-9_-]+)\.outputs\.(.+)$/.exec(rest);
  if (!m) throw new ExpressionError(`${expr}: expected <id>.outputs.<name>`);
  const entry = map[m[1]!];
  if (!entry) throw new ExpressionError(`${expr}: ${m[1]} has not run (or has no outputs) yet`);
  return member(entry.outputs, m[2]!, expr);
}

/** Evaluates one runtime expression (the whole string is the expression). */
export function evaluate(expr: string, scope: ExpressionScope): unknown {
  const e = expr.trim();
  const current = scope.current;
  if (e === '$url' || e === '$method' || e === '$statusCode') {
    if (!current) throw new ExpressionError(`${e}: no step is being judged`);
    if (e === '$url') return current.url;
    if (e === '$method') return current.method;
    if (!current.response) throw new ExpressionError(`${e}: no answer`);
    return current.response.status;
  }
  const dot = e.indexOf('.');
  const head = dot === -1 ? e : e.slice(0, dot);
  const rest = dot === -1 ? '' : e.slice(dot + 1);
  switch (head) {
    case '$request':
    case '$response':
      return fromExchange(head.slice(1) as 'request' | 'response', rest, scope, e);
    case '$inputs':
      return member(scope.inputs, rest, e);
    case '$outputs':
      return member(scope.outputs, rest, e);
    case '$steps':
      return outputOf(scope.steps, rest, e);
    case '$workflows':
      return outputOf(scope.workflows, rest, e);
    default:
      throw new ExpressionError(`${e}: not a runtime expression vapc knows`);
  }
}

const EMBEDDED = /\{(\$[^{}]+)\}/g;

/** A string's embedded `{$...}` expressions replaced by their values (objects as JSON). */
export function interpolate(text: string, scope: ExpressionScope): string {
  return text.replace(EMBEDDED, (_m, expr: string) => {
    const value = evaluate(expr, scope);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
