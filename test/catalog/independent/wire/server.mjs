// "wire": an independent implementation of the Voice-Agent Platform API, written from the contract
// text alone (/work/shared/seed/000_8298da82e2a63f1d.txt). Its distinctive choices are at the HTTP
// level (compressed and chunked bodies, header case, Connection: close, ETags, HEAD, 405, pretty
// JSON with \u escapes...): see CHOICES.md. Plain node:http, no dependency.
//
//   node server.mjs [--host H] [--port P] [--rate-limit N] [--rate-window-s S]
//   import { start } from './server.mjs'; const s = await start({ rateLimit, rateWindowMs });
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES } from 'node:http';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

const CHANNELS = ['twilio', 'vonage'];
const STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
const SPEECH_MEMBERS = ['style', 'responsiveness', 'interruptions', 'emotions'];
const COMPRESS_FROM_BYTES = 512;
const MAX_BODY_BYTES = 2 * 1024 * 1024;
const MAX_LIMIT = 1000;
// The longest request-target served, as Apache's LimitRequestLine (8190) or nginx's 8k buffers.
const MAX_TARGET_BYTES = 8190;
// Enough calls that the largest page (limit 1000) is about 1.4 MB of JSON.
const CALLS = 1200;

// ---------------------------------------------------------------------------------------------
// Serialisation: keys sorted, two-space indent, CRLF line breaks and a trailing one (as .NET on
// Windows writes indented JSON), non-ASCII as \uXXXX and
// slashes as \/ (as PHP's json_encode writes them).

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys(value[k]);
    return out;
  }
  return value;
}

export function serialise(value) {
  const text = JSON.stringify(sortKeys(value), null, 2)
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/')
    .replace(/\n/g, '\r\n');
  return `${text}\r\n`;
}

// ---------------------------------------------------------------------------------------------
// Content negotiation of the coding (RFC 9110 12.5.3): no Accept-Encoding means any coding is
// acceptable, so gzip is used; otherwise the acceptable coding of highest q (br, gzip, deflate in
// this order on a tie), identity when none is.

function codingOf(header) {
  if (header === undefined) return 'gzip';
  const q = new Map();
  for (const part of String(header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const v = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(v) ? v : 0);
  }
  let best = 'identity';
  let bestQ = 0;
  for (const c of ['br', 'gzip', 'deflate']) {
    const v = q.has(c) ? q.get(c) : q.has('*') ? q.get('*') : 0;
    if (v > bestQ) {
      best = c;
      bestQ = v;
    }
  }
  return best;
}

const ENCODERS = { br: brotliCompressSync, gzip: gzipSync, deflate: deflateSync };

// ---------------------------------------------------------------------------------------------
// The store.

const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
const tok = (prefix, n = 8) => `${prefix}${randomBytes(n).toString('hex')}`;

function assistantRecord(id, name, phoneNumberId, language) {
  return {
    id,
    name,
    system_instruction: `Tu es ${name}. Réponds brièvement, poliment.`,
    description: phoneNumberId ? 'Réception — appels entrants' : null,
    first_message: phoneNumberId ? 'Bonjour ! Comment puis-je vous aider ?' : null,
    knowledge_base_ids: phoneNumberId ? ['kb_wire_1'] : [],
    phone_number_id: phoneNumberId,
    assistant_speaks_first: phoneNumberId ? true : null,
    voice: { voice_id: 'v_amelie', tts_provider: 'tts-a', tts_model: 'tts-2', language, speed: 1 },
    llm: { llm_provider: 'llm-a', model: 'model-m' },
    transcriber: { stt_provider: 'stt-a', stt_model: 'stt-3', language },
    speech_settings: { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' },
    long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: 'Résume.' },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Résumé de l’appel en une phrase.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['au revoir'],
      transfer_triggers: ['un humain'],
      transfer_number: '+33140000000',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 20,
      confirm_yes: ['oui'],
      confirm_no: ['non'],
      webhook_url: 'https://hooks.example.invalid/wire',
      webhook_timeout_ms: 3500,
    },
  };
}

