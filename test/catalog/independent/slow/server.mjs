// slow: an independent implementation of the Voice-Agent Platform API (contract
// /work/shared/seed/000_8298da82e2a63f1d.txt), written from the contract text alone. Its choices are
// about TIME and CONNECTIONS, as a database-backed service behind a typical app server behaves:
// per-operation latency drawn from a seeded generator, a silent 2 s keep-alive (no Keep-Alive hint),
// Connection: close after 100 requests on a connection, at most 4 requests in flight (the rest
// queue), fixed rate-limit windows whose Reset is the epoch second the window ends, answers written
// in pieces with pauses, a call log that grows while it is read. See CHOICES.md.
// node:http only, no dependency.
import http from 'node:http';
import { randomUUID, randomBytes } from 'node:crypto';

const CHANNELS = ['twilio', 'vonage'];
const STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
const SPEECH = ['style', 'responsiveness', 'interruptions', 'emotions'];

/** mulberry32: a small seeded generator, so that the same seed gives the same delays. */
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms) => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
const iso = (ms = Date.now()) => new Date(ms).toISOString();

// ---------------------------------------------------------------- time: latency, slots, windows

/** Delay of each kind of work, in ms before scaling: [min, max]; reads sometimes take 1-3 s. */
const LATENCY = {
  write: [150, 800],
  list: [50, 400],
  read: [20, 120],
  slowRead: [1000, 3000],
  reject: [2, 15],
  validate: [5, 40],
};

function latencyModel(seed, scale) {
  const next = generator(seed);
  const pick = ([lo, hi]) => (lo + next() * (hi - lo)) * scale;
  return {
    delay(kind) {
      if (kind === 'none') return 0;
      if (kind === 'read' && next() < 0.06) return pick(LATENCY.slowRead);
      return pick(LATENCY[kind]);
    },
    pauses(n) {
      return Array.from({ length: n }, () => pick([10, 60]));
    },
  };
}

/** At most `max` requests in the application at once; the others wait in arrival order. */
function slots(max) {
  let busy = 0;
  const waiting = [];
  return {
    async acquire() {
      if (busy < max) {
        busy++;
        return;
      }
      await new Promise((resolve) => waiting.push(resolve));
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else busy--;
    },
  };
}

/** A fixed window aligned on multiples of its length (like a counter keyed by floor(now / window)). */
function rateWindows(limit, windowMs) {
  let key = -1;
  let used = 0;
  return {
    take(now = Date.now(), count = true) {
      const k = Math.floor(now / windowMs);
      if (k !== key) {
        key = k;
        used = 0;
      }
      const end = (k + 1) * windowMs;
      const headers = {
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Reset': String(Math.ceil(end / 1000)),
      };
      if (used >= limit && count) {
        headers['X-RateLimit-Remaining'] = '0';
        headers['Retry-After'] = String(Math.max(1, Math.ceil((end - now) / 1000)));
        return { ok: false, headers };
      }
      if (count) used++;
      headers['X-RateLimit-Remaining'] = String(Math.max(0, limit - used));
      return { ok: true, headers };
    },
  };
}

// ---------------------------------------------------------------- data

function seedCall(i, fx, at) {
  const provider = CHANNELS[i % 2];
  const ended = i % 5 !== 0;
  return {
    id: `call_${String(i).padStart(6, '0')}`,
    to_number: `+1555${String(1000000 + i).slice(-7)}`,
    provider,
    status: ended ? 'completed' : 'in-progress',
    phone_number_id: fx.phone_number_id,
    assistant_id: fx.assistant_id,
    from_number: '+15550001111',
    provider_call_sid: `${provider.slice(0, 2).toUpperCase()}${randomBytes(8).toString('hex')}`,
    direction: i % 3 === 0 ? 'inbound' : 'outbound',
    created_at: iso(at),
    started_at: iso(at + 1000),
    ended_at: ended ? iso(at + 61000) : null,
    ended_reason: ended ? 'customer-ended-call' : null,
    duration_seconds: ended ? 60 : null,
    timestamp: iso(at),
    summary: ended ? 'The caller asked about opening hours.' : null,
    user_messages: 4,
    agent_messages: 5,
    recording_url: null,
    stereo_recording_url: null,
    recording_mp3_url: null,
    stereo_recording_mp3_url: null,
    latency_metrics: { llm_ms: 420, tts_ms: 180 },
    per_turn_latency: [610, 590],
    cost: ended ? 0.12 : null,
    total_credits: ended ? 12 : null,
    cost_breakdown: { llm: 0.05, tts: 0.04, stt: 0.03 },
    costs: [],
    transcript: [{ role: 'assistant', text: 'Hello!' }],
  };
}

