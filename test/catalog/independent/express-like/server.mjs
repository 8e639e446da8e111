// An INDEPENDENT, CORRECT implementation of the Voice-Agent Platform API contract (v2.0.1),
// written from the contract text alone, that behaves where the contract is silent exactly as
// a typical Express 4 stack does by default:
//
//   app.use(cors())                       // default options
//   app.use(rateLimit({ windowMs, limit, legacyHeaders: true, standardHeaders: false }))
//   app.use(express.json())               // 100kb, strict, application/json only
//   routes, each with an auth middleware and zod validation (z.object strips unknown keys,
//   no coercion in bodies, z.coerce.number() for query integers)
//   app.use(notFound); app.use(errorHandler)
//
// It is imitated in plain node:http (no dependencies): X-Powered-By: Express, weak ETags on every
// body, 304 for a fresh If-None-Match, HEAD served by GET routes, case-insensitive routing with an
// optional trailing slash, qs-style query parsing (repeated keys -> arrays, a[]=, a[b]=),
// "application/json; charset=utf-8", a preflight (any OPTIONS) answered 204 by cors before the
// limiter and auth (Allow-Origin *, Allow-Methods GET,HEAD,PUT,PATCH,POST,DELETE, Allow-Headers
// reflecting Access-Control-Request-Headers, Content-Length: 0), legacy X-RateLimit-* headers
// (Reset = epoch seconds rounded up, per-client window of express-rate-limit v7's MemoryStore,
// keyed by IP, every non-OPTIONS request counted), Retry-After on 429.
//
// CUSTOMISATIONS a careful team makes because the stack's default would break a stated fact:
//  1. Malformed JSON (body-parser's 400 SyntaxError, strict mode included): 422 with the
//     validation error body (contract 4: "Validation failures return 422 with the validation
//     error body (2.8)").
//  2. zod issues mapped to {detail: [{loc: ["body"|"query", ...path], msg, type}]} with 422
//     (zod's own format / express-zod-api's 400 would break 2.8 and 7).
//  3. The rate limiter's handler answers 429 JSON {detail: "Too many requests, please try again
//     later."} instead of the text/html default (7: 429 body is {detail: string}).
//  4. Auth middleware answers 401 {detail: "Unauthorized"} (7) for missing, malformed or wrong
//     credentials (not 403).
//  5. The final 404 and the error handler answer JSON {detail} instead of Express's HTML pages
//     ("Every request and response body is JSON unless stated otherwise"); 4xx errors of the
//     body parser keep their status (413 too large, 415 charset/encoding, 400 aborted/size).
//
// Choices in silent areas (Express/zod defaults): create 201; unknown campaign, assistant,
// recipient list, org or key id -> 404 {detail}; unknown route/method -> 404 {detail:"Not Found"};
// create requires name, assistant_id, phone_number_id, channel (channel one of the two
// providers); the four speech_settings members required when the object is sent; recipients
// need phone_number; invite email is z.string().email(), role optional (developer); fields not
// sent are ABSENT from records (JSON.stringify drops undefined); initial status draft; any status
// transition; GET /calls newest first, limit/offset z.coerce.number().int().nonnegative() (so
// "" reads as 0, as z.coerce does), provider "" = no filter; non-JSON content types leave the
// body {} (so PATCH with a text/plain body changes nothing); key regeneration rotates the key
// (old key 401 at once; fixtures.api_key follows).
import http from 'node:http';
import crypto from 'node:crypto';
import zlib from 'node:zlib';

// ---------------------------------------------------------------- a tiny zod (v3 semantics)
const parsedType = (v) => {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isNaN(v) ? 'nan' : 'number';
  return typeof v;
};
const typeIssue = (expected, v, path) =>
  v === undefined
    ? { code: 'invalid_type', expected, received: 'undefined', path, message: 'Required' }
    : {
        code: 'invalid_type',
        expected,
        received: parsedType(v),
        path,
        message: `Expected ${expected}, received ${parsedType(v)}`,
      };

