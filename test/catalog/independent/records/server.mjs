// records: an independent implementation of the Voice-Agent Platform API, written from the contract
// text alone (/work/shared/seed/000_8298da82e2a63f1d.txt). Its distinctive choices are at the
// data/state level, as a database-backed service makes them (see CHOICES.md): ids of several
// families (ULIDs, UUIDv4, numeric strings, prefixed), timestamps with microseconds and a +00:00
// offset, NULL columns answered as null, extra columns (org_id, version, deleted_at), values stored
// normalised (NFC text, lower-cased e-mail, canonical date-times, digits-only phone numbers),
// upserts, a partial unique index on campaign names, a CHECK-like rule on `scheduled`, clamped page
// sizes, int4/int8 column ranges, a per-user sliding-window rate limit.
//
//   node server.mjs [--host H] [--port P] [--rate-limit N] [--rate-window-s S] [--dial-interval-ms T]
//   import { start } from './server.mjs'; await start({ rateLimit, rateWindowMs })
import { createServer } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

// ---------------------------------------------------------------------------------------------
// Ids and clocks
// ---------------------------------------------------------------------------------------------

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/;
let lastUlidTime = -1;
let lastUlidRandom = [];

/** A monotonic ULID: 48-bit milliseconds, 80 random bits incremented within one millisecond. */
function ulid(now = Date.now()) {
  if (now <= lastUlidTime) {
    for (let i = lastUlidRandom.length - 1; i >= 0; i--) {
      lastUlidRandom[i] = (lastUlidRandom[i] + 1) % 32;
      if (lastUlidRandom[i] !== 0) break;
    }
  } else {
    lastUlidTime = now;
    lastUlidRandom = [...randomBytes(16)].map((b) => b % 32);
  }
  let t = lastUlidTime;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + lastUlidRandom.map((d) => CROCKFORD[d]).join('');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const secret = (prefix, n = 32) => prefix + [...randomBytes(n)].map((b) => BASE62[b % 62]).join('');

let microCounter = 0;
/** `YYYY-MM-DDTHH:MM:SS.ffffff+00:00`, as a timestamptz column prints through isoformat(). */
function isoMicro(ms, micros = 0) {
  const d = new Date(ms);
  const base = d.toISOString().slice(0, 19);
  const frac = String(d.getUTCMilliseconds() * 1000 + micros).padStart(6, '0');
  return `${base}.${frac}+00:00`;
}
const nowIso = () => isoMicro(Date.now(), microCounter++ % 1000);

// ---------------------------------------------------------------------------------------------
// Validation (pydantic-v2-like errors with type, loc, msg, input, ctx, url)
// ---------------------------------------------------------------------------------------------

const INT4_MAX = 2147483647;
const INT8_MAX = 9223372036854775807n;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const err = (type, loc, msg, input, ctx) => ({
  type,
  loc,
  msg,
  input,
  ...(ctx ? { ctx } : {}),
  url: `https://errors.records.invalid/2.0/v/${type}`,
});

/** A text column: a string, storable in UTF-8 text (no NUL, no lone surrogate), stored NFC. */
function text(v, loc, { max = 20000, min = 0 } = {}) {
  if (typeof v !== 'string') return { error: err('string_type', loc, 'Input should be a valid string', v) };
  if (v.includes('\u0000'))
    return { error: err('string_no_nul', loc, 'Text columns cannot hold the NUL character (U+0000)', v) };
  if (LONE_SURROGATE.test(v))
    return { error: err('string_unicode', loc, 'Input should be a valid string: unpaired surrogate', v) };
  const value = v.normalize('NFC');
  if ([...value].length < min)
    return {
      error: err('string_too_short', loc, `String should have at least ${min} character`, v, { min_length: min }),
    };
  if ([...value].length > max)
    return {
      error: err('string_too_long', loc, `String should have at most ${max} characters`, v, { max_length: max }),
    };
  return { value };
}

function integer(v, loc, { min = -INT4_MAX - 1, max = INT4_MAX } = {}) {
  if (typeof v !== 'number' || !Number.isInteger(v))
    return { error: err('int_type', loc, 'Input should be a valid integer', v) };
  if (v < min)
    return { error: err('greater_than_equal', loc, `Input should be greater than or equal to ${min}`, v, { ge: min }) };
  if (v > max)
    return { error: err('less_than_equal', loc, `Input should be less than or equal to ${max}`, v, { le: max }) };
  return { value: v };
}

const bool = (v, loc) =>
  typeof v === 'boolean' ? { value: v } : { error: err('bool_type', loc, 'Input should be a valid boolean', v) };

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const object = (v, loc) =>
  isObject(v) ? { value: v } : { error: err('dict_type', loc, 'Input should be a valid dictionary', v) };

function oneOf(values) {
  return (v, loc) => {
    if (typeof v !== 'string') return { error: err('string_type', loc, 'Input should be a valid string', v) };
    if (values.includes(v)) return { value: v };
    const expected = values.map((x) => `'${x}'`).join(', ');
    return { error: err('enum', loc, `Input should be ${expected}`, v, { expected }) };
  };
}

/** A timestamptz column: an ISO 8601 date-time, stored and answered in this server's own format. */
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
function datetime(v, loc) {
  if (typeof v !== 'string') return { error: err('datetime_type', loc, 'Input should be a valid datetime', v) };
  const m = DATETIME_RE.exec(v.trim());
  const bad = () => err('datetime_from_date_parsing', loc, 'Input should be a valid datetime (ISO 8601)', v);
  if (!m) return { error: bad() };
  const [, y, mo, d, h, mi, s = '00', frac = '', zone = 'Z'] = m;
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  if (Number.isNaN(ms) || Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59)
    return { error: bad() };
  const micros = Number((frac.slice(1) + '000000').slice(0, 6));
  return { value: isoMicro(ms - (ms % 1000), micros), ms };
}

const SPEECH_DEFAULTS = { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' };
function speech(v, loc) {
  if (!isObject(v)) return { errors: [err('dict_type', loc, 'Input should be a valid dictionary', v)] };
  const errors = [];
  const value = { ...SPEECH_DEFAULTS };
  for (const key of Object.keys(SPEECH_DEFAULTS)) {
    if (!(key in v)) continue;
    const r = text(v[key], [...loc, key], { min: 1, max: 64 });
    if (r.error) errors.push(r.error);
    else value[key] = r.value;
  }
  return errors.length ? { errors } : { value };
}

/** Phone numbers are stored as digits with an optional leading +, separators removed. */
function phone(v, loc) {
  const r = text(v, loc, { max: 64 });
  if (r.error) return r;
  const digits = r.value.replace(/[\s().-]/g, '');
  if (!/^\+?[0-9]{3,15}$/.test(digits))
    return {
      error: err('string_pattern_mismatch', loc, 'Phone number should be 3 to 15 digits, optionally after +', v, {
        pattern: '^\\+?[0-9]{3,15}$',
      }),
    };
  return { value: digits };
}

function recipients(v, loc) {
  if (!Array.isArray(v)) return { errors: [err('list_type', loc, 'Input should be a valid list', v)] };
  const errors = [];
  const value = [];
  v.forEach((item, i) => {
    const at = [...loc, i];
    if (!isObject(item)) return errors.push(err('dict_type', at, 'Input should be a valid dictionary', item));
    const row = { metadata: {}, assistant_overrides: {} };
    if (!('phone_number' in item)) errors.push(err('missing', [...at, 'phone_number'], 'Field required', item));
    else {
      const p = phone(item.phone_number, [...at, 'phone_number']);
      if (p.error) errors.push(p.error);
      else row.phone_number = p.value;
    }
    for (const key of ['metadata', 'assistant_overrides']) {
      if (!(key in item) || item[key] === null) continue;
      const o = object(item[key], [...at, key]);
      if (o.error) errors.push(o.error);
      else row[key] = o.value;
    }
    value.push(row);
  });
  return errors.length ? { errors } : { value };
}

/**
 * Validates a JSON body against a table of columns: `{ name: [validator, { nullable, required }] }`.
 * Errors come back with the missing members first (by name), then the others in the order the
 * request's members were written; unknown members are ignored.
 */
function validateBody(body, columns) {
  if (!isObject(body))
    return {
      values: {},
      errors: [err('model_attributes_type', ['body'], 'Input should be a valid dictionary or object', body)],
    };
  const missing = [];
  const errors = [];
  const values = {};
  for (const [name, [, opts = {}]] of Object.entries(columns))
    if (opts.required && !(name in body)) missing.push(err('missing', ['body', name], 'Field required', body));
  for (const [name, raw] of Object.entries(body)) {
    const column = columns[name];
    if (!column) continue;
    const [check, opts = {}] = column;
    if (raw === null && opts.nullable) {
      values[name] = null;
      continue;
    }
    const r = check(raw, ['body', name]);
    if (r.error) errors.push(r.error);
    else if (r.errors) errors.push(...r.errors);
    else values[name] = r.value;
  }
  missing.sort((a, b) => String(a.loc[1]).localeCompare(String(b.loc[1])));
  return { errors: [...missing, ...errors], values };
}

// ---------------------------------------------------------------------------------------------
// The data
// ---------------------------------------------------------------------------------------------

const CHANNELS = ['twilio', 'vonage'];
const ROLES = ['owner', 'admin', 'developer', 'member', 'viewer'];
const STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
const CALL_OPTIONAL = [
  'phone_number_id',
  'assistant_id',
  'from_number',
  'provider_call_sid',
  'direction',
  'created_at',
  'started_at',
  'ended_at',
  'ended_reason',
  'duration_seconds',
  'timestamp',
  'summary',
  'user_messages',
  'agent_messages',
  'recording_url',
  'stereo_recording_url',
  'recording_mp3_url',
  'stereo_recording_mp3_url',
  'latency_metrics',
  'per_turn_latency',
  'cost',
  'total_credits',
  'cost_breakdown',
  'costs',
  'transcript',
];

function assistantRow(orgId, name, phoneNumberId, extra = {}) {
  return {
    id: randomUUID(),
    org_id: orgId,
    name,
    system_instruction: `You are ${name}. Be brief and polite.`,
    voice: { voice_id: 'v-alloy', tts_provider: 'cartesia', tts_model: 'sonic-2', language: 'en', speed: 1 },
    llm: { llm_provider: 'openai', model: 'gpt-4o-mini' },
    transcriber: { stt_provider: 'deepgram', stt_model: 'nova-3', language: 'en' },
    speech_settings: { ...SPEECH_DEFAULTS },
    long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: 'Recall facts.' },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarise the call in two sentences.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['goodbye'],
      transfer_triggers: ['human please'],
      transfer_number: '+15550001111',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 20,
      confirm_yes: ['yes'],
      confirm_no: ['no'],
      webhook_url: 'https://hooks.records.invalid/call-actions',
      webhook_timeout_ms: 3500,
    },
    description: null,
    first_message: null,
    knowledge_base_ids: [],
    phone_number_id: phoneNumberId,
    assistant_speaks_first: null,
    created_at: nowIso(),
    updated_at: nowIso(),
    ...extra,
  };
}

