/**
 * diffDocuments on small documents written here (the catalogue changes the real bundle; these
 * pin what each branch of src/diff/compare.ts and index.ts says and where it points): operations
 * matched across a renamed path parameter, parameters, request bodies, media types, response
 * statuses and headers, document-level members, and the order and de-duplication of the result.
 */
import { describe, expect, it } from 'vitest';
import { diffDocuments } from '../../../src/diff/index.js';
import { canonical, seg, type JsonObject } from '../../../src/diff/types.js';

const ok = { description: 'ok' };
const docOf = (paths: JsonObject, over: JsonObject = {}): JsonObject => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1.0.0' },
  paths,
  ...over,
});
const lines = (before: JsonObject, after: JsonObject) =>
  diffDocuments(before, after).map((c) => `${c.id} | ${c.operation} | ${c.pointer} | ${c.message}`);
const one = (before: JsonObject, after: JsonObject) =>
  lines(docOf({ '/x': { get: before } }), docOf({ '/x': { get: after } }));

describe('operations', () => {
  it('removed (at BASE) and added (at HEAD); a path parameter renamed is the same operation', () => {
    expect(lines(docOf({ '/a': { get: { responses: {} } } }), docOf({ '/b': { post: { responses: {} } } }))).toEqual([
      'operation-removed | GET /a | /paths/~1a/get | GET /a was removed',
      'operation-added | POST /b | /paths/~1b/post | POST /b was added',
    ]);
    const param = (name: string) => ({
      get: { parameters: [{ name, in: 'path', required: true, schema: { type: 'string' } }], responses: {} },
    });
    expect(lines(docOf({ '/a/{id}': param('id') }), docOf({ '/a/{key}': param('key') }))).toEqual([
      'path-parameter-renamed | GET /a/{key} | /paths/~1a~1{key}/get/parameters/0 | path parameter `id` renamed to `key`',
    ]);
  });

  it('deprecated, operationId changed, and a change no rule classifies', () => {
    expect(one({ operationId: 'a', responses: {} }, { operationId: 'b', deprecated: true, responses: {} })).toEqual([
      'operation-deprecated | GET /x | /paths/~1x/get/deprecated | the operation is deprecated',
      'operation-id-changed | GET /x | /paths/~1x/get/operationId | operationId changed from a to b',
    ]);
    expect(one({ deprecated: true, responses: {} }, { deprecated: true, responses: {} })).toEqual([]);
    expect(one({ responses: {} }, { 'x-internal': true, responses: {} })).toEqual([
      'unclassified-change | GET /x | /paths/~1x/get | the operation changed in a way no rule classifies (an extension, tags, ...)',
    ]);
    expect(one({ tags: ['a', 'b'], responses: {} }, { tags: ['b', 'a'], responses: {} })).toEqual([]);
  });

  it("document-level members other than paths, servers and info's own words: unclassified at the document", () => {
    expect(lines(docOf({}, { tags: [{ name: 'a' }] }), docOf({}, { tags: [{ name: 'b' }] }))).toEqual([
      'unclassified-change |  |  | a document-level member changed (tags, extensions, ...)',
    ]);
    expect(
      lines(
        docOf({}, { info: { title: 't', version: '1.0.0', 'x-a': 1 } }),
        docOf({}, { info: { title: 't', version: '1.0.0', 'x-a': 2 } }),
      ),
    ).toHaveLength(1);
    expect(
      lines(docOf({}), docOf({}, { info: { title: 'T', version: '9.9.9', summary: 's', 'x-unspecified': ['x'] } })),
    ).toEqual(expect.not.arrayContaining([expect.stringContaining('unclassified')]));
  });

  it('the security of the document applies where an operation has none', () => {
    const schemes = {
      components: {
        securitySchemes: { B: { type: 'http', scheme: 'bearer' }, U: { type: 'apiKey', in: 'header', name: 'X-U' } },
      },
    };
    const before = docOf({ '/x': { get: { responses: {} } } }, { ...schemes, security: [{ B: [] }] });
    const after = docOf({ '/x': { get: { responses: {} } } }, { ...schemes, security: [{ B: [], U: [] }] });
    expect(lines(before, after)).toEqual([
      'security-scheme-added | GET /x | /paths/~1x/get/security | security: U now also required (was B)',
    ]);
    const own = docOf(
      { '/x': { get: { security: [{ B: [] }], responses: {} } } },
      { ...schemes, security: [{ B: [], U: [] }] },
    );
    expect(lines(own, own)).toEqual([]);
  });
});