const z = {
  string: (opts = {}) => ({
    parse(v, path, issues) {
      if (typeof v !== 'string') return void issues.push(typeIssue('string', v, path));
      if (opts.email && !/^(?!\.)(?!.*\.\.)([A-Z0-9_'+\-.]*)[A-Z0-9_+-]@([A-Z0-9][A-Z0-9-]*\.)+[A-Z]{2,}$/i.test(v))
        issues.push({ code: 'invalid_string', validation: 'email', path, message: 'Invalid email' });
      return v;
    },
  }),
  number: ({ int = false, min, max, coerce = false } = {}) => ({
    parse(v, path, issues) {
      if (coerce) v = Number(v);
      if (parsedType(v) !== 'number') return void issues.push(typeIssue('number', v, path));
      if (int && !Number.isInteger(v))
        issues.push({
          code: 'invalid_type',
          expected: 'integer',
          received: 'float',
          path,
          message: 'Expected integer, received float',
        });
      if (min !== undefined && v < min)
        issues.push({
          code: 'too_small',
          minimum: min,
          type: 'number',
          inclusive: true,
          path,
          message: `Number must be greater than or equal to ${min}`,
        });
      if (max !== undefined && v > max)
        issues.push({
          code: 'too_big',
          maximum: max,
          type: 'number',
          inclusive: true,
          path,
          message: `Number must be less than or equal to ${max}`,
        });
      return v;
    },
  }),
  boolean: () => ({
    parse(v, path, issues) {
      if (typeof v !== 'boolean') return void issues.push(typeIssue('boolean', v, path));
      return v;
    },
  }),
  enum: (values) => ({
    parse(v, path, issues) {
      if (typeof v !== 'string') return void issues.push(typeIssue(values.map((x) => `'${x}'`).join(' | '), v, path));
      if (!values.includes(v))
        issues.push({
          code: 'invalid_enum_value',
          options: values,
          path,
          message: `Invalid enum value. Expected ${values.map((x) => `'${x}'`).join(' | ')}, received '${v}'`,
        });
      return v;
    },
  }),
  record: () => ({
    parse(v, path, issues) {
      if (parsedType(v) !== 'object') return void issues.push(typeIssue('object', v, path));
      return v;
    },
  }),
  array: (item) => ({
    parse(v, path, issues) {
      if (!Array.isArray(v)) return void issues.push(typeIssue('array', v, path));
      return v.map((x, i) => item.parse(x, [...path, i], issues));
    },
  }),
  object: (shape) => ({
    parse(v, path, issues) {
      if (parsedType(v) !== 'object') return void issues.push(typeIssue('object', v, path));
      const out = {};
      for (const [k, s] of Object.entries(shape)) {
        const r = s.parse(Object.prototype.hasOwnProperty.call(v, k) ? v[k] : undefined, [...path, k], issues);
        if (r !== undefined) out[k] = r;
      }
      return out; // unknown keys stripped
    },
  }),
  optional: (s) => ({ parse: (v, path, issues) => (v === undefined ? undefined : s.parse(v, path, issues)) }),
  default: (s, d) => ({ parse: (v, path, issues) => (v === undefined ? d : s.parse(v, path, issues)) }),
};
const opt = z.optional;

function safeParse(schema, value, where) {
  const issues = [];
  const data = schema.parse(value, [], issues);
  if (issues.length === 0) return { success: true, data };
  return { success: false, detail: issues.map((i) => ({ loc: [where, ...i.path], msg: i.message, type: i.code })) };
}

// ---------------------------------------------------------------- schemas
const speechSettings = z.object({
  style: z.string(),
  responsiveness: z.string(),
  interruptions: z.string(),
  emotions: z.string(),
});
const recipient = z.object({
  phone_number: z.string(),
  metadata: opt(z.record()),
  assistant_overrides: opt(z.record()),
});
const STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];

const createCampaignSchema = (channels) =>
  z.object({
    name: z.string(),
    assistant_id: z.string(),
    phone_number_id: z.string(),
    channel: z.enum(channels),
    scheduleStartTime: opt(z.string()),
    scheduleEndTime: opt(z.string()),
    max_concurrency: opt(z.number({ int: true, min: 1, max: 200 })),
    retry_policy: opt(z.record()),
    speech_settings: opt(speechSettings),
    campaign_context: opt(z.string()),
    opening_message_template: opt(z.string()),
    use_returning_greeting: opt(z.boolean()),
    use_short_term_summaries: opt(z.boolean()),
    short_term_summaries_limit: opt(z.number({ int: true })),
    machine_detection_timeout_seconds: opt(z.number({ int: true, min: 3, max: 60 })),
    recipient_list_id: opt(z.string()),
    recipients: opt(z.array(recipient)),
  });
const updateCampaignSchema = z.object({
  name: opt(z.string()),
  schedule_start_time: opt(z.string()),
  schedule_end_time: opt(z.string()),
  max_concurrency: opt(z.number({ int: true, min: 1, max: 200 })),
  retry_policy: opt(z.record()),
  speech_settings: opt(speechSettings),
  campaign_context: opt(z.string()),
  opening_message_template: opt(z.string()),
  use_returning_greeting: opt(z.boolean()),
  use_short_term_summaries: opt(z.boolean()),
  short_term_summaries_limit: opt(z.number({ int: true })),
  status: opt(z.enum(STATUSES)),
  recipients: opt(z.array(recipient)),
});
const addRecipientSchema = z.object({ phone_number: z.string(), metadata: opt(z.record()) });
const inviteSchema = z.object({ email: z.string({ email: true }), role: opt(z.string()) });
const listCallsSchema = z.object({
  limit: z.default(z.number({ coerce: true, int: true, min: 0 }), 50),
  offset: z.default(z.number({ coerce: true, int: true, min: 0 }), 0),
  provider: opt(z.string()),
});

// ---------------------------------------------------------------- qs-like query parsing
function parseQuery(search) {
  const out = Object.create(null);
  if (!search) return out;
  let n = 0;
  for (const part of search.split('&')) {
    if (!part || ++n > 1000) continue;
    const eq = part.indexOf('=');
    const dec = (s) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' '));
      } catch {
        return s;
      }
    };
    const rawKey = dec(eq === -1 ? part : part.slice(0, eq));
    const val = eq === -1 ? '' : dec(part.slice(eq + 1));
    const m = /^([^[\]]+)((?:\[[^[\]]*\]){1,5})$/.exec(rawKey);
    if (!m) {
      const k = rawKey;
      if (k === '__proto__') continue;
      if (k in out) out[k] = [].concat(out[k], val);
      else out[k] = val;
      continue;
    }
    const base = m[1];
    const subs = [...m[2].matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]);
    if (base === '__proto__' || subs.includes('__proto__')) continue;
    let cur = out;
    let key = base;
    for (const sub of subs) {
      if (sub === '') {
        if (!Array.isArray(cur[key])) cur[key] = cur[key] === undefined ? [] : [].concat(cur[key]);
        cur = cur[key];
        key = cur.length;
      } else {
        if (typeof cur[key] !== 'object' || cur[key] === null)
          cur[key] = cur[key] === undefined ? {} : Object.assign({}, [].concat(cur[key]));
        cur = cur[key];
        key = sub;
      }
    }
    if (Array.isArray(cur) && typeof key === 'number') cur.push(val);
    else if (key in cur) cur[key] = [].concat(cur[key], val);
    else cur[key] = val;
  }
  return out;
}

