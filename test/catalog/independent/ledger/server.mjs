#!/usr/bin/env node
// "ledger": an independent implementation of the Voice-Agent Platform API, written from the
// contract text alone (../shared/seed/000_8298da82e2a63f1d.txt), node:http only. Every choice made
// where the contract says "not shown" is listed in CHOICES.md beside this file.
//
// Run: node server.mjs [--host 127.0.0.1] [--port 0] [--rate-limit 100] [--rate-window-s 60]
// Prints `listening http://HOST:PORT`, then `fixtures {json}`.
// Import: `start({ host, port, rateLimit, rateWindowMs })` -> { url, fixtures, close() }.
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const CHANNELS = ['twilio', 'telnyx'];
const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
const TERMINAL = new Set(['completed']);
const ROLES = ['owner', 'admin', 'developer', 'member', 'viewer'];
const MAX_NAME = 120;
const MAX_TEXT = 20_000;
const CALLS_MAX_LIMIT = 500;
const SUMMARIES_MAX = 1000;
const INVALID_CREDENTIALS = 'Invalid authentication credentials';

// ---------------------------------------------------------------------------------------------
// Seed data: two organizations, each with a user, keys, assistants, a recipient list, calls and a
// campaign. The second organization exists so that access to its records is answered 403.

const now = () => new Date().toISOString();
const secret = () => `lk_${randomBytes(18).toString('hex')}`;

function seed() {
  const db = {
    orgs: new Map(),
    users: new Map(),
    keys: new Map(),
    assistants: new Map(),
    phones: new Map(),
    lists: new Map(),
    calls: [],
    campaigns: new Map(),
    invites: new Map(),
  };
  const orgA = { id: 'org_ledger_acme', name: 'Acme Voice', slug: 'acme-voice', contact_email: 'ops@acme.example' };
  const orgB = { id: 'org_ledger_globex', name: 'Globex', slug: 'globex', contact_email: 'it@globex.example' };
  for (const o of [orgA, orgB]) db.orgs.set(o.id, o);
  const userA = {
    id: 'usr_ledger_ada',
    idp_user_id: 'idp|ada-001',
    email: 'ada@acme.example',
    name: 'Ada Ledger',
    default_org_id: orgA.id,
    orgs: [[orgA.id, 'owner']],
  };
  const userB = {
    id: 'usr_ledger_bob',
    idp_user_id: 'idp|bob-002',
    email: 'bob@globex.example',
    name: 'Bob Globex',
    default_org_id: orgB.id,
    orgs: [[orgB.id, 'owner']],
  };
  for (const u of [userA, userB]) db.users.set(u.id, u);
  const keyMain = { id: 'key_ledger_main', name: 'main', secret: secret(), user_id: userA.id, legacy: false };
  const keySpare = {
    id: 'key_ledger_spare',
    name: 'ci spare',
    secret: `legacy-${randomBytes(12).toString('hex')}`,
    user_id: userA.id,
    legacy: true,
  };
  const keyB = { id: 'key_ledger_globex', name: 'globex main', secret: secret(), user_id: userB.id, legacy: false };
  for (const k of [keyMain, keySpare, keyB]) db.keys.set(k.id, k);
  const phones = [
    { id: 'pn_ledger_1', number: '+14155550101', provider: 'twilio', org_id: orgA.id },
    { id: 'pn_ledger_2', number: '+14155550102', provider: 'telnyx', org_id: orgA.id },
    { id: 'pn_ledger_9', number: '+442071838750', provider: 'telnyx', org_id: orgB.id },
  ];
  for (const p of phones) db.phones.set(p.id, p);
  const assistants = [
    assistant('asst_ledger_sales', 'Sales agent', orgA.id, 'pn_ledger_1'),
    assistant('asst_ledger_support', 'Support agent', orgA.id, 'pn_ledger_2'),
    assistant('asst_ledger_globex', 'Globex agent', orgB.id, 'pn_ledger_9'),
  ];
  for (const a of assistants) db.assistants.set(a.id, a);
  const listA = {
    id: 'rl_ledger_leads',
    name: 'Spring leads',
    org_id: orgA.id,
    recipients: [{ id: 'rcp_1', phone_number: '+14155550111', metadata: { first_name: 'Lin' } }],
  };
  const listB = { id: 'rl_ledger_globex', name: 'Globex leads', org_id: orgB.id, recipients: [] };
  for (const l of [listA, listB]) db.lists.set(l.id, l);
  db.calls.push(
    call('call_ledger_1', orgA.id, 'telnyx', 'pn_ledger_2', 'asst_ledger_support', 'completed', 132),
    call('call_ledger_2', orgA.id, 'twilio', 'pn_ledger_1', 'asst_ledger_sales', 'completed', 47),
    call('call_ledger_3', orgA.id, 'twilio', 'pn_ledger_1', 'asst_ledger_sales', 'no-answer', 0),
    call('call_ledger_9', orgB.id, 'telnyx', 'pn_ledger_9', 'asst_ledger_globex', 'completed', 12),
  );
  const campB = newCampaign(db, orgB.id, {
    name: 'Globex renewal',
    assistant_id: 'asst_ledger_globex',
    phone_number_id: 'pn_ledger_9',
    channel: 'telnyx',
    recipient_list_id: listB.id,
  });
  db.campaigns.set(campB.id, campB);
  return { db, orgA, orgB, userA, keyMain, keySpare, listA, listB, campB };
}