function callRecord(i, base) {
  const provider = CHANNELS[i % 2];
  const started = base - i * 3_600_000;
  const duration = 30 + ((i * 37) % 400);
  return {
    id: `call_wire_${String(i).padStart(4, '0')}`,
    to_number: `+3361234${String(i).padStart(4, '0')}`,
    provider,
    status: i % 7 === 0 ? 'failed' : 'completed',
    phone_number_id: i % 2 === 0 ? 'pn_wire_1' : 'pn_wire_2',
    assistant_id: 'asst_wire_1',
    from_number: i % 2 === 0 ? '+33140000001' : '+33140000002',
    provider_call_sid: `sid-${provider}-${i}`,
    direction: i % 3 === 0 ? 'inbound' : 'outbound',
    created_at: iso(started - 1000),
    started_at: iso(started),
    ended_at: iso(started + duration * 1000),
    ended_reason: i % 7 === 0 ? 'no-answer' : 'hangup',
    duration_seconds: duration,
    timestamp: iso(started),
    summary: `Appel n°${i} — le client a demandé un rappel.`,
    user_messages: i % 9,
    agent_messages: (i % 9) + 1,
    recording_url: i % 4 === 0 ? null : `https://rec.example.invalid/${i}.wav`,
    stereo_recording_url: null,
    recording_mp3_url: i % 4 === 0 ? null : `https://rec.example.invalid/${i}.mp3`,
    stereo_recording_mp3_url: null,
    latency_metrics: { p50_ms: 400 + i, p95_ms: 900 + i },
    per_turn_latency: [410, 380 + (i % 50)],
    cost: i % 5 === 0 ? 0 : i % 11 === 0 ? 1e-7 : Math.round(duration * 0.35) / 100,
    total_credits: duration * 2,
    cost_breakdown: { llm: 1, tts: 2, stt: 1 },
    costs: [{ kind: 'llm', amount: 0.01 }],
    transcript: [
      { role: 'agent', text: 'Bonjour !' },
      { role: 'user', text: 'Où êtes-vous ?' },
    ],
  };
}

function newStore() {
  const now = Date.now();
  const apiKey = tok('vk_wire_', 16);
  const store = {
    userId: 'usr_wire_1',
    keys: new Map(), // id -> { id, name, secret, userId }
    orgs: new Map([
      [
        'org_wire_1',
        { id: 'org_wire_1', name: 'Café Wire', slug: 'cafe-wire', role: 'owner', contact_email: 'ops@wire.example' },
      ],
    ]),
    recipientLists: new Map([['rl_wire_1', { id: 'rl_wire_1', name: 'Clients été', rows: [] }]]),
    assistants: [
      assistantRecord('asst_wire_1', 'Amélie', 'pn_wire_1', 'fr-FR'),
      assistantRecord('asst_wire_2', 'Zoë', null, 'en-GB'),
    ],
    calls: Array.from({ length: CALLS }, (_, i) => callRecord(i, now)),
    campaigns: new Map(),
    invites: [],
  };
  store.keys.set('key_wire_main', { id: 'key_wire_main', name: 'main', secret: apiKey, userId: store.userId });
  store.keys.set('key_wire_spare', {
    id: 'key_wire_spare',
    name: 'spare',
    secret: tok('vk_wire_', 16),
    userId: store.userId,
  });
  return store;
}

// ---------------------------------------------------------------------------------------------
// Validation (2.8 body): every issue of a body in one 422.

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v) => typeof v === 'number' && Number.isInteger(v);