// ---------------------------------------------------------------- http helpers (Express-like)
class HttpError extends Error {
  constructor(status, message, type) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

const weakEtag = (buf) =>
  `W/"${buf.length.toString(16)}-${crypto.createHash('sha1').update(buf).digest('base64').substring(0, 27)}"`;

function isFresh(req, etag) {
  const inm = req.headers['if-none-match'];
  if (!inm) return false;
  if (/(?:^|,)\s*?no-cache\s*?(?:,|$)/.test(req.headers['cache-control'] || '')) return false;
  if (inm.trim() === '*') return true;
  const strip = (t) => t.trim().replace(/^W\//, '');
  return inm.split(',').some((t) => strip(t) === strip(etag));
}

function send(req, res, status, obj) {
  if (res.headersSent) return;
  res.statusCode = status;
  const buf = Buffer.from(JSON.stringify(obj), 'utf8');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(buf.length));
  const etag = weakEtag(buf);
  res.setHeader('ETag', etag);
  const s = res.statusCode;
  if ((req.method === 'GET' || req.method === 'HEAD') && ((s >= 200 && s < 300) || s === 304) && isFresh(req, etag))
    res.statusCode = 304;
  if (res.statusCode === 204 || res.statusCode === 304) {
    res.removeHeader('Content-Type');
    res.removeHeader('Content-Length');
    res.removeHeader('Transfer-Encoding');
    res.end();
    return;
  }
  if (req.method === 'HEAD') res.end();
  else res.end(buf);
}

/** body-parser's json(): 100kb, strict, type application/json, utf-* charsets, identity/gzip/deflate. */
function readJsonBody(req) {
  return new Promise((resolve, reject) => {
    const te = req.headers['transfer-encoding'];
    const cl = req.headers['content-length'];
    const hasBody = te !== undefined || (cl !== undefined && !Number.isNaN(parseInt(cl, 10)));
    const ctype = (req.headers['content-type'] || '').toLowerCase();
    const [mime, ...params] = ctype.split(';').map((s) => s.trim());
    if (!hasBody || mime !== 'application/json') {
      req.resume();
      return resolve({});
    }
    let charset = 'utf-8';
    for (const p of params) {
      const m = /^charset\s*=\s*"?([^";]*)"?$/.exec(p);
      if (m) charset = m[1].toLowerCase();
    }
    if (!charset.startsWith('utf-')) {
      req.resume();
      return reject(new HttpError(415, `unsupported charset "${charset.toUpperCase()}"`, 'charset.unsupported'));
    }
    const limit = 102400;
    const encoding = (req.headers['content-encoding'] || 'identity').toLowerCase();
    let stream = req;
    if (encoding === 'gzip') stream = req.pipe(zlib.createGunzip());
    else if (encoding === 'deflate') stream = req.pipe(zlib.createInflate());
    else if (encoding !== 'identity') {
      req.resume();
      return reject(new HttpError(415, `unsupported content encoding "${encoding}"`, 'encoding.unsupported'));
    }
    const length = encoding === 'identity' && cl !== undefined ? parseInt(cl, 10) : undefined;
    if (length !== undefined && length > limit) {
      req.resume();
      return reject(new HttpError(413, 'request entity too large', 'entity.too.large'));
    }
    const chunks = [];
    let received = 0;
    let done = false;
    const fail = (e) => {
      if (done) return;
      done = true;
      req.resume();
      reject(e);
    };
    stream.on('data', (c) => {
      if (done) return;
      received += c.length;
      if (received > limit) return fail(new HttpError(413, 'request entity too large', 'entity.too.large'));
      chunks.push(c);
    });
    stream.on('error', (e) => fail(new HttpError(400, e.message, 'encoding.error')));
    req.on('aborted', () => fail(new HttpError(400, 'request aborted', 'request.aborted')));
    stream.on('end', () => {
      if (done) return;
      if (length !== undefined && received !== length)
        return fail(new HttpError(400, 'request size did not match content length', 'request.size.invalid'));
      done = true;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.length === 0) return resolve({});
      const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text);
      if (!first || (first[1] !== '{' && first[1] !== '[')) {
        const e = new HttpError(
          400,
          `Unexpected token ${first ? first[1] : 'end'} in JSON at position ${first ? first[0].length - 1 : 0}`,
          'entity.parse.failed',
        );
        return reject(e);
      }
      try {
        resolve(JSON.parse(text));
      } catch (err) {
        reject(new HttpError(400, err.message, 'entity.parse.failed'));
      }
    });
  });
}

