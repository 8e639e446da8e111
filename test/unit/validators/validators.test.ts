import { describe, expect, it } from 'vitest';
import * as api from '../../../src/index.js';
import {
  UnknownOperationError,
  UnknownSchemaError,
  isCall,
  manifest,
  operationIds,
  responseSchemaFor,
  schemaNames,
  validate,
  validateRequest,
  validateResponse,
  type ValidationIssue,
} from '../../../src/validators/index.js';
import { isVapcError } from '../../../src/errors.js';
import { loadSpec } from '../../../src/spec/load.js';
import { paths } from '../../../src/paths.js';

const call = { id: 'c1', to_number: '+15550100', provider: 'prov-a', status: 'completed' };
const rateHeaders = { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '99', 'X-RateLimit-Reset': '60' };

function issuesOf(result: { ok: boolean; issues?: ValidationIssue[] }): ValidationIssue[] {
  expect(result.ok).toBe(false);
  return result.issues ?? [];
}

describe('validate', () => {
  it('returns the value when it is valid', () => {
    const r = validate('Call', call);
    expect(r).toEqual({ ok: true, value: call });
  });

  it('reports a maximum with pointer, rule, expected, actual and a sentence', () => {
    expect(issuesOf(validate('CampaignCreate', { max_concurrency: 201 }))).toEqual([
      {
        pointer: '/max_concurrency',
        rule: 'maximum',
        expected: 200,
        actual: 201,
        message: '/max_concurrency must be <= 200, got 201',
      },
    ]);
  });

  it('reports a minimum', () => {
    const [issue] = issuesOf(validate('CampaignCreate', { machine_detection_timeout_seconds: 2 }));
    expect(issue).toMatchObject({
      rule: 'minimum',
      expected: 3,
      actual: 2,
      message: '/machine_detection_timeout_seconds must be >= 3, got 2',
    });
  });

  it('reports an enum with the allowed values', () => {
    const [issue] = issuesOf(validate('CampaignUpdate', { status: 'archived' }));
    expect(issue).toMatchObject({
      pointer: '/status',
      rule: 'enum',
      actual: 'archived',
      expected: ['draft', 'scheduled', 'running', 'paused', 'completed'],
    });
    expect(issue?.message).toBe('/status must be one of draft, scheduled, running, paused, completed, got "archived"');
  });

  it('reports each missing required property at its parent, without an actual value', () => {
    const issues = issuesOf(validate('Call', { to_number: '1', provider: 'p', status: 's' }));
    expect(issues).toEqual([
      { pointer: '', rule: 'required', expected: 'id', message: "/ must have required property 'id'" },
    ]);
  });

  it('reports a nullable type as both types', () => {
    const [issue] = issuesOf(validate('Call', { ...call, duration_seconds: 'long' }));
    expect(issue).toMatchObject({
      rule: 'type',
      expected: ['integer', 'null'],
      message: '/duration_seconds must be integer or null, got "long"',
    });
  });

  it('reports every broken rule at once', () => {
    const issues = issuesOf(
      validate('CampaignCreate', { max_concurrency: 0, machine_detection_timeout_seconds: 61, name: 3 }),
    );
    expect(issues.map((i) => `${i.pointer}:${i.rule}`).sort()).toEqual([
      '/machine_detection_timeout_seconds:maximum',
      '/max_concurrency:minimum',
      '/name:type',
    ]);
  });

  it('never shows the value of a field marked x-secret', () => {
    const secret = 'sk-live-should-never-appear-0123456789';
    for (const [schema, value] of [
      ['ApiKeyRegenerated', { key: [secret] }],
      ['Invite', { token: { value: secret } }],
    ] as const) {
      const issues = issuesOf(validate(schema, value));
      expect(JSON.stringify(issues)).not.toContain(secret);
      expect(issues[0]?.actual).toBe('[redacted]');
    }
  });

  it('cuts long values short in messages', () => {
    const [issue] = issuesOf(validate('Call', { ...call, summary: ['x'.repeat(500)] }));
    expect(issue?.message).toMatch(/^\/summary must be string or null, got \["x{60,}\.\.\.$/);
    expect(issue?.actual).toEqual(['x'.repeat(500)]);
  });

  it('throws UnknownSchemaError (E_UNKNOWN_SCHEMA) for a name the contract does not define', () => {
    expect(() => validate('Nope' as never, {})).toThrow(UnknownSchemaError);
    try {
      validate('toString' as never, {});
    } catch (error) {
      expect(isVapcError(error) && error.code).toBe('E_UNKNOWN_SCHEMA');
    }
  });
});

describe('bad input never throws', () => {
  it('rejects values JSON cannot hold, naming where they are', () => {
    const issues = issuesOf(
      validate('Call', {
        ...call,
        a: () => 1,
        b: 10n,
        c: Symbol('s'),
        d: undefined,
        e: NaN,
        f: Infinity,
        g: new Date(0),
        h: new Map(),
      }),
    );
    expect(issues.map((i) => `${i.pointer}:${i.rule}`)).toEqual([
      '/a:json',
      '/b:json',
      '/c:json',
      '/d:json',
      '/e:json',
      '/f:json',
      '/g:json',
      '/h:json',
    ]);
    expect(issues[1]?.message).toBe('/b must be a JSON value, got a BigInt');
  });

  it('rejects undefined, a function and a symbol at the root', () => {
    for (const value of [undefined, () => 1, Symbol('x'), 1n]) {
      expect(issuesOf(validate('Health', value))[0]).toMatchObject({ pointer: '', rule: 'json' });
    }
  });

  it('rejects holes in arrays', () => {
    // eslint-disable-next-line no-sparse-arrays
    expect(
      issuesOf(validate('HTTPValidationError', { detail: [, { loc: [], msg: 'm', type: 't' }] }))[0],
    ).toMatchObject({ pointer: '/detail/0', rule: 'json' });
  });

  it('detects a cycle before AJV sees it', () => {
    const a: Record<string, unknown> = { ...call };
    a['latency_metrics'] = { back: a };
    expect(issuesOf(validate('Call', a))).toEqual([
      expect.objectContaining({ pointer: '/latency_metrics/back', rule: 'cycle' }),
    ]);
  });

  it('accepts the same object twice when it is not its own ancestor', () => {
    const shared = { k: 1 };
    expect(validate('Call', { ...call, latency_metrics: shared, cost_breakdown: shared }).ok).toBe(true);
  });

  it('bounds 100 000 levels of nesting with one depth issue', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { x: deep };
    const issues = issuesOf(validate('Call', { ...call, latency_metrics: deep }));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ rule: 'depth', expected: 512 });
    expect(issues[0]?.message.length).toBeLessThan(200);
    const arrays: unknown[] = [];
    let cur = arrays;
    for (let i = 0; i < 100_000; i++) {
      const next: unknown[] = [];
      cur.push(next);
      cur = next;
    }
    expect(issuesOf(validate('Health', { a: arrays }))[0]?.rule).toBe('depth');
  });

  it('accepts nesting up to the limit, and the limit can be chosen', () => {
    let nested: unknown = {};
    for (let i = 0; i < 100; i++) nested = { x: nested };
    expect(validate('Health', nested).ok).toBe(true);
    expect(issuesOf(validate('Health', nested, { limits: { maxDepth: 50 } }))[0]?.rule).toBe('depth');
  });

  it('validates a large input and stops at the size bound', () => {
    const calls = Array.from({ length: 50_000 }, (_, i) => ({ ...call, id: `c${i}` }));
    expect(validateResponse('listCalls', 200, { headers: rateHeaders, body: calls }).ok).toBe(true);
    const r = validateResponse('listCalls', 200, { headers: rateHeaders, body: calls }, { limits: { maxNodes: 1000 } });
    expect(issuesOf(r)).toEqual([expect.objectContaining({ rule: 'size', location: 'body' })]);
  });

  it('caps the number of issues', () => {
    const calls = Array.from({ length: 5_000 }, () => ({}));
    const issues = issuesOf(validateResponse('listCalls', 200, { headers: rateHeaders, body: calls }));
    expect(issues.length).toBeLessThanOrEqual(100);
  });

  it('turns a throwing getter or proxy into an issue', () => {
    const getter = Object.defineProperty({ ...call }, 'summary', {
      enumerable: true,
      get: () => {
        throw new Error('boom');
      },
    });
    expect(issuesOf(validate('Call', getter))[0]).toMatchObject({ rule: 'json' });
    const proxy = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
      },
    );
    expect(issuesOf(validate('Health', proxy))[0]).toMatchObject({ rule: 'json' });
  });
});