class Issues {
  constructor() {
    this.list = [];
  }
  add(loc, msg, type) {
    this.list.push({ loc, msg, type });
  }
  string(body, field, loc = ['body', field]) {
    if (field in body && typeof body[field] !== 'string')
      this.add(loc, 'Input should be a valid string', 'string_type');
  }
  bool(body, field) {
    if (field in body && typeof body[field] !== 'boolean')
      this.add(['body', field], 'Input should be a valid boolean', 'bool_type');
  }
  object(body, field, loc = ['body', field]) {
    if (field in body && !isObj(body[field])) this.add(loc, 'Input should be a valid dictionary', 'dict_type');
  }
  int(body, field, min, max) {
    if (!(field in body)) return;
    const v = body[field];
    if (!isInt(v)) return this.add(['body', field], 'Input should be a valid integer', 'int_type');
    if (min !== undefined && v < min)
      this.add(['body', field], `Input should be greater than or equal to ${min}`, 'greater_than_equal');
    else if (max !== undefined && v > max)
      this.add(['body', field], `Input should be less than or equal to ${max}`, 'less_than_equal');
  }
  speech(body) {
    if (!('speech_settings' in body)) return;
    const s = body.speech_settings;
    if (!isObj(s)) return this.add(['body', 'speech_settings'], 'Input should be a valid dictionary', 'dict_type');
    for (const m of SPEECH_MEMBERS) this.string(s, m, ['body', 'speech_settings', m]);
  }
  recipients(body) {
    if (!('recipients' in body)) return;
    const list = body.recipients;
    if (!Array.isArray(list)) return this.add(['body', 'recipients'], 'Input should be a valid list', 'list_type');
    list.forEach((r, i) => {
      const loc = ['body', 'recipients', i];
      if (!isObj(r)) return this.add(loc, 'Input should be a valid dictionary', 'dict_type');
      if (!('phone_number' in r)) this.add([...loc, 'phone_number'], 'Field required', 'missing');
      this.string(r, 'phone_number', [...loc, 'phone_number']);
      this.object(r, 'metadata', [...loc, 'metadata']);
      this.object(r, 'assistant_overrides', [...loc, 'assistant_overrides']);
    });
  }
}

const COMMON_STRINGS = ['name', 'campaign_context', 'opening_message_template'];
const COMMON_BOOLS = ['use_returning_greeting', 'use_short_term_summaries'];

function commonIssues(body, issues) {
  for (const f of COMMON_STRINGS) issues.string(body, f);
  for (const f of COMMON_BOOLS) issues.bool(body, f);
  issues.int(body, 'max_concurrency', 1, 200);
  issues.int(body, 'short_term_summaries_limit');
  issues.object(body, 'retry_policy');
  issues.speech(body);
  issues.recipients(body);
}

function createIssues(body) {
  const issues = new Issues();
  for (const f of ['name', 'assistant_id', 'phone_number_id', 'channel'])
    if (!(f in body)) issues.add(['body', f], 'Field required', 'missing');
  for (const f of [
    'assistant_id',
    'phone_number_id',
    'channel',
    'scheduleStartTime',
    'scheduleEndTime',
    'recipient_list_id',
  ])
    issues.string(body, f);
  if (typeof body.channel === 'string' && !CHANNELS.includes(body.channel))
    issues.add(['body', 'channel'], `Input should be ${CHANNELS.map((c) => `'${c}'`).join(' or ')}`, 'enum');
  issues.int(body, 'machine_detection_timeout_seconds', 3, 60);
  commonIssues(body, issues);
  return issues.list;
}

function updateIssues(body) {
  const issues = new Issues();
  for (const f of ['schedule_start_time', 'schedule_end_time']) issues.string(body, f);
  issues.string(body, 'status');
  if (typeof body.status === 'string' && !STATUSES.includes(body.status))
    issues.add(['body', 'status'], `Input should be ${STATUSES.map((c) => `'${c}'`).join(', ')}`, 'enum');
  commonIssues(body, issues);
  return issues.list;
}

// ---------------------------------------------------------------------------------------------
// Campaign records.

const UPDATE_OMITS = [
  'assistant_name',
  'machine_detection_timeout_seconds',
  'recipient_list_id',
  'recipient_list_name',
  'recipient_list_row_count',
  'counts',
];

