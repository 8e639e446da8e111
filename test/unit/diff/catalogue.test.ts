import { describe, expect, it } from 'vitest';
import { RULES } from '../../../src/diff/index.js';
import { diffAgainstBase, variant, type Doc } from '../../helpers/diff.js';

/**
 * The catalogue of change cases: each case makes one change to a copy of the bundle and names the
 * rule ids the diff must report with their levels, written out here (the rule table is not read
 * back), no more and no fewer (ids are compared as a set: a change to a
 * shared component is reported once per operation, status and media type that uses it).
 */
interface Case {
  name: string;
  change: (doc: Doc) => void;
  /** Each rule id the diff must report, with the level it must have: `'response-property-removed breaking'`. */
  expect: string[];
  /** An operation that must be among those reported. */
  operation?: string;
}

const s = (doc: Doc) => doc.components.schemas;
const campaignExtra = (doc: Doc) => s(doc).Campaign.allOf[1].properties;
const optionalCallProperty = (doc: Doc): string =>
  Object.keys(s(doc).Call.properties).find((p) => !s(doc).Call.required.includes(p))!;

const CASES: Case[] = [
  // response bodies
  {
    name: 'remove a response property',
    change: (d) => delete campaignExtra(d).assistant_name,
    expect: ['response-property-removed breaking'],
    operation: 'POST /campaign',
  },
  {
    name: 'remove a required response property',
    change: (d) => {
      delete s(d).Call.properties.to_number;
      s(d).Call.required = s(d).Call.required.filter((p: string) => p !== 'to_number');
    },
    expect: ['response-property-removed breaking'],
    operation: 'GET /calls',
  },
  {
    name: 'make a required response property optional',
    change: (d) => (s(d).Call.required = s(d).Call.required.filter((p: string) => p !== 'to_number')),
    expect: ['response-property-became-optional breaking'],
  },
  {
    name: 'make an optional response property required',
    change: (d) => s(d).Call.required.push(optionalCallProperty(d)),
    expect: ['response-property-became-required warning'],
  },
  {
    name: 'add a required response property',
    change: (d) => {
      s(d).Call.properties.region = { type: 'string' };
      s(d).Call.required.push('region');
    },
    expect: ['response-property-added-required warning'],
  },
  {
    name: 'add an optional response property',
    change: (d) => (s(d).Call.properties.region = { type: ['string', 'null'] }),
    expect: ['response-property-added info'],
  },
  {
    name: 'add an enum value to a response',
    change: (d) => s(d).CampaignUpdated.properties.status.enum.push('archived'),
    expect: ['response-enum-value-added breaking'],
  },
  {
    name: 'remove an enum value from a response',
    change: (d) =>
      (s(d).CampaignUpdated.properties.status.enum = s(d).CampaignUpdated.properties.status.enum.filter(
        (v: unknown) => v !== 'paused',
      )),
    expect: ['response-enum-value-removed warning'],
  },
  {
    name: 'make a response field nullable',
    change: (d) => (s(d).Call.properties.id.type = ['string', 'null']),
    expect: ['response-became-nullable breaking'],
  },
  {
    name: 'make a response field not nullable',
    change: (d) => (campaignExtra(d).assistant_name.type = 'string'),
    expect: ['response-became-not-nullable warning'],
  },
  {
    name: 'change a response field type',
    change: (d) => (s(d).Call.properties.id.type = 'integer'),
    expect: ['response-type-changed breaking'],
  },
  {
    name: 'widen a response field type',
    change: (d) => (s(d).Call.properties.id.type = ['string', 'integer']),
    expect: ['response-type-widened breaking'],
  },
  {
    name: 'add a maximum to a response field',
    change: (d) => (campaignExtra(d).recipient_list_row_count.maximum = 1000),
    expect: ['response-max-decreased warning'],
  },
  {
    name: 'change a response field format',
    change: (d) => (s(d).Call.properties.id.format = 'uuid'),
    expect: ['response-format-changed breaking'],
  },
  // request bodies
  {
    name: 'add a required request property',
    change: (d) => {
      s(d).CampaignCreate.properties.priority = { type: 'integer' };
      s(d).CampaignCreate.required = ['priority'];
    },
    expect: ['request-property-added-required breaking'],
    operation: 'POST /campaign',
  },
  {
    name: 'add an optional request property',
    change: (d) => (s(d).CampaignCreate.properties.priority = { type: 'integer' }),
    expect: ['request-property-added info'],
  },
  {
    name: 'make a request property required',
    change: (d) => (s(d).CampaignCreate.required = ['name']),
    expect: ['request-property-became-required breaking'],
  },
  {
    name: 'remove a request property',
    change: (d) => delete s(d).CampaignCreate.properties.campaign_context,
    expect: ['request-property-removed warning'],
  },
  {
    name: 'narrow a request maximum',
    change: (d) => (s(d).CampaignCreate.properties.max_concurrency.maximum = 100),
    expect: ['request-max-decreased breaking'],
    operation: 'POST /campaign',
  },
  {
    name: 'widen a request maximum',
    change: (d) => (s(d).CampaignCreate.properties.max_concurrency.maximum = 300),
    expect: ['request-max-increased warning'],
  },
  {
    name: 'remove a request maximum',
    change: (d) => delete s(d).CampaignCreate.properties.max_concurrency.maximum,
    expect: ['request-max-increased warning'],
  },
  {
    name: 'raise a request minimum',
    change: (d) => (s(d).CampaignCreate.properties.machine_detection_timeout_seconds.minimum = 5),
    expect: ['request-min-increased breaking'],
  },
  {
    name: 'lower a request minimum',
    change: (d) => (s(d).CampaignCreate.properties.machine_detection_timeout_seconds.minimum = 1),
    expect: ['request-min-decreased warning'],
  },
  {
    name: 'add a maxLength to a request string',
    change: (d) => (s(d).CampaignCreate.properties.name.maxLength = 10),
    expect: ['request-max-decreased breaking'],
  },
  {
    name: 'add a pattern to a request string',
    change: (d) => (s(d).CampaignCreate.properties.name.pattern = '^[a-z]+$'),
    expect: ['request-pattern-changed breaking'],
  },
  {
    name: 'remove an enum value from a request',
    change: (d) =>
      (s(d).CampaignUpdate.properties.status.enum = s(d).CampaignUpdate.properties.status.enum.filter(
        (v: unknown) => v !== 'scheduled',
      )),
    expect: ['request-enum-value-removed breaking'],
    operation: 'PATCH /campaign/{campaign_id}',
  },
  {
    name: 'add an enum value to a request',
    change: (d) => s(d).CampaignUpdate.properties.status.enum.push('archived'),
    expect: ['request-enum-value-added warning'],
  },
  {
    name: 'make a request field nullable',
    change: (d) => (s(d).CampaignCreate.properties.name.type = ['string', 'null']),
    expect: ['request-became-nullable warning'],
  },
  {
    name: 'change a request field type',
    change: (d) => (s(d).CampaignCreate.properties.max_concurrency.type = 'string'),
    expect: ['request-type-changed breaking'],
  },
  {
    name: 'widen a request field from integer to number',
    change: (d) => (s(d).CampaignCreate.properties.max_concurrency.type = 'number'),
    expect: ['request-type-widened warning'],
  },
  {
    name: 'add a required request body',
    change: (d) =>
      (d.paths['/protected'].get.requestBody = {
        required: true,
        content: { 'application/json': { schema: { type: 'object' } } },
      }),
    expect: ['request-body-added-required breaking'],
  },
  {
    name: 'make the request body optional',
    change: (d) => (d.paths['/campaign'].post.requestBody.required = false),
    expect: ['request-body-became-optional warning'],
  },
  {
    name: 'remove the request body',
    change: (d) => delete d.paths['/campaign'].post.requestBody,
    expect: ['request-body-removed warning'],
  },
  {
    name: 'accept another request media type',
    change: (d) =>
      (d.paths['/campaign'].post.requestBody.content['application/x-www-form-urlencoded'] =
        d.paths['/campaign'].post.requestBody.content['application/json']),
    expect: ['request-media-type-added warning'],
  },
  // parameters
  {
    name: 'add a required query parameter',
    change: (d) =>
      d.paths['/calls'].get.parameters.push({ name: 'since', in: 'query', required: true, schema: { type: 'string' } }),
    expect: ['request-parameter-added-required breaking'],
    operation: 'GET /calls',
  },
  {
    name: 'add an optional query parameter',
    change: (d) => d.paths['/calls'].get.parameters.push({ name: 'since', in: 'query', schema: { type: 'string' } }),
    expect: ['request-parameter-added info'],
  },
  {
    name: 'remove a query parameter',
    change: (d) =>
      (d.paths['/calls'].get.parameters = d.paths['/calls'].get.parameters.filter(
        (p: Doc) => p.$ref !== '#/components/parameters/offset',
      )),
    expect: ['request-parameter-removed warning'],
  },
  {
    name: 'make a query parameter required',
    change: (d) => (d.components.parameters.limit.required = true),
    expect: ['request-parameter-became-required breaking'],
  },
  {
    name: 'add a maximum to a query parameter',
    change: (d) => (d.components.parameters.limit.schema.maximum = 100),
    expect: ['request-max-decreased breaking'],
  },
  {
    name: 'change a query parameter default',
    change: (d) => (d.components.parameters.limit.schema.default = 20),
    expect: ['request-default-changed warning'],
  },
  {
    name: 'change a query parameter type',
    change: (d) => (d.components.parameters.provider.schema.type = ['integer', 'null']),
    expect: ['request-type-changed breaking'],
  },
  {
    name: 'rename a path parameter',
    change: (d) => {
      d.paths['/campaign/{id}'] = d.paths['/campaign/{campaign_id}'];
      delete d.paths['/campaign/{campaign_id}'];
      d.components.parameters.campaign_id.name = 'id';
    },
    expect: ['path-parameter-renamed info'],
    operation: 'GET /campaign/{id}',
  },
  // responses: statuses and headers
  {
    name: 'change a success status code (200 to 202)',
    change: (d) => {
      const r = d.paths['/calls'].get.responses;
      r['202'] = r['200'];
      delete r['200'];
    },
    expect: ['response-success-status-removed breaking', 'response-success-status-added warning'],
  },
  {
    name: 'remove an error status',
    change: (d) => delete d.paths['/calls'].get.responses['422'],
    expect: ['response-error-status-removed warning'],
  },
  {
    name: 'add an error status',
    change: (d) => (d.paths['/calls'].get.responses['404'] = { description: 'Not found.' }),
    expect: ['response-error-status-added info'],
  },
  {
    name: 'remove a rate-limit header',
    change: (d) => delete d.paths['/users/me'].get.responses['2XX'].headers['X-RateLimit-Reset'],
    expect: ['ratelimit-header-removed breaking'],
    operation: 'GET /users/me',
  },
  {
    name: 'spell a rate-limit header in lower case (header names are case-insensitive)',
    change: (d) => {
      const headers = d.paths['/users/me'].get.responses['2XX'].headers;
      headers['x-ratelimit-reset'] = headers['X-RateLimit-Reset'];
      delete headers['X-RateLimit-Reset'];
    },
    expect: ['header-name-case-changed info'],
    operation: 'GET /users/me',
  },
  {
    name: 'make a rate-limit header optional',
    change: (d) => (d.components.headers['X-RateLimit-Limit'].required = false),
    expect: ['response-header-became-optional breaking'],
  },
  {
    name: 'change a response header type',
    change: (d) => (d.components.headers['X-RateLimit-Reset'].schema.type = 'string'),
    expect: ['response-type-changed breaking'],
  },
  {
    name: 'add a rate-limit header',
    change: (d) =>
      (d.paths['/users/me'].get.responses['2XX'].headers['X-RateLimit-Policy'] = {
        required: true,
        schema: { type: 'string' },
      }),
    expect: ['ratelimit-header-added warning'],
  },
  {
    name: 'add a required response header',
    change: (d) =>
      (d.paths['/users/me'].get.responses['2XX'].headers['X-Request-Id'] = {
        required: true,
        schema: { type: 'string' },
      }),
    expect: ['response-header-added-required warning'],
  },
  {
    name: 'add an optional response header',
    change: (d) => (d.paths['/users/me'].get.responses['2XX'].headers['X-Request-Id'] = { schema: { type: 'string' } }),
    expect: ['response-header-added info'],
  },
  {
    name: 'replace a response media type',
    change: (d) => {
      const c = d.paths['/users/me'].get.responses['2XX'].content;
      c['application/xml'] = c['application/json'];
      delete c['application/json'];
    },
    expect: ['response-media-type-removed breaking', 'response-media-type-added warning'],
  },
  // operations
  {
    name: 'remove an operation',
    change: (d) => delete d.paths['/protected'],
    expect: ['operation-removed breaking'],
    operation: 'GET /protected',
  },
  {
    name: 'add an operation',
    change: (d) =>
      (d.paths['/status'] = { get: { operationId: 'getStatus', responses: { '200': { description: 'OK' } } } }),
    expect: ['operation-added info'],
  },
  {
    name: 'deprecate an operation',
    change: (d) => (d.paths['/protected'].get.deprecated = true),
    expect: ['operation-deprecated warning'],
  },
  {
    name: 'change an operationId',
    change: (d) => (d.paths['/protected'].get.operationId = 'getProtectedResource'),
    expect: ['operation-id-changed warning'],
  },
  // security
  {
    name: 'add a security scheme to a requirement',
    change: (d) => {
      d.components.securitySchemes.Signature = { type: 'apiKey', in: 'header', name: 'X-Signature' };
      d.paths['/campaign'].post.security = [{ BearerAuth: [], UserId: [], Signature: [] }];
    },
    expect: ['security-scheme-added breaking'],
    operation: 'POST /campaign',
  },
  {
    name: 'remove the anonymous alternative of health',
    change: (d) => (d.paths['/health'].get.security = [{ BearerAuth: [] }]),
    expect: ['security-requirement-removed breaking'],
    operation: 'GET /health',
  },
  {
    name: 'accept a bearer token alone',
    change: (d) => d.paths['/protected'].get.security.push({ BearerAuth: [] }),
    expect: ['security-requirement-added warning'],
  },
  {
    name: 'drop X-User-ID from a requirement',
    change: (d) => (d.paths['/protected'].get.security = [{ BearerAuth: [] }]),
    expect: ['security-scheme-removed warning'],
  },
  {
    name: 'rename the X-User-ID header',
    change: (d) => (d.components.securitySchemes.UserId.name = 'X-User'),
    expect: ['security-scheme-changed breaking'],
  },
  {
    name: 'spell the X-User-ID header in lower case (header names are case-insensitive)',
    change: (d) => (d.components.securitySchemes.UserId.name = 'x-user-id'),
    expect: ['header-name-case-changed info'],
  },
  // servers and documentation
  {
    name: 'change the server URL',
    change: (d) => (d.servers[0].url = 'https://api.example.com'),
    expect: ['server-removed warning', 'server-added info'],
  },
  {
    name: 'change a server variable default',
    change: (d) => (d.servers[0].variables.base_url.default = 'http://127.0.0.1:9999'),
    expect: ['server-variable-changed warning'],
  },
  {
    name: 'change only descriptions',
    change: (d) => {
      d.paths['/calls'].get.description = 'Call logs.';
      s(d).Call.properties.id.description = 'The call id.';
    },
    expect: ['description-changed info'],
  },
  {
    name: 'change x-unspecified',
    change: (d) => d.paths['/calls'].get['x-unspecified'].push('order of calls'),
    expect: ['x-unspecified-changed info'],
  },
  {
    name: 'add an extension to an operation',
    change: (d) => (d.paths['/calls'].get['x-internal'] = true),
    expect: ['unclassified-change info'],
  },
];

