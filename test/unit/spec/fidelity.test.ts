// Fidelity of spec/openapi.yaml to the contract (seed 000_8298da82e2a63f1d.txt), one row per fact,
// grouped by the seed's sections. The table is written from the seed's prose; the helpers below
// accept any faithful way of saying a thing (`type: [T, "null"]`, `anyOf` with null, `nullable`,
// `2XX` or `200`, a conflict in a description or in x-contract-conflict).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocument } from '../../../src/spec/load.js';
import type { OpenAPIDocument } from '../../../src/spec/model.js';

type Node = Record<string, any>;
type Check = () => void;
type Row = [fact: string, check: Check];

let doc: OpenAPIDocument;
/** Rows only read: the document is frozen, so a row that writes into it throws. */
function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const child of Object.values(value)) deepFreeze(child, seen);
    Object.freeze(value);
  }
  return value;
}

beforeAll(async () => {
  doc = deepFreeze(await loadDocument());
});

// ---------------------------------------------------------------------------------------------
// Reading the dereferenced document
// ---------------------------------------------------------------------------------------------

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface Located {
  method: string;
  path: string;
  op: Node;
  item: Node;
}

function operations(): Located[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as Node, item: item as Node })),
  );
}

function operation(id: string): Located {
  const found = operations().find((o) => o.op['operationId'] === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
}

function typesOf(schema: Node | undefined): Set<string> {
  const out = new Set<string>();
  if (!schema) return out;
  if (typeof schema['type'] === 'string') out.add(schema['type']);
  if (Array.isArray(schema['type'])) for (const t of schema['type']) out.add(t);
  if (schema['nullable'] === true) out.add('null');
  if ('const' in schema && schema['const'] === null) out.add('null');
  for (const key of ['anyOf', 'oneOf']) {
    for (const branch of (schema[key] as Node[] | undefined) ?? []) {
      const inner = typesOf(branch);
      if (inner.size === 0 && (branch['properties'] || branch['additionalProperties'] !== undefined))
        inner.add('object');
      for (const t of inner) out.add(t);
    }
  }
  if (out.size === 0 && Array.isArray(schema['allOf'])) {
    // allOf narrows: a type every part allows (parts without a type allow any).
    const parts = (schema['allOf'] as Node[]).map(typesOf).filter((t) => t.size > 0);
    for (const t of parts[0] ?? []) if (parts.every((p) => p.has(t))) out.add(t);
  }
  if (out.size === 0 && Array.isArray(schema['enum'])) {
    for (const v of schema['enum']) out.add(v === null ? 'null' : typeof v);
  }
  if (out.size === 0 && schema['properties']) out.add('object');
  return out;
}

const baseTypes = (s: Node | undefined) => [...typesOf(s)].filter((t) => t !== 'null').sort();
const nullable = (s: Node | undefined) => typesOf(s).has('null');

/** The object form of a schema: itself, its non-null anyOf/oneOf branch, or its allOf merged. */
function objectView(schema: Node | undefined): Node {
  if (!schema) return {};
  if (
    schema['properties'] ||
    schema['type'] === 'object' ||
    (Array.isArray(schema['type']) && schema['type'].includes('object'))
  ) {
    if (!schema['allOf']) return schema;
  }
  for (const key of ['anyOf', 'oneOf']) {
    const branch = ((schema[key] as Node[] | undefined) ?? []).find((b) => typesOf(b).has('object') || b['properties']);
    if (branch) return objectView(branch);
  }
  if (schema['allOf']) {
    const parts = [schema, ...(schema['allOf'] as Node[])].map((p) => (p === schema ? p : objectView(p)));
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((p) => p['properties'] ?? {})),
      required: parts.flatMap((p) => p['required'] ?? []),
    };
  }
  return schema;
}

function arrayItems(schema: Node | undefined): Node | undefined {
  if (!schema) return undefined;
  if (schema['items']) return schema['items'] as Node;
  for (const key of ['anyOf', 'oneOf']) {
    const branch = ((schema[key] as Node[] | undefined) ?? []).find((b) => typesOf(b).has('array'));
    if (branch) return arrayItems(branch);
  }
  return undefined;
}

const props = (schema: Node | undefined): Record<string, Node> =>
  (objectView(schema)['properties'] as Record<string, Node>) ?? {};
const requiredOf = (schema: Node | undefined): string[] => (objectView(schema)['required'] as string[]) ?? [];
const enumOf = (schema: Node | undefined): unknown[] | undefined => {
  if (!schema) return undefined;
  if (Array.isArray(schema['enum'])) return (schema['enum'] as unknown[]).filter((v) => v !== null);
  for (const key of ['anyOf', 'oneOf']) {
    for (const branch of (schema[key] as Node[] | undefined) ?? []) {
      const found = enumOf(branch);
      if (found) return found;
    }
  }
  return undefined;
};

function json(content: Node | undefined): Node | undefined {
  return content?.['application/json']?.['schema'] as Node | undefined;
}

const requestSchema = (id: string) => json(operation(id).op['requestBody']?.['content']);
const responses = (id: string): Record<string, Node> => (operation(id).op['responses'] as Record<string, Node>) ?? {};
const successStatuses = (id: string) => Object.keys(responses(id)).filter((s) => /^2/.test(s));
function successSchema(id: string): Node | undefined {
  const [first] = successStatuses(id);
  return first ? json(responses(id)[first]?.['content']) : undefined;
}
const responseSchema = (id: string, status: string) => json(responses(id)[status]?.['content']);

function parameters(id: string): Node[] {
  const { op, item } = operation(id);
  const byKey = new Map<string, Node>();
  for (const p of [...((item['parameters'] as Node[]) ?? []), ...((op['parameters'] as Node[]) ?? [])])
    byKey.set(`${p['in']}:${p['name']}`, p);
  return [...byKey.values()];
}
const parameter = (id: string, where: string, name: string) =>
  parameters(id).find((p) => p['in'] === where && p['name'] === name);

type Credential = 'bearer' | 'userId' | 'other';
function credentialOf(schemeName: string): Credential {
  const scheme = ((doc.components?.['securitySchemes'] as Node) ?? {})[schemeName] as Node | undefined;
  if (scheme?.['type'] === 'http' && String(scheme['scheme']).toLowerCase() === 'bearer') return 'bearer';
  if (
    scheme?.['type'] === 'apiKey' &&
    scheme['in'] === 'header' &&
    String(scheme['name']).toLowerCase() === 'x-user-id'
  )
    return 'userId';
  return 'other';
}
/** The security alternatives of an operation, each as the sorted credentials it needs. */
function alternatives(id: string): string[][] {
  const security = (operation(id).op['security'] ?? doc['security'] ?? []) as Node[];
  return security.map((alt) => Object.keys(alt).map(credentialOf).sort());
}
const requiresCredentials = (id: string) => {
  const alts = alternatives(id);
  return alts.length > 0 && alts.every((a) => a.length > 0);
};

/** All text a reader meets on a node: description, summary and the x- extensions. */
function notes(node: Node | undefined): string {
  if (!node) return '';
  return [node['description'], node['summary'], node['x-unspecified'], node['x-contract-conflict']]
    .filter((v) => v !== undefined)
    .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
    .join('\n');
}