function assistant(id, name, org_id, phone_number_id) {
  return {
    org_id,
    id,
    name,
    system_instruction: `You are ${name}. Be brief and polite.`,
    voice: { voice_id: 'alloy', tts_provider: 'openai', tts_model: 'tts-1', language: 'en-US', speed: 1 },
    llm: { llm_provider: 'openai', model: 'gpt-4o-mini' },
    transcriber: { stt_provider: 'deepgram', stt_model: 'nova-2', language: 'en-US' },
    speech_settings: { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' },
    long_term_memory: {
      enabled: false,
      search_limit: 5,
      search_threshold: 0.1,
      system_prompt: 'Recall facts about the caller.',
    },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarize the call in two sentences.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['goodbye'],
      transfer_triggers: ['human please'],
      transfer_number: '+14155550199',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 20,
      confirm_yes: ['yes'],
      confirm_no: ['no'],
      webhook_url: 'https://hooks.acme.example/voice',
      webhook_timeout_ms: 3500,
    },
    description: null,
    first_message: 'Hello! How can I help?',
    knowledge_base_ids: [],
    phone_number_id,
    assistant_speaks_first: true,
  };
}

function call(id, org_id, provider, phone_number_id, assistant_id, status, duration) {
  const t = '2026-11-20T10:00:00.000Z';
  return {
    org_id,
    id,
    to_number: '+14155550111',
    provider,
    status,
    phone_number_id,
    assistant_id,
    from_number: '+14155550101',
    provider_call_sid: `sid_${id}`,
    direction: 'outbound',
    created_at: t,
    started_at: t,
    ended_at: t,
    ended_reason: 'hangup',
    duration_seconds: duration,
    timestamp: t,
    summary: null,
    user_messages: 3,
    agent_messages: 4,
    recording_url: null,
    stereo_recording_url: null,
    recording_mp3_url: null,
    stereo_recording_mp3_url: null,
    latency_metrics: null,
    per_turn_latency: null,
    cost: 0.12,
    total_credits: 12,
    cost_breakdown: null,
    costs: null,
    transcript: [],
  };
}

// ---------------------------------------------------------------------------------------------
// Responses and errors

function send(res, status, body, headers = {}) {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
  res.end(text);
}

class HttpError extends Error {
  constructor(status, body, headers = {}) {
    super(typeof body.detail === 'string' ? body.detail : 'validation error');
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}
const problem = (status, detail) => new HttpError(status, { detail });
const issue = (loc, msg, type) => ({ loc, msg, type });
const invalid = (issues) => new HttpError(422, { detail: issues });

// ---------------------------------------------------------------------------------------------
// Validation: a tiny rule set per body, collecting every issue (as the 2.8 body allows).

const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v) => typeof v === 'number' && Number.isInteger(v);

