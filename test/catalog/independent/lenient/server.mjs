// An independent, LENIENT implementation of the Voice-Agent Platform API contract (2.0.1),
// written only from the contract text (/work/shared/seed/000_8298da82e2a63f1d.txt), with
// node:http and nothing else. Where the contract is silent it behaves the way a mainstream
// framework (FastAPI + pydantic in lax mode) would: numeric strings coerced to integers,
// "true"/"false" to booleans, null read as absent, unknown members ignored, no required body fields,
// create answered 200, unknown ids 404, preflights answered with or without credentials.
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const JSON_CT = 'application/json; charset=utf-8';
const BODY_LIMIT = 1024 * 1024;
const MAX_DEPTH = 200;

const SPEECH_DEFAULTS = { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' };
const UPDATE_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
// Fields of the full campaign record (2.2) and those the update record leaves out.
const RECORD_FIELDS = [
  'id',
  'name',
  'assistant_id',
  'assistant_name',
  'channel',
  'phone_number_id',
  'caller_id_number',
  'status',
  'max_concurrency',
  'retry_policy',
  'speech_settings',
  'schedule_start_time',
  'schedule_end_time',
  'campaign_context',
  'opening_message_template',
  'use_returning_greeting',
  'use_short_term_summaries',
  'short_term_summaries_limit',
  'machine_detection_timeout_seconds',
  'recipient_list_id',
  'recipient_list_name',
  'recipient_list_row_count',
  'counts',
  'created_at',
  'updated_at',
];
const NOT_IN_UPDATE = new Set([
  'assistant_name',
  'machine_detection_timeout_seconds',
  'recipient_list_id',
  'recipient_list_name',
  'recipient_list_row_count',
  'counts',
]);

// ---------------------------------------------------------------- validation (pydantic lax-like)

class Invalid extends Error {
  constructor(errors) {
    super('validation');
    this.errors = errors;
  }
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function err(loc, msg, type, input, ctx) {
  const e = { type, loc, msg, input };
  if (ctx) e.ctx = ctx;
  return e;
}

/** A field spec is a function (value, loc, errors) -> coerced value (or undefined on error). */
const T = {
  str: () => (v, loc, errs) => {
    if (typeof v === 'string') return v;
    errs.push(err(loc, 'Input should be a valid string', 'string_type', v));
  },
  int: (min, max) => (v, loc, errs) => {
    let n;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return void errs.push(err(loc, 'Input should be a finite number', 'finite_number', v));
      if (!Number.isInteger(v))
        return void errs.push(
          err(loc, 'Input should be a valid integer, got a number with a fractional part', 'int_from_float', v),
        );
      n = v;
    } else if (typeof v === 'string') {
      if (!/^[+-]?\d+$/.test(v))
        return void errs.push(
          err(loc, 'Input should be a valid integer, unable to parse string as an integer', 'int_parsing', v),
        );
      n = Number(v);
    } else {
      return void errs.push(err(loc, 'Input should be a valid integer', 'int_type', v));
    }
    if (min !== undefined && n < min)
      return void errs.push(
        err(loc, `Input should be greater than or equal to ${min}`, 'greater_than_equal', v, { ge: min }),
      );
    if (max !== undefined && n > max)
      return void errs.push(
        err(loc, `Input should be less than or equal to ${max}`, 'less_than_equal', v, { le: max }),
      );
    return n === 0 ? 0 : n; // no -0
  },
  bool: () => (v, loc, errs) => {
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string') {
      const s = v.toLowerCase();
      if (s === 'true') return true;
      if (s === 'false') return false;
    }
    errs.push(err(loc, 'Input should be a valid boolean', 'bool_parsing', v));
  },
  oneOf: (values) => (v, loc, errs) => {
    if (typeof v !== 'string') return void errs.push(err(loc, 'Input should be a valid string', 'string_type', v));
    if (values.includes(v)) return v;
    const list = values.map((x) => `'${x}'`).join(', ');
    errs.push(err(loc, `Input should be ${list}`, 'literal_error', v, { expected: list }));
  },
  openObj: () => (v, loc, errs) => {
    if (isObj(v)) return v;
    errs.push(err(loc, 'Input should be a valid dictionary', 'dict_type', v));
  },
  model: (fields, defaults) => (v, loc, errs) => {
    if (!isObj(v))
      return void errs.push(
        err(loc, 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type', v),
      );
    const out = {};
    const before = errs.length;
    for (const [name, spec] of Object.entries(fields)) {
      const raw = v[name];
      if (raw === undefined || raw === null) {
        if (defaults && name in defaults) out[name] = defaults[name];
        continue;
      }
      const c = spec(raw, [...loc, name], errs);
      if (c !== undefined) out[name] = c;
    }
    return errs.length === before ? out : undefined;
  },
  list: (item) => (v, loc, errs) => {
    if (!Array.isArray(v)) return void errs.push(err(loc, 'Input should be a valid list', 'list_type', v));
    const out = [];
    const before = errs.length;
    v.forEach((x, i) => {
      const c = item(x, [...loc, i], errs);
      out.push(c);
    });
    return errs.length === before ? out : undefined;
  },
};

const speechSettings = T.model(
  { style: T.str(), responsiveness: T.str(), interruptions: T.str(), emotions: T.str() },
  SPEECH_DEFAULTS,
);
const recipientItem = T.model({ phone_number: T.str(), metadata: T.openObj(), assistant_overrides: T.openObj() });

function createSpec(channels) {
  return {
    name: T.str(),
    assistant_id: T.str(),
    phone_number_id: T.str(),
    channel: T.oneOf(channels),
    scheduleStartTime: T.str(),
    scheduleEndTime: T.str(),
    max_concurrency: T.int(1, 200),
    retry_policy: T.openObj(),
    speech_settings: speechSettings,
    campaign_context: T.str(),
    opening_message_template: T.str(),
    use_returning_greeting: T.bool(),
    use_short_term_summaries: T.bool(),
    short_term_summaries_limit: T.int(),
    machine_detection_timeout_seconds: T.int(3, 60),
    recipient_list_id: T.str(),
    recipients: T.list(recipientItem),
  };
}
const UPDATE_SPEC = {
  name: T.str(),
  schedule_start_time: T.str(),
  schedule_end_time: T.str(),
  max_concurrency: T.int(1, 200),
  retry_policy: T.openObj(),
  speech_settings: speechSettings,
  campaign_context: T.str(),
  opening_message_template: T.str(),
  use_returning_greeting: T.bool(),
  use_short_term_summaries: T.bool(),
  short_term_summaries_limit: T.int(),
  status: T.oneOf(UPDATE_STATUSES),
  recipients: T.list(recipientItem),
};
const RECIPIENT_SPEC = { phone_number: T.str(), metadata: T.openObj() };
const INVITE_SPEC = { email: T.str(), role: T.str() };

/** Validate a parsed body against a flat field spec; returns only the known, non-null fields. */
function validateBody(body, fields) {
  const errs = [];
  const out = T.model(fields)(body, ['body'], errs);
  if (errs.length) throw new Invalid(errs);
  return out;
}

/** Depth of a parsed JSON value, iteratively (no recursion on hostile input). */
function depthOf(value) {
  let max = 0;
  const stack = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > MAX_DEPTH) return max;
    for (const k in v) stack.push([v[k], d + 1]);
  }
  return max;
}

