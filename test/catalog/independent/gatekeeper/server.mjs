// gatekeeper: an independent implementation of the Voice-Agent Platform API (contract 2.0.1), written
// from the contract text alone, as a multi-tenant service behind an auth gateway. Its choices are
// about identity, credentials and access: see CHOICES.md beside this file.
//
// Run:    node server.mjs [--host H] [--port P] [--rate-limit N] [--rate-window-s S] [--grace-s S]
//         prints `listening http://HOST:PORT` then `fixtures {json}`.
// Import: `start({ host, port, rateLimit, rateWindowMs, graceMs })` -> { url, fixtures, close() }.
import http from 'node:http';
import crypto from 'node:crypto';
import { pathToFileURL } from 'node:url';

const VERSION = '2.0.1';
const CHANNELS = ['twilio', 'plivo'];
const MAX_BODY = 1024 * 1024;
const ALLOWED_HEADERS = ['authorization', 'x-user-id', 'content-type'];
const ALLOWED_METHODS = ['GET', 'POST', 'PATCH', 'OPTIONS'];
const STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
const INVITERS = new Set(['owner', 'admin']);
const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'];

// ---------------------------------------------------------------- credentials

const sha256 = (s) => crypto.createHash('sha256').update(s).digest();
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/; // RFC 6750 2.1 b64token
const V2_PREFIX = 'gk-live_v2~';
const V2 = /^gk-live_v2~([A-Za-z0-9+/]{32})\.([A-Za-z0-9+/]{6}==)$/;
const LEGACY = /^vk_[0-9a-f]{40}$/;

const checksum = (body) => sha256(`gatekeeper:${body}`).subarray(0, 4).toString('base64');

/** A v2 key: prefix, 24 random bytes in standard base64 (with + and /), `.`, a 4-byte checksum (ends `==`). */
function newV2Key() {
  for (;;) {
    const body = crypto.randomBytes(24).toString('base64');
    if (body.includes('+') && body.includes('/')) return `${V2_PREFIX}${body}.${checksum(body)}`;
  }
}

/** Is this a token this gateway could ever have issued (format and checksum), before any lookup? */
function wellFormedKey(token) {
  if (LEGACY.test(token)) return true;
  const m = V2.exec(token);
  return m !== null && crypto.timingSafeEqual(Buffer.from(checksum(m[1])), Buffer.from(m[2]));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The canonical form of a user id: UUIDs and e-mail addresses are case-insensitive; other ids are not. */
function canonicalUserId(raw) {
  const id = raw.trim();
  return UUID.test(id) || EMAIL.test(id) ? id.toLowerCase() : id;
}

/**
 * Reads `Authorization`: the scheme case-insensitively (RFC 9110 11.1), then one or more spaces
 * (`1*SP`), then one b64token. Anything else is malformed.
 */
function bearerOf(header) {
  if (header === undefined) return { missing: true };
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)( +)(.*)$/.exec(header);
  if (!m || m[1].toLowerCase() !== 'bearer' || !B64TOKEN.test(m[3])) return { malformed: true };
  return { token: m[3] };
}

// ---------------------------------------------------------------- seed data

function seed() {
  const now = Date.now();
  const iso = (ms) => new Date(ms).toISOString();
  const orgA = { id: `org_${hex(12)}`, name: 'Acme Voice', slug: 'acme-voice', contact_email: 'ops@acme.example' };
  const orgB = { id: `org_${hex(12)}`, name: 'Globex Support', slug: 'globex', contact_email: 'it@globex.example' };
  const ada = {
    id: crypto.randomUUID(),
    idp_user_id: `auth0|${hex(24)}`,
    email: 'ada@acme.example',
    name: 'Ada Lovelace',
    default_org_id: orgA.id,
    roles: new Map([
      [orgA.id, 'owner'],
      [orgB.id, 'developer'],
    ]),
  };
  const grace = {
    id: 'grace.hopper+voice@globex.example',
    idp_user_id: `google-oauth2|${hex(20)}`,
    email: 'grace.hopper@globex.example',
    name: 'Grace Hopper',
    default_org_id: orgB.id,
    roles: new Map([[orgB.id, 'owner']]),
  };
  const users = new Map([ada, grace].map((u) => [u.id, u]));
  const orgs = new Map([orgA, orgB].map((o) => [o.id, o]));
  const assistants = [orgA, orgA, orgB].map((org, i) => assistant(org.id, i));
  const calls = [];
  for (let i = 0; i < 40; i++) calls.push(call(i % 4 === 3 ? orgB.id : orgA.id, i, assistants, now, iso));
  const lists = new Map();
  for (const org of [orgA, orgB]) {
    const id = `rl_${hex(12)}`;
    lists.set(id, { id, org_id: org.id, name: `${org.name} leads`, recipients: [] });
  }
  return { users, orgs, assistants, calls, lists, ada, grace, orgA, orgB };
}