// ---------------------------------------------------------------- data
const iso = (ms) => new Date(ms).toISOString();
const rid = (p) => `${p}_${crypto.randomBytes(8).toString('hex')}`;

function seed() {
  const providers = ['twilio', 'telnyx'];
  const userId = 'usr_7f3a9c21';
  const orgId = 'org_5b8e1d04';
  const keyId = 'key_2c9f6a13';
  const apiKey = `sk_live_${crypto.randomBytes(16).toString('hex')}`;
  const phoneNumbers = new Map([
    ['pn_1001', { id: 'pn_1001', number: '+14155550101', provider: providers[0] }],
    ['pn_1002', { id: 'pn_1002', number: '+14155550102', provider: providers[1] }],
  ]);
  const base = Date.UTC(2026, 9, 1, 9, 0, 0);
  const mkAssistant = (i, name, phone) => ({
    id: `asst_${1000 + i}`,
    name,
    system_instruction: `You are ${name}, a helpful phone agent.`,
    voice: {
      voice_id: `voice_${i}`,
      tts_provider: 'elevenlabs',
      tts_model: 'eleven_turbo_v2',
      language: 'en-US',
      speed: 1,
    },
    llm: { llm_provider: 'openai', model: 'gpt-4o-mini' },
    transcriber: { stt_provider: 'deepgram', stt_model: 'nova-2', language: 'en-US' },
    speech_settings: { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' },
    long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: 'Remember the caller.' },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarise the call in two sentences.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['goodbye'],
      transfer_triggers: ['human'],
      transfer_number: '+14155550199',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 20,
      confirm_yes: ['yes'],
      confirm_no: ['no'],
      webhook_url: 'https://hooks.example.com/actions',
      webhook_timeout_ms: 3500,
    },
    description: i === 2 ? null : `${name} handles inbound and outbound calls.`,
    first_message: 'Hello! How can I help you today?',
    knowledge_base_ids: i === 0 ? ['kb_01'] : [],
    phone_number_id: phone,
    assistant_speaks_first: i !== 1,
    created_at: iso(base + i * 3600_000),
  });
  const assistants = [
    mkAssistant(0, 'Reception', 'pn_1001'),
    mkAssistant(1, 'Sales', 'pn_1002'),
    mkAssistant(2, 'Support', null),
  ];
  const calls = [];
  for (let i = 0; i < 64; i++) {
    const provider = providers[i % 3 === 2 ? 1 : 0];
    const created = base + i * 17 * 60_000;
    const dur = 30 + ((i * 37) % 400);
    const ended = i % 9 !== 4;
    calls.push({
      id: `call_${String(i + 1).padStart(4, '0')}`,
      to_number: `+1415555${String(2000 + i).padStart(4, '0')}`,
      provider,
      status: ended ? 'completed' : 'failed',
      phone_number_id: provider === providers[0] ? 'pn_1001' : 'pn_1002',
      assistant_id: assistants[i % 3].id,
      from_number: provider === providers[0] ? '+14155550101' : '+14155550102',
      provider_call_sid: `${provider.slice(0, 2).toUpperCase()}${crypto.createHash('md5').update(String(i)).digest('hex')}`,
      direction: i % 4 === 0 ? 'inbound' : 'outbound',
      created_at: iso(created),
      started_at: iso(created + 2000),
      ended_at: ended ? iso(created + 2000 + dur * 1000) : null,
      ended_reason: ended ? 'customer-ended-call' : 'no-answer',
      duration_seconds: ended ? dur : null,
      timestamp: iso(created),
      summary: ended ? 'The caller asked about opening hours.' : null,
      user_messages: ended ? 3 + (i % 5) : 0,
      agent_messages: ended ? 4 + (i % 5) : 0,
      recording_url: ended ? `https://rec.example.com/${i}.wav` : null,
      stereo_recording_url: null,
      recording_mp3_url: ended ? `https://rec.example.com/${i}.mp3` : null,
      stereo_recording_mp3_url: null,
      latency_metrics: { p50_ms: 420 + i, p95_ms: 900 + i },
      per_turn_latency: [{ turn: 1, ms: 400 + i }],
      cost: ended ? Math.round(dur * 0.12) / 100 : 0,
      total_credits: ended ? dur : 0,
      cost_breakdown: { llm: 0.01, tts: 0.02, stt: 0.01, telephony: 0.03 },
      costs: [{ type: 'telephony', amount: 0.03 }],
      transcript: ended
        ? [
            { role: 'assistant', text: 'Hello!' },
            { role: 'user', text: 'Hi, when are you open?' },
          ]
        : [],
    });
  }
  return {
    providers,
    user: {
      id: userId,
      idp_user_id: 'idp|8842197',
      email: 'ops@acme.example',
      name: 'Ops Team',
      default_org_id: orgId,
    },
    orgs: new Map([
      [orgId, { id: orgId, name: 'Acme Voice', slug: 'acme-voice', role: 'owner', contact_email: 'ops@acme.example' }],
    ]),
    apiKeys: new Map([[keyId, { id: keyId, name: 'Default key', key: apiKey, user_id: userId, upgraded: false }]]),
    assistants,
    phoneNumbers,
    calls,
    recipientLists: new Map([
      [
        'rl_3e7d0b55',
        {
          id: 'rl_3e7d0b55',
          name: 'October leads',
          recipients: [{ id: 'rcp_1', phone_number: '+14155553001', metadata: { first_name: 'Ada' } }],
        },
      ],
    ]),
    campaigns: new Map(),
    invites: [],
  };
}