/** Every schema node of the document (walked through properties, items, combinators). */
function allSchemas(): Node[] {
  const out: Node[] = [];
  const seen = new Set<Node>();
  const visit = (value: unknown, isSchema: boolean) => {
    if (!value || typeof value !== 'object' || seen.has(value as Node)) return;
    seen.add(value as Node);
    if (Array.isArray(value)) return value.forEach((v) => visit(v, isSchema));
    const node = value as Node;
    if (isSchema) out.push(node);
    for (const [key, child] of Object.entries(node)) {
      if (isSchema) {
        if (['properties', 'patternProperties', '$defs'].includes(key))
          for (const sub of Object.values(child as Node)) visit(sub, true);
        else if (['items', 'additionalProperties', 'not', 'anyOf', 'oneOf', 'allOf', 'prefixItems'].includes(key))
          visit(child, true);
      } else if (key === 'schema') visit(child, true);
      else if (key === 'schemas') for (const sub of Object.values(child as Node)) visit(sub, true);
      else if (key !== 'examples' && key !== 'example') visit(child, false);
    }
  };
  visit(doc, false);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Row builders
// ---------------------------------------------------------------------------------------------

type Getter = () => Node | undefined;

/** A field of a schema: its type (non-null part), whether null is allowed, whether required. */
function field(of: Getter, name: string, type: string, opts: { nullable?: boolean; required?: boolean } = {}): Check {
  return () => {
    const schema = of();
    const p = props(schema)[name];
    expect(p, `field ${name} present`).toBeDefined();
    expect(baseTypes(p), `type of ${name}`).toEqual([type]);
    if (opts.nullable !== undefined) expect(nullable(p), `${name} nullable`).toBe(opts.nullable);
    if (opts.required !== undefined) expect(requiredOf(schema).includes(name), `${name} required`).toBe(opts.required);
  };
}

/** An object whose members and their types are listed by the contract. */
function members(of: Getter, expected: Record<string, string>): Check {
  return () => {
    const p = props(of());
    for (const [name, type] of Object.entries(expected)) {
      expect(p[name], `member ${name}`).toBeDefined();
      expect(baseTypes(p[name]), `type of ${name}`).toEqual([type]);
    }
  };
}

/** An open object: its internal structure is not shown, so nothing is declared and nothing forbidden. */
function openObject(of: Getter): Check {
  return () => {
    const s = of();
    expect(s).toBeDefined();
    const view = objectView(s);
    expect(view['properties'] ?? {}).toEqual({});
    expect(view['additionalProperties']).not.toBe(false);
    expect(view['unevaluatedProperties']).not.toBe(false);
    expect(view['required'] ?? []).toEqual([]);
  };
}

const exactKeys =
  (of: Getter, keys: string[]): Check =>
  () =>
    expect(Object.keys(props(of())).sort()).toEqual([...keys].sort());

const schemas = () => (doc.components?.['schemas'] ?? {}) as Record<string, Node>;
const component =
  (name: string): Getter =>
  () =>
    schemas()[name];
const propOf =
  (of: Getter, name: string): Getter =>
  () =>
    props(of())[name];
const itemsOf =
  (of: Getter): Getter =>
  () =>
    arrayItems(of());

// ---------------------------------------------------------------------------------------------
// The facts
// ---------------------------------------------------------------------------------------------

const Call = component('Call');
const Campaign = component('Campaign');
const CampaignUpdated = component('CampaignUpdated');
const CampaignCreate: Getter = () => requestSchema('createCampaign');
const CampaignUpdate: Getter = () => requestSchema('updateCampaign');
const Assistant = component('Assistant');
const CallActions: Getter = () => props(Assistant())['call_actions'];
const Invite: Getter = () => successSchema('createInvite');
const CurrentUser: Getter = () => successSchema('getCurrentUser');
const Regenerated: Getter = () => successSchema('regenerateApiKey');

const CALL_REQUIRED: Array<[string, string]> = [
  ['id', 'string'],
  ['to_number', 'string'],
  ['provider', 'string'],
  ['status', 'string'],
];
const CALL_OPTIONAL: Array<[string, string]> = [
  ['phone_number_id', 'string'],
  ['assistant_id', 'string'],
  ['from_number', 'string'],
  ['provider_call_sid', 'string'],
  ['direction', 'string'],
  ['created_at', 'string'],
  ['started_at', 'string'],
  ['ended_at', 'string'],
  ['ended_reason', 'string'],
  ['duration_seconds', 'integer'],
  ['timestamp', 'string'],
  ['summary', 'string'],
  ['user_messages', 'integer'],
  ['agent_messages', 'integer'],
  ['recording_url', 'string'],
  ['stereo_recording_url', 'string'],
  ['recording_mp3_url', 'string'],
  ['stereo_recording_mp3_url', 'string'],
  ['latency_metrics', 'object'],
  ['per_turn_latency', 'array'],
  ['cost', 'number'],
  ['total_credits', 'integer'],
  ['cost_breakdown', 'object'],
  ['costs', 'array'],
  ['transcript', 'array'],
];

const CAMPAIGN_FIELDS: Array<[string, string]> = [
  ['id', 'string'],
  ['name', 'string'],
  ['assistant_id', 'string'],
  ['assistant_name', 'string'],
  ['channel', 'string'],
  ['phone_number_id', 'string'],
  ['caller_id_number', 'string'],
  ['status', 'string'],
  ['max_concurrency', 'integer'],
  ['retry_policy', 'object'],
  ['speech_settings', 'object'],
  ['schedule_start_time', 'string'],
  ['schedule_end_time', 'string'],
  ['campaign_context', 'string'],
  ['opening_message_template', 'string'],
  ['use_returning_greeting', 'boolean'],
  ['use_short_term_summaries', 'boolean'],
  ['short_term_summaries_limit', 'integer'],
  ['machine_detection_timeout_seconds', 'integer'],
  ['recipient_list_id', 'string'],
  ['recipient_list_name', 'string'],
  ['recipient_list_row_count', 'integer'],
  ['counts', 'object'],
  ['created_at', 'string'],
  ['updated_at', 'string'],
];
const OMITTED_ON_UPDATE = [
  'assistant_name',
  'machine_detection_timeout_seconds',
  'recipient_list_id',
  'recipient_list_name',
  'recipient_list_row_count',
  'counts',
];

const CREATE_BODY: Array<[string, string]> = [
  ['name', 'string'],
  ['assistant_id', 'string'],
  ['phone_number_id', 'string'],
  ['channel', 'string'],
  ['scheduleStartTime', 'string'],
  ['scheduleEndTime', 'string'],
  ['max_concurrency', 'integer'],
  ['retry_policy', 'object'],
  ['speech_settings', 'object'],
  ['campaign_context', 'string'],
  ['opening_message_template', 'string'],
  ['use_returning_greeting', 'boolean'],
  ['use_short_term_summaries', 'boolean'],
  ['short_term_summaries_limit', 'integer'],
  ['machine_detection_timeout_seconds', 'integer'],
  ['recipient_list_id', 'string'],
  ['recipients', 'array'],
];
const UPDATE_BODY: Array<[string, string]> = [
  ['name', 'string'],
  ['schedule_start_time', 'string'],
  ['schedule_end_time', 'string'],
  ['max_concurrency', 'integer'],
  ['retry_policy', 'object'],
  ['speech_settings', 'object'],
  ['campaign_context', 'string'],
  ['opening_message_template', 'string'],
  ['use_returning_greeting', 'boolean'],
  ['use_short_term_summaries', 'boolean'],
  ['short_term_summaries_limit', 'integer'],
  ['status', 'string'],
  ['recipients', 'array'],
];

const ASSISTANT_REQUIRED = [
  'id',
  'name',
  'system_instruction',
  'voice',
  'llm',
  'transcriber',
  'speech_settings',
  'long_term_memory',
  'short_term_memory',
  'call_summary',
  'recording',
  'call_actions',
];

const CALL_ACTIONS: Array<[string, string, string?]> = [
  ['enabled', 'boolean'],
  ['allow_hangup', 'boolean'],
  ['allow_transfer', 'boolean'],
  ['hangup_triggers', 'array', 'string'],
  ['transfer_triggers', 'array', 'string'],
  ['transfer_number', 'string'],
  ['transfer_mode', 'string'],
  ['confirm_required', 'boolean'],
  ['auto_hangup_silence_seconds', 'integer'],
  ['confirm_yes', 'array', 'string'],
  ['confirm_no', 'array', 'string'],
  ['webhook_url', 'string'],
  ['webhook_timeout_ms', 'integer'],
];

/** Values the seed shows in the assistant's response shape (2.4), not stated as defaults. */
const SHOWN_ON_ASSISTANT: Array<[string, unknown]> = [
  ['long_term_memory.search_limit', 5],
  ['long_term_memory.search_threshold', 0.1],
  ['short_term_memory.search_limit', 3],
  ['call_actions.webhook_timeout_ms', 3500],
  ['voice.speed', 1],
  ['long_term_memory.enabled', false],
  ['short_term_memory.enabled', false],
  ['recording.enabled', false],
  ['recording.stereo', true],
  ['recording.mp3_enabled', true],
  ['call_actions.enabled', true],
  ['call_actions.allow_hangup', true],
  ['call_actions.allow_transfer', true],
  ['call_actions.confirm_required', true],
  ['call_actions.transfer_mode', 'cold'],
];
/** Every value the seed shows anywhere: examples may use these and nothing else. */
const SHOWN_VALUES = new Set<unknown>([
  'neutral',
  'balanced',
  'on',
  'natural',
  'developer',
  'cold',
  5,
  0.1,
  3,
  3500,
  1,
  true,
  false,
  50,
  0,
]);
const examplesOf = (s: Node | undefined): unknown[] =>
  s ? [...((s['examples'] as unknown[]) ?? []), ...('example' in s ? [s['example']] : [])] : [];

const ALL_OPERATIONS: Array<[string, string, string]> = [
  ['listCalls', 'GET', '/calls'],
  ['createCampaign', 'POST', '/campaign'],
  ['getCampaign', 'GET', '/campaign/{campaign_id}'],
  ['updateCampaign', 'PATCH', '/campaign/{campaign_id}'],
  ['addRecipient', 'POST', '/recipient-lists/{recipient_list_id}/recipients'],
  ['createInvite', 'POST', '/orgs/{org_id}/invites'],
  ['getCurrentUser', 'GET', '/users/me'],
  ['listAssistants', 'GET', '/assistants'],
  ['regenerateApiKey', 'POST', '/api-keys/api-keys/{key_id}/regenerate'],
  ['getHealth', 'GET', '/health'],
  ['preflightUserCredential', 'OPTIONS', '/user-credentials/user-credentials/{credential_id}'],
  ['preflightChatLogs', 'OPTIONS', '/logs/chat-logs/{session_id}'],
  ['preflightChatSessions', 'OPTIONS', '/logs/chat-sessions'],
  ['getProtected', 'GET', '/protected'],
];
const BOTH_HEADERS = [
  'listCalls',
  'createCampaign',
  'getCampaign',
  'updateCampaign',
  'addRecipient',
  'createInvite',
  'getCurrentUser',
  'listAssistants',
  'getProtected',
];
const BEARER_ONLY = ['regenerateApiKey', 'preflightUserCredential', 'preflightChatLogs', 'preflightChatSessions'];
const PATH_PARAMETERS: Array<[string, string]> = [
  ['getCampaign', 'campaign_id'],
  ['updateCampaign', 'campaign_id'],
  ['addRecipient', 'recipient_list_id'],
  ['createInvite', 'org_id'],
  ['regenerateApiKey', 'key_id'],
  ['preflightUserCredential', 'credential_id'],
  ['preflightChatLogs', 'session_id'],
];
const STATES_ON_RECORD = ['draft', 'running', 'paused', 'completed'];
const STATES_ON_UPDATE = ['draft', 'scheduled', 'running', 'paused', 'completed'];
const RATE_LIMIT_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const isValidationBody = (s: Node | undefined) => {
  const detail = props(s)['detail'];
  const item = arrayItems(detail);
  return baseTypes(detail)[0] === 'array' && ['loc', 'msg', 'type'].every((k) => k in props(item));
};

const sections: Array<[section: string, rows: Row[]]> = [
  [
    '1 and 9: the document and versioning',
    [
      ['is OpenAPI 3.1', () => expect(doc.openapi).toMatch(/^3\.1\./)],
      ['carries the API version 2.0.1', () => expect(doc.info.version).toBe('2.0.1')],
      [
        'no path carries a version segment',
        () => expect(Object.keys(doc.paths).filter((p) => /\/v\d+(\/|$)/i.test(p))).toEqual([]),
      ],
      [
        'both environments are written {base_url}',
        () => expect(((doc['servers'] as Node[]) ?? []).map((s) => s['url'])).toContain('{base_url}'),
      ],
      ['specifies exactly the 14 operations of section 4', () => expect(operations()).toHaveLength(14)],
      [
        'every request body is JSON',
        () => {
          for (const { op } of operations())
            if (op['requestBody']) expect(Object.keys(op['requestBody']['content'])).toEqual(['application/json']);
        },
      ],
      [
        'every response body is JSON',
        () => {
          for (const { op } of operations())
            for (const r of Object.values(op['responses'] as Node))
              if ((r as Node)['content']) expect(Object.keys((r as Node)['content'])).toEqual(['application/json']);
        },
      ],
      [
        'the versioning and deprecation policy is recorded as not shown',
        () => expect(notes(doc.info as Node)).toMatch(/versioning/i),
      ],
      [
        'events and webhook payloads are recorded as not shown (section 6)',
        () => expect(notes(doc.info as Node)).toMatch(/webhook|events/i),
      ],
      [
        'every example uses only values the contract shows',
        () => {
          const bad: unknown[] = [];
          for (const schema of allSchemas()) {
            for (const example of examplesOf(schema)) {
              const values = example && typeof example === 'object' ? Object.values(example) : [example];
              for (const v of values) if (!SHOWN_VALUES.has(v)) bad.push(v);
            }
          }
          expect(bad).toEqual([]);
        },
      ],
      [
        'no webhooks or callbacks are invented (section 6)',
        () => {
          expect(doc['webhooks']).toBeUndefined();
          for (const { op } of operations()) expect(op['callbacks']).toBeUndefined();
        },
      ],
    ],
  ],
  [
    '2.1 Call',
    [
      [
        'requires exactly id, to_number, provider, status',
        () => expect([...requiredOf(Call())].sort()).toEqual(CALL_REQUIRED.map(([n]) => n).sort()),
      ],
      ...CALL_REQUIRED.map(([name, type]): Row => [
        `call ${name}: ${type}, required, not null`,
        field(Call, name, type, { nullable: false, required: true }),
      ]),
      ...CALL_OPTIONAL.map(([name, type]): Row => [
        `call ${name}: ${type}|null, not required`,
        field(Call, name, type, { nullable: true, required: false }),
      ]),
      [
        'provider names no telephony provider (no enum, no const)',
        () => {
          expect(enumOf(props(Call())['provider'])).toBeUndefined();
          expect(props(Call())['provider']).not.toHaveProperty('const');
        },
      ],
      [
        'declares no field beyond the 29 of the table',
        exactKeys(
          Call,
          [...CALL_REQUIRED, ...CALL_OPTIONAL].map(([n]) => n),
        ),
      ],
      [
        'GET /calls answers a JSON array of Call',
        () => {
          const s = successSchema('listCalls');
          expect(baseTypes(s)).toEqual(['array']);
          expect(requiredOf(arrayItems(s))).toEqual(requiredOf(Call()));
        },
      ],
    ],
  ],
  [
    '2.2 Campaign',
    [
      ...CAMPAIGN_FIELDS.map(([name, type]): Row => [
        `record field ${name}: ${type}, may be absent or null`,
        field(Campaign, name, type, { nullable: true, required: false }),
      ]),
      [
        'the record declares exactly the 25 fields of the table',
        exactKeys(
          Campaign,
          CAMPAIGN_FIELDS.map(([n]) => n),
        ),
      ],
      ['the record status is read-only', () => expect(props(Campaign())['status']?.['readOnly']).toBe(true)],
      [
        'the record speech_settings is SpeechSettings',
        members(propOf(Campaign, 'speech_settings'), {
          style: 'string',
          responsiveness: 'string',
          interruptions: 'string',
          emotions: 'string',
        }),
      ],
      [
        'the record channel names no provider identifier',
        () => expect(enumOf(props(Campaign())['channel'])).toBeUndefined(),
      ],
      ...OMITTED_ON_UPDATE.map((name): Row => [
        `the update record omits ${name}`,
        () => expect(props(CampaignUpdated())).not.toHaveProperty(name),
      ]),
      [
        'the update record keeps the other 19 fields',
        exactKeys(
          CampaignUpdated,
          CAMPAIGN_FIELDS.map(([n]) => n).filter((n) => !OMITTED_ON_UPDATE.includes(n)),
        ),
      ],
      [
        'campaign recipient: phone_number string, metadata object, assistant_overrides object',
        members(itemsOf(propOf(CampaignCreate, 'recipients')), {
          phone_number: 'string',
          metadata: 'object',
          assistant_overrides: 'object',
        }),
      ],
      [
        'the update body carries the same recipient shape',
        members(itemsOf(propOf(CampaignUpdate, 'recipients')), {
          phone_number: 'string',
          metadata: 'object',
          assistant_overrides: 'object',
        }),
      ],
    ],
  ],
  [
    '2.3 SpeechSettings',
    [
      ...['style', 'responsiveness', 'interruptions', 'emotions'].map((m): Row => [
        `${m} is a string`,
        members(component('SpeechSettings'), { [m]: 'string' }),
      ]),
      [
        'has exactly four members',
        exactKeys(component('SpeechSettings'), ['style', 'responsiveness', 'interruptions', 'emotions']),
      ],
      [
        'no member has an enum (complete value sets not shown)',
        () => {
          for (const p of Object.values(props(component('SpeechSettings')()))) expect(enumOf(p)).toBeUndefined();
        },
      ],
      [
        'examples, if any, use only the shown values',
        () => {
          const shown: Record<string, string> = {
            style: 'neutral',
            responsiveness: 'balanced',
            interruptions: 'on',
            emotions: 'natural',
          };
          for (const [name, p] of Object.entries(props(component('SpeechSettings')()))) {
            for (const example of [...((p['examples'] as unknown[]) ?? []), ...('example' in p ? [p['example']] : [])])
              expect(example).toBe(shown[name]);
          }
        },
      ],
    ],
  ],
  [
    '2.4 Assistant',
    [
      [
        'requires exactly the twelve listed fields',
        () => expect([...requiredOf(Assistant())].sort()).toEqual([...ASSISTANT_REQUIRED].sort()),
      ],
      ...(
        [
          ['id', 'string'],
          ['name', 'string'],
          ['system_instruction', 'string'],
          ['voice', 'object'],
          ['llm', 'object'],
          ['transcriber', 'object'],
          ['speech_settings', 'object'],
          ['long_term_memory', 'object'],
          ['short_term_memory', 'object'],
          ['call_summary', 'object'],
          ['recording', 'object'],
          ['call_actions', 'object'],
        ] as const
      ).map(([name, type]): Row => [
        `assistant ${name}: ${type}, required, not null`,
        field(Assistant, name, type, { nullable: false, required: true }),
      ]),
      ...(
        [
          ['description', 'string'],
          ['first_message', 'string'],
          ['phone_number_id', 'string'],
          ['assistant_speaks_first', 'boolean'],
        ] as const
      ).map(([name, type]): Row => [
        `assistant ${name}: ${type}|null, not required`,
        field(Assistant, name, type, { nullable: true, required: false }),
      ]),
      [
        'knowledge_base_ids: array of string, not required',
        () => {
          field(Assistant, 'knowledge_base_ids', 'array', { required: false })();
          expect(baseTypes(arrayItems(props(Assistant())['knowledge_base_ids']))).toEqual(['string']);
        },
      ],
      [
        'voice: voice_id, tts_provider, tts_model, language strings; speed number',
        members(propOf(Assistant, 'voice'), {
          voice_id: 'string',
          tts_provider: 'string',
          tts_model: 'string',
          language: 'string',
          speed: 'number',
        }),
      ],
      [
        'llm: llm_provider and model strings',
        members(propOf(Assistant, 'llm'), { llm_provider: 'string', model: 'string' }),
      ],
      [
        'transcriber: stt_provider, stt_model, language strings',
        members(propOf(Assistant, 'transcriber'), { stt_provider: 'string', stt_model: 'string', language: 'string' }),
      ],
      [
        'long_term_memory: enabled boolean, search_limit integer, search_threshold number, system_prompt string',
        members(propOf(Assistant, 'long_term_memory'), {
          enabled: 'boolean',
          search_limit: 'integer',
          search_threshold: 'number',
          system_prompt: 'string',
        }),
      ],
      [
        'short_term_memory: enabled boolean, search_limit integer',
        members(propOf(Assistant, 'short_term_memory'), { enabled: 'boolean', search_limit: 'integer' }),
      ],
      ['call_summary: prompt string', members(propOf(Assistant, 'call_summary'), { prompt: 'string' })],
      [
        'recording: enabled, stereo, mp3_enabled booleans',
        members(propOf(Assistant, 'recording'), { enabled: 'boolean', stereo: 'boolean', mp3_enabled: 'boolean' }),
      ],
      [
        'assistant speech_settings is SpeechSettings',
        members(propOf(Assistant, 'speech_settings'), {
          style: 'string',
          responsiveness: 'string',
          interruptions: 'string',
          emotions: 'string',
        }),
      ],
      ...CALL_ACTIONS.map(([name, type, item]): Row => [
        `call_actions.${name}: ${type}${item ? ` of ${item}` : ''}`,
        () => {
          members(CallActions, { [name]: type })();
          if (item) expect(baseTypes(arrayItems(props(CallActions())[name]))).toEqual([item]);
        },
      ]),
      ...SHOWN_ON_ASSISTANT.map(([path, value]): Row => [
        `${path}: the shown value ${String(value)} is at most an example`,
        () => {
          const member = path.split('.').reduce<Node | undefined>((s, name) => props(s)[name], Assistant());
          expect(member, path).toBeDefined();
          expect(member).not.toHaveProperty('default');
          for (const example of examplesOf(member)) expect(example).toBe(value);
        },
      ]),
      [
        'transfer_mode names no value set (only cold is shown)',
        () => expect(enumOf(props(CallActions())['transfer_mode'])).toBeUndefined(),
      ],
      [
        'shown values are not written as defaults (no assistant creation is specified)',
        () => {
          const walk = (s: Node | undefined): void => {
            if (!s) return;
            expect(s).not.toHaveProperty('default');
            for (const p of Object.values(props(s))) walk(p);
          };
          walk(Assistant());
        },
      ],
      [
        'GET /assistants answers a JSON array of Assistant',
        () => {
          const s = successSchema('listAssistants');
          expect(baseTypes(s)).toEqual(['array']);
          expect([...requiredOf(arrayItems(s))].sort()).toEqual([...ASSISTANT_REQUIRED].sort());
        },
      ],
    ],
  ],
  [
    '2.5 to 2.8 Invite, current user, key regeneration, validation error',
    [
      ...['id', 'email', 'role', 'expires_at', 'token'].map((m): Row => [
        `invite ${m} is a string`,
        members(Invite, { [m]: 'string' }),
      ]),
      [
        'invite token is marked secret-bearing',
        () => expect(notes(props(Invite())['token']) + JSON.stringify(props(Invite())['token'])).toMatch(/secret/i),
      ],
      [
        'user: id, idp_user_id, email, name, default_org_id strings',
        members(propOf(CurrentUser, 'user'), {
          id: 'string',
          idp_user_id: 'string',
          email: 'string',
          name: 'string',
          default_org_id: 'string',
        }),
      ],
      [
        'orgs: array of id, name, slug, role, contact_email strings',
        () => {
          expect(baseTypes(props(CurrentUser())['orgs'])).toEqual(['array']);
          members(itemsOf(propOf(CurrentUser, 'orgs')), {
            id: 'string',
            name: 'string',
            slug: 'string',
            role: 'string',
            contact_email: 'string',
          })();
        },
      ],
      ['default_org_id is a string', members(CurrentUser, { default_org_id: 'string' })],
      ['key is a string', members(Regenerated, { key: 'string' })],
      ['id and name are strings', members(Regenerated, { id: 'string', name: 'string' })],
      ['upgraded is a boolean', members(Regenerated, { upgraded: 'boolean' })],
      [
        'the regenerated key is marked secret',
        () =>
          expect(notes(props(Regenerated())['key']) + JSON.stringify(props(Regenerated())['key'])).toMatch(/secret/i),
      ],
      [
        'validation error: detail is an array',
        () => expect(baseTypes(props(component('HTTPValidationError')())['detail'])).toEqual(['array']),
      ],
      [
        'validation error item: loc is an array of string or integer',
        () => {
          const loc = props(arrayItems(props(component('HTTPValidationError')())['detail']))['loc'];
          expect(baseTypes(loc)).toEqual(['array']);
          expect(baseTypes(arrayItems(loc))).toEqual(['integer', 'string']);
        },
      ],
      [
        'validation error item: msg and type are strings',
        members(() => arrayItems(props(component('HTTPValidationError')())['detail']), {
          msg: 'string',
          type: 'string',
        }),
      ],
    ],
  ],
  [
    '2.9 open objects and timestamps',
    [
      ['retry_policy is open', openObject(propOf(Campaign, 'retry_policy'))],
      ['counts is open', openObject(propOf(Campaign, 'counts'))],
      ['cost_breakdown is open', openObject(propOf(Call, 'cost_breakdown'))],
      ['latency_metrics is open', openObject(propOf(Call, 'latency_metrics'))],
      ['costs entries are unconstrained', () => expect(props(arrayItems(props(Call())['costs']))).toEqual({})],
      [
        'per_turn_latency entries are unconstrained',
        () => expect(props(arrayItems(props(Call())['per_turn_latency']))).toEqual({}),
      ],
      [
        'transcript entries are unconstrained',
        () => expect(props(arrayItems(props(Call())['transcript']))).toEqual({}),
      ],
      ['recipient metadata is open', openObject(propOf(itemsOf(propOf(CampaignCreate, 'recipients')), 'metadata'))],
      [
        'recipient assistant_overrides is open',
        openObject(propOf(itemsOf(propOf(CampaignCreate, 'recipients')), 'assistant_overrides')),
      ],
      [
        'campaign call entries are open objects',
        () => expect(props(arrayItems(props(successSchema('getCampaign'))['calls']))).toEqual({}),
      ],
      [
        'no schema states a string format (timestamps, emails, URLs: not shown)',
        () => expect(allSchemas().filter((s) => 'format' in s)).toEqual([]),
      ],
      [
        'timestamp fields say their format is not shown',
        () => {
          for (const s of [
            props(Call())['created_at'],
            props(Campaign())['schedule_start_time'],
            props(CampaignCreate())['scheduleStartTime'],
          ])
            expect(notes(s)).toMatch(/format/i);
        },
      ],
    ],
  ],
  [
    '3 states',
    [
      [
        'the record status is one of draft, running, paused, completed',
        () => expect([...(enumOf(props(Campaign())['status']) ?? [])].sort()).toEqual([...STATES_ON_RECORD].sort()),
      ],
      [
        'the update body status is one of draft, scheduled, running, paused, completed',
        () =>
          expect([...(enumOf(props(CampaignUpdate())['status']) ?? [])].sort()).toEqual([...STATES_ON_UPDATE].sort()),
      ],
      [
        'the update record status has the record list',
        () =>
          expect([...(enumOf(props(CampaignUpdated())['status']) ?? [])].sort()).toEqual([...STATES_ON_RECORD].sort()),
      ],
      [
        'the difference on `scheduled` is written down as a conflict',
        () =>
          expect(notes(props(Campaign())['status']) + notes(props(CampaignUpdate())['status'])).toMatch(/scheduled/),
      ],
      [
        'no initial status is stated (no default, no const)',
        () => {
          for (const s of [props(Campaign())['status'], props(CampaignUpdate())['status']]) {
            expect(s).not.toHaveProperty('default');
            expect(s).not.toHaveProperty('const');
          }
        },
      ],
      [
        'call status is a string with no value list',
        () => {
          expect(baseTypes(props(Call())['status'])).toEqual(['string']);
          expect(enumOf(props(Call())['status'])).toBeUndefined();
        },
      ],
    ],
  ],
  [
    '4 operations',
    [
      ...ALL_OPERATIONS.map(([id, method, path]): Row => [
        `${method} ${path} is ${id}, with summary and description`,
        () => {
          const found = operation(id);
          expect([found.method, found.path]).toEqual([method, path]);
          expect(String(found.op['summary'] ?? '').length).toBeGreaterThan(0);
          expect(String(found.op['description'] ?? '').length).toBeGreaterThan(40);
        },
      ]),
      ...PATH_PARAMETERS.map(([id, name]): Row => [
        `${id}: path parameter ${name} is a required string`,
        () => {
          const p = parameter(id, 'path', name);
          expect(p?.['required']).toBe(true);
          expect(baseTypes(p?.['schema'])).toEqual(['string']);
          expect(nullable(p?.['schema'])).toBe(false);
        },
      ]),
    ],
  ],
  [
    '4.1 GET /calls',
    [
      [
        'limit: optional integer, default 50',
        () => {
          const p = parameter('listCalls', 'query', 'limit');
          expect(p?.['required'] ?? false).toBe(false);
          expect(baseTypes(p?.['schema'])).toEqual(['integer']);
          expect(p?.['schema']?.['default']).toBe(50);
        },
      ],
      [
        'offset: optional integer, default 0',
        () => {
          const p = parameter('listCalls', 'query', 'offset');
          expect(p?.['required'] ?? false).toBe(false);
          expect(baseTypes(p?.['schema'])).toEqual(['integer']);
          expect(p?.['schema']?.['default']).toBe(0);
        },
      ],
      [
        'provider: optional string|null without default',
        () => {
          const p = parameter('listCalls', 'query', 'provider');
          expect(p?.['required'] ?? false).toBe(false);
          expect(baseTypes(p?.['schema'])).toEqual(['string']);
          expect(nullable(p?.['schema'])).toBe(true);
          expect(p?.['schema']).not.toHaveProperty('default');
        },
      ],
      [
        'provider names no telephony provider',
        () => expect(enumOf(parameter('listCalls', 'query', 'provider')?.['schema'])).toBeUndefined(),
      ],
      [
        'no maximum is stated for limit or offset',
        () => {
          for (const name of ['limit', 'offset'])
            expect(parameter('listCalls', 'query', name)?.['schema']).not.toHaveProperty('maximum');
        },
      ],
      [
        'exactly three query parameters',
        () =>
          expect(
            parameters('listCalls')
              .filter((p) => p['in'] === 'query')
              .map((p) => p['name'])
              .sort(),
          ).toEqual(['limit', 'offset', 'provider']),
      ],
      ['success is 200 and only 200', () => expect(successStatuses('listCalls')).toEqual(['200'])],
      [
        'list calls declares 422 with the validation error body',
        () => expect(isValidationBody(responseSchema('listCalls', '422'))).toBe(true),
      ],
    ],
  ],
  [
    '4.2 POST /campaign',
    [
      ...CREATE_BODY.map(([name, type]): Row => [
        `body ${name}: ${type}`,
        field(CampaignCreate, name, type, { nullable: false }),
      ]),
      [
        'the body declares exactly the 17 fields of the table',
        exactKeys(
          CampaignCreate,
          CREATE_BODY.map(([n]) => n),
        ),
      ],
      [
        'schedule times are camelCase on create, not snake_case',
        () => {
          expect(props(CampaignCreate())).not.toHaveProperty('schedule_start_time');
          expect(props(CampaignCreate())).not.toHaveProperty('schedule_end_time');
        },
      ],
      [
        'max_concurrency: 1 <= x <= 200',
        () => expect(props(CampaignCreate())['max_concurrency']).toMatchObject({ minimum: 1, maximum: 200 }),
      ],
      [
        'machine_detection_timeout_seconds: 3 <= x <= 60',
        () =>
          expect(props(CampaignCreate())['machine_detection_timeout_seconds']).toMatchObject({
            minimum: 3,
            maximum: 60,
          }),
      ],
      [
        'channel: one of two provider identifiers, neither invented',
        () => expect(enumOf(props(CampaignCreate())['channel'])).toBeUndefined(),
      ],
      [
        'create body speech_settings is SpeechSettings',
        members(propOf(CampaignCreate, 'speech_settings'), {
          style: 'string',
          responsiveness: 'string',
          interruptions: 'string',
          emotions: 'string',
        }),
      ],
      ['no required list on the body', () => expect(requiredOf(CampaignCreate())).toEqual([])],
      [
        'both 200 and 201 answer the campaign record',
        () => {
          expect(successStatuses('createCampaign').sort()).toEqual(['200', '201']);
          expect(Object.keys(props(responseSchema('createCampaign', '200'))).sort()).toEqual(
            Object.keys(props(Campaign())).sort(),
          );
          expect(Object.keys(props(responseSchema('createCampaign', '201'))).sort()).toEqual(
            Object.keys(props(Campaign())).sort(),
          );
        },
      ],
      [
        'declares 422 with the validation error body',
        () => expect(isValidationBody(responseSchema('createCampaign', '422'))).toBe(true),
      ],
    ],
  ],
  [
    '4.3 and 4.4 GET and PATCH /campaign/{campaign_id}',
    [
      [
        'get answers campaign as the campaign record',
        () =>
          expect(Object.keys(props(props(successSchema('getCampaign'))['campaign'])).sort()).toEqual(
            CAMPAIGN_FIELDS.map(([n]) => n).sort(),
          ),
      ],
      [
        'get answers counts as an object',
        () => expect(baseTypes(props(successSchema('getCampaign'))['counts'])).toEqual(['object']),
      ],
      [
        'get answers calls as an array of objects',
        () => {
          const calls = props(successSchema('getCampaign'))['calls'];
          expect(baseTypes(calls)).toEqual(['array']);
          expect(baseTypes(arrayItems(calls))).toEqual(['object']);
        },
      ],
      [
        'get declares 422 with the validation error body',
        () => expect(isValidationBody(responseSchema('getCampaign', '422'))).toBe(true),
      ],
      ...UPDATE_BODY.map(([name, type]): Row => [
        `update body ${name}: ${type}`,
        field(CampaignUpdate, name, type, { nullable: false }),
      ]),
      [
        'the update body declares exactly the 13 fields of the table',
        exactKeys(
          CampaignUpdate,
          UPDATE_BODY.map(([n]) => n),
        ),
      ],
      [
        'the update body is all snake_case',
        () => expect(Object.keys(props(CampaignUpdate())).filter((k) => !/^[a-z][a-z0-9_]*$/.test(k))).toEqual([]),
      ],
      [
        'update max_concurrency: 1 <= x <= 200',
        () => expect(props(CampaignUpdate())['max_concurrency']).toMatchObject({ minimum: 1, maximum: 200 }),
      ],
      [
        'update declares 422 with the validation error body (its ranges can be broken)',
        () => expect(isValidationBody(responseSchema('updateCampaign', '422'))).toBe(true),
      ],
      ['no required list on the update body', () => expect(requiredOf(CampaignUpdate())).toEqual([])],
      [
        'update answers the record without the six omitted fields',
        () =>
          expect(Object.keys(props(successSchema('updateCampaign'))).sort()).toEqual(
            CAMPAIGN_FIELDS.map(([n]) => n)
              .filter((n) => !OMITTED_ON_UPDATE.includes(n))
              .sort(),
          ),
      ],
    ],
  ],
  [
    '4.5 to 4.12 the other operations',
    [
      [
        'add recipient body: phone_number string, metadata object',
        members(() => requestSchema('addRecipient'), { phone_number: 'string', metadata: 'object' }),
      ],
      ['add recipient body has no required list', () => expect(requiredOf(requestSchema('addRecipient'))).toEqual([])],
      [
        'add recipient answers a JSON object whose members are not shown',
        () => {
          const s = successSchema('addRecipient');
          expect(baseTypes(s)).toEqual(['object']);
          expect(props(s)).toEqual({});
        },
      ],
      [
        'add recipient declares 422 with the validation error body',
        () => expect(isValidationBody(responseSchema('addRecipient', '422'))).toBe(true),
      ],
      [
        'invite body: email string, role string',
        members(() => requestSchema('createInvite'), { email: 'string', role: 'string' }),
      ],
      [
        'invite role has no value set; only developer may be shown',
        () => {
          const role = props(requestSchema('createInvite'))['role'];
          expect(enumOf(role)).toBeUndefined();
          for (const example of [
            ...((role?.['examples'] as unknown[]) ?? []),
            ...(role && 'example' in role ? [role['example']] : []),
          ])
            expect(example).toBe('developer');
        },
      ],
      ['invite body has no required list', () => expect(requiredOf(requestSchema('createInvite'))).toEqual([])],
      [
        'invite creation takes no query parameters',
        () => expect(parameters('createInvite').filter((p) => p['in'] === 'query')).toEqual([]),
      ],
      [
        'invite creation declares 422 with the validation error body',
        () => expect(isValidationBody(responseSchema('createInvite', '422'))).toBe(true),
      ],
      ['GET /users/me takes no parameters', () => expect(parameters('getCurrentUser')).toEqual([])],
      ['GET /assistants takes no parameters', () => expect(parameters('listAssistants')).toEqual([])],
      [
        'key regeneration has no request body',
        () => expect(operation('regenerateApiKey').op['requestBody']).toBeUndefined(),
      ],
      [
        'key regeneration takes only key_id',
        () => expect(parameters('regenerateApiKey').map((p) => p['name'])).toEqual(['key_id']),
      ],
      [
        'health answers 200 with application/json',
        () => {
          expect(successStatuses('getHealth')).toEqual(['200']);
          expect(Object.keys(responses('getHealth')['200']?.['content'] ?? {})).toEqual(['application/json']);
        },
      ],
      ['health body members are not shown', () => expect(props(successSchema('getHealth'))).toEqual({})],
      [
        'preflight for user credentials fails with the validation error body',
        () => expect(isValidationBody(responseSchema('preflightUserCredential', '422'))).toBe(true),
      ],
      [
        'preflight for chat logs fails with the validation error body',
        () => expect(isValidationBody(responseSchema('preflightChatLogs', '422'))).toBe(true),
      ],
      [
        'preflight for chat sessions is a plain success (no failure body stated)',
        () => expect(responses('preflightChatSessions')).not.toHaveProperty('422'),
      ],
      [
        'protected answers message and user_id strings',
        members(() => successSchema('getProtected'), { message: 'string', user_id: 'string' }),
      ],
      [
        'no request body on GET or OPTIONS operations',
        () => {
          for (const { method, op } of operations())
            if (method === 'GET' || method === 'OPTIONS') expect(op['requestBody']).toBeUndefined();
        },
      ],
    ],
  ],
  [
    '5 authentication',
    [
      [
        'the bearer scheme is HTTP bearer described as an API key',
        () => {
          const bearer = Object.values((doc.components?.['securitySchemes'] as Node) ?? {}).find(
            (s) => (s as Node)['type'] === 'http',
          ) as Node | undefined;
          expect(bearer?.['scheme']).toMatch(/^bearer$/i);
          expect(`${bearer?.['bearerFormat'] ?? ''} ${bearer?.['description'] ?? ''}`).toMatch(/api key/i);
        },
      ],
      [
        'X-User-ID is an API key in the request header X-User-ID, the user id',
        () => {
          const key = Object.values((doc.components?.['securitySchemes'] as Node) ?? {}).find(
            (s) => (s as Node)['type'] === 'apiKey',
          ) as Node | undefined;
          expect(key).toMatchObject({ in: 'header', name: 'X-User-ID' });
          expect(String(key?.['description'])).toMatch(/user id/i);
        },
      ],
      ...BOTH_HEADERS.map((id): Row => [
        `${id} requires bearer and X-User-ID together`,
        () => expect(alternatives(id)).toEqual([['bearer', 'userId']]),
      ]),
      ...BEARER_ONLY.map((id): Row => [
        `${id} is documented with the bearer only, the conflict with rule 5.1 written down`,
        () => {
          expect(alternatives(id)).toEqual([['bearer']]);
          expect(notes(operation(id).op)).toMatch(/X-User-ID/);
        },
      ]),
      [
        'health does not require credentials; a bearer may be sent',
        () => {
          expect(requiresCredentials('getHealth')).toBe(false);
          expect(
            alternatives('getHealth')
              .flat()
              .every((c) => c === 'bearer'),
          ).toBe(true);
        },
      ],
      [
        'the health conflict (bearer documented, no credentials needed) is written down',
        () => expect(notes(operation('getHealth').op)).toMatch(/bearer/i),
      ],
      [
        'no scopes or role permissions are invented',
        () => {
          for (const { op } of operations())
            for (const alt of (op['security'] as Node[]) ?? [])
              for (const scopes of Object.values(alt)) expect(scopes).toEqual([]);
        },
      ],
    ],
  ],
  [
    '7 errors',
    [
      ...operations_ids()
        .filter((id) => id !== 'getHealth')
        .map((id): Row => [
          `${id} takes credentials and declares 401 {detail: string}`,
          () => {
            expect(requiresCredentials(id)).toBe(true);
            const s = responseSchema(id, '401');
            expect(baseTypes(props(s)['detail'])).toEqual(['string']);
          },
        ]),
      [
        'the 401 message says the credentials are invalid',
        () => expect(String(responses('listCalls')['401']?.['description'])).toMatch(/invalid/i),
      ],
      [
        'the 429 message says the rate limit was exceeded',
        () => expect(String(responses('listCalls')['429']?.['description'])).toMatch(/rate limit/i),
      ],
      [
        'the 429 body is {detail: string}',
        () => expect(baseTypes(props(responseSchema('listCalls', '429'))['detail'])).toEqual(['string']),
      ],
      ...['403', '404', '409'].map((status): Row => [
        `no operation documents ${status} (not shown)`,
        () => {
          for (const { op } of operations()) expect(Object.keys(op['responses'] as Node)).not.toContain(status);
        },
      ]),
      [
        'no operation documents a 5xx (not shown)',
        () => {
          for (const { op } of operations())
            expect(Object.keys(op['responses'] as Node).filter((s) => /^5/.test(s))).toEqual([]);
        },
      ],
      [
        'no operation documents a default response',
        () => {
          for (const { op } of operations()) expect(Object.keys(op['responses'] as Node)).not.toContain('default');
        },
      ],
      [
        'no request body has a required list (not shown)',
        () => {
          for (const { op } of operations())
            if (op['requestBody']) expect(requiredOf(json(op['requestBody']['content']))).toEqual([]);
        },
      ],
    ],
  ],
  [
    '8 limits',
    [
      ...operations_ids().map((id): Row => [
        `${id} declares 429 and the three rate-limit headers on success`,
        () => {
          expect(responses(id)).toHaveProperty('429');
          for (const status of successStatuses(id))
            expect(Object.keys(responses(id)[status]?.['headers'] ?? {}).sort()).toEqual(
              [...RATE_LIMIT_HEADERS].sort(),
            );
        },
      ]),
      ...RATE_LIMIT_HEADERS.map((name): Row => [
        `${name} carries an integer`,
        () => {
          for (const id of operations_ids())
            for (const status of successStatuses(id))
              expect(baseTypes(responses(id)[status]?.['headers']?.[name]?.['schema'])).toEqual(['integer']);
        },
      ]),
      [
        'the unit and epoch of X-RateLimit-Reset are not shown',
        () => {
          const reset = responses('listCalls')['200']?.['headers']?.['X-RateLimit-Reset'] as Node;
          expect(reset?.['schema']).not.toHaveProperty('format');
          expect(notes(reset)).toMatch(/unit|epoch/i);
        },
      ],
      [
        'the plans (100, 1000 requests per minute, enterprise custom) are written down',
        () => expect(notes(doc.info as Node)).toMatch(/100\b[\s\S]*1000[\s\S]*custom/),
      ],
      [
        'no maximum payload, recipients per request or string length is invented',
        () => {
          expect(
            allSchemas().filter((s) => 'maxItems' in s || 'maxLength' in s || 'maxProperties' in s || 'minLength' in s),
          ).toEqual([]);
        },
      ],
      [
        'the only numeric bounds are the two stated ranges',
        () => {
          const bounded = allSchemas().filter(
            (s) => 'minimum' in s || 'maximum' in s || 'exclusiveMinimum' in s || 'exclusiveMaximum' in s,
          );
          expect(new Set(bounded.map((s) => `${s['minimum']}..${s['maximum']}`))).toEqual(new Set(['1..200', '3..60']));
        },
      ],
    ],
  ],
];

function operations_ids(): string[] {
  return ALL_OPERATIONS.map(([id]) => id);
}

describe('spec fidelity: the facts of the contract hold in the dereferenced document', () => {
  it('has at least 150 facts, each stated once', () => {
    const facts = sections.flatMap(([section, rows]) => rows.map(([fact]) => `${section}: ${fact}`));
    expect(facts.length).toBeGreaterThanOrEqual(150);
    expect(facts.filter((f, i) => facts.indexOf(f) !== i)).toEqual([]);
    const bare = sections.flatMap(([, rows]) => rows.map(([fact]) => fact));
    expect(bare.filter((f, i) => bare.indexOf(f) !== i)).toEqual([]);
  });
});

describe.each(sections)('section %s', (_section, rows) => {
  it.each(rows)('%s', (_fact, check) => {
    check();
  });
});

// Each row can fail: a copy of the document with one fact broken fails the row that states it.
describe('spec fidelity: rows fail on a document that breaks their fact', () => {
  const mutations: Array<[fact: string, mutate: () => void]> = [
    [
      'provider names no telephony provider (no enum, no const)',
      () => void (props(Call())['provider']!['enum'] = ['provider-a', 'provider-b']),
    ],
    [
      'call phone_number_id: string|null, not required',
      () => void (props(Call())['phone_number_id']!['type'] = 'string'),
    ],
    [
      'requires exactly id, to_number, provider, status',
      () => void (objectView(Call())['required'] as string[]).push('direction'),
    ],
    [
      'no operation documents 404 (not shown)',
      () => void (responses('getCampaign')['404'] = { description: 'not found' }),
    ],
    ['no required list on the body', () => void (objectView(CampaignCreate())['required'] = ['name'])],
    [
      'no schema states a string format (timestamps, emails, URLs: not shown)',
      () => void (props(Call())['created_at']!['format'] = 'date-time'),
    ],
    [
      'the update body status is one of draft, scheduled, running, paused, completed',
      () => void (props(CampaignUpdate())['status']!['enum'] = STATES_ON_RECORD),
    ],
    [
      'getProtected requires bearer and X-User-ID together',
      () => void (operation('getProtected').op['security'] = [{ BearerAuth: [] }]),
    ],
    [
      'listAssistants declares 429 and the three rate-limit headers on success',
      () => void delete responses('listAssistants')['429'],
    ],
    ['max_concurrency: 1 <= x <= 200', () => void (props(CampaignCreate())['max_concurrency']!['maximum'] = 201)],
    [
      'every example uses only values the contract shows',
      () => void (props(Call())['provider']!['examples'] = ['some-provider']),
    ],
    [
      'call_actions.webhook_timeout_ms: the shown value 3500 is at most an example',
      () => void (props(CallActions())['webhook_timeout_ms']!['default'] = 3500),
    ],
    [
      'limit: optional integer, default 50',
      () => void (parameter('listCalls', 'query', 'limit')!['schema']['default'] = 20),
    ],
    [
      'the update record omits assistant_name',
      () => void (objectView(CampaignUpdated())['properties']['assistant_name'] = { type: ['string', 'null'] }),
    ],
  ];
  const row = (fact: string) => sections.flatMap(([, rows]) => rows).find(([f]) => f === fact);

  it.each(mutations)('"%s" fails when broken', (fact, mutate) => {
    const check = row(fact)?.[1];
    expect(check, `row "${fact}" exists`).toBeDefined();
    const original = doc;
    doc = structuredClone(original);
    try {
      expect(() => check?.()).not.toThrow();
      mutate();
      expect(() => check?.()).toThrow();
    } finally {
      doc = original;
    }
  });
});