const hex = (n) =>
  crypto
    .randomBytes(Math.ceil(n / 2))
    .toString('hex')
    .slice(0, n);

function assistant(orgId, i) {
  return {
    org_id: orgId,
    record: {
      id: `asst_${hex(12)}`,
      name: ['Reception', 'Collections', 'Helpdesk'][i],
      system_instruction: 'You are a polite phone agent.',
      voice: { voice_id: 'v-alloy', tts_provider: 'cartesia', tts_model: 'sonic-2', language: 'en', speed: 1 },
      llm: { llm_provider: 'openai', model: 'gpt-4o-mini' },
      transcriber: { stt_provider: 'deepgram', stt_model: 'nova-3', language: 'en' },
      speech_settings: { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' },
      long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: '' },
      short_term_memory: { enabled: false, search_limit: 3 },
      call_summary: { prompt: 'Summarise the call.' },
      recording: { enabled: false, stereo: true, mp3_enabled: true },
      call_actions: {
        enabled: true,
        allow_hangup: true,
        allow_transfer: true,
        hangup_triggers: ['goodbye'],
        transfer_triggers: ['human'],
        transfer_number: '+15550100',
        transfer_mode: 'cold',
        confirm_required: true,
        auto_hangup_silence_seconds: 20,
        confirm_yes: ['yes'],
        confirm_no: ['no'],
        webhook_url: 'https://hooks.acme.example/voice',
        webhook_timeout_ms: 3500,
      },
      description: null,
      first_message: 'Hello!',
      knowledge_base_ids: [],
      phone_number_id: `pn_${hex(10)}`,
      assistant_speaks_first: true,
    },
  };
}

function call(orgId, i, assistants, now, iso) {
  const mine = assistants.filter((a) => a.org_id === orgId);
  const a = mine[i % mine.length].record;
  const start = now - (i + 1) * 3_600_000;
  return {
    org_id: orgId,
    record: {
      id: `call_${hex(16)}`,
      to_number: `+1555${String(1000 + i).padStart(7, '0')}`,
      provider: CHANNELS[i % 2],
      status: i % 5 === 0 ? 'failed' : 'completed',
      phone_number_id: a.phone_number_id,
      assistant_id: a.id,
      from_number: '+15550100',
      provider_call_sid: `CA${hex(32)}`,
      direction: i % 3 === 0 ? 'inbound' : 'outbound',
      created_at: iso(start),
      started_at: iso(start + 2000),
      ended_at: iso(start + 62_000),
      ended_reason: 'hangup',
      duration_seconds: 60,
      timestamp: iso(start),
      summary: null,
      user_messages: 4,
      agent_messages: 5,
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
      transcript: null,
    },
  };
}

// ---------------------------------------------------------------- validation

const issue = (loc, msg, type) => ({ loc, msg, type });