function assistant(id, name, fx) {
  return {
    id,
    name,
    system_instruction: 'You are a helpful receptionist.',
    voice: { voice_id: 'v-1', tts_provider: 'tts-co', tts_model: 'tts-2', language: 'en', speed: 1 },
    llm: { llm_provider: 'llm-co', model: 'model-4' },
    transcriber: { stt_provider: 'stt-co', stt_model: 'stt-1', language: 'en' },
    speech_settings: { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' },
    long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: '' },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarize the call.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['goodbye'],
      transfer_triggers: ['agent'],
      transfer_number: '+15550002222',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 30,
      confirm_yes: ['yes'],
      confirm_no: ['no'],
      webhook_url: 'https://hooks.example.com/a',
      webhook_timeout_ms: 3500,
    },
    description: null,
    first_message: 'Hello, how can I help?',
    knowledge_base_ids: [],
    phone_number_id: fx.phone_number_id,
    assistant_speaks_first: true,
  };
}

function newStore() {
  const fx = {
    api_key: `sk_live_${randomBytes(16).toString('hex')}`,
    user_id: `usr_${randomBytes(6).toString('hex')}`,
    org_id: `org_${randomBytes(6).toString('hex')}`,
    recipient_list_id: `rl_${randomBytes(6).toString('hex')}`,
    api_key_id: `key_${randomBytes(6).toString('hex')}`,
    channels: CHANNELS,
    assistant_id: randomUUID(),
    phone_number_id: `pn_${randomBytes(6).toString('hex')}`,
  };
  const keys = new Map([
    [`key_${randomBytes(6).toString('hex')}`, { secret: fx.api_key, name: 'default', user: fx.user_id }],
    [fx.api_key_id, { secret: `sk_live_${randomBytes(16).toString('hex')}`, name: 'spare', user: fx.user_id }],
  ]);
  const t0 = Date.now() - 120 * 3600_000;
  const calls = Array.from({ length: 120 }, (_, i) => seedCall(i, fx, t0 + i * 3600_000)).reverse();
  return {
    fx,
    keys,
    calls,
    nextCall: 120,
    assistants: [assistant(fx.assistant_id, 'Front desk', fx), assistant(randomUUID(), 'After hours', fx)],
    campaigns: new Map(),
    lists: new Map([[fx.recipient_list_id, { id: fx.recipient_list_id, name: 'Pilot list', recipients: [] }]]),
    invites: [],
  };
}

// ---------------------------------------------------------------- validation (pydantic-like)

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v) => typeof v === 'number' && Number.isInteger(v);

function issue(loc, type, msg) {
  return { loc, type, msg };
}

function checkField(loc, v, kind, range) {
  if (kind === 'string')
    return typeof v === 'string' ? [] : [issue(loc, 'string_type', 'Input should be a valid string')];
  if (kind === 'bool')
    return typeof v === 'boolean' ? [] : [issue(loc, 'bool_type', 'Input should be a valid boolean')];
  if (kind === 'object') return isObj(v) ? [] : [issue(loc, 'dict_type', 'Input should be a valid dictionary')];
  if (kind === 'int') {
    if (!isInt(v)) return [issue(loc, 'int_type', 'Input should be a valid integer')];
    if (range && v < range[0])
      return [issue(loc, 'greater_than_equal', `Input should be greater than or equal to ${range[0]}`)];
    if (range && v > range[1])
      return [issue(loc, 'less_than_equal', `Input should be less than or equal to ${range[1]}`)];
    return [];
  }
  if (kind === 'speech') return checkSpeech(loc, v);
  if (kind === 'recipients') return checkRecipients(loc, v);
  if (kind === 'status')
    return STATUSES.includes(v)
      ? []
      : [issue(loc, 'enum', `Input should be ${STATUSES.map((s) => `'${s}'`).join(', ')}`)];
  if (kind === 'channel')
    return CHANNELS.includes(v)
      ? []
      : [issue(loc, 'enum', `Input should be ${CHANNELS.map((s) => `'${s}'`).join(' or ')}`)];
  return [];
}