// ---------------------------------------------------------------- the app
export async function start({ host = '127.0.0.1', port = 0, rateLimit = 100, rateWindowMs = 60000, fault } = {}) {
  void fault;
  const db = seed();
  const [apiKeyId] = db.apiKeys.keys();
  const fixtures = {
    api_key: db.apiKeys.get(apiKeyId).key,
    user_id: db.user.id,
    org_id: db.user.default_org_id,
    recipient_list_id: [...db.recipientLists.keys()][0],
    api_key_id: apiKeyId,
    channels: [...db.providers],
  };
  const createSchema = createCampaignSchema(db.providers);

  // express-rate-limit v7 MemoryStore: per-client window from its first hit
  const hits = new Map();
  const limiter = (req, res) => {
    const key = req.socket.remoteAddress || 'unknown';
    const now = Date.now();
    let client = hits.get(key);
    if (!client || client.resetTime <= now) {
      client = { totalHits: 0, resetTime: now + rateWindowMs };
      hits.set(key, client);
    }
    client.totalHits++;
    res.setHeader('X-RateLimit-Limit', String(rateLimit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(rateLimit - client.totalHits, 0)));
    res.setHeader('Date', new Date().toUTCString());
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(client.resetTime / 1000)));
    if (client.totalHits > rateLimit) {
      res.setHeader('Retry-After', String(Math.ceil((client.resetTime - now) / 1000)));
      send(req, res, 429, { detail: 'Too many requests, please try again later.' });
      return false;
    }
    return true;
  };

  const keyFromBearer = (req) => {
    const auth = req.headers.authorization || '';
    if (!auth.startsWith('Bearer ')) return undefined;
    const token = auth.slice(7);
    if (!token) return undefined;
    for (const k of db.apiKeys.values()) if (k.key === token) return k;
    return undefined;
  };
  const unauthorized = (req, res) => send(req, res, 401, { detail: 'Unauthorized' });
  // requireAuth: bearer API key + X-User-ID of its user
  const requireAuth = (req, res) => {
    const key = keyFromBearer(req);
    const uid = req.headers['x-user-id'];
    if (!key || !uid || uid !== key.user_id) return (unauthorized(req, res), false);
    req.user = db.user;
    return true;
  };
  const requireBearer = (req, res) => {
    const key = keyFromBearer(req);
    if (!key) return (unauthorized(req, res), false);
    req.apiKey = key;
    return true;
  };

  const validate = (req, res, schema, where) => {
    const r = safeParse(schema, where === 'query' ? req.query : req.body, where);
    if (!r.success) return (send(req, res, 422, { detail: r.detail }), undefined);
    return r;
  };

  const recordOf = (c) => {
    const list = c.recipient_list_id ? db.recipientLists.get(c.recipient_list_id) : undefined;
    return {
      id: c.id,
      name: c.name,
      assistant_id: c.assistant_id,
      assistant_name: c.assistant_name,
      channel: c.channel,
      phone_number_id: c.phone_number_id,
      caller_id_number: c.caller_id_number,
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
      recipient_list_name: list?.name,
      recipient_list_row_count: list ? list.recipients.length : undefined,
      counts: countsOf(c),
      created_at: c.created_at,
      updated_at: c.updated_at,
    };
  };
  const countsOf = (c) => {
    const list = c.recipient_list_id ? db.recipientLists.get(c.recipient_list_id) : undefined;
    const total = (c.recipients?.length ?? 0) + (list ? list.recipients.length : 0);
    return { total_recipients: total, pending: total, in_progress: 0, completed: 0, failed: 0 };
  };
  const updateRecordOf = (c) => {
    const r = recordOf(c);
    for (const k of [
      'assistant_name',
      'machine_detection_timeout_seconds',
      'recipient_list_id',
      'recipient_list_name',
      'recipient_list_row_count',
      'counts',
    ])
      delete r[k];
    return r;
  };

  const routes = [
    [
      'GET',
      '/health',
      [],
      (req, res) =>
        send(req, res, 200, {
          status: 'ok',
          multi_user: true,
          users: 1,
          resource_usage: { cpu_percent: 50, memory_percent: 50 },
          uptime_seconds: Math.round(process.uptime()),
        }),
    ],
    [
      'GET',
      '/protected',
      [requireAuth],
      (req, res) =>
        send(req, res, 200, {
          message: `Hello, ${req.headers['x-user-id']}! You have access to this protected endpoint.`,
          user_id: req.headers['x-user-id'],
        }),
    ],
    [
      'GET',
      '/users/me',
      [requireAuth],
      (req, res) =>
        send(req, res, 200, { user: db.user, orgs: [...db.orgs.values()], default_org_id: db.user.default_org_id }),
    ],
    [
      'GET',
      '/assistants',
      [requireAuth],
      (req, res) =>
        send(
          req,
          res,
          200,
          db.assistants.map(({ created_at, ...a }) => (void created_at, a)),
        ),
    ],
    [
      'GET',
      '/calls',
      [requireAuth],
      (req, res) => {
        const r = validate(req, res, listCallsSchema, 'query');
        if (!r) return;
        const { limit, offset, provider } = r.data;
        let calls = [...db.calls].sort((a, b) =>
          a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0,
        );
        if (provider) calls = calls.filter((c) => c.provider === provider);
        send(req, res, 200, calls.slice(offset, offset + limit));
      },
    ],
    [
      'POST',
      '/campaign',
      [requireAuth],
      (req, res) => {
        const r = validate(req, res, createSchema, 'body');
        if (!r) return;
        const b = r.data;
        const assistant = db.assistants.find((a) => a.id === b.assistant_id);
        if (!assistant) return send(req, res, 404, { detail: 'Assistant not found' });
        if (b.recipient_list_id !== undefined && !db.recipientLists.has(b.recipient_list_id))
          return send(req, res, 404, { detail: 'Recipient list not found' });
        const now = new Date().toISOString();
        const c = {
          id: crypto.randomUUID(),
          name: b.name,
          assistant_id: b.assistant_id,
          assistant_name: assistant.name,
          channel: b.channel,
          phone_number_id: b.phone_number_id,
          caller_id_number: db.phoneNumbers.get(b.phone_number_id)?.number,
          status: 'draft',
          max_concurrency: b.max_concurrency,
          retry_policy: b.retry_policy,
          speech_settings: b.speech_settings,
          schedule_start_time: b.scheduleStartTime,
          schedule_end_time: b.scheduleEndTime,
          campaign_context: b.campaign_context,
          opening_message_template: b.opening_message_template,
          use_returning_greeting: b.use_returning_greeting,
          use_short_term_summaries: b.use_short_term_summaries,
          short_term_summaries_limit: b.short_term_summaries_limit,
          machine_detection_timeout_seconds: b.machine_detection_timeout_seconds,
          recipient_list_id: b.recipient_list_id,
          recipients: b.recipients,
          created_at: now,
          updated_at: now,
        };
        db.campaigns.set(c.id, c);
        send(req, res, 201, recordOf(c));
      },
    ],
    [
      'GET',
      '/campaign/:campaign_id',
      [requireAuth],
      (req, res) => {
        const c = db.campaigns.get(req.params.campaign_id);
        if (!c) return send(req, res, 404, { detail: 'Campaign not found' });
        send(req, res, 200, { campaign: recordOf(c), counts: countsOf(c), calls: [] });
      },
    ],
    [
      'PATCH',
      '/campaign/:campaign_id',
      [requireAuth],
      (req, res) => {
        const r = validate(req, res, updateCampaignSchema, 'body');
        if (!r) return;
        const c = db.campaigns.get(req.params.campaign_id);
        if (!c) return send(req, res, 404, { detail: 'Campaign not found' });
        Object.assign(c, r.data, { updated_at: new Date().toISOString() });
        send(req, res, 200, updateRecordOf(c));
      },
    ],
    [
      'POST',
      '/recipient-lists/:recipient_list_id/recipients',
      [requireAuth],
      (req, res) => {
        const r = validate(req, res, addRecipientSchema, 'body');
        if (!r) return;
        const list = db.recipientLists.get(req.params.recipient_list_id);
        if (!list) return send(req, res, 404, { detail: 'Recipient list not found' });
        const rec = {
          id: rid('rcp'),
          phone_number: r.data.phone_number,
          metadata: r.data.metadata ?? {},
          recipient_list_id: list.id,
          created_at: new Date().toISOString(),
        };
        list.recipients.push(rec);
        send(req, res, 201, rec);
      },
    ],
    [
      'POST',
      '/orgs/:org_id/invites',
      [requireAuth],
      (req, res) => {
        const r = validate(req, res, inviteSchema, 'body');
        if (!r) return;
        const org = db.orgs.get(req.params.org_id);
        if (!org) return send(req, res, 404, { detail: 'Organization not found' });
        const inv = {
          id: rid('inv'),
          email: r.data.email,
          role: r.data.role ?? 'developer',
          expires_at: new Date(Date.now() + 7 * 86400_000).toISOString(),
          token: crypto.randomBytes(24).toString('base64url'),
        };
        db.invites.push({ ...inv, org_id: org.id });
        send(req, res, 201, inv);
      },
    ],
    [
      'POST',
      '/api-keys/api-keys/:key_id/regenerate',
      [requireBearer],
      (req, res) => {
        const k = db.apiKeys.get(req.params.key_id);
        if (!k || k.user_id !== req.apiKey.user_id) return send(req, res, 404, { detail: 'API key not found' });
        k.key = `sk_live_${crypto.randomBytes(16).toString('hex')}`;
        if (k.id === fixtures.api_key_id) fixtures.api_key = k.key;
        send(req, res, 200, { key: k.key, id: k.id, name: k.name, upgraded: k.upgraded });
      },
    ],
  ].map(([method, path, mws, handler]) => {
    const names = [];
    const re = new RegExp(
      '^' +
        path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, n) => (names.push(n), '(?:([^\\/]+?))')) +
        '\\/?$',
      'i',
    );
    return { method, re, names, mws, handler };
  });

  const errorHandler = (err, req, res) => {
    if (res.headersSent) return res.destroy();
    if (err && err.type === 'entity.parse.failed')
      return send(req, res, 422, {
        detail: [{ loc: ['body'], msg: `JSON parse error: ${err.message}`, type: 'json_invalid' }],
      });
    const status = err && Number.isInteger(err.status) && err.status >= 400 && err.status < 600 ? err.status : 500;
    send(req, res, status, { detail: status < 500 ? err.message : 'Internal Server Error' });
  };

  const handle = async (req, res) => {
    try {
      res.setHeader('X-Powered-By', 'Express');
      // cors()
      res.setHeader('Access-Control-Allow-Origin', '*');
      if (req.method === 'OPTIONS') {
        res.setHeader('Access-Control-Allow-Methods', 'GET,HEAD,PUT,PATCH,POST,DELETE');
        res.setHeader('Vary', 'Access-Control-Request-Headers');
        const acrh = req.headers['access-control-request-headers'];
        if (acrh) res.setHeader('Access-Control-Allow-Headers', acrh);
        res.statusCode = 204;
        res.setHeader('Content-Length', '0');
        req.resume();
        return res.end();
      }
      // rateLimit()
      if (!limiter(req, res)) return req.resume();
      // express.json()
      req.body = await readJsonBody(req);
      // router
      const qi = req.url.indexOf('?');
      const pathname = qi === -1 ? req.url : req.url.slice(0, qi);
      req.query = parseQuery(qi === -1 ? '' : req.url.slice(qi + 1));
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      for (const r of routes) {
        if (r.method !== method) continue;
        const m = r.re.exec(pathname);
        if (!m) continue;
        req.params = {};
        for (let i = 0; i < r.names.length; i++) {
          try {
            req.params[r.names[i]] = decodeURIComponent(m[i + 1]);
          } catch {
            throw new HttpError(400, `Failed to decode param '${m[i + 1]}'`);
          }
        }
        for (const mw of r.mws) if (!mw(req, res)) return;
        return r.handler(req, res);
      }
      send(req, res, 404, { detail: 'Not Found' });
    } catch (err) {
      errorHandler(err, req, res);
    }
  };

  const server = http.createServer((req, res) => {
    handle(req, res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const addr = server.address();
  const url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
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

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const arg = (name, d) => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? d : process.argv[i + 1];
  };
  const s = await start({
    host: arg('host', '127.0.0.1'),
    port: Number(arg('port', 4020)),
    rateLimit: Number(arg('rate-limit', 100)),
    rateWindowMs: Number(arg('rate-window-ms', 60000)),
  });
  console.log(`listening ${s.url}`);
  console.log(`fixtures ${JSON.stringify(s.fixtures)}`);
  const stop = () => s.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
