import { blankPathTemplate, parsePathTemplate } from '../spec/path-template.js';
import { compareDocs, compareSchemas } from './schema.js';
import { ChangeSink, isObject, SAME_ON_THE_WIRE, same, seg, type Json, type JsonObject } from './types.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface OperationRef {
  label: string;
  path: string;
  method: string;
  op: JsonObject;
  item: JsonObject;
  ptr: string;
}

const obj = (value: Json | undefined): JsonObject => (isObject(value) ? value : {});
const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

/** Operations keyed by method and path template with parameter names blanked, so a renamed path parameter still matches. */
function operationsOf(doc: JsonObject): Map<string, OperationRef> {
  const out = new Map<string, OperationRef>();
  for (const [path, item] of Object.entries(obj(doc['paths']))) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const key = `${method.toUpperCase()} ${blankPathTemplate(path)}`;
      out.set(key, {
        label: `${method.toUpperCase()} ${path}`,
        path,
        method,
        op,
        item,
        ptr: `/paths/${seg(path)}/${method}`,
      });
    }
  }
  return out;
}

interface ParamRef {
  param: JsonObject;
  ptr: string;
  name: string;
  location: string;
}

/** Effective parameters (path-level ones overridden by the operation's), keyed by location and name; path parameters by position. */
function parametersOf(ref: OperationRef): Map<string, ParamRef> {
  const out = new Map<string, ParamRef>();
  const pathNames = parsePathTemplate(ref.path).names;
  const add = (params: Json[], ptr: string) =>
    params.forEach((p, i) => {
      if (!isObject(p)) return;
      const name = String(p['name']);
      const location = String(p['in']);
      const key =
        location === 'path'
          ? `path#${pathNames.indexOf(name)}`
          : `${location}:${location === 'header' ? name.toLowerCase() : name}`;
      out.set(key, { param: p, ptr: `${ptr}/parameters/${i}`, name, location });
    });
  add(list(ref.item['parameters']), `/paths/${seg(ref.path)}`);
  add(list(ref.op['parameters']), ref.ptr);
  return out;
}

function compareParameters(b: OperationRef, h: OperationRef, sink: ChangeSink): void {
  const op = h.label;
  const before = parametersOf(b);
  const after = parametersOf(h);
  for (const [key, p] of before) {
    const q = after.get(key);
    const place = `${p.location} parameter \`${p.name}\``;
    if (!q) {
      sink.emit('request-parameter-removed', op, p.ptr, `${place} removed`);
      continue;
    }
    if (p.location === 'path' && p.name !== q.name)
      sink.emit('path-parameter-renamed', op, q.ptr, `path parameter \`${p.name}\` renamed to \`${q.name}\``);
    // Header parameters are keyed in lower case: another name here differs only in case.
    if (p.location === 'header' && p.name !== q.name)
      sink.emit('header-name-case-changed', op, `${q.ptr}/name`, `${place} now spelt \`${q.name}\`${SAME_ON_THE_WIRE}`);
    const was = p.param['required'] === true;
    const is = q.param['required'] === true;
    if (!was && is) sink.emit('request-parameter-became-required', op, `${q.ptr}/required`, `${place} became required`);
    if (was && !is) sink.emit('request-parameter-became-optional', op, `${q.ptr}/required`, `${place} became optional`);
    if (!same(p.param['style'], q.param['style']) || !same(p.param['explode'], q.param['explode'])) {
      sink.emit('request-parameter-style-changed', op, q.ptr, `${place}: serialisation (style/explode) changed`);
    }
    if (p.param['deprecated'] !== true && q.param['deprecated'] === true)
      sink.emit('operation-deprecated', op, `${q.ptr}/deprecated`, `${place} deprecated`);
    compareDocs(p.param, q.param, q.ptr, sink, op, place);
    compareSchemas(
      obj(p.param['schema']),
      obj(q.param['schema']),
      `${q.ptr}/schema`,
      { sink, dir: 'request', operation: op, place },
      `${p.ptr}/schema`,
    );
  }
  for (const [key, q] of after) {
    if (before.has(key)) continue;
    const required = q.param['required'] === true;
    sink.emit(
      required ? 'request-parameter-added-required' : 'request-parameter-added',
      op,
      q.ptr,
      `${required ? 'required' : 'optional'} ${q.location} parameter \`${q.name}\` added`,
    );
  }
}

/** Media types of a request body or a response, each schema compared in the given direction. */
function compareContent(
  b: JsonObject,
  h: JsonObject,
  bPtr: string,
  hPtr: string,
  sink: ChangeSink,
  op: string,
  dir: 'request' | 'response',
  place: string,
): void {
  const before = obj(b['content']);
  const after = obj(h['content']);
  for (const type of Object.keys(before)) {
    const ptr = `${hPtr}/content/${seg(type)}`;
    if (!(type in after)) {
      sink.emit(
        dir === 'request' ? 'request-media-type-removed' : 'response-media-type-removed',
        op,
        `${bPtr}/content/${seg(type)}`,
        `${place}: media type ${type} removed`,
      );
      continue;
    }
    const x = obj(before[type]);
    const y = obj(after[type]);
    compareDocs(x, y, ptr, sink, op, `${place} (${type})`);
    compareSchemas(
      obj(x['schema']),
      obj(y['schema']),
      `${ptr}/schema`,
      { sink, dir, operation: op, place },
      `${bPtr}/content/${seg(type)}/schema`,
    );
  }
  for (const type of Object.keys(after)) {
    if (!(type in before))
      sink.emit(
        dir === 'request' ? 'request-media-type-added' : 'response-media-type-added',
        op,
        `${hPtr}/content/${seg(type)}`,
        `${place}: media type ${type} added`,
      );
  }
}

