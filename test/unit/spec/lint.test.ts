import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { lintSpec, type LintProblem, type LintResult } from '../../../src/build/redocly.js';

/** Rate-limit headers by reference to the shared components, as a conforming success response has them. */
const sharedHeaders = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
const json = (schema: object) => ({ 'application/json': { schema } });
const description = 'A description long enough to say what the operation does and what is left open.';
const errorResponses = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '429': { $ref: '#/components/responses/RateLimited' },
};

/** One operation per violation, so each finding has its own pointer; the rest of each operation conforms. */
function op(operationId: string, overrides: Record<string, unknown> = {}, success: Record<string, unknown> = {}) {
  return {
    operationId,
    tags: ['T'],
    summary: `Operation ${operationId}`,
    description,
    responses: {
      '200': { description: 'ok', headers: sharedHeaders, content: json({ type: 'object' }), ...success },
      ...errorResponses,
    },
    ...overrides,
  };
}

const broken = {
  openapi: '3.1.0',
  info: { title: 'Broken on purpose', version: '1.0.0', description: 'Each operation breaks one contract rule.' },
  servers: [{ url: 'http://127.0.0.1:4010' }],
  security: [{ BearerAuth: [] }],
  tags: [{ name: 'T', description: 'Everything.' }],
  paths: {
    '/no-401': {
      get: op('no401', {
        responses: {
          '200': { description: 'ok', headers: sharedHeaders, content: json({ type: 'object' }) },
          '429': errorResponses['429'],
        },
      }),
    },
    '/open': {
      get: op('open', {
        security: [],
        responses: { '200': { description: 'ok', headers: sharedHeaders, content: json({ type: 'object' }) } },
      }),
    },
    '/optional-credentials': {
      get: op('optionalCredentials', {
        security: [{}, { BearerAuth: [] }],
        responses: {
          '200': { description: 'ok', headers: sharedHeaders, content: json({ type: 'object' }) },
          '429': errorResponses['429'],
        },
      }),
    },
    '/inline-header': {
      get: op(
        'inlineHeader',
        {},
        {
          headers: {
            ...sharedHeaders,
            'X-RateLimit-Limit': { description: 'an inline copy', schema: { type: 'integer' } },
          },
        },
      ),
    },
    '/other-header': {
      get: op(
        'otherHeader',
        {},
        { headers: { ...sharedHeaders, 'X-RateLimit-Reset': { $ref: '#/components/headers/Other' } } },
      ),
    },
    '/two-headers': {
      get: op(
        'twoHeaders',
        {},
        {
          headers: {
            'X-RateLimit-Limit': sharedHeaders['X-RateLimit-Limit'],
            'X-RateLimit-Remaining': sharedHeaders['X-RateLimit-Remaining'],
          },
        },
      ),
    },
    '/no-headers': { get: op('noHeaders', {}, { headers: undefined }) },
    '/camel': {
      post: op('camel', {
        requestBody: {
          content: json({
            type: 'object',
            properties: {
              badName: { type: 'string' },
              scheduleStartTime: { type: 'string' },
              good_name: { type: 'string' },
            },
          }),
        },
      }),
    },
    '/not-shown': {
      get: op('notShown', {
        responses: {
          '200': {
            description: 'ok',
            headers: sharedHeaders,
            content: json({ type: 'object', properties: { created_at: { type: 'string', format: 'date-time' } } }),
          },
          '404': { description: 'not found', content: json({ type: 'object' }) },
          ...errorResponses,
        },
      }),
    },
    '/terse': { get: op('terse', { description: 'Lists.' }) },
    '/anonymous': { get: op('anonymous', { operationId: undefined, summary: undefined }) },
  },
  components: {
    securitySchemes: { BearerAuth: { type: 'http', scheme: 'bearer' } },
    headers: {
      'X-RateLimit-Limit': { description: 'limit', required: true, schema: { type: 'integer' } },
      'X-RateLimit-Remaining': { description: 'remaining', required: true, schema: { type: 'integer' } },
      'X-RateLimit-Reset': { description: 'reset', required: true, schema: { type: 'integer' } },
      Other: { description: 'another definition', schema: { type: 'integer' } },
    },
    responses: {
      Unauthorized: {
        description: 'unauthorized',
        content: json({ type: 'object', properties: { detail: { type: 'string' } } }),
      },
      RateLimited: {
        description: 'rate limited',
        headers: sharedHeaders,
        content: json({ type: 'object', properties: { detail: { type: 'string' } } }),
      },
    },
  },
};