function checkSpeech(loc, v) {
  if (!isObj(v)) return [issue(loc, 'model_type', 'Input should be a valid dictionary or object')];
  return SPEECH.filter((k) => v[k] !== undefined).flatMap((k) => checkField([...loc, k], v[k], 'string'));
}

function checkRecipients(loc, v) {
  if (!Array.isArray(v)) return [issue(loc, 'list_type', 'Input should be a valid list')];
  return v.flatMap((r, i) => {
    const at = [...loc, i];
    if (!isObj(r)) return [issue(at, 'model_type', 'Input should be a valid dictionary or object')];
    const out = r.phone_number === undefined ? [issue([...at, 'phone_number'], 'missing', 'Field required')] : [];
    out.push(...checkField([...at, 'phone_number'], r.phone_number ?? '', 'string'));
    if (r.metadata !== undefined) out.push(...checkField([...at, 'metadata'], r.metadata, 'object'));
    if (r.assistant_overrides !== undefined)
      out.push(...checkField([...at, 'assistant_overrides'], r.assistant_overrides, 'object'));
    return out;
  });
}

const COMMON = {
  max_concurrency: ['int', [1, 200]],
  retry_policy: ['object'],
  speech_settings: ['speech'],
  campaign_context: ['string'],
  opening_message_template: ['string'],
  use_returning_greeting: ['bool'],
  use_short_term_summaries: ['bool'],
  short_term_summaries_limit: ['int'],
  recipients: ['recipients'],
};
const CREATE = {
  name: ['string'],
  assistant_id: ['string'],
  phone_number_id: ['string'],
  channel: ['channel'],
  scheduleStartTime: ['string'],
  scheduleEndTime: ['string'],
  machine_detection_timeout_seconds: ['int', [3, 60]],
  recipient_list_id: ['string'],
  ...COMMON,
};
const UPDATE = {
  name: ['string'],
  schedule_start_time: ['string'],
  schedule_end_time: ['string'],
  status: ['status'],
  ...COMMON,
};
const CREATE_REQUIRED = ['name', 'assistant_id', 'phone_number_id', 'channel'];

/** The 2.8 issues of a body against a table of fields; `null` counts as absent (Optional fields). */
function validate(body, fields, required = []) {
  if (!isObj(body)) return [issue(['body'], 'model_attributes_type', 'Input should be a valid dictionary or object')];
  const out = required
    .filter((k) => body[k] === undefined || body[k] === null)
    .map((k) => issue(['body', k], 'missing', 'Field required'));
  for (const [k, [kind, range]] of Object.entries(fields)) {
    if (body[k] === undefined || body[k] === null) continue;
    out.push(...checkField(['body', k], body[k], kind, range));
  }
  return out;
}

// ---------------------------------------------------------------- campaigns