function checkString(v, loc, out, { trimmed = false, max = MAX_TEXT, nonEmpty = false } = {}) {
  if (typeof v !== 'string') return out.push(issue(loc, 'Input should be a valid string', 'string_type'));
  if (nonEmpty && v.trim() === '')
    return out.push(issue(loc, 'String should not be empty or blank', 'string_too_short'));
  if (trimmed && v !== v.trim())
    return out.push(issue(loc, 'String should not start or end with whitespace', 'string_pattern_mismatch'));
  if (v.length > max) out.push(issue(loc, `String should have at most ${max} characters`, 'string_too_long'));
}

function checkInt(v, loc, out, min, max) {
  if (!isInt(v)) return out.push(issue(loc, 'Input should be a valid integer', 'int_type'));
  if (min !== undefined && v < min)
    out.push(issue(loc, `Input should be greater than or equal to ${min}`, 'greater_than_equal'));
  if (max !== undefined && v > max)
    out.push(issue(loc, `Input should be less than or equal to ${max}`, 'less_than_equal'));
}

function checkBool(v, loc, out) {
  if (typeof v !== 'boolean') out.push(issue(loc, 'Input should be a valid boolean', 'bool_type'));
}

function checkObject(v, loc, out) {
  if (!isObj(v)) out.push(issue(loc, 'Input should be a valid dictionary', 'dict_type'));
}

function checkSpeech(v, loc, out) {
  if (!isObj(v)) return out.push(issue(loc, 'Input should be a valid dictionary', 'dict_type'));
  for (const m of ['style', 'responsiveness', 'interruptions', 'emotions']) {
    if (v[m] === undefined) out.push(issue([...loc, m], 'Field required', 'missing'));
    else checkString(v[m], [...loc, m], out, { max: 64, nonEmpty: true });
  }
}

function checkTimestamp(v, loc, out) {
  if (typeof v !== 'string') return out.push(issue(loc, 'Input should be a valid string', 'string_type'));
  const iso = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
  if (!iso.test(v) || Number.isNaN(Date.parse(v)))
    out.push(issue(loc, 'Input should be an ISO 8601 date-time', 'datetime_parsing'));
}

function checkRecipients(v, loc, out) {
  if (!Array.isArray(v)) return out.push(issue(loc, 'Input should be a valid list', 'list_type'));
  v.forEach((r, i) => {
    if (!isObj(r)) return out.push(issue([...loc, i], 'Input should be a valid dictionary', 'dict_type'));
    if (r.phone_number === undefined) out.push(issue([...loc, i, 'phone_number'], 'Field required', 'missing'));
    else checkPhone(r.phone_number, [...loc, i, 'phone_number'], out);
    if (r.metadata !== undefined) checkObject(r.metadata, [...loc, i, 'metadata'], out);
    if (r.assistant_overrides !== undefined)
      checkObject(r.assistant_overrides, [...loc, i, 'assistant_overrides'], out);
  });
}

function checkPhone(v, loc, out) {
  if (typeof v !== 'string') return out.push(issue(loc, 'Input should be a valid string', 'string_type'));
  if (!/^\+?[0-9][0-9 ()\-.]{2,31}$/.test(v))
    out.push(
      issue(
        loc,
        'Value should be a phone number (digits, optional leading +, spaces, dashes, dots, parentheses)',
        'string_pattern_mismatch',
      ),
    );
}