function parseJsonBody(text) {
  if (text.trim() === '') return {}; // lenient: a missing body is an empty object (nothing is required)
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec(String(e && e.message));
    const pos = m ? Number(m[1]) : 0;
    throw new Invalid([err(['body', pos], 'JSON decode error', 'json_invalid', {}, { error: 'Expecting value' })]);
  }
  if (depthOf(value) > MAX_DEPTH) {
    throw new Invalid([err(['body'], `JSON nested deeper than ${MAX_DEPTH} levels`, 'json_invalid', null)]);
  }
  return value;
}

function queryInt(params, name, def, min) {
  if (!params.has(name)) return def;
  const all = params.getAll(name);
  const v = all[all.length - 1];
  const errs = [];
  const n = T.int(min)(v, ['query', name], errs);
  if (errs.length) throw new Invalid(errs);
  return n;
}

// ---------------------------------------------------------------- seed data

function seed({ channels }) {
  const userId = 'usr_lenient_7f3a';
  const orgId = 'org_lenient_main';
  const apiKey = `lnt_live_${randomBytes(12).toString('hex')}`;
  const apiKeyId = 'key_lenient_01';
  const phoneNumbers = [
    { id: 'pn_lenient_a', number: '+15550100101', provider: channels[0] },
    { id: 'pn_lenient_b', number: '+15550100102', provider: channels[1] },
  ];
  const assistant = (i, name, pn) => ({
    id: `asst_lenient_${i}`,
    name,
    system_instruction: `You are ${name}, a polite voice agent.`,
    voice: { voice_id: `voice_${i}`, tts_provider: 'tts-co', tts_model: 'tts-2', language: 'en-US', speed: 1 },
    llm: { llm_provider: 'llm-co', model: 'chat-large' },
    transcriber: { stt_provider: 'stt-co', stt_model: 'stt-1', language: 'en-US' },
    speech_settings: { ...SPEECH_DEFAULTS },
    long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: 'Remember the caller.' },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarise the call.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['goodbye'],
      transfer_triggers: ['agent'],
      transfer_number: '+15550100199',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 30,
      confirm_yes: ['yes'],
      confirm_no: ['no'],
      webhook_url: 'https://hooks.example.invalid/actions',
      webhook_timeout_ms: 3500,
    },
    description: i === 3 ? null : `${name} assistant`,
    first_message: i === 2 ? null : 'Hello, how can I help?',
    knowledge_base_ids: i === 1 ? ['kb_lenient_1'] : [],
    phone_number_id: pn,
    assistant_speaks_first: i === 3 ? null : true,
  });
  const assistants = [
    assistant(1, 'Ada', phoneNumbers[0].id),
    assistant(2, 'Brook', phoneNumbers[1].id),
    assistant(3, 'Cato', null),
  ];
  const calls = [];
  const base = Date.UTC(2026, 9, 1, 9, 0, 0);
  const statuses = ['completed', 'completed', 'failed', 'no-answer', 'busy', 'in-progress'];
  for (let i = 0; i < 130; i++) {
    const provider = i % 3 === 2 ? channels[1] : channels[0];
    const pn = provider === channels[0] ? phoneNumbers[0] : phoneNumbers[1];
    const status = statuses[i % statuses.length];
    const created = new Date(base + i * 3_600_000);
    const started = new Date(created.getTime() + 2000);
    const duration = status === 'completed' ? 30 + (i % 17) * 7 : 0;
    const call = {
      id: `call_lenient_${String(i).padStart(4, '0')}`,
      to_number: `+1555020${String(i).padStart(4, '0')}`,
      provider,
      status,
      phone_number_id: pn.id,
      assistant_id: assistants[i % 3].id,
      from_number: pn.number,
      provider_call_sid: `SID${String(i).padStart(8, '0')}`,
      direction: i % 4 === 0 ? 'inbound' : 'outbound',
      created_at: created.toISOString(),
      started_at: started.toISOString(),
      timestamp: created.toISOString(),
      duration_seconds: duration,
      user_messages: i % 9,
      agent_messages: (i % 9) + 1,
      cost: Math.round(duration * 0.0123 * 1000) / 1000,
      total_credits: duration * 2,
      latency_metrics: { avg_ms: 600 + i, p95_ms: 900 + i },
      per_turn_latency: [{ turn: 1, ms: 610 }],
      cost_breakdown: { llm: 0.01, tts: 0.02 },
      costs: [{ kind: 'telephony', amount: 0.01 }],
      transcript: [
        { role: 'assistant', content: 'Hello, how can I help?' },
        { role: 'user', content: 'Hi.' },
      ],
      tags: [],
    };
    if (status !== 'in-progress') {
      call.ended_at = new Date(started.getTime() + duration * 1000).toISOString();
      call.ended_reason = status === 'completed' ? 'customer-ended-call' : status;
    }
    if (status === 'completed') {
      call.summary = `Call ${i} went fine.`;
      call.recording_url = `https://rec.example.invalid/${call.id}.wav`;
      call.recording_mp3_url = `https://rec.example.invalid/${call.id}.mp3`;
      if (i % 2 === 0) {
        call.stereo_recording_url = `https://rec.example.invalid/${call.id}-stereo.wav`;
        call.stereo_recording_mp3_url = null;
      }
    } else if (i % 5 === 0) {
      call.summary = null;
      call.recording_url = null;
    }
    calls.push(call);
  }
  calls.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0)); // newest first
  const lists = new Map([
    [
      'rl_lenient_main',
      {
        id: 'rl_lenient_main',
        name: 'Lenient main list',
        recipients: [
          { id: 'rcp_1', phone_number: '+15550300001', metadata: { first_name: 'Ann' } },
          { id: 'rcp_2', phone_number: '+15550300002', metadata: {} },
        ],
      },
    ],
  ]);
  const user = {
    id: userId,
    idp_user_id: 'idp|lenient-0001',
    email: 'owner@example.invalid',
    name: 'Lenient Owner',
    default_org_id: orgId,
  };
  const orgs = [
    { id: orgId, name: 'Lenient Org', slug: 'lenient-org', role: 'owner', contact_email: 'owner@example.invalid' },
    {
      id: 'org_lenient_side',
      name: 'Side Org',
      slug: 'side-org',
      role: 'developer',
      contact_email: 'side@example.invalid',
    },
  ];
  return { userId, orgId, apiKey, apiKeyId, phoneNumbers, assistants, calls, lists, user, orgs };
}