function createCampaign(store, b) {
  const now = iso();
  const list = b.recipient_list_id ? store.lists.get(b.recipient_list_id) : undefined;
  const asst = store.assistants.find((a) => a.id === b.assistant_id);
  const c = {
    id: randomUUID(),
    name: b.name,
    assistant_id: b.assistant_id,
    assistant_name: asst ? asst.name : null,
    channel: b.channel,
    phone_number_id: b.phone_number_id,
    caller_id_number: '+15550001111',
    status: 'draft',
    max_concurrency: b.max_concurrency ?? 1,
    retry_policy: b.retry_policy ?? { max_attempts: 1 },
    speech_settings: b.speech_settings ?? store.assistants[0].speech_settings,
    schedule_start_time: b.scheduleStartTime ?? null,
    schedule_end_time: b.scheduleEndTime ?? null,
    campaign_context: b.campaign_context ?? null,
    opening_message_template: b.opening_message_template ?? null,
    use_returning_greeting: b.use_returning_greeting ?? false,
    use_short_term_summaries: b.use_short_term_summaries ?? false,
    short_term_summaries_limit: b.short_term_summaries_limit ?? 3,
    machine_detection_timeout_seconds: b.machine_detection_timeout_seconds ?? null,
    recipient_list_id: b.recipient_list_id ?? null,
    recipient_list_name: list ? list.name : null,
    recipient_list_row_count: list ? list.recipients.length : null,
    recipients: b.recipients ?? [],
    created_at: now,
    updated_at: now,
  };
  store.campaigns.set(c.id, c);
  return c;
}

const counts = (c) => ({ total: c.recipients.length, pending: c.recipients.length, completed: 0, failed: 0 });
const OMITTED_ON_UPDATE = [
  'assistant_name',
  'machine_detection_timeout_seconds',
  'recipient_list_id',
  'recipient_list_name',
  'recipient_list_row_count',
  'counts',
];

function record(c, omit = []) {
  const { recipients: _r, ...rest } = c;
  const out = { ...rest, counts: counts(c) };
  for (const k of omit) delete out[k];
  return out;
}

function updateCampaign(c, b) {
  const rename = { schedule_start_time: 'schedule_start_time', schedule_end_time: 'schedule_end_time' };
  for (const k of Object.keys(UPDATE)) {
    if (b[k] === undefined || b[k] === null) continue;
    c[rename[k] ?? k] = b[k];
  }
  c.updated_at = iso();
  return c;
}

// ---------------------------------------------------------------- routes

const notFound = { status: 404, body: { detail: 'Not Found' } };
const invalid = (issues) => ({ status: 422, body: { detail: issues } });