describe('parameters', () => {
  const p = (over: JsonObject) => ({ name: 'q', in: 'query', schema: { type: 'string' }, ...over });

  it('removed, added (optional or required), required or optional now', () => {
    expect(one({ parameters: [p({})], responses: {} }, { responses: {} })).toEqual([
      'request-parameter-removed | GET /x | /paths/~1x/get/parameters/0 | query parameter `q` removed',
    ]);
    expect(one({ responses: {} }, { parameters: [p({})], responses: {} })).toEqual([
      'request-parameter-added | GET /x | /paths/~1x/get/parameters/0 | optional query parameter `q` added',
    ]);
    expect(one({ responses: {} }, { parameters: [p({ required: true })], responses: {} })).toEqual([
      'request-parameter-added-required | GET /x | /paths/~1x/get/parameters/0 | required query parameter `q` added',
    ]);
    expect(one({ parameters: [p({})], responses: {} }, { parameters: [p({ required: true })], responses: {} })).toEqual(
      [
        'request-parameter-became-required | GET /x | /paths/~1x/get/parameters/0/required | query parameter `q` became required',
      ],
    );
    expect(one({ parameters: [p({ required: true })], responses: {} }, { parameters: [p({})], responses: {} })).toEqual(
      [
        'request-parameter-became-optional | GET /x | /paths/~1x/get/parameters/0/required | query parameter `q` became optional',
      ],
    );
  });

  it('style or explode changed, deprecated, and the schema compared as a request', () => {
    const style = [
      'request-parameter-style-changed | GET /x | /paths/~1x/get/parameters/0 | query parameter `q`: serialisation (style/explode) changed',
    ];
    expect(one({ parameters: [p({})], responses: {} }, { parameters: [p({ style: 'form' })], responses: {} })).toEqual(
      style,
    );
    expect(one({ parameters: [p({})], responses: {} }, { parameters: [p({ explode: false })], responses: {} })).toEqual(
      style,
    );
    expect(
      one({ parameters: [p({})], responses: {} }, { parameters: [p({ deprecated: true })], responses: {} }),
    ).toEqual([
      'operation-deprecated | GET /x | /paths/~1x/get/parameters/0/deprecated | query parameter `q` deprecated',
    ]);
    const narrowed = one(
      { parameters: [p({})], responses: {} },
      { parameters: [p({ schema: { type: 'string', maxLength: 3 } })], responses: {} },
    );
    expect(narrowed).toHaveLength(1);
    expect(narrowed[0]).toMatch(
      /^request-\S+ \| GET \/x \| \/paths\/~1x\/get\/parameters\/0\/schema\/maxLength \| query parameter `q`/,
    );
  });

  it("path-level parameters count, the operation's override them, and header names match in any case", () => {
    const before = docOf({ '/x': { parameters: [p({})], get: { responses: {} } } });
    const after = docOf({ '/x': { parameters: [p({})], get: { parameters: [p({ required: true })], responses: {} } } });
    expect(lines(before, after)).toEqual([
      'request-parameter-became-required | GET /x | /paths/~1x/get/parameters/0/required | query parameter `q` became required',
    ]);
    const h = (name: string) => ({ name, in: 'header', schema: { type: 'string' } });
    // Another spelling of a header name is the same parameter: no removal or addition, one note of the spelling.
    expect(one({ parameters: [h('X-Id')], responses: {} }, { parameters: [h('x-id')], responses: {} })).toEqual([
      'header-name-case-changed | GET /x | /paths/~1x/get/parameters/0/name | header parameter `X-Id` now spelt `x-id` (header names are case-insensitive: the wire is the same)',
    ]);
    // Same name, other location: another parameter.
    expect(
      one({ parameters: [p({})], responses: {} }, { parameters: [p({ in: 'header' })], responses: {} }),
    ).toHaveLength(2);
    expect(one({ parameters: ['junk'], responses: {} }, { parameters: ['junk'], responses: {} })).toEqual([]);
  });
});