function callRow(id, orgId, n, base, phones, assistantId) {
  const provider = CHANNELS[n % 3 === 0 ? 1 : 0];
  const ended = n % 7 !== 0;
  // Calls come in pairs sharing their created_at: the id breaks the tie.
  const created = base - Math.floor(n / 2) * 90_000;
  const micros = Math.floor(n / 2) % 1000;
  const row = Object.fromEntries(CALL_OPTIONAL.map((k) => [k, null]));
  return Object.assign(row, {
    id: String(id),
    org_id: orgId,
    campaign_id: null,
    to_number: `+1555${String(2000000 + n).slice(-7)}`,
    provider,
    status: ended ? 'completed' : 'in-progress',
    phone_number_id: phones[provider],
    assistant_id: assistantId,
    from_number: provider === 'twilio' ? '+15557770001' : '+15557770002',
    provider_call_sid: `${provider.slice(0, 2).toUpperCase()}${randomBytes(8).toString('hex')}`,
    direction: n % 4 === 0 ? 'inbound' : 'outbound',
    created_at: isoMicro(created, micros),
    started_at: isoMicro(created + 2000, micros),
    ended_at: ended ? isoMicro(created + 62000, micros) : null,
    ended_reason: ended ? 'customer-ended-call' : null,
    duration_seconds: ended ? 60 : null,
    timestamp: isoMicro(created, micros),
    summary: ended ? 'The customer confirmed the appointment.' : null,
    user_messages: ended ? 4 : null,
    agent_messages: ended ? 5 : null,
    recording_url: ended && n % 2 === 0 ? `https://media.records.invalid/rec/${id}.wav` : null,
    cost: ended ? 0.1234 : null,
    total_credits: ended ? 12 : null,
    transcript: ended
      ? [
          { role: 'agent', text: 'Hello!' },
          { role: 'user', text: 'Hi.' },
        ]
      : null,
  });
}