// Field -> validator for the campaign bodies. Create uses camelCase schedule times (section 4.2).
const CAMPAIGN_COMMON = {
  name: (v, l, o) => checkString(v, l, o, { trimmed: true, nonEmpty: true, max: MAX_NAME }),
  max_concurrency: (v, l, o) => checkInt(v, l, o, 1, 200),
  retry_policy: checkObject,
  speech_settings: checkSpeech,
  campaign_context: (v, l, o) => checkString(v, l, o),
  opening_message_template: (v, l, o) => checkString(v, l, o),
  use_returning_greeting: checkBool,
  use_short_term_summaries: checkBool,
  short_term_summaries_limit: (v, l, o) => checkInt(v, l, o, 0, SUMMARIES_MAX),
  recipients: checkRecipients,
};
const CREATE_FIELDS = {
  ...CAMPAIGN_COMMON,
  assistant_id: (v, l, o) => checkString(v, l, o, { nonEmpty: true, max: 200 }),
  phone_number_id: (v, l, o) => checkString(v, l, o, { nonEmpty: true, max: 200 }),
  channel: (v, l, o) =>
    CHANNELS.includes(v)
      ? undefined
      : o.push(issue(l, `Input should be ${CHANNELS.map((c) => `'${c}'`).join(' or ')}`, 'enum')),
  scheduleStartTime: checkTimestamp,
  scheduleEndTime: checkTimestamp,
  machine_detection_timeout_seconds: (v, l, o) => checkInt(v, l, o, 3, 60),
  recipient_list_id: (v, l, o) => checkString(v, l, o, { nonEmpty: true, max: 200 }),
};
const CREATE_REQUIRED = ['name', 'assistant_id', 'phone_number_id', 'channel'];
const UPDATE_FIELDS = {
  ...CAMPAIGN_COMMON,
  schedule_start_time: checkTimestamp,
  schedule_end_time: checkTimestamp,
  status: (v, l, o) =>
    CAMPAIGN_STATUSES.includes(v)
      ? undefined
      : o.push(issue(l, `Input should be ${CAMPAIGN_STATUSES.map((c) => `'${c}'`).join(', ')}`, 'enum')),
};

/** Validates `body` against the field table; null counts as a value (and is refused by its rule). */
function validateBody(body, fields, required = []) {
  if (!isObj(body))
    throw invalid([issue(['body'], 'Input should be a valid dictionary or object', 'model_attributes_type')]);
  const out = [];
  for (const name of required)
    if (body[name] === undefined) out.push(issue(['body', name], 'Field required', 'missing'));
  for (const [name, rule] of Object.entries(fields))
    if (body[name] !== undefined) rule(body[name], ['body', name], out);
  return out;
}

function checkWindow(start, end, loc, out) {
  if (start && end && Date.parse(end) <= Date.parse(start))
    out.push(issue(loc, 'The schedule end time should be after its start time', 'value_error'));
}

// ---------------------------------------------------------------------------------------------
// Campaigns

function newCampaign(db, org_id, b) {
  const a = db.assistants.get(b.assistant_id);
  const p = db.phones.get(b.phone_number_id);
  const list = b.recipient_list_id ? db.lists.get(b.recipient_list_id) : undefined;
  const t = now();
  return {
    org_id,
    id: `cmp_${randomUUID()}`,
    name: b.name,
    assistant_id: a.id,
    assistant_name: a.name,
    channel: b.channel,
    phone_number_id: p.id,
    caller_id_number: p.number,
    status: 'draft',
    max_concurrency: b.max_concurrency ?? 10,
    retry_policy: b.retry_policy ?? { max_attempts: 2, retry_after_minutes: 60 },
    speech_settings: b.speech_settings ?? { ...a.speech_settings },
    schedule_start_time: b.scheduleStartTime ?? null,
    schedule_end_time: b.scheduleEndTime ?? null,
    campaign_context: b.campaign_context ?? '',
    opening_message_template: b.opening_message_template ?? '',
    use_returning_greeting: b.use_returning_greeting ?? false,
    use_short_term_summaries: b.use_short_term_summaries ?? false,
    short_term_summaries_limit: b.short_term_summaries_limit ?? 3,
    machine_detection_timeout_seconds: b.machine_detection_timeout_seconds ?? 30,
    recipient_list_id: list?.id ?? null,
    recipient_list_name: list?.name ?? null,
    recipients: (b.recipients ?? []).map((r) => ({
      phone_number: r.phone_number,
      metadata: r.metadata ?? {},
      assistant_overrides: r.assistant_overrides ?? {},
    })),
    created_at: t,
    updated_at: t,
  };
}

const CREATE_ONLY = [
  'assistant_name',
  'machine_detection_timeout_seconds',
  'recipient_list_id',
  'recipient_list_name',
  'recipient_list_row_count',
  'counts',
];