// ---------------------------------------------------------------- server

export async function start({ host = '127.0.0.1', port = 0, rateLimit = 100, rateWindowMs = 60000, fault } = {}) {
  void fault; // this implementation has no fault switches
  const channels = ['twilio', 'telnyx'];
  const db = seed({ channels });
  /** key value -> { userId, keyId }; regeneration adds keys and never removes the old ones. */
  const keys = new Map([[db.apiKey, { userId: db.userId, keyId: db.apiKeyId }]]);
  const apiKeyRecords = new Map([[db.apiKeyId, { id: db.apiKeyId, name: 'Default key', userId: db.userId }]]);
  const campaigns = new Map();
  const invites = [];
  const buckets = new Map();
  const startedAt = Date.now();

  function rate(bucketKey) {
    const now = Date.now();
    let b = buckets.get(bucketKey);
    if (!b || now >= b.resetAt) {
      b = { count: 0, resetAt: now + rateWindowMs };
      buckets.set(bucketKey, b);
    }
    b.count++;
    const remaining = Math.max(0, rateLimit - b.count);
    const reset = Math.max(0, Math.ceil((b.resetAt - now) / 1000));
    return {
      over: b.count > rateLimit,
      headers: {
        'X-RateLimit-Limit': String(rateLimit),
        'X-RateLimit-Remaining': String(remaining),
        'X-RateLimit-Reset': String(reset),
      },
    };
  }

  function bearerOf(req) {
    const h = req.headers.authorization;
    if (h === undefined) return { present: false };
    const m = /^bearer (.*)$/is.exec(h); // scheme case-insensitive (RFC 7235); the key is not trimmed
    return { present: true, key: m ? m[1] : undefined };
  }

  const campaignRecord = (c, shape = 'full') => {
    const asst = db.assistants.find((a) => a.id === c.assistant_id);
    const pn = db.phoneNumbers.find((p) => p.id === c.phone_number_id);
    const list = c.recipient_list_id !== undefined ? db.lists.get(c.recipient_list_id) : undefined;
    const full = {
      ...c.fields,
      id: c.id,
      status: c.status,
      assistant_name: asst ? asst.name : null,
      caller_id_number: pn ? pn.number : null,
      recipient_list_name: list ? list.name : null,
      recipient_list_row_count: list ? list.recipients.length : null,
      counts: countsOf(c),
      created_at: c.created_at,
      updated_at: c.updated_at,
    };
    const out = {};
    for (const f of RECORD_FIELDS) {
      if (shape === 'update' && NOT_IN_UPDATE.has(f)) continue;
      out[f] = full[f] === undefined ? null : full[f];
    }
    return out;
  };
  const countsOf = (c) => ({
    recipients: c.recipients.length,
    calls_total: 0,
    calls_completed: 0,
    calls_failed: 0,
    calls_pending: 0,
  });

  /** Routes: [method, pattern segments, auth mode, handler]. auth: 'none' | 'bearer' | 'both'. */
  const routes = [
    [
      'GET',
      ['health'],
      'none',
      () => [
        200,
        {
          status: 'ok',
          multi_user: true,
          users: 1,
          resource_usage: { cpu_percent: 50, memory_percent: 50 },
          uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
        },
      ],
    ],
    [
      'GET',
      ['protected'],
      'both',
      ({ userId }) => [200, { message: `Hello, ${userId}! This is a protected endpoint.`, user_id: userId }],
    ],
    [
      'GET',
      ['users', 'me'],
      'both',
      () => [200, { user: { ...db.user }, orgs: db.orgs.map((o) => ({ ...o })), default_org_id: db.orgId }],
    ],
    ['GET', ['assistants'], 'both', () => [200, db.assistants]],
    [
      'GET',
      ['calls'],
      'both',
      ({ query }) => {
        const limit = queryInt(query, 'limit', 50, 0);
        const offset = queryInt(query, 'offset', 0, 0);
        let list = db.calls;
        if (query.has('provider')) {
          const all = query.getAll('provider');
          const p = all[all.length - 1];
          list = list.filter((c) => c.provider === p);
        }
        return [200, list.slice(offset, offset + limit)];
      },
    ],
    [
      'POST',
      ['campaign'],
      'both',
      ({ body }) => {
        const v = validateBody(parseJsonBody(body), createSpec(channels));
        const now = new Date().toISOString();
        const { scheduleStartTime, scheduleEndTime, recipients, ...rest } = v;
        const fields = { ...rest };
        if (scheduleStartTime !== undefined) fields.schedule_start_time = scheduleStartTime;
        if (scheduleEndTime !== undefined) fields.schedule_end_time = scheduleEndTime;
        const c = {
          id: randomUUID(),
          status: 'draft',
          fields,
          recipients: recipients ?? [],
          created_at: now,
          updated_at: now,
        };
        c.recipient_list_id = fields.recipient_list_id;
        c.assistant_id = fields.assistant_id;
        c.phone_number_id = fields.phone_number_id;
        campaigns.set(c.id, c);
        return [200, campaignRecord(c)];
      },
    ],
    [
      'GET',
      ['campaign', ':id'],
      'both',
      ({ params }) => {
        const c = campaigns.get(params.id);
        if (!c) return [404, { detail: 'Campaign not found' }];
        return [200, { campaign: campaignRecord(c), counts: countsOf(c), calls: [] }];
      },
    ],
    [
      'PATCH',
      ['campaign', ':id'],
      'both',
      ({ params, body }) => {
        const c = campaigns.get(params.id);
        if (!c) return [404, { detail: 'Campaign not found' }];
        const v = validateBody(parseJsonBody(body), UPDATE_SPEC);
        const { status, recipients, ...rest } = v;
        Object.assign(c.fields, rest);
        if (status !== undefined) c.status = status;
        if (recipients !== undefined) c.recipients = recipients;
        c.updated_at = new Date().toISOString();
        return [200, campaignRecord(c, 'update')];
      },
    ],
    [
      'POST',
      ['recipient-lists', ':id', 'recipients'],
      'both',
      ({ params, body }) => {
        const list = db.lists.get(params.id);
        if (!list) return [404, { detail: 'Recipient list not found' }];
        const v = validateBody(parseJsonBody(body), RECIPIENT_SPEC);
        const r = { id: `rcp_${randomUUID()}`, phone_number: v.phone_number ?? null, metadata: v.metadata ?? {} };
        list.recipients.push(r);
        return [200, { ...r, recipient_list_id: list.id, row_count: list.recipients.length }];
      },
    ],
    [
      'POST',
      ['orgs', ':id', 'invites'],
      'both',
      ({ params, body }) => {
        const org = db.orgs.find((o) => o.id === params.id);
        if (!org) return [404, { detail: 'Organization not found' }];
        const v = validateBody(parseJsonBody(body), INVITE_SPEC);
        const inv = {
          id: `inv_${randomUUID()}`,
          email: v.email ?? null,
          role: v.role ?? 'developer',
          expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
          token: `invtok_${randomBytes(16).toString('hex')}`,
        };
        invites.push({ ...inv, org_id: org.id });
        return [200, inv];
      },
    ],
    [
      'POST',
      ['api-keys', 'api-keys', ':id', 'regenerate'],
      'bearer',
      ({ params, userId }) => {
        const rec = apiKeyRecords.get(params.id);
        if (!rec || rec.userId !== userId) return [404, { detail: 'API key not found' }];
        const key = `lnt_live_${randomBytes(12).toString('hex')}`;
        keys.set(key, { userId: rec.userId, keyId: rec.id }); // the old key keeps working too
        return [200, { key, id: rec.id, name: rec.name, upgraded: false }];
      },
    ],
  ];

  function match(pathSegs) {
    const found = [];
    for (const r of routes) {
      const pat = r[1];
      if (pat.length !== pathSegs.length) continue;
      const params = {};
      let ok = true;
      for (let i = 0; i < pat.length; i++) {
        if (pat[i].startsWith(':')) {
          if (pathSegs[i] === '') {
            ok = false;
            break;
          }
          params[pat[i].slice(1)] = pathSegs[i];
        } else if (pat[i] !== pathSegs[i]) {
          ok = false;
          break;
        }
      }
      if (ok) found.push({ route: r, params });
    }
    return found;
  }

  function handle(req, res, bodyText, tooLarge) {
    const headers = { 'Content-Type': JSON_CT };
    const origin = req.headers.origin;
    headers['Access-Control-Allow-Origin'] = origin ?? '*';
    if (origin) headers['Vary'] = 'Origin';
    headers['Access-Control-Expose-Headers'] = 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset';

    const bearer = bearerOf(req);
    const validKey = bearer.key !== undefined ? keys.get(bearer.key) : undefined;
    const bucketKey = validKey ? `key:${bearer.key}` : `ip:${req.socket.remoteAddress}`;
    const rl = rate(bucketKey);
    Object.assign(headers, rl.headers);

    const send = (status, body, extra = {}) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { ...headers, ...extra, 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    };
    if (rl.over)
      return send(
        429,
        { detail: 'Rate limit exceeded: too many requests, try again later' },
        { 'Retry-After': headers['X-RateLimit-Reset'] },
      );

    const unauthorized = () =>
      send(401, { detail: 'Invalid authentication credentials' }, { 'WWW-Authenticate': 'Bearer' });
    const xUser = req.headers['x-user-id'];

    let url;
    try {
      url = new URL(req.url, 'http://localhost');
    } catch {
      return send(400, { detail: 'Bad request target' });
    }
    const segs = url.pathname
      .split('/')
      .slice(1)
      .map((s) => {
        try {
          return decodeURIComponent(s);
        } catch {
          return s;
        }
      });

    if (req.method === 'OPTIONS') {
      // CORS preflight on any path: with or without credentials; a credential that is sent must be valid.
      if (bearer.present && !validKey) return unauthorized();
      if (validKey && xUser !== undefined && xUser !== validKey.userId) return unauthorized();
      const reqHeaders = req.headers['access-control-request-headers'];
      return send(
        200,
        {},
        {
          'Access-Control-Allow-Methods': 'GET, POST, PATCH, PUT, DELETE, OPTIONS',
          'Access-Control-Allow-Headers': reqHeaders
            ? `${reqHeaders}, Authorization, X-User-ID, Content-Type`
            : 'Authorization, X-User-ID, Content-Type',
          'Access-Control-Max-Age': '600',
          ...(origin ? { 'Access-Control-Allow-Credentials': 'true' } : {}),
        },
      );
    }

    const found = match(segs);
    if (found.length === 0) return send(404, { detail: 'Not Found' });
    const hit = found.find((f) => f.route[0] === req.method);
    if (!hit)
      return send(
        405,
        { detail: 'Method Not Allowed' },
        { Allow: [...new Set(found.map((f) => f.route[0]))].join(', ') },
      );
    const [, , auth, handler] = hit.route;

    let userId;
    if (auth !== 'none') {
      if (!validKey) return unauthorized();
      if (auth === 'both' && (xUser === undefined || xUser !== validKey.userId)) return unauthorized();
      if (auth === 'bearer' && xUser !== undefined && xUser !== validKey.userId) return unauthorized();
      userId = validKey.userId;
    }
    if (tooLarge) return send(413, { detail: 'Request body too large' });
    try {
      const [status, body] = handler({ params: hit.params, query: url.searchParams, body: bodyText, userId });
      return send(status, body);
    } catch (e) {
      if (e instanceof Invalid) return send(422, { detail: e.errors });
      return send(500, { detail: 'Internal Server Error' });
    }
  }

  const server = http.createServer((req, res) => {
    const chunks = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (c) => {
      size += c.length;
      if (size > BODY_LIMIT) tooLarge = true;
      else chunks.push(c);
    });
    req.on('end', () => {
      try {
        handle(req, res, tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), tooLarge);
      } catch {
        if (!res.headersSent) {
          res.writeHead(500, { 'Content-Type': JSON_CT });
          res.end('{"detail":"Internal Server Error"}');
        }
      }
    });
    req.on('error', () => res.destroy());
  });
  server.on('clientError', (e, socket) => {
    if (socket.writable)
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 26\r\nConnection: close\r\n\r\n{"detail":"Bad Request"}\r\n',
      );
    else socket.destroy();
  });
  server.keepAliveTimeout = 5000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shownHost}:${addr.port}`,
    fixtures: {
      api_key: db.apiKey,
      user_id: db.userId,
      org_id: db.orgId,
      recipient_list_id: 'rl_lenient_main',
      api_key_id: db.apiKeyId,
      channels: [...channels],
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const s = await start({
    host: opt('--host') ?? '127.0.0.1',
    port: Number(opt('--port') ?? 4020),
    rateLimit: Number(opt('--rate-limit') ?? 100),
    rateWindowMs: Number(opt('--rate-window-ms') ?? 60000),
  });
  console.log(`listening ${s.url}`);
  console.log(`fixtures ${JSON.stringify(s.fixtures)}`);
  const stop = () => s.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