function queryInt(q, name, dflt, issues) {
  const raw = q.getAll(name);
  if (raw.length === 0) return dflt;
  const v = raw[raw.length - 1];
  if (!/^[+-]?\d+$/.test(v.trim())) {
    issues.push(
      issue(['query', name], 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer'),
    );
    return dflt;
  }
  const n = Number(v);
  if (n < 0) issues.push(issue(['query', name], 'greater_than_equal', 'Input should be greater than or equal to 0'));
  return n;
}

function listCalls(store, q) {
  const issues = [];
  const limit = queryInt(q, 'limit', 50, issues);
  const offset = queryInt(q, 'offset', 0, issues);
  if (issues.length) return invalid(issues);
  const provider = q.get('provider');
  const rows = provider ? store.calls.filter((c) => c.provider === provider) : store.calls;
  return { status: 200, body: rows.slice(offset, offset + Math.min(limit, 500)) };
}

function addRecipient(store, id, b) {
  const issues = validate(b, { phone_number: ['string'], metadata: ['object'] }, ['phone_number']);
  if (issues.length) return invalid(issues);
  const list = store.lists.get(id);
  if (!list) return notFound;
  const recipient = { id: randomUUID(), phone_number: b.phone_number, metadata: b.metadata ?? {}, created_at: iso() };
  list.recipients.push(recipient);
  return { status: 200, body: { recipient, recipient_list_id: id, row_count: list.recipients.length } };
}

function invite(store, orgId, b) {
  const issues = validate(b, { email: ['string'], role: ['string'] }, ['email', 'role']);
  if (issues.length) return invalid(issues);
  if (orgId !== store.fx.org_id) return notFound;
  const inv = {
    id: randomUUID(),
    email: b.email,
    role: b.role,
    expires_at: iso(Date.now() + 7 * 86400_000),
    token: randomBytes(24).toString('base64url'),
  };
  store.invites.push(inv);
  return { status: 200, body: inv };
}

function regenerate(store, keyId, user) {
  const key = store.keys.get(keyId);
  if (!key || key.user !== user) return notFound;
  key.secret = `sk_live_${randomBytes(16).toString('hex')}`;
  return { status: 200, body: { key: key.secret, id: keyId, name: key.name, upgraded: false } };
}

function me(store) {
  const { fx } = store;
  return {
    user: {
      id: fx.user_id,
      idp_user_id: 'idp|5f1c',
      email: 'owner@example.com',
      name: 'Owner',
      default_org_id: fx.org_id,
    },
    orgs: [{ id: fx.org_id, name: 'Example', slug: 'example', role: 'owner', contact_email: 'owner@example.com' }],
    default_org_id: fx.org_id,
  };
}

/**
 * Route table: [method, pattern, kind of work (its latency), auth (`full` bearer + X-User-ID,
 * `bearer`, `none`), handler(store, params, body, query, user)].
 */
const ROUTES = [
  [
    'GET',
    /^\/health$/,
    'none',
    'none',
    () => ({ status: 200, body: { status: 'ok', multi_user: true, resource_usage: { cpu_percent: 50 } } }),
  ],
  ['GET', /^\/calls$/, 'list', 'full', (s, p, b, q) => listCalls(s, q)],
  ['GET', /^\/assistants$/, 'list', 'full', (s) => ({ status: 200, body: s.assistants })],
  ['GET', /^\/users\/me$/, 'read', 'full', (s) => ({ status: 200, body: me(s) })],
  [
    'GET',
    /^\/protected$/,
    'read',
    'full',
    (s, p, b, q, u) => ({
      status: 200,
      body: { message: `Hello, ${u}! You reached a protected endpoint.`, user_id: u },
    }),
  ],
  [
    'POST',
    /^\/campaign$/,
    'write',
    'full',
    (s, p, b) => {
      const issues = validate(b, CREATE, CREATE_REQUIRED);
      return issues.length ? invalid(issues) : { status: 200, body: record(createCampaign(s, b)) };
    },
  ],
  [
    'GET',
    /^\/campaign\/([^/]+)$/,
    'read',
    'full',
    (s, [id]) => {
      const c = s.campaigns.get(id);
      return c ? { status: 200, body: { campaign: record(c), counts: counts(c), calls: [] } } : notFound;
    },
  ],
  [
    'PATCH',
    /^\/campaign\/([^/]+)$/,
    'write',
    'full',
    (s, [id], b) => {
      const issues = validate(b, UPDATE);
      if (issues.length) return invalid(issues);
      const c = s.campaigns.get(id);
      return c ? { status: 200, body: record(updateCampaign(c, b), OMITTED_ON_UPDATE) } : notFound;
    },
  ],
  ['POST', /^\/recipient-lists\/([^/]+)\/recipients$/, 'write', 'full', (s, [id], b) => addRecipient(s, id, b)],
  ['POST', /^\/orgs\/([^/]+)\/invites$/, 'write', 'full', (s, [id], b) => invite(s, id, b)],
  [
    'POST',
    /^\/api-keys\/api-keys\/([^/]+)\/regenerate$/,
    'write',
    'bearer',
    (s, [id], b, q, u) => regenerate(s, id, u),
  ],
  ['OPTIONS', /^\/user-credentials\/user-credentials\/([^/]+)$/, 'reject', 'bearer', () => ({ status: 200, body: {} })],
  ['OPTIONS', /^\/logs\/chat-logs\/([^/]+)$/, 'reject', 'bearer', () => ({ status: 200, body: {} })],
  ['OPTIONS', /^\/logs\/chat-sessions$/, 'reject', 'bearer', () => ({ status: 200, body: {} })],
];

function route(method, path) {
  let known = false;
  for (const r of ROUTES) {
    const m = r[1].exec(path);
    if (!m) continue;
    known = true;
    if (r[0] === method) return { route: r, params: m.slice(1).map(decodeURIComponent) };
  }
  return known ? { status: 405 } : { status: 404 };
}

/** The user a request authenticates as, or undefined (401). */
function authenticate(store, req, mode) {
  if (mode === 'none') return '';
  const m = /^Bearer ([^\s]+)$/i.exec(req.headers.authorization ?? '');
  if (!m) return undefined;
  const key = [...store.keys.values()].find((k) => k.secret === m[1]);
  if (!key) return undefined;
  if (mode === 'bearer') return key.user;
  return req.headers['x-user-id'] === key.user ? key.user : undefined;
}

// ---------------------------------------------------------------- connections and answers

/** Writes the answer with a Content-Length, in three pieces with pauses (a slow proxy or app). */
async function answer(ctx, res, status, body, headers) {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': String(text.length),
    ...headers,
    ...ctx.connectionHeaders(res),
  });
  if (ctx.streamPieces <= 1 || text.length < 64) return void res.end(text);
  const cut = Math.ceil(text.length / ctx.streamPieces);
  const pauses = ctx.latency.pauses(ctx.streamPieces - 1);
  for (let at = 0, i = 0; at < text.length; at += cut, i++) {
    if (res.destroyed) return;
    if (at + cut >= text.length) return void res.end(text.subarray(at));
    res.write(text.subarray(at, at + cut));
    await sleep(pauses[i]);
  }
}