function counts(db, c) {
  const total = c.recipients.length + (c.recipient_list_id ? db.lists.get(c.recipient_list_id).recipients.length : 0);
  return {
    total,
    pending: c.status === 'completed' ? 0 : total,
    in_progress: 0,
    completed: c.status === 'completed' ? total : 0,
    failed: 0,
  };
}

function present(db, c, { full = true } = {}) {
  const { org_id, recipients, ...rest } = c;
  const out = {
    ...rest,
    recipient_list_row_count: c.recipient_list_id ? db.lists.get(c.recipient_list_id).recipients.length : 0,
    counts: counts(db, c),
  };
  if (!full) for (const f of CREATE_ONLY) delete out[f];
  return out;
}

/** A record of the caller's organization, or 404 (unknown) / 403 (another organization's). */
function owned(map, id, who, what) {
  const r = map.get(id);
  if (!r) throw problem(404, `${what} not found`);
  if (!who.orgIds.includes(r.org_id)) throw problem(403, `${what} belongs to another organization`);
  return r;
}

function refer(db, who, body, out) {
  const refs = [
    ['assistant_id', db.assistants, 'Assistant'],
    ['phone_number_id', db.phones, 'Phone number'],
    ['recipient_list_id', db.lists, 'Recipient list'],
  ];
  for (const [field, map, what] of refs) {
    if (body[field] === undefined) continue;
    const r = map.get(body[field]);
    if (!r) out.push(issue(['body', field], `${what} ${JSON.stringify(body[field])} does not exist`, 'value_error'));
    else if (!who.orgIds.includes(r.org_id)) throw problem(403, `${what} belongs to another organization`);
  }
}

function assertUniqueName(db, org_id, name, exceptId) {
  const key = name.toLowerCase();
  for (const c of db.campaigns.values()) {
    if (c.org_id === org_id && c.id !== exceptId && c.name.toLowerCase() === key)
      throw problem(409, `A campaign named ${JSON.stringify(name)} already exists in this organization`);
  }
}

function createCampaign(ctx) {
  const { db, who, body } = ctx;
  const out = validateBody(body, CREATE_FIELDS, CREATE_REQUIRED);
  if (out.length === 0) checkWindow(body.scheduleStartTime, body.scheduleEndTime, ['body', 'scheduleEndTime'], out);
  if (out.length === 0) refer(db, who, body, out);
  if (out.length) throw invalid(out);
  assertUniqueName(db, who.orgId, body.name);
  const c = newCampaign(db, who.orgId, body);
  db.campaigns.set(c.id, c);
  return [201, present(db, c)];
}

function getCampaign({ db, who, params }) {
  const c = owned(db.campaigns, params.id, who, 'Campaign');
  return [200, { campaign: present(db, c), counts: counts(db, c), calls: [] }];
}

function updateCampaign({ db, who, params, body }) {
  const c = owned(db.campaigns, params.id, who, 'Campaign');
  const out = validateBody(body, UPDATE_FIELDS);
  if (out.length === 0)
    checkWindow(
      body.schedule_start_time ?? c.schedule_start_time,
      body.schedule_end_time ?? c.schedule_end_time,
      ['body', 'schedule_end_time'],
      out,
    );
  if (out.length) throw invalid(out);
  if (TERMINAL.has(c.status))
    throw problem(409, `Campaign is ${c.status}; a ${c.status} campaign can no longer be changed`);
  if (body.name !== undefined) assertUniqueName(db, c.org_id, body.name, c.id);
  for (const f of Object.keys(UPDATE_FIELDS)) {
    if (body[f] === undefined || f === 'recipients') continue;
    c[f] = body[f];
  }
  if (body.recipients)
    c.recipients = body.recipients.map((r) => ({
      phone_number: r.phone_number,
      metadata: r.metadata ?? {},
      assistant_overrides: r.assistant_overrides ?? {},
    }));
  c.updated_at = now();
  return [200, present(db, c, { full: false })];
}

// ---------------------------------------------------------------------------------------------
// Other operations