function seed() {
  const db = {
    users: new Map(),
    orgs: new Map(),
    members: new Map(),
    keys: new Map(),
    assistants: new Map(),
    phones: new Map(),
    lists: new Map(),
    recipients: new Map(),
    campaigns: new Map(),
    campaignRecipients: new Map(),
    invites: new Map(),
    calls: [],
    seq: { recipient: 1041, call: 1000, phone: 16 },
  };
  const mkOrg = (name, slug) => {
    const org = { id: `org_${ulid()}`, name, slug, contact_email: `ops@${slug}.example` };
    db.orgs.set(org.id, org);
    return org;
  };
  const mkUser = (name, email, org, role) => {
    const user = {
      id: randomUUID(),
      idp_user_id: `idp|${randomBytes(6).toString('hex')}`,
      email,
      name,
      default_org_id: org.id,
    };
    db.users.set(user.id, user);
    db.members.set(`${org.id}|${user.id}`, role);
    return user;
  };
  const mkKey = (user, name, legacy = false) => {
    const key = { id: `key_${ulid()}`, user_id: user.id, name, secret: secret(legacy ? 'sk-' : 'rk_live_'), legacy };
    db.keys.set(key.id, key);
    return key;
  };
  const org = mkOrg('Records Dental Group', 'records-dental');
  const other = mkOrg('Elsewhere Ltd', 'elsewhere');
  const user = mkUser('Ana Records', 'ana@records-dental.example', org, 'owner');
  const stranger = mkUser('Otto Else', 'otto@elsewhere.example', other, 'owner');
  const key = mkKey(user, 'ci');
  const spare = mkKey(user, 'legacy dashboard key', true);
  const strangerKey = mkKey(stranger, 'theirs');
  const phones = {};
  for (const [provider, number, o] of [
    ['twilio', '+15557770001', org],
    ['vonage', '+15557770002', org],
    ['twilio', '+15557770099', other],
  ]) {
    const id = String(++db.seq.phone);
    db.phones.set(id, { id, org_id: o.id, provider, number });
    if (o === org) phones[provider] ??= id;
  }
  const names = ['reception desk', 'Billing follow-up', 'Árvíztűrő recall'];
  const assistants = names.map((name, i) => assistantRow(org.id, name, phones[CHANNELS[i % 2]]));
  assistants.push(assistantRow(other.id, 'not yours', null));
  for (const a of assistants) db.assistants.set(a.id, a);
  const list = { id: `rl_${ulid()}`, org_id: org.id, name: 'November recalls', created_at: nowIso() };
  const otherList = { id: `rl_${ulid()}`, org_id: other.id, name: 'theirs', created_at: nowIso() };
  for (const l of [list, otherList]) {
    db.lists.set(l.id, l);
    db.recipients.set(l.id, new Map());
  }
  const base = Date.now() - 3_600_000;
  for (let n = 0; n < 137; n++) db.calls.push(callRow(++db.seq.call, org.id, n, base, phones, assistants[n % 3].id));
  for (let n = 0; n < 3; n++)
    db.calls.push(callRow(++db.seq.call, other.id, n, base, { twilio: '19', vonage: '19' }, assistants[3].id));
  const running = seedRunningCampaign(db, org, assistants[1]);
  const fixtures = {
    running_campaign_id: running.id,
    api_key: key.secret,
    user_id: user.id,
    org_id: org.id,
    recipient_list_id: list.id,
    api_key_id: spare.id,
    channels: [...CHANNELS],
    assistant_id: assistants[0].id,
    phone_number_id: assistants[0].phone_number_id,
    phone_numbers: [...db.phones.values()]
      .filter((p) => p.org_id === org.id)
      .map(({ id, provider }) => ({ id, provider })),
    other_org: { org_id: other.id, recipient_list_id: otherList.id, api_key_id: strangerKey.id },
  };
  return { db, fixtures };
}

/**
 * The organization already runs a campaign when the server starts (as a shared staging account
 * would): 2000 recipients dialled one at a time, so a call joins GET /calls on every dialer tick.
 */