function campaignFromCreate(store, body) {
  const now = iso(Date.now());
  const assistant = store.assistants.find((a) => a.id === body.assistant_id);
  const list =
    typeof body.recipient_list_id === 'string' ? store.recipientLists.get(body.recipient_list_id) : undefined;
  const recipients = Array.isArray(body.recipients) ? body.recipients : [];
  return {
    id: `cmp_${randomUUID()}`,
    name: body.name,
    assistant_id: body.assistant_id,
    assistant_name: assistant ? assistant.name : null,
    channel: body.channel,
    phone_number_id: body.phone_number_id,
    caller_id_number: body.channel === CHANNELS[0] ? '+33140000001' : '+33140000002',
    status: 'draft',
    max_concurrency: body.max_concurrency ?? 5,
    retry_policy: body.retry_policy ?? { attempts: 1 },
    speech_settings: body.speech_settings ?? { ...store.assistants[0].speech_settings },
    schedule_start_time: body.scheduleStartTime ?? null,
    schedule_end_time: body.scheduleEndTime ?? null,
    campaign_context: body.campaign_context ?? '',
    opening_message_template: body.opening_message_template ?? '',
    use_returning_greeting: body.use_returning_greeting ?? false,
    use_short_term_summaries: body.use_short_term_summaries ?? false,
    short_term_summaries_limit: body.short_term_summaries_limit ?? 3,
    machine_detection_timeout_seconds: body.machine_detection_timeout_seconds ?? 20,
    recipient_list_id: body.recipient_list_id ?? null,
    recipient_list_name: list ? list.name : null,
    recipient_list_row_count: list ? list.rows.length : null,
    counts: { total: recipients.length, pending: recipients.length, completed: 0, failed: 0 },
    recipients,
    created_at: now,
    updated_at: now,
  };
}

const UPDATABLE = [
  ...COMMON_STRINGS,
  ...COMMON_BOOLS,
  'schedule_start_time',
  'schedule_end_time',
  'max_concurrency',
  'retry_policy',
  'speech_settings',
  'short_term_summaries_limit',
  'status',
];

function publicCampaign(c, omit = []) {
  const out = {};
  for (const [k, v] of Object.entries(c)) if (k !== 'recipients' && !omit.includes(k)) out[k] = v;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Routes: [method, pattern, handler, auth] with auth 'both' | 'bearer' | 'none'.

function listCalls(ctx) {
  const issues = new Issues();
  const q = ctx.query;
  const intParam = (name, fallback, min) => {
    if (!q.has(name)) return fallback;
    const raw = q.getAll(name).at(-1);
    if (!/^\s*[+-]?\d+\s*$/.test(raw)) {
      issues.add(
        ['query', name],
        'Input should be a valid integer, unable to parse string as an integer',
        'int_parsing',
      );
      return fallback;
    }
    const big = BigInt(raw.trim());
    if (big < BigInt(min)) {
      issues.add(['query', name], `Input should be greater than or equal to ${min}`, 'greater_than_equal');
      return fallback;
    }
    return big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
  };
  const limit = Math.min(intParam('limit', 50, 0), MAX_LIMIT);
  const offset = intParam('offset', 0, 0);
  if (issues.list.length) return [422, { detail: issues.list }];
  const provider = q.has('provider') ? q.getAll('provider').at(-1) : null;
  const calls = ctx.store.calls.filter((c) => provider === null || provider === '' || c.provider === provider);
  return [200, calls.slice(offset, offset + limit)];
}

function createCampaign(ctx) {
  const body = ctx.body;
  if (!isObj(body))
    return [422, { detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] }];
  const issues = createIssues(body);
  if (issues.length) return [422, { detail: issues }];
  const c = campaignFromCreate(ctx.store, body);
  ctx.store.campaigns.set(c.id, c);
  return [201, publicCampaign(c), ['Location', `/campaign/${encodeURIComponent(c.id)}`]];
}

function getCampaign(ctx) {
  const c = ctx.store.campaigns.get(ctx.params[0]);
  if (!c) return [404, { detail: 'Campaign not found' }];
  return [200, { campaign: publicCampaign(c), counts: c.counts, calls: [] }, [], Date.parse(c.updated_at)];
}