function listCalls({ db, who, query }) {
  const out = [];
  const int = (name, def, min, max) => {
    const values = query.getAll(name);
    if (values.length === 0) return def;
    const raw = values[values.length - 1];
    if (!/^-?\d+$/.test(raw))
      return (
        out.push(
          issue(
            ['query', name],
            'Input should be a valid integer, unable to parse string as an integer',
            'int_parsing',
          ),
        ),
        def
      );
    const n = Number(raw);
    checkInt(n, ['query', name], out, min, max);
    return n;
  };
  const limit = int('limit', 50, 1, CALLS_MAX_LIMIT);
  const offset = int('offset', 0, 0, 1_000_000);
  if (out.length) throw invalid(out);
  const provider = query.has('provider') ? query.get('provider') : null;
  const mine = db.calls.filter((c) => who.orgIds.includes(c.org_id) && (provider === null || c.provider === provider));
  return [200, mine.slice(offset, offset + limit).map(({ org_id, ...c }) => c)];
}

function addRecipient({ db, who, params, body }) {
  const list = owned(db.lists, params.id, who, 'Recipient list');
  if (!isObj(body))
    throw invalid([issue(['body'], 'Input should be a valid dictionary or object', 'model_attributes_type')]);
  const out = [];
  if (body.phone_number === undefined) out.push(issue(['body', 'phone_number'], 'Field required', 'missing'));
  else checkPhone(body.phone_number, ['body', 'phone_number'], out);
  if (body.metadata !== undefined) checkObject(body.metadata, ['body', 'metadata'], out);
  if (out.length) throw invalid(out);
  const r = { id: `rcp_${randomUUID()}`, phone_number: body.phone_number, metadata: body.metadata ?? {} };
  list.recipients.push(r);
  return [201, { ...r, recipient_list_id: list.id, row_count: list.recipients.length, created_at: now() }];
}

function createInvite({ db, who, params, body }) {
  if (!db.orgs.has(params.id)) throw problem(404, 'Organization not found');
  const role = who.user.orgs.find(([id]) => id === params.id)?.[1];
  if (!role) throw problem(403, 'You are not a member of this organization');
  const out = validateBody(
    body,
    {
      email: (v, l, o) =>
        typeof v !== 'string'
          ? o.push(issue(l, 'Input should be a valid string', 'string_type'))
          : /^[^\s@]{1,64}@[^\s@]+\.[^\s@.]{2,}$/.test(v) && v.length <= 254
            ? undefined
            : o.push(issue(l, 'value is not a valid email address', 'value_error')),
      role: (v, l, o) =>
        ROLES.includes(v)
          ? undefined
          : o.push(issue(l, `Input should be ${ROLES.map((r) => `'${r}'`).join(', ')}`, 'enum')),
    },
    ['email', 'role'],
  );
  if (out.length) throw invalid(out);
  if (!['owner', 'admin'].includes(role)) throw problem(403, 'Only owners and admins can invite');
  const inv = {
    id: `inv_${randomUUID()}`,
    email: body.email,
    role: body.role,
    expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    token: `invtok_${randomBytes(20).toString('hex')}`,
  };
  db.invites.set(inv.id, { ...inv, org_id: params.id });
  return [201, inv];
}

function me({ db, who }) {
  const u = who.user;
  const orgs = u.orgs.map(([id, role]) => ({ ...db.orgs.get(id), role }));
  const { orgs: _o, ...user } = u;
  return [200, { user, orgs, default_org_id: u.default_org_id }];
}

function listAssistants({ db, who }) {
  return [200, [...db.assistants.values()].filter((a) => who.orgIds.includes(a.org_id)).map(({ org_id, ...a }) => a)];
}

function regenerate({ db, who, params }) {
  const k = db.keys.get(params.id);
  if (!k) throw problem(404, 'API key not found');
  if (k.user_id !== who.user.id) throw problem(403, 'This API key belongs to another user');
  const upgraded = k.legacy;
  k.secret = secret();
  k.legacy = false;
  return [200, { key: k.secret, id: k.id, name: k.name, upgraded }];
}

// ---------------------------------------------------------------------------------------------
// Routing, authentication, rate limiting