function readBody(req, max = 1 << 20) {
  return new Promise((resolve) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= max) chunks.push(c);
    });
    req.on('end', () => resolve(size > max ? { tooLarge: true } : { text: Buffer.concat(chunks).toString('utf8') }));
    req.on('error', () => resolve({ text: '' }));
  });
}

function parseJson(text) {
  if (text.trim() === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch (e) {
    return { error: issue(['body', 0], 'json_invalid', `JSON decode error: ${e.message}`) };
  }
}

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, PATCH, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, X-User-ID, Content-Type',
  'Access-Control-Max-Age': '600',
};

/** One request: rate limit (counted once a slot is free), route, credentials, body, the work's delay. */
async function handle(ctx, req, res) {
  const url = new URL(req.url ?? '/', 'http://x');
  const found = route(req.method ?? 'GET', url.pathname);
  const kind = found.route ? found.route[2] : 'reject';
  const body = await readBody(req);
  // Health is answered at once, outside the queue and uncounted, with the window's headers as they stand.
  if (kind === 'none')
    return answer(ctx, res, 200, found.route[4](ctx.store), ctx.windows.take(Date.now(), false).headers);
  await ctx.slots.acquire();
  try {
    const window = ctx.windows.take();
    if (!window.ok)
      return await answer(ctx, res, 429, { detail: 'Rate limit exceeded: too many requests' }, window.headers);
    const reply = await work(ctx, req, found, url, body);
    const extra = req.method === 'OPTIONS' && reply.status === 200 ? CORS : {};
    return await answer(ctx, res, reply.status, reply.body, { ...window.headers, ...extra, ...(reply.headers ?? {}) });
  } finally {
    ctx.slots.release();
  }
}

async function work(ctx, req, found, url, body) {
  if (!found.route) {
    await sleep(ctx.latency.delay('reject'));
    return found.status === 405 ? { status: 405, body: { detail: 'Method Not Allowed' } } : notFound;
  }
  const [, , kind, mode, fn] = found.route;
  const user = authenticate(ctx.store, req, mode);
  if (user === undefined) {
    await sleep(ctx.latency.delay('reject'));
    return {
      status: 401,
      body: { detail: 'Invalid authentication credentials' },
      headers: { 'WWW-Authenticate': 'Bearer' },
    };
  }
  if (body.tooLarge) return { status: 413, body: { detail: 'Request body too large' } };
  let parsed = { value: undefined };
  if (req.method === 'POST' || req.method === 'PATCH') {
    parsed = parseJson(body.text);
    if (parsed.error) return invalid([parsed.error]);
  }
  const reply = fn(ctx.store, found.params, parsed.value, url.searchParams, user);
  // The database work happens before the answer: a write is committed when its answer is sent.
  await sleep(ctx.latency.delay(reply.status === 422 ? 'validate' : kind));
  return reply;
}