function seedRunningCampaign(db, org, assistant) {
  const started = nowIso();
  const c = {
    id: ulid(),
    org_id: org.id,
    name: 'November recall (live)',
    assistant_id: assistant.id,
    channel: db.phones.get(assistant.phone_number_id).provider,
    phone_number_id: assistant.phone_number_id,
    status: 'running',
    max_concurrency: 1,
    retry_policy: { max_attempts: 3, backoff_seconds: 300 },
    speech_settings: { ...SPEECH_DEFAULTS },
    schedule_start_time: null,
    schedule_end_time: null,
    campaign_context: 'Recall patients due for a check-up.',
    opening_message_template: null,
    use_returning_greeting: false,
    use_short_term_summaries: false,
    short_term_summaries_limit: 3,
    machine_detection_timeout_seconds: null,
    recipient_list_id: null,
    version: 2,
    started_at: started,
    completed_at: null,
    created_at: started,
    updated_at: started,
  };
  db.campaigns.set(c.id, c);
  upsertRecipients(
    db,
    c.id,
    Array.from({ length: 2000 }, (_, i) => ({
      phone_number: `+1555${String(3000000 + i)}`,
      metadata: { row: i },
      assistant_overrides: {},
    })),
  );
  return c;
}

// ---------------------------------------------------------------------------------------------
// Campaigns
// ---------------------------------------------------------------------------------------------

const nameKey = (name) => name.normalize('NFKC').toLowerCase();

const CAMPAIGN_COMMON = {
  name: [(v, loc) => text(v, loc, { min: 1, max: 255 }), { required: true }],
  max_concurrency: [(v, loc) => integer(v, loc, { min: 1, max: 200 })],
  retry_policy: [object],
  speech_settings: [speech],
  campaign_context: [text, { nullable: true }],
  opening_message_template: [text, { nullable: true }],
  use_returning_greeting: [bool],
  use_short_term_summaries: [bool],
  short_term_summaries_limit: [(v, loc) => integer(v, loc, { min: 0 })],
  recipients: [recipients],
};
const CREATE_COLUMNS = {
  ...CAMPAIGN_COMMON,
  assistant_id: [(v, loc) => text(v, loc, { max: 64 }), { required: true }],
  phone_number_id: [(v, loc) => text(v, loc, { max: 64 }), { required: true }],
  channel: [oneOf(CHANNELS), { required: true }],
  scheduleStartTime: [datetime, { nullable: true }],
  scheduleEndTime: [datetime, { nullable: true }],
  machine_detection_timeout_seconds: [(v, loc) => integer(v, loc, { min: 3, max: 60 }), { nullable: true }],
  recipient_list_id: [(v, loc) => text(v, loc, { max: 64 }), { nullable: true }],
};
const UPDATE_COLUMNS = {
  ...Object.fromEntries(Object.entries(CAMPAIGN_COMMON).map(([k, [f, o]]) => [k, [f, { ...o, required: false }]])),
  schedule_start_time: [datetime, { nullable: true }],
  schedule_end_time: [datetime, { nullable: true }],
  status: [oneOf(STATUSES)],
};

function counts(db, campaignId) {
  const rows = [...(db.campaignRecipients.get(campaignId)?.values() ?? [])];
  const by = (state) => rows.filter((r) => (r.state ?? 'pending') === state).length;
  return {
    total: rows.length,
    pending: by('pending'),
    in_progress: by('in_progress'),
    completed: by('completed'),
    failed: 0,
  };
}

// ---------------------------------------------------------------------------------------------
// The dialer: a running campaign places calls (new rows of GET /calls) and completes by itself
// ---------------------------------------------------------------------------------------------

/** One tick: in-progress calls end, then each running campaign dials pending recipients up to max_concurrency. */
function dialTick(db) {
  for (const call of db.calls.filter((c) => c.status === 'in-progress' && c.campaign_id)) finishCall(db, call);
  for (const c of db.campaigns.values()) {
    if (c.status !== 'running') continue;
    const rows = [...(db.campaignRecipients.get(c.id)?.values() ?? [])];
    const pending = rows.filter((r) => (r.state ?? 'pending') === 'pending');
    if (!pending.length && !rows.some((r) => r.state === 'in_progress')) {
      if (rows.length) {
        c.status = 'completed';
        c.completed_at = nowIso();
        c.version += 1;
        c.updated_at = c.completed_at;
      }
      continue;
    }
    for (const r of pending.slice(0, c.max_concurrency)) placeCall(db, c, r);
  }
}

function placeCall(db, c, recipient) {
  const now = nowIso();
  const row = Object.fromEntries(CALL_OPTIONAL.map((k) => [k, null]));
  db.calls.push(
    Object.assign(row, {
      id: String(++db.seq.call),
      org_id: c.org_id,
      campaign_id: c.id,
      to_number: recipient.phone_number,
      provider: c.channel,
      status: 'in-progress',
      phone_number_id: c.phone_number_id,
      assistant_id: c.assistant_id,
      from_number: db.phones.get(c.phone_number_id)?.number ?? null,
      direction: 'outbound',
      created_at: now,
      started_at: now,
      timestamp: now,
    }),
  );
  recipient.state = 'in_progress';
  recipient.call_id = row.id;
}

function finishCall(db, call) {
  call.status = 'completed';
  call.ended_at = nowIso();
  call.ended_reason = 'assistant-ended-call';
  call.duration_seconds = 1;
  const rows = db.campaignRecipients.get(call.campaign_id);
  for (const r of rows?.values() ?? []) if (r.call_id === call.id) r.state = 'completed';
}

const campaignCalls = (db, id) =>
  db.calls
    .filter((c) => c.campaign_id === id)
    .map(({ id: callId, to_number, status, created_at, ended_at }) => ({
      id: callId,
      to_number,
      status,
      created_at,
      ended_at,
    }));