const get = (path: string) => `#/paths/${path.replace(/\//g, '~1')}/get`;
const post = (path: string) => `#/paths/${path.replace(/\//g, '~1')}/post`;

let dir: string;
let result: LintResult;
const findings = (ruleId: string): LintProblem[] => result.problems.filter((p) => p.ruleId === ruleId);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vapc-lint-'));
  const file = join(dir, 'broken.yaml');
  await writeFile(file, stringify(JSON.parse(JSON.stringify(broken))));
  result = await lintSpec(file);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('spec lint: the authored spec', () => {
  it('is clean: no error, no warning', async () => {
    const clean = await lintSpec();
    expect(clean.problems.map((p) => `${p.ruleId} ${p.pointer}`)).toEqual([]);
    expect(clean).toMatchObject({ ok: true, errors: 0, warnings: 0 });
  });
});

describe('spec lint: each contract rule fires on a broken document', () => {
  it('fails the broken document', () => {
    expect(result.ok).toBe(false);
    expect(result.errors).toBeGreaterThan(0);
  });

  it.each([
    ['vapc/credentialed-operation-401', `${get('/no-401')}/responses`],
    ['vapc/operation-429', `${get('/open')}/responses`],
    ['vapc/shared-rate-limit-headers', `${get('/inline-header')}/responses/200/headers/X-RateLimit-Limit`],
    ['vapc/shared-rate-limit-headers', `${get('/other-header')}/responses/200/headers/X-RateLimit-Reset`],
    ['vapc/shared-rate-limit-headers', `${get('/two-headers')}/responses/200/headers`],
    ['vapc/success-rate-limit-headers', `${get('/two-headers')}/responses/200`],
    ['vapc/success-rate-limit-headers', `${get('/no-headers')}/responses/200`],
    ['vapc/snake-case-properties', `${post('/camel')}/requestBody/content/application~1json/schema/properties/badName`],
    ['rule/no-unshown-error-statuses', `${get('/not-shown')}/responses/404`],
    [
      'rule/no-invented-formats',
      `${get('/not-shown')}/responses/200/content/application~1json/schema/properties/created_at/format`,
    ],
    ['rule/operation-description-actionable', `${get('/terse')}/description`],
    ['rule/operation-identity', get('/anonymous')],
  ])('%s reports %s', (ruleId, pointer) => {
    expect(findings(ruleId).map((p) => p.pointer)).toContain(pointer);
  });

  it.each([
    [
      'vapc/credentialed-operation-401',
      `${get('/open')}/responses`,
      'an operation with `security: []` takes no credentials',
    ],
    [
      'vapc/credentialed-operation-401',
      `${get('/optional-credentials')}/responses`,
      'an empty alternative makes credentials optional',
    ],
    [
      'vapc/snake-case-properties',
      `${post('/camel')}/requestBody/content/application~1json/schema/properties/scheduleStartTime`,
      'scheduleStartTime is allowed',
    ],
    [
      'vapc/snake-case-properties',
      `${post('/camel')}/requestBody/content/application~1json/schema/properties/good_name`,
      'snake_case passes',
    ],
    [
      'vapc/shared-rate-limit-headers',
      `${get('/inline-header')}/responses/200/headers/X-RateLimit-Remaining`,
      'a shared $ref passes',
    ],
  ])('%s stays silent on %s (%s)', (ruleId, pointer) => {
    expect(findings(ruleId).map((p) => p.pointer)).not.toContain(pointer);
  });

  it('reports findings as data with file, line and message', () => {
    const [finding] = findings('vapc/operation-429');
    expect(finding).toMatchObject({
      severity: 'error',
      file: expect.stringContaining('broken.yaml'),
      line: expect.any(Number),
    });
    expect(finding?.message).toMatch(/429/);
  });
});

describe('spec lint: warnings fail too', () => {
  it('a finding of severity warn makes the result not ok', async () => {
    const config = join(dir, 'warn.yaml');
    await writeFile(config, stringify({ extends: ['minimal'], rules: { 'operation-description': 'warn' } }));
    const spec = join(dir, 'warned.yaml');
    await writeFile(
      spec,
      stringify({
        openapi: '3.1.0',
        info: { title: 'Warned', version: '1.0.0' },
        paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'pong' } } } } },
      }),
    );
    const warned = await lintSpec(spec, { config });
    expect(warned).toMatchObject({ ok: false, errors: 0 });
    expect(warned.warnings).toBeGreaterThan(0);
    expect(warned.problems.map((p) => p.ruleId)).toContain('operation-description');
  });
});