function updateCampaign(ctx) {
  const body = ctx.body;
  if (!isObj(body))
    return [422, { detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] }];
  const issues = updateIssues(body);
  if (issues.length) return [422, { detail: issues }];
  const c = ctx.store.campaigns.get(ctx.params[0]);
  if (!c) return [404, { detail: 'Campaign not found' }];
  for (const f of UPDATABLE) if (f in body) c[f] = body[f];
  if ('recipients' in body) {
    c.recipients = body.recipients;
    c.counts = { total: c.recipients.length, pending: c.recipients.length, completed: 0, failed: 0 };
  }
  c.updated_at = iso(Date.now());
  return [200, publicCampaign(c, UPDATE_OMITS)];
}

function addRecipient(ctx) {
  const body = ctx.body;
  if (!isObj(body))
    return [422, { detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] }];
  const issues = new Issues();
  if (!('phone_number' in body)) issues.add(['body', 'phone_number'], 'Field required', 'missing');
  issues.string(body, 'phone_number');
  issues.object(body, 'metadata');
  if (issues.list.length) return [422, { detail: issues.list }];
  const list = ctx.store.recipientLists.get(ctx.params[0]);
  if (!list) return [404, { detail: 'Recipient list not found' }];
  const row = { id: `rcp_${randomUUID()}`, phone_number: body.phone_number, metadata: body.metadata ?? {} };
  list.rows.push(row);
  return [201, { recipient: row, recipient_list_id: list.id, row_count: list.rows.length }];
}

function createInvite(ctx) {
  const body = ctx.body;
  if (!isObj(body))
    return [422, { detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] }];
  const issues = new Issues();
  for (const f of ['email', 'role']) {
    if (!(f in body)) issues.add(['body', f], 'Field required', 'missing');
    issues.string(body, f);
  }
  if (issues.list.length) return [422, { detail: issues.list }];
  if (!ctx.store.orgs.has(ctx.params[0])) return [404, { detail: 'Organization not found' }];
  const invite = {
    id: `inv_${randomUUID()}`,
    email: body.email,
    role: body.role,
    expires_at: iso(Date.now() + 7 * 86_400_000),
    token: tok('invtok_', 24),
  };
  ctx.store.invites.push(invite);
  return [200, invite];
}

function regenerateKey(ctx) {
  const key = ctx.store.keys.get(ctx.params[0]);
  if (!key || key.userId !== ctx.user) return [404, { detail: 'API key not found' }];
  key.secret = tok('vk_wire_', 16);
  return [200, { id: key.id, key: key.secret, name: key.name, upgraded: false }];
}

function currentUser(ctx) {
  const s = ctx.store;
  // The dashboard's assets, hinted before the answer is ready (103 Early Hints, RFC 8297).
  ctx.res.writeEarlyHints({
    link: ['</dashboard.css>; rel=preload; as=style', '</dashboard.js>; rel=preload; as=script'],
  });
  return [
    200,
    {
      user: {
        id: s.userId,
        idp_user_id: 'idp|wire-0001',
        email: 'léa@wire.example',
        name: 'Léa Wire',
        default_org_id: 'org_wire_1',
      },
      orgs: [...s.orgs.values()],
      default_org_id: 'org_wire_1',
    },
  ];
}

const health = () => [200, { status: 'ok', multi_user: true, resource_usage: { memory_percent: 50, cpu_percent: 12 } }];

const protectedRoute = (ctx) => [
  200,
  { message: `Hello, ${ctx.user}! This is a protected endpoint.`, user_id: ctx.user },
];

const preflight = () => [200, {}];

const ROUTES = [
  ['GET', /^\/calls$/, listCalls, 'both'],
  ['POST', /^\/campaign$/, createCampaign, 'both'],
  ['GET', /^\/campaign\/([^/]+)$/, getCampaign, 'both'],
  ['PATCH', /^\/campaign\/([^/]+)$/, updateCampaign, 'both'],
  ['POST', /^\/recipient-lists\/([^/]+)\/recipients$/, addRecipient, 'both'],
  ['POST', /^\/orgs\/([^/]+)\/invites$/, createInvite, 'both'],
  ['GET', /^\/users\/me$/, currentUser, 'both'],
  ['GET', /^\/assistants$/, (ctx) => [200, ctx.store.assistants], 'both'],
  ['POST', /^\/api-keys\/api-keys\/([^/]+)\/regenerate$/, regenerateKey, 'bearer'],
  ['GET', /^\/health$/, health, 'none'],
  ['OPTIONS', /^\/user-credentials\/user-credentials\/([^/]+)$/, preflight, 'bearer'],
  ['OPTIONS', /^\/logs\/chat-logs\/([^/]+)$/, preflight, 'bearer'],
  ['OPTIONS', /^\/logs\/chat-sessions$/, preflight, 'bearer'],
  ['GET', /^\/protected$/, protectedRoute, 'both'],
];

