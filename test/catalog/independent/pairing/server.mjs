#!/usr/bin/env node
// "pairing": an independent implementation of the Voice-Agent Platform API, written from the
// contract text alone (../shared/seed/000_8298da82e2a63f1d.txt), node:http only. Every choice made
// where the contract says "not shown" is listed in CHOICES.md beside this file.
//
// Run: node server.mjs [--host 127.0.0.1] [--port 0] [--rate-limit 100] [--rate-window-s 60]
// Prints `listening http://HOST:PORT`, then `fixtures {json}`.
// Import: `start({ host, port, rateLimit, rateWindowMs })` -> { url, fixtures, close() }.
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const CHANNELS = ['vonage', 'plivo'];
const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
// Allowed status moves; staying in the same status is always allowed. `completed` is terminal.
const TRANSITIONS = {
  draft: ['scheduled', 'running', 'completed'],
  scheduled: ['draft', 'running', 'completed'],
  running: ['paused', 'completed'],
  paused: ['running', 'completed'],
  completed: [],
};
const ROLES = ['admin', 'developer', 'viewer'];
const MAX_NAME = 200;
const MAX_TEXT = 20_000;
const CALLS_MAX_LIMIT = 100;
const SUMMARIES_MAX = 1000;
const INVALID_CREDENTIALS = 'Invalid credentials: the API key or the user id was not accepted';