describe('request bodies and media types', () => {
  const body = (over: JsonObject = {}, type = 'application/json') => ({
    content: { [type]: { schema: { type: 'object' } } },
    ...over,
  });

  it('removed, added (optional or required), required or optional now', () => {
    expect(one({ requestBody: body(), responses: {} }, { responses: {} })).toEqual([
      'request-body-removed | GET /x | /paths/~1x/get/requestBody | the request body was removed',
    ]);
    expect(one({ responses: {} }, { requestBody: body(), responses: {} })).toEqual([
      'request-body-added | GET /x | /paths/~1x/get/requestBody | an optional request body was added',
    ]);
    expect(one({ responses: {} }, { requestBody: body({ required: true }), responses: {} })).toEqual([
      'request-body-added-required | GET /x | /paths/~1x/get/requestBody | a required request body was added',
    ]);
    expect(
      one({ requestBody: body(), responses: {} }, { requestBody: body({ required: true }), responses: {} }),
    ).toEqual([
      'request-body-became-required | GET /x | /paths/~1x/get/requestBody/required | the request body became required',
    ]);
    expect(
      one({ requestBody: body({ required: true }), responses: {} }, { requestBody: body(), responses: {} }),
    ).toEqual([
      'request-body-became-optional | GET /x | /paths/~1x/get/requestBody/required | the request body became optional',
    ]);
    expect(one({ responses: {} }, { responses: {} })).toEqual([]);
  });

  it('a media type removed (at BASE) or added, for a request and for a response', () => {
    expect(one({ requestBody: body(), responses: {} }, { requestBody: body({}, 'text/plain'), responses: {} })).toEqual(
      [
        'request-media-type-removed | GET /x | /paths/~1x/get/requestBody/content/application~1json | the request body: media type application/json removed',
        'request-media-type-added | GET /x | /paths/~1x/get/requestBody/content/text~1plain | the request body: media type text/plain added',
      ],
    );
    expect(
      one({ responses: { '200': { ...ok, ...body() } } }, { responses: { '200': { ...ok, ...body({}, 'text/csv') } } }),
    ).toEqual([
      'response-media-type-removed | GET /x | /paths/~1x/get/responses/200/content/application~1json | the response 200 body: media type application/json removed',
      'response-media-type-added | GET /x | /paths/~1x/get/responses/200/content/text~1csv | the response 200 body: media type text/csv added',
    ]);
  });

  it('the schema of a kept media type is compared in its direction, pointing into HEAD', () => {
    const req = one(
      { requestBody: body(), responses: {} },
      {
        requestBody: {
          content: {
            'application/json': { schema: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } } },
          },
        },
        responses: {},
      },
    );
    expect(
      req.some((l) =>
        l.startsWith(
          'request-property-added-required | GET /x | /paths/~1x/get/requestBody/content/application~1json/schema',
        ),
      ),
    ).toBe(true);
    const res = one(
      { responses: { '200': { ...ok, ...body() } } },
      {
        responses: {
          '200': {
            ...ok,
            content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } },
          },
        },
      },
    );
    expect(
      res.some((l) =>
        l.startsWith(
          'response-property-added | GET /x | /paths/~1x/get/responses/200/content/application~1json/schema',
        ),
      ),
    ).toBe(true);
  });
});