describe('type guards', () => {
  it('exports one guard per component schema, agreeing with validate', () => {
    const exported = api as unknown as Record<string, unknown>;
    for (const name of schemaNames()) {
      const guard = exported[`is${name}`];
      expect(typeof guard, `is${name}`).toBe('function');
      expect((guard as (x: unknown) => boolean)(Symbol('x'))).toBe(false);
    }
    expect(isCall(call)).toBe(true);
    expect(isCall({ ...call, id: 1 })).toBe(false);
  });

  it('narrows the type', () => {
    const x: unknown = call;
    if (isCall(x)) expect(x.to_number).toBe('+15550100');
    else expect.fail('a valid call was rejected');
  });
});

describe('validateRequest', () => {
  it('coerces integer query strings and fills documented defaults', () => {
    const r = validateRequest('listCalls', { query: { limit: '5' } });
    expect(r).toEqual({
      ok: true,
      value: { path: {}, query: { limit: 5, offset: 0 }, headers: {}, body: undefined },
      checked: ['query'],
    });
  });

  it('rejects "abc" and "5.5" for an integer parameter', () => {
    for (const bad of ['abc', '5.5', '', '1e3', ' 5']) {
      const issues = issuesOf(validateRequest('listCalls', { query: { offset: bad } }));
      expect(issues).toEqual([
        expect.objectContaining({
          location: 'query',
          pointer: '/offset',
          rule: 'type',
          expected: 'integer',
          actual: bad,
        }),
      ]);
      expect(issues[0]?.message).toBe(`query /offset must be integer, got ${JSON.stringify(bad)}`);
    }
  });

  it('keeps strings for a [string, null] parameter, even when they look like numbers', () => {
    const r = validateRequest('listCalls', { query: { provider: '42' } });
    expect(r.ok && r.value.query['provider']).toBe('42');
  });

  it('takes the single value of a repeated scalar parameter and rejects several', () => {
    expect(validateRequest('listCalls', { query: { limit: ['7'] } })).toMatchObject({
      ok: true,
      value: { query: { limit: 7 } },
    });
    expect(issuesOf(validateRequest('listCalls', { query: { limit: ['7', '8'] } }))[0]).toMatchObject({
      location: 'query',
      rule: 'type',
    });
  });

  it('keeps unknown query parameters and headers, lower-casing header names', () => {
    const r = validateRequest('listCalls', {
      query: { extra: 'x' },
      headers: { 'X-Trace': 't', Authorization: 'Bearer not-validated' },
    });
    expect(r).toMatchObject({
      ok: true,
      value: { query: { extra: 'x', limit: 50 }, headers: { 'x-trace': 't', authorization: 'Bearer not-validated' } },
    });
  });

  it('requires path parameters when the path is passed', () => {
    expect(issuesOf(validateRequest('getCampaign', { path: {} }))).toEqual([
      expect.objectContaining({ location: 'path', pointer: '', rule: 'required', expected: 'campaign_id' }),
    ]);
    expect(validateRequest('getCampaign', { path: { campaign_id: '42' } })).toMatchObject({
      ok: true,
      value: { path: { campaign_id: '42' } },
    });
  });

  it('validates the body at location body', () => {
    const issues = issuesOf(validateRequest('createCampaign', { body: { max_concurrency: 201 } }));
    expect(issues).toEqual([
      expect.objectContaining({
        location: 'body',
        pointer: '/max_concurrency',
        rule: 'maximum',
        message: 'body /max_concurrency must be <= 200, got 201',
      }),
    ]);
    expect(validateRequest('createCampaign', { body: { max_concurrency: 200 } }).ok).toBe(true);
  });

  it('reports a missing required body when the body is passed as undefined', () => {
    expect(issuesOf(validateRequest('createCampaign', { body: undefined }))).toEqual([
      expect.objectContaining({ location: 'body', pointer: '', rule: 'required' }),
    ]);
  });

  it('rejects a non-JSON body without throwing', () => {
    const body: Record<string, unknown> = {};
    body['self'] = body;
    expect(issuesOf(validateRequest('updateCampaign', { path: { campaign_id: '1' }, body }))[0]).toMatchObject({
      location: 'body',
      rule: 'cycle',
    });
  });

  it('throws UnknownOperationError (E_UNKNOWN_OPERATION) for an unknown operationId', () => {
    expect(() => validateRequest('deleteEverything', {})).toThrow(UnknownOperationError);
    try {
      validateRequest('constructor', {});
    } catch (error) {
      expect(isVapcError(error) && error.code).toBe('E_UNKNOWN_OPERATION');
    }
  });
});