/**
 * Keep-alive: idle connections closed after `idleMs` with no hint; `Connection: close` on the Nth
 * answer. `finLagMs` models the network between client and server (0 on loopback): the close
 * reaches the client `finLagMs` after the server closed, and a request the client sends in between
 * crosses it and is dropped unanswered (the keep-alive race of RFC 9112 9.3.1).
 */
function connectionPolicy(server, idleMs, maxPerConnection, finLagMs) {
  const perSocket = new WeakMap();
  server.keepAliveTimeout = 0; // our own timer, so that no Keep-Alive: timeout= hint is sent
  server.on('connection', (socket) => perSocket.set(socket, { served: 0, open: 0, idleSince: 0, idle: undefined }));
  server.on('request', (req, res) => {
    const s = perSocket.get(req.socket);
    if (!s) return;
    clearTimeout(s.idle);
    if (s.open === 0 && s.served > 0 && Date.now() - s.idleSince >= idleMs) return void req.socket.destroy();
    s.served++;
    s.open++;
    res.on('close', () => {
      s.open--;
      if (s.open > 0 || req.socket.destroyed) return;
      s.idleSince = Date.now();
      s.idle = setTimeout(() => req.socket.destroy(), idleMs + finLagMs);
    });
  });
  return (res) => {
    const s = perSocket.get(res.req.socket);
    return s && s.served >= maxPerConnection ? { Connection: 'close' } : { Connection: 'keep-alive' };
  };
}

/**
 * Starts the server. Options: host, port, rateLimit (100), rateWindowMs (60000), latencyScale (1:
 * the delays of CHOICES.md; 0 none), seed (the delays' generator), maxInFlight (4), keepAliveMs
 * (2000), maxRequestsPerConnection (100), streamPieces (3), finLagMs (0: loopback), callEveryMs (a new call in the log,
 * 15000 x latencyScale; 0 none).
 */
export async function start(options = {}) {
  const o = {
    host: '127.0.0.1',
    port: 0,
    rateLimit: 100,
    rateWindowMs: 60_000,
    latencyScale: 1,
    seed: 26,
    maxInFlight: 4,
    keepAliveMs: 2000,
    maxRequestsPerConnection: 100,
    streamPieces: 3,
    finLagMs: 0,
    ...options,
  };
  const store = newStore();
  const server = http.createServer();
  const ctx = {
    store,
    latency: latencyModel(o.seed, o.latencyScale),
    slots: slots(o.maxInFlight),
    windows: rateWindows(o.rateLimit, o.rateWindowMs),
    streamPieces: o.streamPieces,
    connectionHeaders: connectionPolicy(server, o.keepAliveMs, o.maxRequestsPerConnection, o.finLagMs),
  };
  server.on('request', (req, res) => {
    if (req.socket.destroyed) return; // dropped by the keep-alive race (connectionPolicy)
    handle(ctx, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end();
    });
  });
  const every = o.callEveryMs ?? 15_000 * o.latencyScale;
  const ticker =
    every > 0
      ? setInterval(() => store.calls.unshift(seedCall(store.nextCall++, store.fx, Date.now())), every)
      : undefined;
  ticker?.unref();
  await new Promise((resolve) => server.listen(o.port, o.host, resolve));
  const { port } = server.address();
  return {
    url: `http://${o.host}:${port}`,
    fixtures: store.fx,
    close: () =>
      new Promise((resolve) => {
        clearInterval(ticker);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function flag(argv, name) {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

async function main(argv) {
  const num = (name) => (flag(argv, name) === undefined ? undefined : Number(flag(argv, name)));
  const opts = {
    host: flag(argv, 'host'),
    port: num('port'),
    rateLimit: num('rate-limit'),
    rateWindowMs: num('rate-window-s') === undefined ? undefined : num('rate-window-s') * 1000,
    latencyScale: num('latency-scale'),
    seed: num('seed'),
    maxInFlight: num('max-in-flight'),
    keepAliveMs: num('keep-alive-ms'),
    finLagMs: num('fin-lag-ms'),
  };
  const s = await start(Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)));
  process.stdout.write(`listening ${s.url}\nfixtures ${JSON.stringify(s.fixtures)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