describe('responses and their headers', () => {
  it('a success or an error status removed (at BASE) or added', () => {
    expect(one({ responses: { '200': ok, '404': ok } }, { responses: { '201': ok, '422': ok } }).sort()).toEqual(
      [
        'response-success-status-removed | GET /x | /paths/~1x/get/responses/200 | response status 200 removed',
        'response-error-status-removed | GET /x | /paths/~1x/get/responses/404 | response status 404 removed',
        'response-error-status-added | GET /x | /paths/~1x/get/responses/422 | response status 422 added',
        'response-success-status-added | GET /x | /paths/~1x/get/responses/201 | response status 201 added',
      ].sort(),
    );
  });

  const withHeaders = (headers: JsonObject) => ({ responses: { '200': { ...ok, headers } } });
  const s = { schema: { type: 'string' } };

  it('a header removed, added (optional or required), required or optional now; rate-limit headers have their own rules', () => {
    expect(one(withHeaders({ 'X-Trace': s, 'X-RateLimit-Limit': s }), withHeaders({})).sort()).toEqual(
      [
        'ratelimit-header-removed | GET /x | /paths/~1x/get/responses/200/headers/X-RateLimit-Limit | response 200 header X-RateLimit-Limit removed',
        'response-header-removed | GET /x | /paths/~1x/get/responses/200/headers/X-Trace | response 200 header X-Trace removed',
      ].sort(),
    );
    expect(
      one(withHeaders({}), withHeaders({ 'X-Trace': s, 'X-Req': { ...s, required: true }, RateLimit: s })).sort(),
    ).toEqual(
      [
        'ratelimit-header-added | GET /x | /paths/~1x/get/responses/200/headers/RateLimit | response 200 header RateLimit added',
        'response-header-added | GET /x | /paths/~1x/get/responses/200/headers/X-Trace | response 200 header X-Trace added',
        'response-header-added-required | GET /x | /paths/~1x/get/responses/200/headers/X-Req | response 200 header X-Req added (required)',
      ].sort(),
    );
    expect(one(withHeaders({ 'X-Trace': s }), withHeaders({ 'x-trace': { ...s, required: true } }))).toEqual([
      'response-header-became-required | GET /x | /paths/~1x/get/responses/200/headers/x-trace/required | response 200 header X-Trace became required',
      'header-name-case-changed | GET /x | /paths/~1x/get/responses/200/headers/x-trace | response 200 header X-Trace now spelt x-trace (header names are case-insensitive: the wire is the same)',
    ]);
    expect(one(withHeaders({ 'X-Trace': { ...s, required: true } }), withHeaders({ 'X-Trace': s }))).toEqual([
      'response-header-became-optional | GET /x | /paths/~1x/get/responses/200/headers/X-Trace/required | response 200 header X-Trace became optional',
    ]);
    const narrowed = one(withHeaders({ 'X-Trace': s }), withHeaders({ 'X-Trace': { schema: { type: 'integer' } } }));
    expect(narrowed.length).toBeGreaterThan(0);
    expect(
      narrowed.every(
        (l) =>
          l.includes('/paths/~1x/get/responses/200/headers/X-Trace/schema') &&
          l.includes('response 200 header X-Trace'),
      ),
    ).toBe(true);
  });
});

describe('the result', () => {
  it('breaking first, then by operation, then by pointer; the same change reported once', () => {
    const before = docOf({
      '/b': { get: { responses: { '200': ok } } },
      '/a': { get: { responses: { '200': ok } } },
      '/c': { get: { responses: {} } },
    });
    const after = docOf({
      '/b': { get: { responses: { '200': ok, '404': ok } } },
      '/a': { get: { responses: { '404': ok } } },
    });
    expect(diffDocuments(before, after).map((c) => `${c.level} ${c.operation} ${c.pointer}`)).toEqual([
      'breaking GET /a /paths/~1a/get/responses/200',
      'breaking GET /c /paths/~1c/get',
      'info GET /a /paths/~1a/get/responses/404',
      'info GET /b /paths/~1b/get/responses/404',
    ]);
  });
});

describe('canonical and seg', () => {
  it('keys sorted, members joined by commas, a cycle printed once as [cycle], undefined as null', () => {
    expect(canonical({ b: [2, 1], a: 'x' })).toBe('{"a":"x","b":[2,1]}');
    expect(canonical({ b: [2, 1] }, { unordered: true })).toBe('{"b":[1,2]}');
    expect(canonical(undefined)).toBe('null');
    const loop: Record<string, unknown> = { a: 1 };
    loop['self'] = loop;
    expect(canonical(loop)).toBe('{"a":1,"self":"[cycle]"}');
    // The same object twice side by side is not a cycle.
    const shared = { x: 1 };
    expect(canonical([shared, shared])).toBe('[{"x":1},{"x":1}]');
    expect(canonical({ schema: 1, a: 2 }, { skip: new Set(['schema']) })).toBe('{"a":2}');
  });

  it('seg escapes ~ before /', () => {
    expect(seg('a~/b')).toBe('a~0~1b');
    expect(seg(3)).toBe('3');
  });
});