describe('responseSchemaFor', () => {
  it('maps the exact code first, then the range, else undefined', () => {
    expect(responseSchemaFor('listCalls', 200)).toEqual({ status: '200' });
    expect(responseSchemaFor('createCampaign', 201)).toEqual({ status: '201' });
    expect(responseSchemaFor('getCampaign', 204)).toEqual({ status: '2XX' });
    expect(responseSchemaFor('getCampaign', 422)).toEqual({ status: '422' });
    expect(responseSchemaFor('listCalls', 201)).toBeUndefined();
    expect(responseSchemaFor('getCampaign', 500)).toBeUndefined();
  });

  it('throws for an unknown operation', () => {
    expect(() => responseSchemaFor('nope', 200)).toThrow(UnknownOperationError);
  });
});

describe('validateResponse', () => {
  it('accepts a documented status with its headers and body, returning the body', () => {
    expect(validateResponse('listCalls', 200, { headers: rateHeaders, body: [call] })).toEqual({
      ok: true,
      value: [call],
      checked: ['headers', 'body'],
    });
  });

  it('reads header names case-insensitively and requires the rate-limit headers to be integers', () => {
    const lower = Object.fromEntries(Object.entries(rateHeaders).map(([k, v]) => [k.toLowerCase(), v]));
    expect(validateResponse('getHealth', 200, { headers: lower, body: {} }).ok).toBe(true);
    const issues = issuesOf(
      validateResponse('getHealth', 200, { headers: { ...lower, 'x-ratelimit-reset': '1.5' }, body: {} }),
    );
    expect(issues).toEqual([
      expect.objectContaining({ location: 'header', pointer: '/X-RateLimit-Reset', rule: 'type', actual: '1.5' }),
    ]);
  });

  it('reports missing documented headers when headers are passed', () => {
    const issues = issuesOf(validateResponse('getHealth', 200, { headers: {}, body: {} }));
    expect(
      issues
        .filter((i) => i.rule === 'required')
        .map((i) => i.expected)
        .sort(),
    ).toEqual(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']);
  });

  it('uses the range when no exact code is documented', () => {
    expect(validateResponse('getCampaign', 204, { headers: rateHeaders, body: { campaign: null } }).ok).toBe(true);
    expect(
      issuesOf(
        validateResponse('getCampaign', 200, { headers: rateHeaders, body: { campaign: { status: 'archived' } } }),
      )[0],
    ).toMatchObject({ location: 'body', pointer: '/campaign/status', rule: 'enum' });
  });

  it('reports an undocumented status with rule status', () => {
    expect(issuesOf(validateResponse('listCalls', 500, { body: {} }))).toEqual([
      expect.objectContaining({ pointer: '', rule: 'status', actual: 500, expected: ['200', '401', '422', '429'] }),
    ]);
  });

  it('validates error bodies: 401, 422 and 429 (with headers)', () => {
    expect(validateResponse('listCalls', 401, { body: { detail: 'Invalid credentials' } }).ok).toBe(true);
    expect(issuesOf(validateResponse('listCalls', 422, { body: { detail: 'x' } }))[0]).toMatchObject({
      location: 'body',
      pointer: '/detail',
      rule: 'type',
    });
    expect(
      validateResponse('listCalls', 429, { headers: rateHeaders, body: { detail: 'Rate limit exceeded' } }).ok,
    ).toBe(true);
  });

  it('requires a documented body and accepts none where none is documented', () => {
    expect(issuesOf(validateResponse('getProtected', 200, { headers: rateHeaders, body: undefined }))[0]).toMatchObject(
      { location: 'body', rule: 'required' },
    );
    expect(validateResponse('preflightChatSessions', 204, { headers: rateHeaders }).ok).toBe(true);
  });

  it('throws for an unknown operation', () => {
    expect(() => validateResponse('nope', 200, {})).toThrow(UnknownOperationError);
  });
});

describe('headers in every form callers hold them', () => {
  const lower = Object.fromEntries(Object.entries(rateHeaders).map(([k, v]) => [k.toLowerCase(), v]));

  it('accepts a fetch Headers, case-insensitively', () => {
    expect(validateResponse('listCalls', 200, { headers: new Headers(rateHeaders), body: [call] })).toEqual({
      ok: true,
      value: [call],
      checked: ['headers', 'body'],
    });
    const bad = new Headers({ ...rateHeaders, 'X-RateLimit-Limit': 'many' });
    expect(issuesOf(validateResponse('listCalls', 200, { headers: bad, body: [call] }))).toEqual([
      expect.objectContaining({ location: 'header', pointer: '/X-RateLimit-Limit', rule: 'type', actual: 'many' }),
    ]);
  });

  it('reports the headers a fetch Headers lacks', () => {
    const issues = issuesOf(
      validateResponse('listCalls', 200, { headers: new Headers({ 'X-RateLimit-Limit': '100' }), body: [call] }),
    );
    expect(issues.map((i) => i.expected).sort()).toEqual(['X-RateLimit-Remaining', 'X-RateLimit-Reset']);
  });

  it("accepts Node's IncomingHttpHeaders: string[] values and undefined entries", () => {
    const node: import('node:http').IncomingHttpHeaders = {
      ...lower,
      'set-cookie': ['a=1', 'b=2'],
      'x-absent': undefined,
    };
    expect(validateResponse('listCalls', 200, { headers: node, body: [call] }).ok).toBe(true);
    expect(validateRequest('listCalls', { headers: node }).ok).toBe(true);
    const repeated = { ...lower, 'x-ratelimit-limit': ['100', '200'] };
    expect(issuesOf(validateResponse('listCalls', 200, { headers: repeated, body: [call] }))[0]).toMatchObject({
      location: 'header',
      pointer: '/X-RateLimit-Limit',
      rule: 'type',
    });
  });

  it('accepts a plain record in any case and a Map', () => {
    expect(
      validateResponse('listCalls', 200, {
        headers: { 'X-RATELIMIT-LIMIT': '1', 'x-ratelimit-remaining': '0', 'X-RateLimit-Reset': '9' },
        body: [],
      }).ok,
    ).toBe(true);
    expect(validateResponse('listCalls', 200, { headers: new Map(Object.entries(rateHeaders)), body: [] }).ok).toBe(
      true,
    );
  });

  it('lower-cases the headers of a request in every form', () => {
    const r = validateRequest('listCalls', { headers: new Headers({ 'X-Trace': 't' }) });
    expect(r).toMatchObject({ ok: true, value: { headers: { 'x-trace': 't' } }, checked: ['headers'] });
  });
});

describe('only the parts passed are checked', () => {
  it('checks only the body of a response when only the body is passed', () => {
    expect(validateResponse('listCalls', 200, { body: [call] })).toEqual({
      ok: true,
      value: [call],
      checked: ['body'],
    });
    expect(
      issuesOf(validateResponse('listCalls', 200, { body: [{ id: 1 }] })).every((i) => i.location === 'body'),
    ).toBe(true);
  });

  it('checks only the headers of a response when only the headers are passed', () => {
    expect(validateResponse('getProtected', 200, { headers: rateHeaders })).toMatchObject({
      ok: true,
      checked: ['headers'],
    });
    expect(validateResponse('getProtected', 200, { headers: {} })).toMatchObject({ ok: false, checked: ['headers'] });
  });

  it('still checks the status when no part is passed', () => {
    expect(validateResponse('listCalls', 200, {})).toEqual({ ok: true, value: undefined, checked: [] });
    expect(validateResponse('listCalls', 503, {})).toMatchObject({
      ok: false,
      checked: [],
      issues: [expect.objectContaining({ rule: 'status' })],
    });
  });

  it('checks only the request parts passed, each fully', () => {
    expect(validateRequest('getCampaign', {})).toMatchObject({ ok: true, checked: [] });
    expect(validateRequest('createCampaign', { path: {} })).toMatchObject({ ok: true, checked: ['path'] });
    expect(validateRequest('createCampaign', { body: { max_concurrency: 0 } })).toMatchObject({
      ok: false,
      checked: ['body'],
    });
    expect(validateRequest('getCampaign', { path: {}, query: {}, headers: {}, body: undefined })).toMatchObject({
      ok: false,
      checked: ['path', 'query', 'headers', 'body'],
    });
  });
});

describe('read from the spec, never restated', () => {
  it('has one validator per component schema and operation of the spec', async () => {
    const spec = await loadSpec({ path: paths.bundledJson });
    expect(schemaNames().sort()).toEqual(spec.schemaNames().sort());
    expect(operationIds().sort()).toEqual(spec.operations.map((o) => o.id).sort());
    for (const op of spec.operations) {
      expect(Object.keys(manifest.operations[op.id]?.responses ?? {}).sort(), op.id).toEqual(
        op.responses.map((r) => r.status).sort(),
      );
    }
  });

  it('accepts every stated bound and rejects one step beyond it', async () => {
    const spec = await loadSpec({ path: paths.bundledJson });
    const bounds = spec.bounds();
    expect(bounds.length).toBeGreaterThan(0);
    for (const b of bounds) {
      const op = spec.operation(b.operationId);
      const pathParams = Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, 'x']));
      const field = b.pointer.slice(1);
      const step = b.type === 'integer' ? 1 : 0.5;
      for (const edge of [b.minimum, b.maximum]) {
        if (edge === undefined) continue;
        expect(
          validateRequest(b.operationId, { path: pathParams, body: { [field]: edge } }).ok,
          `${b.operationId} ${b.pointer}=${edge}`,
        ).toBe(true);
      }
      if (b.minimum !== undefined) {
        expect(
          issuesOf(validateRequest(b.operationId, { path: pathParams, body: { [field]: b.minimum - step } }))[0],
        ).toMatchObject({ pointer: b.pointer, rule: 'minimum', expected: b.minimum });
      }
      if (b.maximum !== undefined) {
        expect(
          issuesOf(validateRequest(b.operationId, { path: pathParams, body: { [field]: b.maximum + step } }))[0],
        ).toMatchObject({ pointer: b.pointer, rule: 'maximum', expected: b.maximum });
      }
    }
  });
});