/** The routes whose pattern matches a path (a trailing slash is accepted), with their captures. */
function match(path) {
  const p = path.length > 1 ? path.replace(/\/$/, '') : path;
  const found = [];
  for (const [method, re, handler, auth] of ROUTES) {
    const m = re.exec(p);
    if (m) found.push({ method, handler, auth, params: m.slice(1).map(safeDecode) });
  }
  return found;
}

function safeDecode(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

// ---------------------------------------------------------------------------------------------
// Rate limiting: a fixed window per client address; every request but health is counted.

function rateLimiter(limit, windowMs) {
  const windows = new Map();
  return (client, counted) => {
    const now = Date.now();
    let w = windows.get(client);
    if (!w || now >= w.end) {
      w = { end: now + windowMs, used: 0 };
      if (counted) windows.set(client, w);
    }
    const refused = counted && w.used >= limit;
    if (counted && !refused) w.used++;
    const reset = Math.max(0, Math.ceil((w.end - now) / 1000));
    return { limit, remaining: Math.max(0, limit - w.used), reset, refused };
  };
}

// ---------------------------------------------------------------------------------------------
// Answering.

const REASONS = { 422: 'Unprocessable Content', 429: 'Too Many Requests' };

function answer(req, res, state, status, value, extra = [], lastModified = undefined) {
  const n = ++state.answered;
  const started = req.started ?? performance.now();
  const headers = [
    'Server',
    'wire/1.0 (node)',
    'X-Request-Id',
    typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : randomUUID(),
    'Cache-Control',
    'no-store',
    'Set-Cookie',
    `AWSALB=${state.affinity}; Expires=${new Date(Date.now() + 7 * 86_400_000).toUTCString()}; Path=/`,
    'Vary',
    'Accept-Encoding, Origin',
    'x-ratelimit-limit',
    String(res.rate.limit),
    'X-RATELIMIT-REMAINING',
    String(res.rate.remaining),
    'X-Ratelimit-Reset',
    String(res.rate.reset),
    ...extra,
  ];
  if (req.headers.origin) {
    headers.push('Access-Control-Allow-Origin', req.headers.origin, 'Access-Control-Allow-Credentials', 'true');
    headers.push(
      'Access-Control-Expose-Headers',
      'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, ETag',
    );
  }
  // Every 10th answer closes the connection, and its body is delimited by that close (neither
  // Content-Length nor chunked: RFC 9112 6.3, item 8), as HTTP/1.0-era servers still do.
  const closing = n % 10 === 0 || extra.includes('Connection');
  const chunked = !closing;
  if (!chunked) {
    if (!extra.includes('Connection')) headers.push('Connection', 'close');
    res.removeHeader('Transfer-Encoding');
  } else {
    // Said outright, so node adds no `Keep-Alive: timeout=` hint: an idle connection is closed
    // after 1.5 s without notice, as gunicorn's 2 s keep-alive does.
    headers.push('Connection', 'keep-alive');
  }
  if (value === undefined) {
    res.writeHead(status, REASONS[status], headers);
    return res.end();
  }
  let text = serialise(value);
  const etag = `W/"${createHash('sha1').update(text).digest('base64url').slice(0, 20)}"`;
  if (req.method === 'GET' || req.method === 'HEAD') {
    if (status === 200) headers.push('ETag', etag);
    if (status === 200 && lastModified) headers.push('Last-Modified', new Date(lastModified).toUTCString());
    const inm = req.headers['if-none-match'];
    if (
      status === 200 &&
      typeof inm === 'string' &&
      inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')
    ) {
      res.writeHead(304, headers);
      return res.end();
    }
  }
  const problem = isObj(value) && typeof value.detail === 'string' && status >= 400;
  if (problem) text = serialise({ type: 'about:blank', title: STATUS_CODES[status], status, ...value });
  headers.push('Content-Type', problem ? 'application/problem+json' : 'application/json; charset=utf-8');
  let bytes = Buffer.from(text, 'utf8');
  const coding = bytes.length >= COMPRESS_FROM_BYTES ? codingOf(req.headers['accept-encoding']) : 'identity';
  if (coding !== 'identity') {
    bytes = ENCODERS[coding](bytes);
    headers.push('Content-Encoding', coding);
  }
  if (req.method === 'HEAD') {
    res.writeHead(status, REASONS[status], headers);
    return res.end();
  }
  if (chunked) headers.push('Trailer', 'Server-Timing');
  res.writeHead(status, REASONS[status], headers);
  // Chunked on the wire: no Content-Length, the body in two writes, the time spent in a trailer.
  const half = bytes.length >> 1;
  res.write(bytes.subarray(0, half));
  setImmediate(() => {
    if (chunked) res.addTrailers({ 'Server-Timing': `app;dur=${(performance.now() - started).toFixed(2)}` });
    res.end(bytes.subarray(half));
  });
  return undefined;
}

function bearerOf(req) {
  const h = req.headers.authorization;
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer ([^\s]+)$/i.exec(h);
  return m ? m[1] : undefined;
}

function authenticate(store, req, auth) {
  if (auth === 'none') return { ok: true };
  const secret = bearerOf(req);
  const key = secret === undefined ? undefined : [...store.keys.values()].find((k) => k.secret === secret);
  if (!key) return { ok: false };
  if (auth === 'bearer') return { ok: true, user: key.userId };
  const uid = req.headers['x-user-id'];
  return uid === key.userId ? { ok: true, user: uid } : { ok: false };
}

const UNAUTHORIZED = { detail: 'Invalid authentication credentials' };
const WWW_AUTH = ['WWW-Authenticate', 'Bearer realm="api", error="invalid_token"'];

function allowOf(routes) {
  const methods = new Set(routes.map((r) => r.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].join(', ');
}

function preflightHeaders(req) {
  const asked =
    typeof req.headers['access-control-request-headers'] === 'string'
      ? req.headers['access-control-request-headers']
      : '';
  const allow = ['Authorization', 'X-User-ID', 'Content-Type', 'Accept-Encoding', 'If-None-Match', 'X-Request-Id'];
  for (const h of asked
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean))
    if (!allow.some((a) => a.toLowerCase() === h.toLowerCase())) allow.push(h);
  return [
    'Access-Control-Allow-Methods',
    'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    'Access-Control-Allow-Headers',
    allow.join(', '),
    'Access-Control-Max-Age',
    '7200',
    ...(req.headers.origin ? [] : ['Access-Control-Allow-Origin', '*']),
  ];
}

function parseBody(text, req) {
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return { ok: true };
  const type = String(req.headers['content-type'] ?? '').toLowerCase();
  if (text.trim() === '') return { ok: true, body: undefined, missing: true };
  if (type && !/^application\/([\w.+-]*\+)?json\b/.test(type) && !type.startsWith('text/plain')) {
    return {
      ok: false,
      issue: { loc: ['body'], msg: 'Content type must be application/json', type: 'model_attributes_type' },
    };
  }
  try {
    return { ok: true, body: JSON.parse(text.replace(/^\uFEFF/, '')) };
  } catch (e) {
    return {
      ok: false,
      issue: { loc: ['body', 0], msg: `JSON decode error: ${String(e.message).slice(0, 80)}`, type: 'json_invalid' },
    };
  }
}

function handle(store, limiter, state, req, res, raw) {
  if (Buffer.byteLength(req.url ?? '') > MAX_TARGET_BYTES) {
    res.rate = limiter(req.socket.remoteAddress ?? 'unknown', true);
    return answer(req, res, state, 414, {
      detail: `URI Too Long: the request-target exceeds ${MAX_TARGET_BYTES} bytes`,
    });
  }
  const url = new URL(req.url ?? '/', 'http://wire.invalid');
  const routes = match(url.pathname);
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const route = routes.find((r) => r.method === method);
  const client = req.socket.remoteAddress ?? 'unknown';
  res.rate = limiter(client, !(route && route.auth === 'none'));
  if (res.rate.refused)
    // Retry-After as an HTTP-date (whole seconds, rounded up); the connection is dropped to shed load.
    return answer(req, res, state, 429, { detail: 'Rate limit exceeded: too many requests, retry after the reset' }, [
      'Retry-After',
      new Date(Math.ceil((Date.now() + Math.max(1, res.rate.reset) * 1000) / 1000) * 1000).toUTCString(),
      'Connection',
      'close',
    ]);
  if (routes.length === 0) return answer(req, res, state, 404, { detail: 'Not Found' });
  if (!route && req.method === 'OPTIONS' && req.headers.origin && req.headers['access-control-request-method'])
    // A CORS middleware: a browser's preflight of any other known path, no credentials asked.
    return answer(req, res, state, 204, undefined, preflightHeaders(req));
  if (!route) return answer(req, res, state, 405, { detail: 'Method Not Allowed' }, ['Allow', allowOf(routes)]);
  const who = authenticate(store, req, route.auth);
  if (!who.ok) return answer(req, res, state, 401, UNAUTHORIZED, WWW_AUTH);
  const parsed = parseBody(raw, req);
  if (!parsed.ok) return answer(req, res, state, 422, { detail: [parsed.issue] });
  if (parsed.missing && route.method !== 'OPTIONS' && route.handler !== regenerateKey)
    return answer(req, res, state, 422, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
  const ctx = { res, store, query: url.searchParams, params: route.params, body: parsed.body, user: who.user };
  const [status, value, extra = [], lastModified] = route.handler(ctx);
  const headers = route.method === 'OPTIONS' ? [...extra, ...preflightHeaders(req)] : extra;
  return answer(req, res, state, status, value, headers, lastModified);
}

/** Starts the server on a free loopback port (or the one given). */
export async function start(options = {}) {
  const store = newStore();
  const limiter = rateLimiter(options.rateLimit ?? 100, options.rateWindowMs ?? 60_000);
  const state = { answered: 0, affinity: randomBytes(24).toString('base64') };
  const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    let over = false;
    req.started = performance.now();
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) over = true;
      else chunks.push(c);
    });
    req.on('end', () => {
      try {
        if (over) {
          res.rate = limiter(req.socket.remoteAddress ?? 'unknown', false);
          return answer(req, res, state, 413, { detail: 'Request body too large' }, ['Connection', 'close']);
        }
        handle(store, limiter, state, req, res, Buffer.concat(chunks).toString('utf8'));
      } catch (e) {
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(serialise({ detail: `Internal error: ${e instanceof Error ? e.message : String(e)}` }));
        }
      }
    });
  });
  server.keepAliveTimeout = 1_500;
  await new Promise((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { address, port } = server.address();
  const main = store.keys.get('key_wire_main');
  const fixtures = {
    api_key: main.secret,
    user_id: store.userId,
    org_id: 'org_wire_1',
    recipient_list_id: 'rl_wire_1',
    api_key_id: 'key_wire_spare',
    channels: [...CHANNELS],
    assistant_id: 'asst_wire_1',
    phone_number_id: 'pn_wire_1',
  };
  return {
    url: `http://${address}:${port}`,
    fixtures,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

function argOf(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const s = await start({
    host: argOf('host'),
    port: argOf('port') === undefined ? 0 : Number(argOf('port')),
    rateLimit: argOf('rate-limit') === undefined ? 100 : Number(argOf('rate-limit')),
    rateWindowMs: argOf('rate-window-s') === undefined ? 60_000 : Number(argOf('rate-window-s')) * 1000,
  });
  process.stdout.write(`listening ${s.url}\nfixtures ${JSON.stringify(s.fixtures)}\n`);
}
