// STRICT independent implementation of the Voice-Agent Platform API contract (2.0.1).
// Written only from the contract text (/work/shared/seed/000_8298da82e2a63f1d.txt) and the
// strict brief; plain Node, no npm dependencies, no imports from the project.
// Where the contract is silent this server chooses the strict answer (see FINDINGS.md / the
// CHOICES list below).
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

// ---------------------------------------------------------------------------------------------
// Choices in silent areas (strict):
//  - providers: 'tel-alpha' and 'tel-beta'; channel must be one of them.
//  - POST /campaign requires name, assistant_id, phone_number_id, channel; assistant_id and
//    phone_number_id must name seeded records; recipient_list_id, when sent, a known list.
//  - unknown body members -> 422 extra_forbidden; no coercion; null is never accepted.
//  - speech_settings must carry exactly its four string members.
//  - recipients items need phone_number (string); metadata / assistant_overrides are objects.
//  - GET /calls: limit integer 1..100, offset integer >= 0, provider one of the two ids.
//  - create 201, PATCH 200 (update-shaped), recipient add 201, invite 201, regeneration 200.
//  - unknown campaign / recipient list / org / key id -> 404 {detail}.
//  - preflights: 204 with the CORS headers; valid bearer required (401 otherwise).
//  - X-User-ID must equal the key's user (401); on bearer-only operations it may be absent but,
//    when sent, must still be the key's user.
//  - X-RateLimit-Reset: Unix epoch seconds (fixed window). Headers on every response.
//  - 422 body: FastAPI/pydantic v2 shape.
//  - JSON bodies need Content-Type application/json (charset allowed); anything else -> 422.
//  - JSON nesting deeper than 64 levels -> 422; body over 1 MiB -> 413.
// ---------------------------------------------------------------------------------------------

const PROVIDERS = ['tel-alpha', 'tel-beta'];
const MAX_BODY = 1024 * 1024;
const MAX_DEPTH = 64;
const SPEECH_KEYS = ['style', 'responsiveness', 'interruptions', 'emotions'];
const UPDATE_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
const CORS_METHODS = 'GET, POST, PATCH, OPTIONS';
const CORS_HEADERS = 'Authorization, X-User-ID, Content-Type';