// ---------------------------------------------------------------------------------------------
// Seed data: two organizations, each with a user, keys, assistants, a recipient list, calls and a
// campaign. The second organization exists so that access to its records is answered 403.

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
const secret = () => `pk_${randomBytes(24).toString('base64url')}`;

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
  const orgA = { id: 'org_pair_acme', name: 'Acme Voice', slug: 'acme-voice', contact_email: 'ops@acme.example' };
  const orgB = { id: 'org_pair_globex', name: 'Globex', slug: 'globex', contact_email: 'it@globex.example' };
  for (const o of [orgA, orgB]) db.orgs.set(o.id, o);
  const userA = {
    id: 'usr_pair_ada',
    idp_user_id: 'idp|ada-001',
    email: 'ada@acme.example',
    name: 'Ada Pairing',
    default_org_id: orgA.id,
    orgs: [[orgA.id, 'owner']],
  };
  const userB = {
    id: 'usr_pair_bob',
    idp_user_id: 'idp|bob-002',
    email: 'bob@globex.example',
    name: 'Bob Globex',
    default_org_id: orgB.id,
    orgs: [[orgB.id, 'owner']],
  };
  for (const u of [userA, userB]) db.users.set(u.id, u);
  const keyMain = { id: 'key_pair_main', name: 'main', secret: secret(), user_id: userA.id, legacy: false };
  const keySpare = { id: 'key_pair_spare', name: 'ci spare', secret: secret(), user_id: userA.id, legacy: false };
  const keyB = { id: 'key_pair_globex', name: 'globex main', secret: secret(), user_id: userB.id, legacy: false };
  for (const k of [keyMain, keySpare, keyB]) db.keys.set(k.id, k);
  const phones = [
    { id: 'pn_pair_1', number: '+14155550101', provider: 'plivo', org_id: orgA.id },
    { id: 'pn_pair_2', number: '+14155550102', provider: 'vonage', org_id: orgA.id },
    { id: 'pn_pair_9', number: '+442071838750', provider: 'vonage', org_id: orgB.id },
  ];
  for (const p of phones) db.phones.set(p.id, p);
  const assistants = [
    assistant('asst_pair_sales', 'Sales agent', orgA.id, 'pn_pair_1'),
    assistant('asst_pair_support', 'Support agent', orgA.id, 'pn_pair_2'),
    assistant('asst_pair_globex', 'Globex agent', orgB.id, 'pn_pair_9'),
  ];
  for (const a of assistants) db.assistants.set(a.id, a);
  const listA = {
    id: 'rl_pair_leads',
    name: 'Spring leads',
    org_id: orgA.id,
    recipients: [{ id: 'rcp_1', phone_number: '+14155550111', metadata: { first_name: 'Lin' } }],
  };
  const listB = { id: 'rl_pair_globex', name: 'Globex leads', org_id: orgB.id, recipients: [] };
  for (const l of [listA, listB]) db.lists.set(l.id, l);
  db.calls.push(
    call('call_pair_1', orgA.id, 'vonage', 'pn_pair_2', 'asst_pair_support', 'completed', 132),
    call('call_pair_2', orgA.id, 'plivo', 'pn_pair_1', 'asst_pair_sales', 'completed', 47),
    call('call_pair_3', orgA.id, 'plivo', 'pn_pair_1', 'asst_pair_sales', 'no-answer', 0),
    call('call_pair_9', orgB.id, 'vonage', 'pn_pair_9', 'asst_pair_globex', 'completed', 12),
  );
  const campB = newCampaign(db, orgB.id, {
    name: 'Globex renewal',
    assistant_id: 'asst_pair_globex',
    phone_number_id: 'pn_pair_9',
    channel: 'vonage',
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

function checkString(v, loc, out, { printable = false, max = MAX_TEXT, nonEmpty = false } = {}) {
  if (typeof v !== 'string') return out.push(issue(loc, 'Input should be a valid string', 'string_type'));
  if (nonEmpty && v.trim() === '')
    return out.push(issue(loc, 'String should have at least 1 non-blank character', 'string_too_short'));
  // eslint-disable-next-line no-control-regex
  if (printable && /[\u0000-\u001f\u007f]/.test(v))
    return out.push(issue(loc, 'String should not contain control characters', 'string_pattern_mismatch'));
  if ([...v].length > max) out.push(issue(loc, `String should have at most ${max} characters`, 'string_too_long'));
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
    if (v[m] !== undefined) checkString(v[m], [...loc, m], out, { max: 64, printable: true });
  }
}

// Schedule times are kept as the client wrote them (a wall-clock time in the campaign's zone).
function checkTimestamp(v, loc, out) {
  checkString(v, loc, out, { printable: true, max: 64 });
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
  if (!/^\+[1-9][0-9]{6,14}$/.test(v))
    out.push(
      issue(
        loc,
        "String should be an E.164 phone number: '+', then 7 to 15 digits, the first not 0",
        'string_pattern_mismatch',
      ),
    );
}

// Field -> validator for the campaign bodies. Create uses camelCase schedule times (section 4.2).
const CAMPAIGN_COMMON = {
  name: (v, l, o) => checkString(v, l, o, { printable: true, nonEmpty: true, max: MAX_NAME }),
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
  for (const name of Object.keys(body))
    if (!(name in fields)) out.push(issue(['body', name], 'Extra inputs are not permitted', 'extra_forbidden'));
  return out;
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

/** A campaign calls out through its phone number, so its channel must be that number's provider. */
function checkPairing(db, body, out) {
  const phone = db.phones.get(body.phone_number_id);
  if (phone && body.channel !== phone.provider) {
    out.push(
      issue(
        ['body', 'channel'],
        `Channel '${body.channel}' does not match the provider of phone number ${phone.id} ('${phone.provider}'); use channel '${phone.provider}' with this number`,
        'value_error',
      ),
    );
  }
}

function createCampaign(ctx) {
  const { db, who, body } = ctx;
  const out = validateBody(body, CREATE_FIELDS, CREATE_REQUIRED);
  if (out.length === 0) refer(db, who, body, out);
  if (out.length === 0) checkPairing(db, body, out);
  if (out.length) throw invalid(out);
  const c = newCampaign(db, who.orgId, body);
  db.campaigns.set(c.id, c);
  return [200, present(db, c)];
}

function getCampaign({ db, who, params }) {
  const c = owned(db.campaigns, params.id, who, 'Campaign');
  return [200, { campaign: present(db, c), counts: counts(db, c), calls: [] }];
}

function updateCampaign({ db, who, params, body }) {
  const c = owned(db.campaigns, params.id, who, 'Campaign');
  const out = validateBody(body, UPDATE_FIELDS);
  if (out.length) throw invalid(out);
  const to = body.status;
  if (to !== undefined && to !== c.status && !TRANSITIONS[c.status].includes(to)) {
    const allowed = TRANSITIONS[c.status].length
      ? `allowed from ${c.status}: ${TRANSITIONS[c.status].join(', ')}`
      : `${c.status} is final`;
    throw problem(409, `Campaign cannot move from ${c.status} to ${to} (${allowed})`);
  }
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
  if (provider !== null && !CHANNELS.includes(provider))
    throw invalid([
      issue(['query', 'provider'], `Input should be ${CHANNELS.map((c) => `'${c}'`).join(' or ')}`, 'enum'),
    ]);
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
  for (const name of Object.keys(body))
    if (!['phone_number', 'metadata'].includes(name))
      out.push(issue(['body', name], 'Extra inputs are not permitted', 'extra_forbidden'));
  if (out.length) throw invalid(out);
  if (list.recipients.some((r) => r.phone_number === body.phone_number))
    throw problem(409, `${body.phone_number} is already on recipient list ${list.id}`);
  const r = {
    id: `rcp_${randomUUID()}`,
    phone_number: body.phone_number,
    metadata: body.metadata ?? {},
    added_at: now(),
  };
  list.recipients.push(r);
  return [200, { recipient: r, recipient_list: { id: list.id, name: list.name, row_count: list.recipients.length } }];
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
  const email = body.email.toLowerCase();
  for (const i of db.invites.values()) {
    if (i.org_id === params.id && i.email.toLowerCase() === email && Date.parse(i.expires_at) > Date.now())
      throw problem(409, `A pending invite for ${body.email} already exists in this organization`);
  }
  const inv = {
    id: `inv_${randomUUID()}`,
    email: body.email,
    role: body.role,
    expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    token: `invtok_${randomBytes(20).toString('hex')}`,
  };
  db.invites.set(inv.id, { ...inv, org_id: params.id });
  return [200, inv];
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
  k.secret = secret();
  return [200, { key: k.secret, id: k.id, name: k.name, upgraded: false }];
}

// ---------------------------------------------------------------------------------------------
// Routing, authentication, rate limiting

const ROUTES = [
  [
    'GET',
    /^\/health$/,
    'none',
    ({ db }) => [
      200,
      {
        healthy: true,
        mode: 'multi-user',
        organizations: db.orgs.size,
        resources: {
          memory_used_percent: Math.round((process.memoryUsage().heapUsed / process.memoryUsage().heapTotal) * 100),
          threshold_percent: 50,
        },
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

// A preflight answers 204 with the CORS headers; an id in the path that cannot be one of ours
// (section 4.11: "failure body is the validation error body") is refused with 422.
const PATH_ID = /^[A-Za-z0-9_-]{1,128}$/;
function preflight({ req, params, path }) {
  if (params.id !== '' && !PATH_ID.test(params.id)) {
    const name = path.startsWith('/logs/') ? 'session_id' : 'credential_id';
    throw invalid([
      issue(['path', name], "String should match pattern '^[A-Za-z0-9_-]{1,128}$'", 'string_pattern_mismatch'),
    ]);
  }
  const asked = req.headers['access-control-request-headers'];
  return [
    204,
    undefined,
    {
      'access-control-allow-methods': 'GET, POST, PATCH, OPTIONS',
      'access-control-allow-headers':
        asked && /^[A-Za-z0-9-, ]+$/.test(asked) ? asked : 'authorization, x-user-id, content-type',
      'access-control-allow-credentials': 'true',
      'access-control-max-age': '86400',
    },
  ];
}

function authenticate(db, req, mode) {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  const key = m && [...db.keys.values()].find((k) => k.secret === m[1]);
  if (!key) throw problem(401, INVALID_CREDENTIALS);
  const user = db.users.get(key.user_id);
  if (mode === 'full' && req.headers['x-user-id'] !== user.id) throw problem(401, INVALID_CREDENTIALS);
  return { user, key, orgIds: user.orgs.map(([id]) => id), orgId: user.default_org_id };
}

/**
 * Fixed-window limiter per client address: EVERY request is counted (unauthenticated ones, health
 * and preflights included), before routing and authentication. X-RateLimit-Reset is the epoch
 * second at which the window ends (see CHOICES.md).
 */
function makeLimiter(limit, windowMs) {
  const windows = new Map();
  return {
    limit,
    take(client) {
      const t = Date.now();
      let w = windows.get(client);
      if (!w || t >= w.resetAt) windows.set(client, (w = { count: 0, resetAt: t + windowMs }));
      const ok = w.count < limit;
      if (ok) w.count++;
      const headers = {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(limit - w.count),
        'x-ratelimit-reset': String(Math.ceil(w.resetAt / 1000)),
      };
      if (!ok) headers['retry-after'] = String(Math.max(1, Math.ceil((w.resetAt - t) / 1000)));
      return { ok, headers };
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
  const cors = req.headers.origin ? { 'access-control-allow-origin': req.headers.origin, vary: 'Origin' } : {};
  const taken = state.limiter.take(req.socket.remoteAddress ?? 'unknown');
  const rl = taken.headers;
  try {
    if (!taken.ok)
      throw new HttpError(429, {
        detail: 'Rate limit exceeded: too many requests from this client in the current window',
      });
    const matches = ROUTES.filter(([, re]) => re.test(path));
    if (matches.length === 0) throw problem(404, 'Not Found');
    const route = matches.find(([m]) => m === req.method);
    if (!route)
      throw new HttpError(405, { detail: 'Method Not Allowed' }, { allow: matches.map(([m]) => m).join(', ') });
    const [, re, mode, fn, wantsBody] = route;
    let who;
    if (mode !== 'none') {
      who = authenticate(state.db, req, mode);
    }
    const text = await readBody(req);
    const params = { id: decodeSegment(re.exec(path)[1] ?? '') };
    const ctx = { db: state.db, who, req, params, path, query: url.searchParams };
    if (wantsBody) ctx.body = parseJson(text);
    const [status, body, headers = {}] = fn(ctx);
    send(res, status, body, { ...cors, ...rl, ...headers });
  } catch (e) {
    if (!(e instanceof HttpError)) {
      send(res, 500, { detail: 'Internal server error' }, { ...cors, ...rl });
      return;
    }
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
    api_key_id: s.keyMain.id,
    channels: [...CHANNELS],
    assistant_id: 'asst_pair_sales',
    phone_number_id: 'pn_pair_1',
    phone_numbers: [...s.db.phones.values()]
      .filter((p) => p.org_id === s.orgA.id)
      .map((p) => ({ id: p.id, provider: p.provider })),
    other_org: {
      org_id: s.orgB.id,
      campaign_id: s.campB.id,
      recipient_list_id: s.listB.id,
      api_key_id: 'key_pair_globex',
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
      process.stderr.write(`pair: ${name} needs a non-negative number\n`);
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
      process.stderr.write(`pair: could not start: ${e.message}\n`);
      process.exit(2);
    },
  );
}