function compareRequestBody(b: OperationRef, h: OperationRef, sink: ChangeSink): void {
  const op = h.label;
  const before = b.op['requestBody'];
  const after = h.op['requestBody'];
  const ptr = `${h.ptr}/requestBody`;
  if (!isObject(before) && !isObject(after)) return;
  if (!isObject(after))
    return sink.emit('request-body-removed', op, `${b.ptr}/requestBody`, 'the request body was removed');
  const required = after['required'] === true;
  if (!isObject(before)) {
    return sink.emit(
      required ? 'request-body-added-required' : 'request-body-added',
      op,
      ptr,
      `${required ? 'a required' : 'an optional'} request body was added`,
    );
  }
  const was = before['required'] === true;
  if (!was && required)
    sink.emit('request-body-became-required', op, `${ptr}/required`, 'the request body became required');
  if (was && !required)
    sink.emit('request-body-became-optional', op, `${ptr}/required`, 'the request body became optional');
  compareDocs(before, after, ptr, sink, op, 'the request body');
  compareContent(before, after, `${b.ptr}/requestBody`, ptr, sink, op, 'request', 'the request body');
}

const isRateLimitHeader = (name: string): boolean => /^x-ratelimit-|^ratelimit/i.test(name);

function compareHeaders(
  b: JsonObject,
  h: JsonObject,
  bPtr: string,
  hPtr: string,
  sink: ChangeSink,
  op: string,
  status: string,
): void {
  const before = new Map(
    Object.entries(obj(b['headers'])).map(([k, v]) => [k.toLowerCase(), { name: k, header: obj(v) }]),
  );
  const after = new Map(
    Object.entries(obj(h['headers'])).map(([k, v]) => [k.toLowerCase(), { name: k, header: obj(v) }]),
  );
  for (const [key, { name, header }] of before) {
    const next = after.get(key);
    const place = `response ${status} header ${name}`;
    if (!next) {
      sink.emit(
        isRateLimitHeader(name) ? 'ratelimit-header-removed' : 'response-header-removed',
        op,
        `${bPtr}/headers/${seg(name)}`,
        `${place} removed`,
      );
      continue;
    }
    const ptr = `${hPtr}/headers/${seg(next.name)}`;
    if (next.name !== name)
      sink.emit('header-name-case-changed', op, ptr, `${place} now spelt ${next.name}${SAME_ON_THE_WIRE}`);
    const was = header['required'] === true;
    const is = next.header['required'] === true;
    if (was && !is) sink.emit('response-header-became-optional', op, `${ptr}/required`, `${place} became optional`);
    if (!was && is) sink.emit('response-header-became-required', op, `${ptr}/required`, `${place} became required`);
    compareDocs(header, next.header, ptr, sink, op, place);
    compareSchemas(
      obj(header['schema']),
      obj(next.header['schema']),
      `${ptr}/schema`,
      { sink, dir: 'response', operation: op, place },
      `${bPtr}/headers/${seg(name)}/schema`,
    );
  }
  for (const [key, { name, header }] of after) {
    if (before.has(key)) continue;
    const required = header['required'] === true;
    const id = isRateLimitHeader(name)
      ? 'ratelimit-header-added'
      : required
        ? 'response-header-added-required'
        : 'response-header-added';
    sink.emit(
      id,
      op,
      `${hPtr}/headers/${seg(name)}`,
      `response ${status} header ${name} added${required ? ' (required)' : ''}`,
    );
  }
}

const isSuccess = (status: string): boolean => /^2/.test(status);

function compareResponses(b: OperationRef, h: OperationRef, sink: ChangeSink): void {
  const op = h.label;
  const before = obj(b.op['responses']);
  const after = obj(h.op['responses']);
  for (const status of Object.keys(before)) {
    const bPtr = `${b.ptr}/responses/${seg(status)}`;
    if (!(status in after)) {
      sink.emit(
        isSuccess(status) ? 'response-success-status-removed' : 'response-error-status-removed',
        op,
        bPtr,
        `response status ${status} removed`,
      );
      continue;
    }
    const hPtr = `${h.ptr}/responses/${seg(status)}`;
    const x = obj(before[status]);
    const y = obj(after[status]);
    compareDocs(x, y, hPtr, sink, op, `response ${status}`);
    compareHeaders(x, y, bPtr, hPtr, sink, op, status);
    compareContent(x, y, bPtr, hPtr, sink, op, 'response', `the response ${status} body`);
  }
  for (const status of Object.keys(after)) {
    if (status in before) continue;
    sink.emit(
      isSuccess(status) ? 'response-success-status-added' : 'response-error-status-added',
      op,
      `${h.ptr}/responses/${seg(status)}`,
      `response status ${status} added`,
    );
  }
}

export { compareResponses, compareRequestBody, compareParameters, operationsOf, type OperationRef };