// ---------------------------------------------------------------------------------------------
// seed data
// ---------------------------------------------------------------------------------------------
function seed() {
  const userId = 'usr_strict_7f3a';
  const apiKey = 'sk_strict_' + randomBytes(18).toString('hex');
  const orgs = [
    {
      id: 'org_strict_main',
      name: 'Strict Main Org',
      slug: 'strict-main',
      role: 'owner',
      contact_email: 'owner@example.invalid',
    },
    {
      id: 'org_strict_side',
      name: 'Strict Side Org',
      slug: 'strict-side',
      role: 'developer',
      contact_email: 'side@example.invalid',
    },
  ];
  const phoneNumbers = [
    { id: 'pn_strict_a', number: '+15550100001', provider: PROVIDERS[0] },
    { id: 'pn_strict_b', number: '+15550100002', provider: PROVIDERS[1] },
  ];
  const assistant = (i, name, pn) => ({
    id: `asst_strict_${i}`,
    name,
    system_instruction: `You are ${name}, a helpful voice agent.`,
    voice: { voice_id: `voice_${i}`, tts_provider: 'tts-co', tts_model: 'tts-model-2', language: 'en-US', speed: 1 },
    llm: { llm_provider: 'llm-co', model: 'llm-model-large' },
    transcriber: { stt_provider: 'stt-co', stt_model: 'stt-model-1', language: 'en-US' },
    speech_settings: { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' },
    long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: 'Remember the caller.' },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarise the call.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['goodbye'],
      transfer_triggers: ['human please'],
      transfer_number: '+15550100099',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 30,
      confirm_yes: ['yes'],
      confirm_no: ['no'],
      webhook_url: 'https://hooks.example.invalid/strict',
      webhook_timeout_ms: 3500,
    },
    description: `${name} description`,
    first_message: 'Hello, how can I help?',
    knowledge_base_ids: [`kb_strict_${i}`],
    phone_number_id: pn,
    assistant_speaks_first: true,
  });
  const assistants = [
    assistant(1, 'Reception', 'pn_strict_a'),
    assistant(2, 'Sales', 'pn_strict_b'),
    assistant(3, 'Support', null),
  ];
  const calls = [];
  const base = Date.UTC(2026, 9, 1, 8, 0, 0);
  for (let i = 0; i < 90; i++) {
    const provider = i % 3 === 2 ? PROVIDERS[1] : PROVIDERS[0];
    const created = new Date(base + i * 3_600_000);
    const dur = 30 + ((i * 37) % 400);
    calls.push({
      id: `call_strict_${String(i).padStart(4, '0')}`,
      to_number: `+1555020${String(i % 100).padStart(4, '0')}`,
      provider,
      status: ['completed', 'failed', 'no-answer', 'completed', 'busy'][i % 5],
      phone_number_id: provider === PROVIDERS[0] ? 'pn_strict_a' : 'pn_strict_b',
      assistant_id: assistants[i % 3].id,
      from_number: provider === PROVIDERS[0] ? '+15550100001' : '+15550100002',
      provider_call_sid: `SID${provider.slice(-4).toUpperCase()}${i}`,
      direction: i % 4 === 0 ? 'inbound' : 'outbound',
      created_at: created.toISOString(),
      started_at: new Date(created.getTime() + 2000).toISOString(),
      ended_at: new Date(created.getTime() + 2000 + dur * 1000).toISOString(),
      ended_reason: 'hangup',
      duration_seconds: dur,
      timestamp: created.toISOString(),
      summary: `Call ${i} summary.`,
      user_messages: i % 9,
      agent_messages: (i % 9) + 1,
      recording_url: `https://rec.example.invalid/${i}.wav`,
      stereo_recording_url: `https://rec.example.invalid/${i}-stereo.wav`,
      recording_mp3_url: `https://rec.example.invalid/${i}.mp3`,
      stereo_recording_mp3_url: `https://rec.example.invalid/${i}-stereo.mp3`,
      latency_metrics: { avg_ms: 400 + i, p95_ms: 900 + i },
      per_turn_latency: [
        { turn: 1, ms: 350 },
        { turn: 2, ms: 420 },
      ],
      cost: Math.round(dur * 0.35) / 100,
      total_credits: dur,
      cost_breakdown: { llm: 0.01, tts: 0.02, stt: 0.01 },
      costs: [{ kind: 'llm', amount: 0.01 }],
      transcript: [
        { role: 'agent', text: 'Hello' },
        { role: 'user', text: 'Hi' },
      ],
    });
  }
  calls.reverse(); // newest first: a stable order
  const recipientLists = new Map([
    [
      'rl_strict_main',
      {
        id: 'rl_strict_main',
        name: 'Main contacts',
        recipients: [
          { id: 'rcp_1', phone_number: '+15550300001', metadata: {} },
          { id: 'rcp_2', phone_number: '+15550300002', metadata: {} },
        ],
      },
    ],
  ]);
  const apiKeys = new Map([
    ['key_strict_main', { id: 'key_strict_main', name: 'Strict main key', key: apiKey, user_id: userId }],
  ]);
  return {
    user: {
      id: userId,
      idp_user_id: 'idp|strict-0001',
      email: 'strict.user@example.invalid',
      name: 'Strict User',
      default_org_id: orgs[0].id,
    },
    orgs,
    phoneNumbers,
    assistants,
    calls,
    recipientLists,
    apiKeys,
    campaigns: new Map(),
    invites: [],
  };
}

// ---------------------------------------------------------------------------------------------
// validation helpers (pydantic v2-like error items)
// ---------------------------------------------------------------------------------------------
const err = (loc, msg, type, extra = {}) => ({ loc, msg, type, ...extra });
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function typeError(kind, v, loc) {
  switch (kind) {
    case 'string':
      return typeof v === 'string' ? null : err(loc, 'Input should be a valid string', 'string_type');
    case 'integer':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return null;
      if (typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v))
        return err(loc, 'Input should be a valid integer, got a number with a fractional part', 'int_from_float');
      return err(loc, 'Input should be a valid integer', 'int_type');
    case 'boolean':
      return typeof v === 'boolean' ? null : err(loc, 'Input should be a valid boolean', 'bool_type');
    case 'object':
      return isObj(v) ? null : err(loc, 'Input should be a valid dictionary', 'dict_type');
    case 'array':
      return Array.isArray(v) ? null : err(loc, 'Input should be a valid list', 'list_type');
    default:
      throw new Error('unknown kind ' + kind);
  }
}