function campaignRecord(db, c) {
  const list = c.recipient_list_id ? db.lists.get(c.recipient_list_id) : null;
  return {
    id: c.id,
    org_id: c.org_id,
    name: c.name,
    assistant_id: c.assistant_id,
    assistant_name: db.assistants.get(c.assistant_id)?.name ?? null,
    channel: c.channel,
    phone_number_id: c.phone_number_id,
    caller_id_number: db.phones.get(c.phone_number_id)?.number ?? null,
    status: c.status,
    max_concurrency: c.max_concurrency,
    retry_policy: c.retry_policy,
    speech_settings: c.speech_settings,
    schedule_start_time: c.schedule_start_time,
    schedule_end_time: c.schedule_end_time,
    campaign_context: c.campaign_context,
    opening_message_template: c.opening_message_template,
    use_returning_greeting: c.use_returning_greeting,
    use_short_term_summaries: c.use_short_term_summaries,
    short_term_summaries_limit: c.short_term_summaries_limit,
    machine_detection_timeout_seconds: c.machine_detection_timeout_seconds,
    recipient_list_id: list?.id ?? null,
    recipient_list_name: list?.name ?? null,
    recipient_list_row_count: list ? db.recipients.get(list.id).size : null,
    counts: counts(db, c.id),
    version: c.version,
    started_at: c.started_at,
    completed_at: c.completed_at,
    deleted_at: null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

const UPDATE_OMITS = [
  'assistant_name',
  'machine_detection_timeout_seconds',
  'recipient_list_id',
  'recipient_list_name',
  'recipient_list_row_count',
  'counts',
];
const updateRecord = (db, c) => {
  const r = campaignRecord(db, c);
  for (const k of UPDATE_OMITS) delete r[k];
  return r;
};

/** Inserts the campaign's recipients, one row per phone number (ON CONFLICT DO UPDATE metadata). */
function upsertRecipients(db, campaignId, rows) {
  const table = db.campaignRecipients.get(campaignId) ?? new Map();
  db.campaignRecipients.set(campaignId, table);
  for (const row of rows) {
    const old = table.get(row.phone_number);
    table.set(row.phone_number, { id: old?.id ?? String(++db.seq.recipient), ...row });
  }
}

/** The partial unique index: (org_id, NFKC-lower(name)) among campaigns not completed. */
const nameTaken = (db, orgId, name, exceptId) =>
  [...db.campaigns.values()].some(
    (c) => c.org_id === orgId && c.id !== exceptId && c.status !== 'completed' && nameKey(c.name) === nameKey(name),
  );

function createCampaign(db, ctx, body) {
  const { errors, values } = validateBody(body, CREATE_COLUMNS);
  if (!errors.length)
    errors.push(
      ...foreignKeys(db, ctx, values),
      ...scheduleOrder(values, 'scheduleStartTime', 'scheduleEndTime', null),
    );
  if (errors.length) return [422, { detail: errors }];
  if (nameTaken(db, ctx.org.id, values.name))
    return [409, { detail: `A campaign named "${values.name}" already exists in this organization` }];
  const now = nowIso();
  const c = {
    id: ulid(),
    org_id: ctx.org.id,
    name: values.name,
    assistant_id: values.assistant_id,
    channel: values.channel,
    phone_number_id: values.phone_number_id,
    status: 'draft',
    max_concurrency: values.max_concurrency ?? 5,
    retry_policy: values.retry_policy ?? { max_attempts: 3, backoff_seconds: 300 },
    speech_settings: values.speech_settings ?? { ...db.assistants.get(values.assistant_id).speech_settings },
    schedule_start_time: values.scheduleStartTime ?? null,
    schedule_end_time: values.scheduleEndTime ?? null,
    campaign_context: values.campaign_context ?? null,
    opening_message_template: values.opening_message_template ?? null,
    use_returning_greeting: values.use_returning_greeting ?? false,
    use_short_term_summaries: values.use_short_term_summaries ?? false,
    short_term_summaries_limit: values.short_term_summaries_limit ?? 3,
    machine_detection_timeout_seconds: values.machine_detection_timeout_seconds ?? null,
    recipient_list_id: values.recipient_list_id ?? null,
    version: 1,
    started_at: null,
    completed_at: null,
    created_at: now,
    updated_at: now,
  };
  db.campaigns.set(c.id, c);
  upsertRecipients(db, c.id, values.recipients ?? []);
  return [201, campaignRecord(db, c)];
}

/** Foreign keys of a create: each must name a row of the caller's organization. */
function foreignKeys(db, ctx, values) {
  const errors = [];
  const fk = (table, field) => {
    const v = values[field];
    if (v === null || v === undefined) return;
    const row = table.get(v);
    if (!row || row.org_id !== ctx.org.id)
      errors.push(
        err(
          'foreign_key_violation',
          ['body', field],
          `No such ${field.replace(/_id$/, '').replace(/_/g, ' ')} in this organization`,
          v,
        ),
      );
  };
  fk(db.assistants, 'assistant_id');
  fk(db.phones, 'phone_number_id');
  fk(db.lists, 'recipient_list_id');
  return errors;
}

/** CHECK (schedule_end_time > schedule_start_time) when both are set. */
function scheduleOrder(values, startKey, endKey, stored) {
  const start = startKey in values ? values[startKey] : (stored?.schedule_start_time ?? null);
  const end = endKey in values ? values[endKey] : (stored?.schedule_end_time ?? null);
  if (start === null || end === null || Date.parse(end) > Date.parse(start)) return [];
  return [
    err(
      'value_error',
      ['body', endKey in values ? endKey : startKey],
      'Value error, the schedule must end after it starts',
      values[endKey in values ? endKey : startKey],
    ),
  ];
}

function updateCampaign(db, ctx, c, body) {
  const { errors, values } = validateBody(body, UPDATE_COLUMNS);
  if (!errors.length) errors.push(...scheduleOrder(values, 'schedule_start_time', 'schedule_end_time', c));
  const start = 'schedule_start_time' in values ? values.schedule_start_time : c.schedule_start_time;
  if (!errors.length && values.status === 'scheduled' && start === null)
    errors.push(
      err(
        'value_error',
        ['body', 'status'],
        'Value error, a scheduled campaign needs a schedule_start_time',
        'scheduled',
      ),
    );
  if (errors.length) return [422, { detail: errors }];
  if (values.name !== undefined && nameTaken(db, c.org_id, values.name, c.id))
    return [409, { detail: `A campaign named "${values.name}" already exists in this organization` }];
  const { recipients: rows, ...columns } = values;
  const changed = Object.entries(columns).filter(([k, v]) => JSON.stringify(c[k]) !== JSON.stringify(v));
  if (changed.length || rows?.length) {
    Object.assign(c, columns);
    if (columns.status === 'running' && c.started_at === null) c.started_at = nowIso();
    if (columns.status === 'completed') c.completed_at = nowIso();
    c.version += 1;
    c.updated_at = nowIso();
  }
  if (rows) upsertRecipients(db, c.id, rows);
  return [200, updateRecord(db, c)];
}

// ---------------------------------------------------------------------------------------------
// Other operations
// ---------------------------------------------------------------------------------------------

/** A query integer as Python's int() reads it: optional sign, leading zeros, surrounding blanks. */
function queryInt(raw, name, def, { min, max }) {
  if (raw === undefined) return { value: def };
  if (!/^\s*[+-]?\d+\s*$/.test(raw))
    return {
      error: err(
        'int_parsing',
        ['query', name],
        'Input should be a valid integer, unable to parse string as an integer',
        raw,
      ),
    };
  const big = BigInt(raw.trim());
  if (big < BigInt(min))
    return {
      error: err('greater_than_equal', ['query', name], `Input should be greater than or equal to ${min}`, raw, {
        ge: min,
      }),
    };
  if (big > max)
    return {
      error: err('less_than_equal', ['query', name], `Input should be less than or equal to ${max}`, raw, {
        le: String(max),
      }),
    };
  return { value: Number(big) };
}

const MAX_PAGE = 100;
function listCalls(db, ctx, query) {
  const limit = queryInt(query.get('limit'), 'limit', 50, { min: 0, max: INT8_MAX });
  const offset = queryInt(query.get('offset'), 'offset', 0, { min: 0, max: INT8_MAX });
  const errors = [offset.error, limit.error].filter(Boolean);
  if (errors.length) return [422, { detail: errors }];
  const provider = query.get('provider');
  const rows = db.calls
    .filter((c) => c.org_id === ctx.org.id && (provider === undefined || c.provider === provider))
    .sort((a, b) =>
      a.created_at === b.created_at ? Number(b.id) - Number(a.id) : a.created_at < b.created_at ? 1 : -1,
    );
  const page = rows.slice(offset.value, offset.value + Math.min(limit.value, MAX_PAGE));
  return [200, page];
}

const listAssistants = (db, ctx) => [
  200,
  [...db.assistants.values()]
    .filter((a) => a.org_id === ctx.org.id)
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || (a.id < b.id ? -1 : 1)),
];

function addRecipient(db, ctx, listId, body) {
  const { errors, values } = validateBody(body, {
    phone_number: [phone, { required: true }],
    metadata: [object, { nullable: true }],
  });
  if (errors.length) return [422, { detail: errors }];
  const table = db.recipients.get(listId);
  const old = table.get(values.phone_number);
  const now = nowIso();
  const row = {
    id: old?.id ?? String(++db.seq.recipient),
    recipient_list_id: listId,
    phone_number: values.phone_number,
    metadata: { ...(old?.metadata ?? {}), ...(values.metadata ?? {}) },
    created_at: old?.created_at ?? now,
    updated_at: now,
  };
  table.set(values.phone_number, row);
  return [old ? 200 : 201, { ...row, row_count: table.size }];
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
function createInvite(db, ctx, orgId, body) {
  const { errors, values } = validateBody(body, {
    email: [
      (v, loc) => {
        const r = text(v, loc, { max: 254 });
        if (r.error) return r;
        return EMAIL_RE.test(r.value)
          ? { value: r.value.toLowerCase() }
          : { error: err('value_error', loc, 'value is not a valid email address', v) };
      },
      { required: true },
    ],
    role: [oneOf(ROLES), { required: true }],
  });
  if (errors.length) return [422, { detail: errors }];
  const key = `${orgId}|${values.email}`;
  const old = db.invites.get(key);
  const invite = {
    id: old?.id ?? randomUUID(),
    org_id: orgId,
    email: values.email,
    role: values.role,
    invited_by: ctx.user.id,
    status: 'pending',
    expires_at: isoMicro(Date.now() + 72 * 3_600_000, microCounter++ % 1000),
    token: secret('inv_tok_', 40),
    created_at: old?.created_at ?? nowIso(),
  };
  db.invites.set(key, invite);
  return [old ? 200 : 201, invite];
}

function regenerateKey(db, ctx, keyId) {
  const key = db.keys.get(keyId);
  if (!key || key.user_id !== ctx.user.id) return [404, { detail: 'API key not found' }];
  const upgraded = key.legacy;
  key.secret = secret('rk_live_');
  key.legacy = false;
  return [
    200,
    { key: key.secret, id: key.id, name: key.name, upgraded, prefix: key.secret.slice(0, 12), rotated_at: nowIso() },
  ];
}

function me(db, ctx) {
  const orgs = [...db.orgs.values()]
    .filter((o) => db.members.has(`${o.id}|${ctx.user.id}`))
    .map((o) => ({ ...o, role: db.members.get(`${o.id}|${ctx.user.id}`) }));
  return [200, { user: { ...ctx.user }, orgs, default_org_id: ctx.user.default_org_id }];
}

// ---------------------------------------------------------------------------------------------
// Rate limiting: a sliding-window log per user (per client address before authentication)
// ---------------------------------------------------------------------------------------------

function rateLimiter(limit, windowMs) {
  const logs = new Map();
  return (bucket) => {
    const now = Date.now();
    const log = (logs.get(bucket) ?? []).filter((t) => t > now - windowMs);
    logs.set(bucket, log);
    const allowed = log.length < limit;
    if (allowed) log.push(now);
    const reset = log.length ? Math.max(1, Math.ceil((log[0] + windowMs - now) / 1000)) : 0;
    return { allowed, limit, remaining: Math.max(0, limit - log.length), reset };
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

const ROUTES = [
  { re: /^\/health$/, methods: { GET: 'health' } },
  { re: /^\/protected$/, methods: { GET: 'protected' } },
  { re: /^\/calls$/, methods: { GET: 'listCalls' } },
  { re: /^\/assistants$/, methods: { GET: 'listAssistants' } },
  { re: /^\/users\/me$/, methods: { GET: 'me' } },
  { re: /^\/campaign$/, methods: { POST: 'createCampaign' } },
  { re: /^\/campaign\/([^/]+)$/, methods: { GET: 'getCampaign', PATCH: 'updateCampaign' } },
  { re: /^\/recipient-lists\/([^/]+)\/recipients$/, methods: { POST: 'addRecipient' } },
  { re: /^\/orgs\/([^/]+)\/invites$/, methods: { POST: 'createInvite' } },
  { re: /^\/api-keys\/api-keys\/([^/]+)\/regenerate$/, methods: { POST: 'regenerateKey' } },
  { re: /^\/user-credentials\/user-credentials\/([^/]+)$/, methods: { OPTIONS: 'preflightCredential' } },
  { re: /^\/logs\/chat-logs\/([^/]+)$/, methods: { OPTIONS: 'preflightChatLog' } },
  { re: /^\/logs\/chat-sessions$/, methods: { OPTIONS: 'preflightSessions' } },
];
const BEARER_ONLY = new Set(['regenerateKey', 'preflightCredential', 'preflightChatLog', 'preflightSessions']);
const WITH_BODY = new Set(['createCampaign', 'updateCampaign', 'addRecipient', 'createInvite']);

function send(res, status, body, headers = {}) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c) => {
      size += c.length;
      if (size > 1_048_576) tooBig = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve({ tooBig, raw: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => resolve({ tooBig, raw: '' }));
  });
}

function parseJson(raw) {
  if (raw.trim() === '') return { error: [err('missing', ['body'], 'Field required', null)] };
  try {
    return { value: JSON.parse(raw) };
  } catch (e) {
    const at = Number(/position (\d+)/.exec(String(e.message))?.[1] ?? 0);
    return { error: [err('json_invalid', ['body', at], 'JSON decode error', {}, { error: 'Invalid JSON' })] };
  }
}

function authenticate(db, req, operation) {
  const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return null;
  const key = [...db.keys.values()].find((k) => k.secret === m[1]);
  if (!key) return null;
  const user = db.users.get(key.user_id);
  if (!BEARER_ONLY.has(operation) && req.headers['x-user-id'] !== user.id) return null;
  return { user, key, org: db.orgs.get(user.default_org_id) };
}

const PATH_ID = {
  getCampaign: ['campaign_id', ULID_RE],
  updateCampaign: ['campaign_id', ULID_RE],
  addRecipient: ['recipient_list_id', /^rl_[0-9A-HJKMNP-TV-Z]{26}$/],
  createInvite: ['org_id', /^org_[0-9A-HJKMNP-TV-Z]{26}$/],
  regenerateKey: ['key_id', /^key_[0-9A-HJKMNP-TV-Z]{26}$/],
};

/** A path id of the wrong shape for its column: 422 naming the path parameter (with body errors). */
function pathErrors(operation, id) {
  const rule = PATH_ID[operation];
  if (!rule || rule[1].test(id)) return [];
  return [
    err('string_pattern_mismatch', ['path', rule[0]], `${rule[0]} is not a valid identifier`, id, {
      pattern: rule[1].source,
    }),
  ];
}

async function handle(state, req, res, cors) {
  const { db } = state;
  const url = new URL(req.url ?? '/', 'http://records.invalid');
  const route = ROUTES.find((r) => r.re.test(url.pathname));
  const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'];
  if (!route) return send(res, 404, { detail: 'Not Found' }, cors);
  const operation = route.methods[req.method] ?? (preflight ? 'preflightAny' : undefined);
  if (!operation)
    return send(res, 405, { detail: 'Method Not Allowed' }, { ...cors, allow: Object.keys(route.methods).join(', ') });
  const id = safeDecode(route.re.exec(url.pathname)[1] ?? '');
  const isPreflight = operation.startsWith('preflight');
  const ctx = authenticate(db, req, operation);
  const rate = state.limiter(ctx ? `user:${ctx.user.id}` : `addr:${req.socket.remoteAddress}`);
  const headers = {
    ...cors,
    'x-ratelimit-limit': String(rate.limit),
    'x-ratelimit-remaining': String(rate.remaining),
    'x-ratelimit-reset': String(rate.reset),
  };
  if (!rate.allowed)
    return send(
      res,
      429,
      { detail: `Rate limit exceeded: ${rate.limit} requests per window; retry later` },
      { ...headers, 'retry-after': String(rate.reset) },
    );
  if (operation === 'health') return send(res, 200, health(state), headers);
  if (!ctx && !(isPreflight && !req.headers.authorization))
    return send(
      res,
      401,
      { detail: 'Invalid authentication credentials' },
      { ...headers, 'www-authenticate': 'Bearer' },
    );
  if (isPreflight) return preflightAnswer(res, req, headers, operation, id);
  let body;
  if (WITH_BODY.has(operation)) {
    const read = await readBody(req);
    if (read.tooBig) return send(res, 413, { detail: 'Request body too large (1 MB at most)' }, headers);
    const parsed = parseJson(read.raw);
    const path = pathErrors(operation, id);
    if (parsed.error) return send(res, 422, { detail: [...path, ...parsed.error] }, headers);
    body = parsed.value;
    if (path.length) {
      const bodyErrors = operation === 'updateCampaign' ? validateBody(body, UPDATE_COLUMNS).errors : [];
      return send(res, 422, { detail: [...path, ...bodyErrors] }, headers);
    }
  } else if (pathErrors(operation, id).length) return send(res, 422, { detail: pathErrors(operation, id) }, headers);
  const [status, out] = dispatch(db, ctx, operation, id, body, url.searchParams);
  if (process.env.RECORDS_TRACE)
    process.stderr.write(
      `${req.method} ${url.pathname}${url.search} ${JSON.stringify(body)?.slice(0, 400)} -> ${status} ${JSON.stringify(out).slice(0, 200)}\n`,
    );
  return send(res, status, out, headers);
}

function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function dispatch(db, ctx, operation, id, body, query) {
  const q = { get: (k) => (query.has(k) ? query.getAll(k).at(-1) : undefined) };
  const campaign = () => {
    const c = db.campaigns.get(id);
    return c && c.org_id === ctx.org.id ? c : null;
  };
  switch (operation) {
    case 'protected':
      return [200, { message: `Hello, ${ctx.user.id}! You reached a protected endpoint.`, user_id: ctx.user.id }];
    case 'listCalls':
      return listCalls(db, ctx, q);
    case 'listAssistants':
      return listAssistants(db, ctx);
    case 'me':
      return me(db, ctx);
    case 'createCampaign':
      return createCampaign(db, ctx, body);
    case 'getCampaign': {
      const c = campaign();
      if (!c) return [404, { detail: 'Campaign not found' }];
      return [200, { campaign: campaignRecord(db, c), counts: counts(db, c.id), calls: campaignCalls(db, c.id) }];
    }
    case 'updateCampaign': {
      const c = campaign();
      if (!c) return [404, { detail: 'Campaign not found' }];
      return updateCampaign(db, ctx, c, body);
    }
    case 'addRecipient': {
      const list = db.lists.get(id);
      if (!list || list.org_id !== ctx.org.id) return [404, { detail: 'Recipient list not found' }];
      return addRecipient(db, ctx, id, body);
    }
    case 'createInvite':
      if (!db.members.has(`${id}|${ctx.user.id}`)) return [404, { detail: 'Organization not found' }];
      return createInvite(db, ctx, id, body);
    case 'regenerateKey':
      return regenerateKey(db, ctx, id);
    default:
      return [500, { detail: 'unrouted operation' }];
  }
}

function health(state) {
  return {
    status: 'ok',
    multi_user: true,
    database: { connected: true, pool_in_use_percent: 50 },
    users: state.db.users.size,
    checked_at: nowIso(),
  };
}

function preflightAnswer(res, req, headers, operation, id) {
  const wanted = req.headers['access-control-request-method'];
  if (wanted !== undefined && !/^[A-Z]+$/.test(wanted) && operation !== 'preflightSessions')
    return send(
      res,
      422,
      {
        detail: [
          err('value_error', ['header', 'access-control-request-method'], 'Value error, not an HTTP method', wanted),
        ],
      },
      headers,
    );
  if (id && /[\u0000-\u001f]/.test(id))
    return send(
      res,
      422,
      { detail: [err('string_pattern_mismatch', ['path', 'id'], 'Identifier holds control characters', id)] },
      headers,
    );
  return send(
    res,
    200,
    { detail: 'OK' },
    {
      ...headers,
      'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
      'access-control-allow-headers':
        req.headers['access-control-request-headers'] ?? 'authorization, content-type, x-user-id',
      'access-control-max-age': '600',
    },
  );
}

export async function start({
  rateLimit = 100,
  rateWindowMs = 60_000,
  port = 0,
  host = '127.0.0.1',
  dialIntervalMs = 1000,
} = {}) {
  const { db, fixtures } = seed();
  const dialer = setInterval(() => dialTick(db), dialIntervalMs);
  dialer.unref();
  const state = { db, limiter: rateLimiter(rateLimit, rateWindowMs) };
  const server = createServer((req, res) => {
    const cors = {
      'access-control-allow-origin': req.headers.origin ?? '*',
      'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
      vary: 'Origin',
    };
    handle(state, req, res, cors).catch((e) => {
      if (process.env.RECORDS_DEBUG) process.stderr.write(`${req.method} ${req.url}: ${e.stack}\n`);
      if (!res.headersSent) send(res, 500, { detail: 'Internal Server Error' }, cors);
      else res.destroy();
    });
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  return {
    url: `http://${host}:${address.port}`,
    fixtures,
    /** One tick of the dialer now (what the interval does): for tests that need a call placed at a given moment. */
    dial: () => dialTick(db),
    close: () =>
      new Promise((resolve) => {
        clearInterval(dialer);
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name, def) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : def;
  };
  const s = await start({
    host: arg('host', '127.0.0.1'),
    port: Number(arg('port', 0)),
    rateLimit: Number(arg('rate-limit', 100)),
    rateWindowMs: Number(arg('rate-window-s', 60)) * 1000,
    dialIntervalMs: Number(arg('dial-interval-ms', 1000)),
  });
  process.stdout.write(`listening ${s.url}\nfixtures ${JSON.stringify(s.fixtures)}\n`);
}