const ROUTES = [
  [
    'GET',
    /^\/health$/,
    'none',
    ({ limiter }) => [
      200,
      {
        status: 'ok',
        multi_user: true,
        users: 2,
        resource_usage: { cpu_percent: 50, memory_percent: 50 },
        rate_limit: limiter.limit,
      },
    ],
  ],
  ['GET', /^\/calls$/, 'full', listCalls],
  ['POST', /^\/campaign$/, 'full', createCampaign, 'body'],
  ['GET', /^\/campaign\/([^/]+)$/, 'full', getCampaign],
  ['PATCH', /^\/campaign\/([^/]+)$/, 'full', updateCampaign, 'body'],
  ['POST', /^\/recipient-lists\/([^/]+)\/recipients$/, 'full', addRecipient, 'body'],
  ['POST', /^\/orgs\/([^/]+)\/invites$/, 'full', createInvite, 'body'],
  ['GET', /^\/users\/me$/, 'full', me],
  ['GET', /^\/assistants$/, 'full', listAssistants],
  ['POST', /^\/api-keys\/api-keys\/([^/]+)\/regenerate$/, 'bearer', regenerate],
  [
    'GET',
    /^\/protected$/,
    'full',
    ({ who }) => [
      200,
      { message: `Hello, ${who.user.id}! You have reached a protected endpoint.`, user_id: who.user.id },
    ],
  ],
  ['OPTIONS', /^\/user-credentials\/user-credentials\/([^/]+)$/, 'bearer', preflight],
  ['OPTIONS', /^\/logs\/chat-logs\/([^/]+)$/, 'bearer', preflight],
  ['OPTIONS', /^\/logs\/chat-sessions$/, 'bearer', preflight],
];

const ALLOWED_HEADERS = 'Authorization, X-User-ID, Content-Type';
function preflight({ req }) {
  const method = req.headers['access-control-request-method'];
  const headers = {
    'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': '600',
  };
  if (method !== undefined && !/^[A-Za-z]+$/.test(method)) {
    throw invalid([
      issue(['header', 'access-control-request-method'], 'Value should be an HTTP method', 'value_error'),
    ]);
  }
  return [200, { detail: 'OK' }, headers];
}

function authenticate(db, req, mode) {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const key = m && [...db.keys.values()].find((k) => k.secret === m[1]);
  if (!key) throw problem(401, INVALID_CREDENTIALS);
  const user = db.users.get(key.user_id);
  if (mode === 'full' && req.headers['x-user-id'] !== user.id)
    throw Object.assign(problem(401, INVALID_CREDENTIALS), { keyId: key.id });
  return { user, key, orgIds: user.orgs.map(([id]) => id), orgId: user.default_org_id };
}

/** Fixed-window limiter per API key: only authenticated requests are counted (see CHOICES.md). */
function makeLimiter(limit, windowMs) {
  const windows = new Map();
  const windowOf = (id, t) => {
    let w = windows.get(id);
    if (!w || t >= w.resetAt) windows.set(id, (w = { count: 0, resetAt: t + windowMs }));
    return w;
  };
  const headers = (w, t) => ({
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(Math.max(0, limit - w.count)),
    'x-ratelimit-reset': String(Math.max(0, Math.ceil((w.resetAt - t) / 1000))),
  });
  return {
    limit,
    /** The headers for an uncounted request (the caller's window if known, else a fresh one). */
    peek(id) {
      const t = Date.now();
      const w =
        id && windows.get(id) && t < windows.get(id).resetAt ? windows.get(id) : { count: 0, resetAt: t + windowMs };
      return headers(w, t);
    },
    take(id) {
      const t = Date.now();
      const w = windowOf(id, t);
      if (w.count >= limit)
        return {
          ok: false,
          headers: { ...headers(w, t), 'retry-after': String(Math.max(1, Math.ceil((w.resetAt - t) / 1000))) },
        };
      w.count++;
      return { ok: true, headers: headers(w, t) };
    },
  };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > 1_000_000) reject(new HttpError(413, { detail: 'Request body too large' }));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text) {
  if (text.trim() === '') throw invalid([issue(['body'], 'Field required', 'missing')]);
  try {
    return JSON.parse(text);
  } catch (e) {
    const pos = Number(/position (\d+)/.exec(String(e.message))?.[1] ?? 0);
    throw invalid([issue(['body', pos], 'JSON decode error', 'json_invalid')]);
  }
}