describe('vapc diff: the catalogue of change cases', () => {
  it('holds at least 40 cases, each naming rules that exist', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
    for (const c of CASES) for (const entry of c.expect) expect(RULES).toHaveProperty(entry.split(' ')[0]!);
  });

  for (const c of CASES) {
    it(`${c.name}: ${c.expect.join(', ')}`, async () => {
      const changes = await diffAgainstBase(variant(c.change));
      expect([...new Set(changes.map((x) => `${x.id} ${x.level}`))].sort()).toEqual([...c.expect].sort());
      for (const x of changes) {
        // A breaking change names whom it breaks.
        if (x.level === 'breaking') expect(x.breaks.length).toBeGreaterThan(0);
        expect(x.pointer).toMatch(/^\/|^$/);
        expect(x.message.length).toBeGreaterThan(10);
      }
      if (c.operation) expect(changes.map((x) => x.operation)).toContain(c.operation);
    });
  }
});

describe('vapc diff: the rule table is documented', () => {
  it('docs/diff.md names every rule id with its level and whom it breaks', async () => {
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { packageRoot } = await import('../../../src/paths.js');
    const page = readFileSync(join(packageRoot, 'docs', 'diff.md'), 'utf8');
    for (const [id, rule] of Object.entries(RULES)) {
      // Cells may be padded (Prettier aligns Markdown tables).
      const cells = [`\`${id}\``, rule.level, rule.breaks.join(', ') || '–', rule.bump].map((c) =>
        c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      );
      expect(page).toMatch(new RegExp(`^\\| ${cells.join(' +\\| ')} +\\|`, 'm'));
    }
  });
});