/** Validate an object against {field: spec}; spec = {type, required?, min?, max?, enum?, check?}. */
function validateFields(obj, fields, loc, errors) {
  if (!isObj(obj)) {
    errors.push(
      err(loc, 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type'),
    );
    return;
  }
  for (const [name, spec] of Object.entries(fields)) {
    const l = [...loc, name];
    if (!Object.prototype.hasOwnProperty.call(obj, name)) {
      if (spec.required) errors.push(err(l, 'Field required', 'missing'));
      continue;
    }
    const v = obj[name];
    const te = typeError(spec.type, v, l);
    if (te) {
      errors.push(te);
      continue;
    }
    if (spec.min !== undefined && v < spec.min)
      errors.push(
        err(l, `Input should be greater than or equal to ${spec.min}`, 'greater_than_equal', { ctx: { ge: spec.min } }),
      );
    if (spec.max !== undefined && v > spec.max)
      errors.push(
        err(l, `Input should be less than or equal to ${spec.max}`, 'less_than_equal', { ctx: { le: spec.max } }),
      );
    if (spec.enum && !spec.enum.includes(v))
      errors.push(
        err(l, `Input should be ${spec.enum.map((e) => `'${e}'`).join(', ')}`, 'literal_error', {
          ctx: { expected: spec.enum.join(', ') },
        }),
      );
    if (spec.check) spec.check(v, l, errors);
  }
  for (const name of Object.keys(obj)) {
    if (!Object.prototype.hasOwnProperty.call(fields, name))
      errors.push(err([...loc, name], 'Extra inputs are not permitted', 'extra_forbidden'));
  }
}

const speechFields = Object.fromEntries(SPEECH_KEYS.map((k) => [k, { type: 'string', required: true }]));
const checkSpeech = (v, l, errors) => validateFields(v, speechFields, l, errors);
const recipientFields = {
  phone_number: { type: 'string', required: true },
  metadata: { type: 'object' },
  assistant_overrides: { type: 'object' },
};
const checkRecipients = (v, l, errors) =>
  v.forEach((item, i) => validateFields(item, recipientFields, [...l, i], errors));

function createFields(state, fault) {
  return {
    name: { type: 'string', required: true },
    assistant_id: {
      type: 'string',
      required: true,
      check: (v, l, e) => {
        if (!state.assistants.some((a) => a.id === v)) e.push(err(l, 'Unknown assistant', 'value_error'));
      },
    },
    phone_number_id: {
      type: 'string',
      required: true,
      check: (v, l, e) => {
        if (!state.phoneNumbers.some((p) => p.id === v)) e.push(err(l, 'Unknown phone number', 'value_error'));
      },
    },
    channel: { type: 'string', required: true, enum: PROVIDERS },
    scheduleStartTime: { type: 'string' },
    scheduleEndTime: { type: 'string' },
    max_concurrency: { type: 'integer', min: 1, max: 200 },
    retry_policy: { type: 'object' },
    speech_settings: { type: 'object', check: checkSpeech },
    campaign_context: { type: 'string' },
    opening_message_template: { type: 'string' },
    use_returning_greeting: { type: 'boolean' },
    use_short_term_summaries: { type: 'boolean' },
    short_term_summaries_limit: { type: 'integer' },
    machine_detection_timeout_seconds: {
      type: 'integer',
      min: 3,
      max: fault === 'mdts-no-upper-bound' ? undefined : 60,
    },
    recipient_list_id: {
      type: 'string',
      check: (v, l, e) => {
        if (!state.recipientLists.has(v)) e.push(err(l, 'Unknown recipient list', 'value_error'));
      },
    },
    recipients: { type: 'array', check: checkRecipients },
  };
}
const updateFields = {
  name: { type: 'string' },
  schedule_start_time: { type: 'string' },
  schedule_end_time: { type: 'string' },
  max_concurrency: { type: 'integer', min: 1, max: 200 },
  retry_policy: { type: 'object' },
  speech_settings: { type: 'object', check: checkSpeech },
  campaign_context: { type: 'string' },
  opening_message_template: { type: 'string' },
  use_returning_greeting: { type: 'boolean' },
  use_short_term_summaries: { type: 'boolean' },
  short_term_summaries_limit: { type: 'integer' },
  status: { type: 'string', enum: UPDATE_STATUSES },
  recipients: { type: 'array', check: checkRecipients },
};
const addRecipientFields = { phone_number: { type: 'string', required: true }, metadata: { type: 'object' } };
const inviteFields = { email: { type: 'string', required: true }, role: { type: 'string', required: true } };

/** Depth of a parsed JSON value, iteratively (no recursion on hostile input). */
function depthOf(root) {
  let max = 0;
  const stack = [[root, 1]];
  while (stack.length) {
    const [v, d] = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (d > max) max = d;
    if (max > MAX_DEPTH) return max;
    for (const k in v) stack.push([v[k], d + 1]);
  }
  return max;
}

/** Parse a JSON request body strictly. Returns {value} or {errors}. */
function parseJsonBody(req, raw) {
  if (raw.length === 0) return { errors: [err(['body'], 'Field required', 'missing')] };
  const ct = req.headers['content-type'];
  const media = typeof ct === 'string' ? ct.split(';')[0].trim().toLowerCase() : '';
  if (media !== 'application/json') {
    return {
      errors: [
        err(['body'], 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type'),
      ],
    };
  }
  const text = raw.toString('utf8');
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec(String(e && e.message));
    const pos = m ? Number(m[1]) : text.length;
    return {
      errors: [err(['body', pos], 'JSON decode error', 'json_invalid', { ctx: { error: String(e && e.message) } })],
    };
  }
  if (depthOf(value) > MAX_DEPTH)
    return { errors: [err(['body'], `JSON nesting deeper than ${MAX_DEPTH} levels`, 'value_error')] };
  return { value };
}

// ---------------------------------------------------------------------------------------------
// server
// ---------------------------------------------------------------------------------------------
/**
 * Optional deliberate faults (off by default), used only to probe whether the runner notices a
 * departure from a stated fact of the contract. Each breaks exactly one thing.
 */
export const FAULTS = {
  'unauth-message-silent': '401 body detail does not say the credentials are invalid (contract 7)',
  'ratelimit-message-silent': '429 body detail does not say the rate limit was exceeded (contract 7)',
  'no-ratelimit-headers-on-errors': 'X-RateLimit-* absent on 401/404/422 responses (contract 8)',
  'ratelimit-remaining-stuck': 'X-RateLimit-Remaining never goes down (contract 8)',
  'calls-offset-ignored': 'GET /calls ignores offset (contract 4.1)',
  'calls-default-limit-20': 'GET /calls default page of 20 instead of 50 (contract 4.1, 8)',
  'calls-provider-ignored': 'GET /calls ignores provider (contract 4.1)',
  'patch-full-record': 'PATCH answers the full record incl. counts (contract 2.2 last paragraph)',
  'create-drops-schedule': 'POST /campaign does not store scheduleStartTime/scheduleEndTime (contract 4.2, 2.2)',
  'mdts-no-upper-bound': 'machine_detection_timeout_seconds above 60 accepted (contract 8)',
  'wrong-user-accepted': 'X-User-ID value not checked (contract 5.1, 5.2)',
  'health-text-plain': 'GET /health answers text/plain (contract 4.10)',
  'invite-no-token': 'invite response lacks token (contract 2.5)',
  'regen-new-key-dead': 'regenerated key is returned but does not work (contract 2.7)',
  'loc-without-location': '422 loc lacks the body/query location item (contract 2.8 shape kept)',
  'protected-message-no-user': 'GET /protected message lacks the user id (contract 4.12)',
  'get-campaign-no-counts': 'GET /campaign/{id} lacks counts and calls (contract 4.3)',
  'preflight-no-allow-headers': 'preflight without Access-Control-Allow-Headers',
  'patch-not-persisted': 'PATCH answers the change but a later GET shows the old values (contract 4.4)',
  'status-enum-open': 'PATCH accepts any status string (contract 3.1, 4.4)',
};

export async function start({ host = '127.0.0.1', port = 0, rateLimit = 100, rateWindowMs = 60000, fault } = {}) {
  if (fault !== undefined && !Object.prototype.hasOwnProperty.call(FAULTS, fault))
    throw new Error(`unknown fault ${fault}`);
  const F = (name) => fault === name;
  const state = seed();
  const buckets = new Map();
  const sockets = new Set();

  function rateHeaders(bucketKey) {
    const now = Date.now();
    let b = buckets.get(bucketKey);
    if (!b || now >= b.start + rateWindowMs) {
      b = { start: now, count: 0 };
      buckets.set(bucketKey, b);
    }
    b.count += 1;
    const exceeded = b.count > rateLimit;
    const headers = {
      'X-RateLimit-Limit': String(rateLimit),
      'X-RateLimit-Remaining': String(
        F('ratelimit-remaining-stuck') ? rateLimit - 1 : Math.max(0, rateLimit - b.count),
      ),
      'X-RateLimit-Reset': String(Math.ceil((b.start + rateWindowMs) / 1000)),
    };
    if (exceeded) headers['Retry-After'] = String(Math.max(1, Math.ceil((b.start + rateWindowMs - now) / 1000)));
    return { headers, exceeded };
  }

  function keyByValue(token) {
    for (const k of state.apiKeys.values()) if (k.key === token) return k;
    return null;
  }

  /** The API key named by an exactly-formed Authorization header, or null. */
  function bearerKey(req) {
    const h = req.headers.authorization;
    if (typeof h !== 'string' || !h.startsWith('Bearer ')) return null;
    const token = h.slice(7);
    if (token.length === 0 || /\s/.test(token)) return null;
    return keyByValue(token);
  }

  const routes = [
    { method: 'GET', re: /^\/health$/, auth: 'none', handler: health },
    { method: 'GET', re: /^\/calls$/, auth: 'full', handler: listCalls },
    { method: 'POST', re: /^\/campaign$/, auth: 'full', body: true, handler: createCampaign },
    { method: 'GET', re: /^\/campaign\/([^/]+)$/, auth: 'full', handler: getCampaign },
    { method: 'PATCH', re: /^\/campaign\/([^/]+)$/, auth: 'full', body: true, handler: updateCampaign },
    { method: 'POST', re: /^\/recipient-lists\/([^/]+)\/recipients$/, auth: 'full', body: true, handler: addRecipient },
    { method: 'POST', re: /^\/orgs\/([^/]+)\/invites$/, auth: 'full', body: true, handler: createInvite },
    { method: 'GET', re: /^\/users\/me$/, auth: 'full', handler: usersMe },
    { method: 'GET', re: /^\/assistants$/, auth: 'full', handler: listAssistants },
    {
      method: 'POST',
      re: /^\/api-keys\/api-keys\/([^/]+)\/regenerate$/,
      auth: 'bearer',
      noBody: true,
      handler: regenerateKey,
    },
    { method: 'GET', re: /^\/protected$/, auth: 'full', handler: protectedRoute },
    { method: 'OPTIONS', re: /^\/user-credentials\/user-credentials\/([^/]+)$/, auth: 'bearer', handler: preflight },
    { method: 'OPTIONS', re: /^\/logs\/chat-logs\/([^/]+)$/, auth: 'bearer', handler: preflight },
    { method: 'OPTIONS', re: /^\/logs\/chat-sessions$/, auth: 'bearer', handler: preflight },
  ];

  // ---- handlers: each returns [status, body|undefined, extraHeaders?] ----
  function health() {
    return [200, { status: 'ok', multi_user: true, resource_usage: { memory_percent: 50 } }];
  }

  function listCalls(ctx) {
    const errors = [];
    const q = ctx.url.searchParams;
    const intParam = (name, def, min, max) => {
      if (!q.has(name)) return def;
      const all = q.getAll(name);
      const s = all[all.length - 1];
      if (!/^-?\d+$/.test(s) || !Number.isSafeInteger(Number(s))) {
        errors.push(
          err(['query', name], 'Input should be a valid integer, unable to parse string as an integer', 'int_parsing'),
        );
        return def;
      }
      const n = Number(s);
      if (n < min)
        errors.push(
          err(['query', name], `Input should be greater than or equal to ${min}`, 'greater_than_equal', {
            ctx: { ge: min },
          }),
        );
      else if (max !== undefined && n > max)
        errors.push(
          err(['query', name], `Input should be less than or equal to ${max}`, 'less_than_equal', { ctx: { le: max } }),
        );
      return n;
    };
    const limit = intParam('limit', F('calls-default-limit-20') ? 20 : 50, 1, 100);
    const offset = intParam('offset', 0, 0, undefined);
    let provider = null;
    if (q.has('provider')) {
      const all = q.getAll('provider');
      provider = all[all.length - 1];
      if (!PROVIDERS.includes(provider))
        errors.push(
          err(['query', 'provider'], `Input should be ${PROVIDERS.map((p) => `'${p}'`).join(' or ')}`, 'literal_error'),
        );
    }
    if (errors.length) return [422, { detail: errors }];
    if (F('calls-provider-ignored')) provider = null;
    const list = provider ? state.calls.filter((c) => c.provider === provider) : state.calls;
    const from = F('calls-offset-ignored') ? 0 : offset;
    return [200, list.slice(from, from + limit)];
  }

  function recordOf(c) {
    const assistant = state.assistants.find((a) => a.id === c.assistant_id);
    const pn = state.phoneNumbers.find((p) => p.id === c.phone_number_id);
    const rl = c.recipient_list_id ? state.recipientLists.get(c.recipient_list_id) : null;
    return {
      id: c.id,
      name: c.name,
      assistant_id: c.assistant_id,
      assistant_name: assistant ? assistant.name : null,
      channel: c.channel,
      phone_number_id: c.phone_number_id,
      caller_id_number: pn ? pn.number : null,
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
      recipient_list_id: c.recipient_list_id,
      recipient_list_name: rl ? rl.name : null,
      recipient_list_row_count: rl ? rl.recipients.length : null,
      counts: countsOf(c),
      created_at: c.created_at,
      updated_at: c.updated_at,
    };
  }
  function countsOf(c) {
    const rl = c.recipient_list_id ? state.recipientLists.get(c.recipient_list_id) : null;
    return {
      recipients: c.recipients.length + (rl ? rl.recipients.length : 0),
      calls_total: 0,
      calls_completed: 0,
      calls_failed: 0,
      calls_pending: 0,
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
  function updateRecordOf(c) {
    const r = recordOf(c);
    for (const k of UPDATE_OMITS) delete r[k];
    return r;
  }
  const orNull = (v) => (v === undefined ? null : v);

  function createCampaign(ctx) {
    const errors = [];
    const b = ctx.body;
    validateFields(b, createFields(state, fault), ['body'], errors);
    if (errors.length) return [422, { detail: errors }];
    const now = new Date().toISOString();
    const c = {
      id: 'cmp_' + randomUUID(),
      name: b.name,
      assistant_id: b.assistant_id,
      channel: b.channel,
      phone_number_id: b.phone_number_id,
      status: 'draft',
      max_concurrency: orNull(b.max_concurrency),
      retry_policy: orNull(b.retry_policy),
      speech_settings: orNull(b.speech_settings),
      schedule_start_time: F('create-drops-schedule') ? null : orNull(b.scheduleStartTime),
      schedule_end_time: F('create-drops-schedule') ? null : orNull(b.scheduleEndTime),
      campaign_context: orNull(b.campaign_context),
      opening_message_template: orNull(b.opening_message_template),
      use_returning_greeting: orNull(b.use_returning_greeting),
      use_short_term_summaries: orNull(b.use_short_term_summaries),
      short_term_summaries_limit: orNull(b.short_term_summaries_limit),
      machine_detection_timeout_seconds: orNull(b.machine_detection_timeout_seconds),
      recipient_list_id: orNull(b.recipient_list_id),
      recipients: b.recipients ?? [],
      created_at: now,
      updated_at: now,
    };
    state.campaigns.set(c.id, c);
    return [201, recordOf(c)];
  }

  function getCampaign(ctx) {
    const c = state.campaigns.get(ctx.params[0]);
    if (!c) return [404, { detail: 'Campaign not found' }];
    if (F('get-campaign-no-counts')) return [200, { campaign: recordOf(c) }];
    return [200, { campaign: recordOf(c), counts: countsOf(c), calls: [] }];
  }

  function updateCampaign(ctx) {
    const errors = [];
    const b = ctx.body;
    validateFields(
      b,
      F('status-enum-open') ? { ...updateFields, status: { type: 'string' } } : updateFields,
      ['body'],
      errors,
    );
    if (errors.length) return [422, { detail: errors }];
    const stored = state.campaigns.get(ctx.params[0]);
    if (!stored) return [404, { detail: 'Campaign not found' }];
    const c = F('patch-not-persisted') ? { ...stored } : stored;
    for (const [k, v] of Object.entries(b)) c[k] = v;
    c.updated_at = new Date().toISOString();
    return [200, F('patch-full-record') ? recordOf(c) : updateRecordOf(c)];
  }

  function addRecipient(ctx) {
    const errors = [];
    validateFields(ctx.body, addRecipientFields, ['body'], errors);
    if (errors.length) return [422, { detail: errors }];
    const rl = state.recipientLists.get(ctx.params[0]);
    if (!rl) return [404, { detail: 'Recipient list not found' }];
    const r = {
      id: 'rcp_' + randomUUID(),
      recipient_list_id: rl.id,
      phone_number: ctx.body.phone_number,
      metadata: ctx.body.metadata ?? {},
      created_at: new Date().toISOString(),
    };
    rl.recipients.push(r);
    return [201, { ...r, row_count: rl.recipients.length }];
  }

  function createInvite(ctx) {
    const errors = [];
    validateFields(ctx.body, inviteFields, ['body'], errors);
    if (errors.length) return [422, { detail: errors }];
    const org = state.orgs.find((o) => o.id === ctx.params[0]);
    if (!org) return [404, { detail: 'Organization not found' }];
    const invite = {
      id: 'inv_' + randomUUID(),
      email: ctx.body.email,
      role: ctx.body.role,
      expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      token: 'invtok_' + randomBytes(24).toString('hex'),
    };
    // The token is a secret: kept only as a fingerprint, returned once, here.
    state.invites.push({
      id: invite.id,
      org_id: org.id,
      email: invite.email,
      role: invite.role,
      expires_at: invite.expires_at,
    });
    if (F('invite-no-token')) delete invite.token;
    return [201, invite];
  }

  function usersMe() {
    return [
      200,
      { user: { ...state.user }, orgs: state.orgs.map((o) => ({ ...o })), default_org_id: state.user.default_org_id },
    ];
  }

  function listAssistants() {
    return [200, state.assistants];
  }

  function regenerateKey(ctx) {
    const k = state.apiKeys.get(ctx.params[0]);
    if (!k || k.user_id !== ctx.key.user_id) return [404, { detail: 'API key not found' }];
    k.key = 'sk_strict_' + randomBytes(18).toString('hex');
    if (F('regen-new-key-dead'))
      return [200, { key: 'sk_strict_' + randomBytes(18).toString('hex'), id: k.id, name: k.name, upgraded: false }];
    return [200, { key: k.key, id: k.id, name: k.name, upgraded: false }];
  }

  function protectedRoute(ctx) {
    const message = F('protected-message-no-user')
      ? 'Hello! This is a protected endpoint.'
      : `Hello, ${ctx.key.user_id}! This is a protected endpoint.`;
    return [200, { message, user_id: ctx.key.user_id }];
  }

  function preflight() {
    const h = {
      'Access-Control-Allow-Methods': CORS_METHODS,
      'Access-Control-Allow-Headers': CORS_HEADERS,
      'Access-Control-Max-Age': '600',
    };
    if (F('preflight-no-allow-headers')) delete h['Access-Control-Allow-Headers'];
    return [204, undefined, h];
  }

  // ---- dispatch ----
  function send(res, status, body, headers) {
    if (F('no-ratelimit-headers-on-errors') && [401, 404, 422].includes(status)) {
      headers = { ...headers };
      for (const k of Object.keys(headers)) if (k.startsWith('X-RateLimit-')) delete headers[k];
    }
    if (F('loc-without-location') && status === 422 && Array.isArray(body?.detail)) {
      body = { detail: body.detail.map((d) => ({ ...d, loc: d.loc.slice(1) })) };
    }
    const h = {
      ...headers,
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    };
    if (body === undefined) {
      res.writeHead(status, h);
      res.end();
      return;
    }
    const text = JSON.stringify(body);
    h['Content-Type'] =
      F('health-text-plain') && status === 200 && body && body.status === 'ok' ? 'text/plain' : 'application/json';
    h['Content-Length'] = String(Buffer.byteLength(text));
    res.writeHead(status, h);
    res.end(text);
  }

  function readBody(req) {
    return new Promise((resolve) => {
      const chunks = [];
      let size = 0;
      let over = false;
      req.on('data', (c) => {
        if (over) return;
        size += c.length;
        if (size > MAX_BODY) {
          over = true;
          chunks.length = 0;
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
      req.on('error', () => resolve(null));
      req.on('aborted', () => resolve(null));
    });
  }

  async function handle(req, res) {
    const raw = await readBody(req);
    const key = bearerKey(req);
    const bucket = key ? `key:${key.id}` : `addr:${req.socket.remoteAddress}`;
    const rl = rateHeaders(bucket);
    const H = rl.headers;
    if (rl.exceeded)
      return send(
        res,
        429,
        {
          detail: F('ratelimit-message-silent')
            ? 'Slow down'
            : 'Rate limit exceeded: too many requests, try again after the reset',
        },
        H,
      );
    if (raw === null) return send(res, 413, { detail: 'Request body too large' }, H);

    let url;
    try {
      url = new URL(req.url, 'http://localhost');
    } catch {
      return send(res, 404, { detail: 'Not Found' }, H);
    }
    let match = null;
    const allowed = [];
    for (const r of routes) {
      const m = r.re.exec(url.pathname);
      if (!m) continue;
      if (r.method === req.method) {
        match = { r, m };
        break;
      }
      allowed.push(r.method);
    }
    if (!match) {
      if (allowed.length) return send(res, 405, { detail: 'Method Not Allowed' }, { ...H, Allow: allowed.join(', ') });
      return send(res, 404, { detail: 'Not Found' }, H);
    }
    const { r, m } = match;
    let params;
    try {
      params = m.slice(1).map((p) => decodeURIComponent(p));
    } catch {
      return send(res, 404, { detail: 'Not Found' }, H);
    }

    if (r.auth !== 'none') {
      const uid = req.headers['x-user-id'];
      const uidOk = F('wrong-user-accepted')
        ? r.auth !== 'full' || (typeof uid === 'string' && uid !== '')
        : r.auth === 'full'
          ? uid === key?.user_id
          : uid === undefined || uid === key?.user_id;
      const ok = key && uidOk;
      if (!ok)
        return send(
          res,
          401,
          { detail: F('unauth-message-silent') ? 'No.' : 'Invalid authentication credentials' },
          { ...H, 'WWW-Authenticate': 'Bearer' },
        );
    }

    const ctx = { url, params, key, body: undefined };
    if (r.body) {
      const parsed = parseJsonBody(req, raw);
      if (parsed.errors) return send(res, 422, { detail: parsed.errors }, H);
      ctx.body = parsed.value;
    } else if (r.noBody && raw.length > 0) {
      return send(res, 422, { detail: [err(['body'], 'This operation takes no request body', 'extra_forbidden')] }, H);
    }
    const [status, body, extra] = r.handler(ctx);
    return send(res, status, body, { ...H, ...extra });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { detail: 'Internal Server Error' }, {});
      else res.destroy();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('clientError', (e, socket) => {
    if (socket.writable)
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 26\r\n\r\n{"detail":"Bad Request"}\r\n',
      );
    else socket.destroy();
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address();
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`;
  const mainKey = state.apiKeys.get('key_strict_main');
  const fixtures = {
    get api_key() {
      return mainKey.key;
    },
    user_id: state.user.id,
    org_id: state.orgs[0].id,
    recipient_list_id: 'rl_strict_main',
    api_key_id: mainKey.id,
    channels: [...PROVIDERS],
  };
  async function close() {
    server.closeAllConnections();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(() => resolve()));
  }
  return { url, fixtures, close };
}

// ---- CLI ----
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const opt = (name, def) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : def;
  };
  const s = await start({
    host: opt('--host', '127.0.0.1'),
    port: Number(opt('--port', '4020')),
    rateLimit: Number(opt('--rate-limit', '100')),
    rateWindowMs: Number(opt('--rate-window-ms', '60000')),
    fault: opt('--fault', undefined),
  });
  const f = s.fixtures;
  console.log(`listening ${s.url}`);
  console.log(
    `fixtures ${JSON.stringify({ api_key: f.api_key, user_id: f.user_id, org_id: f.org_id, recipient_list_id: f.recipient_list_id, api_key_id: f.api_key_id, channels: f.channels })}`,
  );
  const stop = () => {
    s.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