function decodeSegment(raw) {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw problem(404, 'Not Found');
  }
}

async function handle(state, req, res) {
  const url = new URL(req.url, 'http://x');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  const cors = { 'access-control-allow-origin': req.headers.origin ?? '*', vary: 'Origin' };
  let rl = state.limiter.peek(null);
  try {
    const matches = ROUTES.filter(([, re]) => re.test(path));
    if (matches.length === 0) throw problem(404, 'Not Found');
    const route = matches.find(([m]) => m === req.method);
    if (!route)
      throw new HttpError(405, { detail: 'Method Not Allowed' }, { allow: matches.map(([m]) => m).join(', ') });
    const [, re, mode, fn, wantsBody] = route;
    let who;
    if (mode !== 'none') {
      who = authenticate(state.db, req, mode);
      const taken = state.limiter.take(who.key.id);
      rl = taken.headers;
      if (!taken.ok)
        throw new HttpError(
          429,
          { detail: 'Rate limit exceeded: too many requests, try again after the window resets' },
          taken.headers,
        );
    }
    const text = await readBody(req);
    const params = { id: decodeSegment(re.exec(path)[1] ?? '') };
    const ctx = { db: state.db, who, req, params, query: url.searchParams, limiter: state.limiter };
    if (wantsBody) ctx.body = parseJson(text);
    const [status, body, headers = {}] = fn(ctx);
    send(res, status, body, { ...cors, ...rl, ...headers });
  } catch (e) {
    if (!(e instanceof HttpError)) {
      send(res, 500, { detail: 'Internal server error' }, { ...cors, ...rl });
      return;
    }
    // A refused request with a known key shows that key's window (uncounted), not a fresh one.
    if (e.keyId) rl = state.limiter.peek(e.keyId);
    const extra = e.status === 401 ? { 'www-authenticate': 'Bearer' } : {};
    send(res, e.status, e.body, { ...cors, ...rl, ...extra, ...e.headers });
  }
}

export async function start({ host = '127.0.0.1', port = 0, rateLimit = 100, rateWindowMs = 60_000 } = {}) {
  const s = seed();
  const state = { db: s.db, limiter: makeLimiter(rateLimit, rateWindowMs) };
  const server = http.createServer((req, res) => void handle(state, req, res));
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const addr = server.address();
  const url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  const fixtures = {
    api_key: s.keyMain.secret,
    user_id: s.userA.id,
    org_id: s.orgA.id,
    recipient_list_id: s.listA.id,
    api_key_id: s.keySpare.id,
    channels: [...CHANNELS],
    assistant_id: 'asst_ledger_sales',
    phone_number_id: 'pn_ledger_1',
    phone_numbers: [...s.db.phones.values()]
      .filter((p) => p.org_id === s.orgA.id)
      .map((p) => ({ id: p.id, provider: p.provider })),
    other_org: {
      org_id: s.orgB.id,
      campaign_id: s.campB.id,
      recipient_list_id: s.listB.id,
      api_key_id: 'key_ledger_globex',
    },
  };
  return {
    url,
    fixtures,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function flag(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const argv = process.argv.slice(2);
  const num = (name, fallback) => {
    const n = Number(flag(argv, name, fallback));
    if (!Number.isFinite(n) || n < 0) {
      process.stderr.write(`ledger: ${name} needs a non-negative number\n`);
      process.exit(2);
    }
    return n;
  };
  start({
    host: flag(argv, '--host', '127.0.0.1'),
    port: num('--port', 0),
    rateLimit: num('--rate-limit', 100),
    rateWindowMs: num('--rate-window-s', 60) * 1000,
  }).then(
    (s) => process.stdout.write(`listening ${s.url}\nfixtures ${JSON.stringify(s.fixtures)}\n`),
    (e) => {
      process.stderr.write(`ledger: could not start: ${e.message}\n`);
      process.exit(2);
    },
  );
}