const TYPES = {
  string: (v) => (typeof v === 'string' ? null : ['Input should be a valid string', 'string_type']),
  integer: (v) => (Number.isInteger(v) ? null : ['Input should be a valid integer', 'int_type']),
  boolean: (v) => (typeof v === 'boolean' ? null : ['Input should be a valid boolean', 'bool_type']),
  object: (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? null
      : ['Input should be a valid dictionary', 'dict_type'],
  array: (v) => (Array.isArray(v) ? null : ['Input should be a valid list', 'list_type']),
};

function checkField(loc, value, rule, out) {
  const wrong = TYPES[rule.type](value);
  if (wrong) return out.push(issue(loc, wrong[0], wrong[1]));
  if (rule.min !== undefined && value < rule.min)
    return out.push(issue(loc, `Input should be greater than or equal to ${rule.min}`, 'greater_than_equal'));
  if (rule.max !== undefined && value > rule.max)
    return out.push(issue(loc, `Input should be less than or equal to ${rule.max}`, 'less_than_equal'));
  if (rule.enum && !rule.enum.includes(value))
    return out.push(issue(loc, `Input should be ${rule.enum.map((e) => `'${e}'`).join(', ')}`, 'enum'));
  if (rule.members) checkObject(loc, value, rule.members, out);
  if (rule.items) value.forEach((item, i) => checkField([...loc, i], item, rule.items, out));
  return undefined;
}

function checkObject(loc, body, members, out) {
  for (const [name, rule] of Object.entries(members)) {
    if (!(name in body)) {
      if (rule.required) out.push(issue([...loc, name], 'Field required', 'missing'));
      continue;
    }
    checkField([...loc, name], body[name], rule, out);
  }
}

const S = { type: 'string' };
const STR_REQ = { type: 'string', required: true };
const SPEECH = { type: 'object', members: { style: S, responsiveness: S, interruptions: S, emotions: S } };
const RECIPIENT = {
  type: 'object',
  members: { phone_number: STR_REQ, metadata: { type: 'object' }, assistant_overrides: { type: 'object' } },
};
const COMMON = {
  max_concurrency: { type: 'integer', min: 1, max: 200 },
  retry_policy: { type: 'object' },
  speech_settings: SPEECH,
  campaign_context: S,
  opening_message_template: S,
  use_returning_greeting: { type: 'boolean' },
  use_short_term_summaries: { type: 'boolean' },
  short_term_summaries_limit: { type: 'integer' },
  recipients: { type: 'array', items: RECIPIENT },
};
const CREATE = {
  name: STR_REQ,
  assistant_id: STR_REQ,
  phone_number_id: STR_REQ,
  channel: { type: 'string', required: true, enum: CHANNELS },
  scheduleStartTime: S,
  scheduleEndTime: S,
  machine_detection_timeout_seconds: { type: 'integer', min: 3, max: 60 },
  recipient_list_id: S,
  ...COMMON,
};
const UPDATE = {
  name: S,
  schedule_start_time: S,
  schedule_end_time: S,
  status: { type: 'string', enum: STATUSES },
  ...COMMON,
};
const RECIPIENT_ADD = { phone_number: STR_REQ, metadata: { type: 'object' } };
const INVITE = { email: STR_REQ, role: STR_REQ };

/** The 2.8 issues of a body against members, or of the body itself (missing, not an object). */
function validateBody(body, members) {
  if (body === undefined) return [issue(['body'], 'Field required', 'missing')];
  const out = [];
  checkField(['body'], body, { type: 'object' }, out);
  if (out.length) return out;
  checkObject(['body'], body, members, out);
  return out;
}

/** A query integer: decimal digits only (a sign, a fraction or an exponent is refused), at least `min`. */
function queryInt(params, name, fallback, min, out) {
  const all = params.getAll(name);
  if (all.length === 0) return fallback;
  const raw = all[all.length - 1];
  if (!/^\d{1,15}$/.test(raw)) {
    out.push(
      issue(['query', name], 'Input should be a valid integer, unable to parse string as an integer', 'int_parsing'),
    );
    return fallback;
  }
  const n = Number(raw);
  if (n < min)
    out.push(issue(['query', name], `Input should be greater than or equal to ${min}`, 'greater_than_equal'));
  return n;
}

// ---------------------------------------------------------------- the service

export async function start({
  host = '127.0.0.1',
  port = 0,
  rateLimit = 100,
  rateWindowMs = 60_000,
  graceMs = 24 * 3_600_000,
  authFailureLimit = 30,
  authFailureWindowMs = 10_000,
} = {}) {
  const data = seed();
  const started = Date.now();
  const keys = new Map(); // key id -> {id, name, user_id, hash, legacy, created_at}
  const secrets = new Map(); // sha256(secret) hex -> {key_id, expires_at (ms) | null}
  const campaigns = new Map();
  const invites = new Map(); // `${org}|${email}` -> invite (pending)
  const buckets = new Map(); // `key:<id>` or `ip:<addr>` -> {count, resetAt}

  const issueKey = (userId, name, legacy) => {
    const id = `ak_${hex(16)}`;
    const secret = legacy ? `vk_${hex(40)}` : newV2Key();
    // A legacy key is read-only (scope `read`); a v2 key may read and write.
    const scopes = legacy ? ['read'] : ['read', 'write'];
    keys.set(id, { id, name, user_id: userId, legacy, scopes, created_at: new Date().toISOString() });
    secrets.set(sha256(secret).toString('hex'), { key_id: id, expires_at: null });
    return { id, secret };
  };
  const primary = issueKey(data.ada.id, 'primary', false);
  const spare = issueKey(data.ada.id, 'ci (legacy)', true);
  const graceKey = issueKey(data.grace.id, 'default', false);

  /** Fixed window per bucket; `count: false` only reads it. */
  function bucket(name, limit, count, windowMs = rateWindowMs) {
    const now = Date.now();
    let b = buckets.get(name);
    if (!b || now >= b.resetAt) {
      b = { used: 0, resetAt: now + windowMs };
      buckets.set(name, b);
    }
    const allowed = b.used < limit;
    if (count && allowed) b.used++;
    return {
      allowed,
      headers: {
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(Math.max(0, limit - b.used)),
        'X-RateLimit-Reset': String(Math.ceil(b.resetAt / 1000)), // epoch seconds, GitHub style
      },
      retryAfter: Math.max(1, Math.ceil((b.resetAt - now) / 1000)),
    };
  }
  // Failed authentications are counted per client address (brute-force throttling), apart from the keys' limits.
  const failures = (req, count) =>
    bucket(`ip:${req.socket.remoteAddress ?? 'unknown'}`, authFailureLimit, count, authFailureWindowMs);

  /** Who the request is, or why not: {key, user, deprecated?} | {fail: 'missing'|'invalid'}. */
  function authenticate(req, needsUser) {
    const bearer = bearerOf(req.headers['authorization']);
    if (bearer.missing) return { fail: 'missing', what: 'no Authorization header' };
    if (bearer.malformed) return { fail: 'invalid', what: 'the Authorization header is not "Bearer <API key>"' };
    if (!wellFormedKey(bearer.token)) return { fail: 'invalid', what: 'the bearer is not an API key' };
    const found = secrets.get(sha256(bearer.token).toString('hex'));
    if (!found || (found.expires_at !== null && Date.now() >= found.expires_at))
      return { fail: 'invalid', what: 'unknown, revoked or expired API key' };
    const key = keys.get(found.key_id);
    const user = data.users.get(key.user_id);
    const sent = req.headers['x-user-id'];
    // The user id must name the key's owner when required, and when sent at all (bearer-only operations included).
    if (needsUser || sent !== undefined) {
      if (sent === undefined || sent.trim() === '')
        return { fail: needsUser ? 'missing' : 'invalid', what: 'no X-User-ID' };
      if (canonicalUserId(sent) !== user.id) return { fail: 'invalid', what: 'the key does not belong to that user' };
    }
    return { key, user, deprecated: found.expires_at };
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, { detail: 'Internal server error' });
      else res.destroy();
    });
  });

  const requestIdOf = (req) => {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : `req_${hex(20)}`;
  };

  function send(res, status, body, headers = {}, type = 'application/json') {
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, {
      ...res.gk,
      ...headers,
      ...(body === undefined ? {} : { 'Content-Type': type }),
      'Content-Length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  /** The gateway's own refusals (401, 403, 429): RFC 9457 problem details, `detail` the message. */
  function problem(res, status, title, detail, extra, headers) {
    const body = { type: 'about:blank', title, status, detail, ...extra, request_id: res.gk['X-Request-Id'] };
    send(res, status, body, headers, 'application/problem+json');
  }

  function unauthorized(res, why) {
    const missing = why.fail === 'missing';
    // RFC 6750 3.1: no error code when the request carried no credentials at all.
    const challenge = missing
      ? 'Bearer realm="api"'
      : 'Bearer realm="api", error="invalid_token", error_description="The access token is invalid"';
    problem(
      res,
      401,
      'Unauthorized',
      'Invalid authentication credentials',
      {
        error: missing ? 'unauthorized' : 'invalid_token',
        error_description: missing
          ? 'Send Authorization: Bearer <API key> and X-User-ID: <user id>'
          : 'The API key is invalid, revoked or expired, or does not belong to the user in X-User-ID',
      },
      { 'WWW-Authenticate': challenge },
    );
  }

  async function readBody(req) {
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_BODY) return { tooLarge: true };
      chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() === '') return { value: undefined };
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { invalid: true };
    }
  }

  // ------------------------------------------------------------ routes

  const ROUTES = [
    { method: 'GET', path: /^\/health$/, auth: 'none', run: health },
    { method: 'OPTIONS', path: /^\/user-credentials\/user-credentials\/([^/]+)$/, auth: 'none', run: preflight(true) },
    { method: 'OPTIONS', path: /^\/logs\/chat-logs\/([^/]+)$/, auth: 'none', run: preflight(true) },
    { method: 'OPTIONS', path: /^\/logs\/chat-sessions$/, auth: 'none', run: preflight(false) },
    { method: 'GET', path: /^\/calls$/, auth: 'user', run: listCalls },
    { method: 'POST', path: /^\/campaign$/, auth: 'user', run: createCampaign },
    { method: 'GET', path: /^\/campaign\/([^/]+)$/, auth: 'user', run: getCampaign },
    { method: 'PATCH', path: /^\/campaign\/([^/]+)$/, auth: 'user', run: updateCampaign },
    { method: 'POST', path: /^\/recipient-lists\/([^/]+)\/recipients$/, auth: 'user', run: addRecipient },
    { method: 'POST', path: /^\/orgs\/([^/]+)\/invites$/, auth: 'user', run: createInvite },
    { method: 'GET', path: /^\/users\/me$/, auth: 'user', run: me },
    { method: 'GET', path: /^\/assistants$/, auth: 'user', run: listAssistants },
    { method: 'POST', path: /^\/api-keys\/api-keys\/([^/]+)\/regenerate$/, auth: 'bearer', run: regenerate },
    { method: 'GET', path: /^\/protected$/, auth: 'user', run: protectedRoute },
  ];

  const decode = (s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };

  async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://gatekeeper.invalid');
    const origin = req.headers['origin'];
    res.gk = {
      'X-Request-Id': requestIdOf(req),
      'Cache-Control': 'no-store',
      ...(origin
        ? {
            'Access-Control-Allow-Origin': origin,
            'Access-Control-Expose-Headers':
              'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id',
            Vary: 'Origin',
          }
        : {}),
    };
    const candidates = ROUTES.filter((r) => r.path.test(url.pathname));
    const route = candidates.find((r) => r.method === req.method);
    // The gateway: health and preflights pass without credentials; everything else, known or
    // not, is authenticated before the service sees it (an unknown path with bad credentials is 401).
    if (route?.auth === 'none') {
      Object.assign(res.gk, failures(req, false).headers);
      return route.run({ req, res, url, params: route.path.exec(url.pathname).slice(1).map(decode) });
    }
    const who = authenticate(req, route ? route.auth === 'user' : true);
    if (who.fail) {
      const failed = failures(req, true);
      Object.assign(res.gk, failed.headers);
      if (!failed.allowed) return tooMany(res, failed.retryAfter, 'failed authentications from this address');
      return unauthorized(res, who);
    }
    const limit = bucket(`key:${who.key.id}`, rateLimit, true);
    Object.assign(res.gk, limit.headers);
    if (who.deprecated) res.gk['Deprecation'] = `@${Math.floor(Date.now() / 1000)}`;
    if (who.deprecated) res.gk['Sunset'] = new Date(who.deprecated).toUTCString();
    if (!limit.allowed) return tooMany(res, limit.retryAfter, 'requests for this API key');
    if (req.method !== 'GET' && !who.key.scopes.includes('write'))
      return problem(
        res,
        403,
        'Forbidden',
        'This API key is read-only',
        { error: 'insufficient_scope' },
        {
          'WWW-Authenticate': 'Bearer realm="api", error="insufficient_scope", scope="write"',
        },
      );
    if (!route) {
      if (candidates.length)
        return send(res, 405, { detail: 'Method Not Allowed' }, { Allow: candidates.map((r) => r.method).join(', ') });
      return send(res, 404, { detail: 'Not Found' });
    }
    const params = route.path.exec(url.pathname).slice(1).map(decode);
    let body;
    if (req.method === 'POST' || req.method === 'PATCH') {
      const read = await readBody(req);
      if (read.tooLarge)
        return send(res, 413, { detail: 'Request body too large (limit 1 MiB)' }, { Connection: 'close' });
      if (read.invalid) return send(res, 422, { detail: [issue(['body'], 'JSON decode error', 'json_invalid')] });
      body = read.value;
    }
    return route.run({ req, res, url, params, body, who });
  }

  function tooMany(res, retryAfter, what) {
    problem(
      res,
      429,
      'Too Many Requests',
      `Rate limit exceeded: too many ${what}`,
      { error: 'rate_limited' },
      {
        'Retry-After': String(retryAfter),
      },
    );
  }

  const invalid = (res, issues) => send(res, 422, { detail: issues });
  const notFound = (res, what) => send(res, 404, { detail: `${what} not found` });
  const orgOf = (who) => who.user.default_org_id;

  /** Health needs no credentials; a caller whose credentials are valid also sees the multi-user figures. */
  function health({ req, res }) {
    const who = req.headers['authorization'] === undefined ? { fail: 'missing' } : authenticate(req, false);
    const open = { status: 'ok', version: VERSION, uptime_seconds: Math.floor((Date.now() - started) / 1000) };
    if (who.fail) return send(res, 200, open);
    return send(res, 200, {
      ...open,
      multi_user: true,
      users: data.users.size,
      resource_usage: { cpu_percent: 12, memory_percent: 50 },
    });
  }

  /** CORS preflights: no credentials asked; only the headers and methods the contract uses are allowed. */
  function preflight(validationBody) {
    return ({ req, res }) => {
      const method = req.headers['access-control-request-method'];
      const asked = String(req.headers['access-control-request-headers'] ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean);
      const headers = {
        'Access-Control-Allow-Methods': ALLOWED_METHODS.join(', '),
        'Access-Control-Allow-Headers': 'Authorization, X-User-ID, Content-Type',
        'Access-Control-Max-Age': '600',
        Allow: 'OPTIONS',
      };
      const issues = [];
      if (method !== undefined && !ALLOWED_METHODS.includes(method))
        issues.push(issue(['header', 'Access-Control-Request-Method'], `Method ${method} is not allowed`, 'enum'));
      for (const h of asked)
        if (!ALLOWED_HEADERS.includes(h))
          issues.push(issue(['header', 'Access-Control-Request-Headers'], `Header ${h} is not allowed`, 'enum'));
      if (issues.length && validationBody) return send(res, 422, { detail: issues }, headers);
      return send(res, 204, undefined, headers);
    };
  }

  function listCalls({ res, url, who }) {
    const issues = [];
    const limit = queryInt(url.searchParams, 'limit', 50, 0, issues);
    const offset = queryInt(url.searchParams, 'offset', 0, 0, issues);
    if (issues.length) return invalid(res, issues);
    const provider = url.searchParams.get('provider');
    const org = orgOf(who);
    const rows = data.calls
      .filter((c) => c.org_id === org && (!provider || c.record.provider === provider))
      .map((c) => c.record);
    return send(res, 200, rows.slice(offset, offset + limit));
  }

  function campaignRecord(body, org) {
    const now = new Date().toISOString();
    const a = data.assistants.find((x) => x.record.id === body.assistant_id);
    const list = body.recipient_list_id ? data.lists.get(body.recipient_list_id) : undefined;
    return {
      id: `cmp_${hex(16)}`,
      name: body.name,
      assistant_id: body.assistant_id,
      assistant_name: a?.record.name ?? null,
      channel: body.channel,
      phone_number_id: body.phone_number_id,
      caller_id_number: '+15550100',
      status: 'draft',
      max_concurrency: body.max_concurrency ?? 10,
      retry_policy: body.retry_policy ?? { max_attempts: 2 },
      speech_settings: body.speech_settings ?? {
        style: 'neutral',
        responsiveness: 'balanced',
        interruptions: 'on',
        emotions: 'natural',
      },
      schedule_start_time: body.scheduleStartTime ?? null,
      schedule_end_time: body.scheduleEndTime ?? null,
      campaign_context: body.campaign_context ?? null,
      opening_message_template: body.opening_message_template ?? null,
      use_returning_greeting: body.use_returning_greeting ?? false,
      use_short_term_summaries: body.use_short_term_summaries ?? false,
      short_term_summaries_limit: body.short_term_summaries_limit ?? 3,
      machine_detection_timeout_seconds: body.machine_detection_timeout_seconds ?? 30,
      recipient_list_id: body.recipient_list_id ?? null,
      recipient_list_name: list && list.org_id === org ? list.name : null,
      recipient_list_row_count: list && list.org_id === org ? list.recipients.length : null,
      counts: { total: (body.recipients ?? []).length, completed: 0, failed: 0 },
      created_at: now,
      updated_at: now,
    };
  }

  function createCampaign({ res, body, who }) {
    const issues = validateBody(body, CREATE);
    if (issues.length) return invalid(res, issues);
    const org = orgOf(who);
    const record = campaignRecord(body, org);
    campaigns.set(record.id, { org_id: org, record, recipients: body.recipients ?? [] });
    return send(res, 201, record, { Location: `/campaign/${encodeURIComponent(record.id)}` });
  }

  /** Another tenant's campaign is not found: no existence oracle across organizations. */
  const ownCampaign = (id, who) => {
    const c = campaigns.get(id);
    return c && c.org_id === orgOf(who) ? c : undefined;
  };

  function getCampaign({ res, params, who }) {
    const c = ownCampaign(params[0], who);
    if (!c) return notFound(res, 'Campaign');
    return send(res, 200, { campaign: c.record, counts: c.record.counts, calls: [] });
  }

  const OMITTED = [
    'assistant_name',
    'machine_detection_timeout_seconds',
    'recipient_list_id',
    'recipient_list_name',
    'recipient_list_row_count',
    'counts',
  ];

  function updateCampaign({ res, params, body: sent, who }) {
    const body = sent ?? {};
    const issues = validateBody(body, UPDATE);
    if (issues.length) return invalid(res, issues);
    const c = ownCampaign(params[0], who);
    if (!c) return notFound(res, 'Campaign');
    for (const name of Object.keys(UPDATE)) {
      if (!(name in body)) continue;
      if (name === 'recipients') {
        c.recipients = body.recipients;
        c.record.counts = { ...c.record.counts, total: body.recipients.length };
      } else c.record[name] = body[name];
    }
    c.record.updated_at = new Date().toISOString();
    const out = { ...c.record };
    for (const k of OMITTED) delete out[k];
    return send(res, 200, out);
  }

  function addRecipient({ res, params, body, who }) {
    const issues = validateBody(body, RECIPIENT_ADD);
    if (issues.length) return invalid(res, issues);
    const list = data.lists.get(params[0]);
    if (!list || list.org_id !== orgOf(who)) return notFound(res, 'Recipient list');
    const recipient = {
      id: `rcp_${hex(16)}`,
      phone_number: body.phone_number,
      metadata: body.metadata ?? {},
      recipient_list_id: list.id,
      created_at: new Date().toISOString(),
    };
    list.recipients.push(recipient);
    return send(res, 201, { ...recipient, row_count: list.recipients.length });
  }

  function createInvite({ res, params, body, who }) {
    const issues = validateBody(body, INVITE);
    if (issues.length === 0 && !EMAIL.test(body.email.trim()))
      issues.push(issue(['body', 'email'], 'value is not a valid email address', 'value_error'));
    if (issues.length === 0 && !ROLES.includes(body.role.trim().toLowerCase()))
      issues.push(issue(['body', 'role'], `Input should be ${ROLES.map((r) => `'${r}'`).join(', ')}`, 'enum'));
    if (issues.length) return invalid(res, issues);
    const org = data.orgs.get(params[0]);
    const role = org ? who.user.roles.get(org.id) : undefined;
    // An organization the caller is not a member of does not exist for them.
    if (!org || role === undefined) return notFound(res, 'Organization');
    if (!INVITERS.has(role))
      return problem(
        res,
        403,
        'Forbidden',
        `Your role (${role}) may not invite members`,
        { error: 'insufficient_scope' },
        {
          'WWW-Authenticate': 'Bearer realm="api", error="insufficient_scope", scope="org:invite"',
        },
      );
    const email = body.email.trim().toLowerCase();
    const slot = `${org.id}|${email}`;
    const pending = invites.get(slot);
    if (pending && Date.parse(pending.expires_at) > Date.now())
      return send(res, 409, { detail: `An invite to ${email} is already pending` });
    const token = `gk-inv_${crypto.randomBytes(24).toString('base64url')}`;
    const invite = {
      id: `inv_${hex(16)}`,
      email,
      role: body.role.trim().toLowerCase(),
      expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    };
    // The token is shown once, in this answer; only its hash is kept.
    invites.set(slot, { ...invite, token_hash: sha256(token).toString('hex') });
    return send(res, 201, { ...invite, token });
  }

  function me({ res, who }) {
    const u = who.user;
    return send(res, 200, {
      user: { id: u.id, idp_user_id: u.idp_user_id, email: u.email, name: u.name, default_org_id: u.default_org_id },
      orgs: [...u.roles].map(([id, role]) => ({ ...data.orgs.get(id), role })),
      default_org_id: u.default_org_id,
    });
  }

  function listAssistants({ res, who }) {
    const org = orgOf(who);
    return send(
      res,
      200,
      data.assistants.filter((a) => a.org_id === org).map((a) => a.record),
    );
  }

  /** A key of the caller's own; the old secret keeps working for the grace period, then stops. */
  function regenerate({ res, params, who }) {
    const key = keys.get(params[0]);
    if (!key || key.user_id !== who.user.id) return notFound(res, 'API key');
    const expires = Date.now() + graceMs;
    for (const s of secrets.values())
      if (s.key_id === key.id && (s.expires_at === null || s.expires_at > expires)) s.expires_at = expires;
    const secret = newV2Key();
    secrets.set(sha256(secret).toString('hex'), { key_id: key.id, expires_at: null });
    const upgraded = key.legacy;
    key.legacy = false;
    key.scopes = ['read', 'write'];
    return send(res, 200, { key: secret, id: key.id, name: key.name, upgraded });
  }

  function protectedRoute({ res, who }) {
    return send(res, 200, {
      message: `Hello, ${who.user.id}! You reached a protected endpoint.`,
      user_id: who.user.id,
    });
  }

  await new Promise((resolve) => server.listen(port, host, resolve));
  const address = server.address();
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  const listA = [...data.lists.values()].find((l) => l.org_id === data.orgA.id);
  const listB = [...data.lists.values()].find((l) => l.org_id === data.orgB.id);
  const fixtures = {
    api_key: primary.secret,
    user_id: data.ada.id,
    org_id: data.orgA.id,
    recipient_list_id: listA.id,
    api_key_id: primary.id,
    channels: [...CHANNELS],
    spare_api_key: { id: spare.id, key: spare.secret },
    member_org_id: data.orgB.id,
    other_user: {
      user_id: data.grace.id,
      api_key: graceKey.secret,
      api_key_id: graceKey.id,
      recipient_list_id: listB.id,
    },
  };
  return {
    url,
    fixtures,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name, d) => {
    const i = process.argv.indexOf(`--${name}`);
    return i < 0 ? d : process.argv[i + 1];
  };
  const s = await start({
    host: arg('host', '127.0.0.1'),
    port: Number(arg('port', 0)),
    rateLimit: Number(arg('rate-limit', 100)),
    rateWindowMs: Number(arg('rate-window-s', 60)) * 1000,
    graceMs: Number(arg('grace-s', 86_400)) * 1000,
  });
  process.stdout.write(`listening ${s.url}\nfixtures ${JSON.stringify(s.fixtures)}\n`);
}
