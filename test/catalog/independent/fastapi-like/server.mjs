// An INDEPENDENT implementation of the Voice-Agent Platform API contract (version 2.0.1), written
// from the contract text only, that behaves like a service built on FastAPI + pydantic v2 (lax
// mode) + Starlette CORSMiddleware(allow_origins=["*"], allow_methods=["*"], allow_headers=["*"])
// + slowapi (key: client address, fixed window, headers_enabled=True), served by uvicorn.
// Plain node:http, no dependencies.
//
// Where the stack's default would break a stated fact of the contract, the minimal customisation a
// careful team makes (and nothing else):
//  1. HTTPBearer / APIKeyHeader failures are 401 (older FastAPI says 403) with
//     {"detail":"Not authenticated"} or {"detail":"Invalid authentication credentials"} and
//     WWW-Authenticate: Bearer (contract 5.5 and 7: 401).
//  2. slowapi's 429 body {"error": "Rate limit exceeded: ..."} becomes
//     {"detail": "Rate limit exceeded: 100 per 1 minute"} (contract 7: {detail: string}).
//  3. A body that is not UTF-8 makes stock FastAPI answer 400 "There was an error parsing the body";
//     it is a validation failure here: 422 json_invalid like any other malformed JSON (contract 4).
//  4. X-RateLimit-Reset is an integer epoch in seconds (1 + the window's expiry), as slowapi prints it.
// Everything else is the stack's default: malformed JSON is parsed (and refused with 422) before the
// security dependencies run; security dependencies run before query/body validation; lax coercion;
// unknown members ignored; response models carry every optional field (null when unset); 200 on
// create; 404/405 bodies of Starlette; trailing-slash 307 redirects; preflights answered by the CORS
// middleware before auth and rate limiting; Retry-After on every rate-limited route's response
// (slowapi's _inject_headers); HEAD on GET routes is 405 (FastAPI routes do not add HEAD); a 422
// that would have to echo a non-finite number is a 500 (JSONResponse uses allow_nan=False).
import http from 'node:http';
import { randomUUID, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';

// ---------------------------------------------------------------- JSON (Python's json module)

class JSONDecodeError extends Error {
  constructor(msg, pos) {
    super(msg);
    this.pos = pos;
  }
}

const WS = new Set([' ', '\t', '\n', '\r']);

/** json.loads: NaN/Infinity accepted, big integers exact (BigInt), duplicate keys: last wins. */
function pyJsonLoads(s) {
  let i = 0;
  const ws = () => {
    while (i < s.length && WS.has(s[i])) i++;
  };
  const value = () => {
    const c = s[i];
    if (c === '"') return string();
    if (c === '{') return object();
    if (c === '[') return array();
    if (s.startsWith('null', i)) return ((i += 4), null);
    if (s.startsWith('true', i)) return ((i += 4), true);
    if (s.startsWith('false', i)) return ((i += 5), false);
    if (s.startsWith('NaN', i)) return ((i += 3), NaN);
    if (s.startsWith('Infinity', i)) return ((i += 8), Infinity);
    if (s.startsWith('-Infinity', i)) return ((i += 9), -Infinity);
    const m = /^(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?/.exec(s.slice(i, i + 4096));
    if (m && m[0] !== '') {
      i += m[0].length;
      if (!m[2] && !m[3]) {
        const n = Number(m[1]);
        return Number.isSafeInteger(n) ? n : BigInt(m[1]);
      }
      const f = Number(m[0]);
      return f;
    }
    throw new JSONDecodeError('Expecting value', i);
  };
  const string = () => {
    const begin = i;
    i++;
    let out = '';
    for (;;) {
      if (i >= s.length) throw new JSONDecodeError('Unterminated string starting at', begin);
      const c = s[i];
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        const e = s[i + 1];
        if (e === undefined) throw new JSONDecodeError('Unterminated string starting at', begin);
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }[e];
        if (simple !== undefined) {
          out += simple;
          i += 2;
          continue;
        }
        if (e === 'u') {
          const hex = s.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JSONDecodeError('Invalid \\uXXXX escape', i + 1);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
          continue;
        }
        throw new JSONDecodeError(`Invalid \\escape: '${e}'`, i);
      }
      if (c.charCodeAt(0) < 0x20) throw new JSONDecodeError('Invalid control character at', i);
      out += c;
      i++;
    }
  };
  const object = () => {
    i++;
    const o = {};
    ws();
    if (s[i] === '}') return (i++, o);
    for (;;) {
      if (s[i] !== '"') throw new JSONDecodeError('Expecting property name enclosed in double quotes', i);
      const k = string();
      ws();
      if (s[i] !== ':') throw new JSONDecodeError("Expecting ':' delimiter", i);
      i++;
      ws();
      const v = value();
      Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
      ws();
      if (s[i] === '}') return (i++, o);
      if (s[i] !== ',') throw new JSONDecodeError("Expecting ',' delimiter", i);
      i++;
      ws();
      if (s[i] !== '"') throw new JSONDecodeError('Expecting property name enclosed in double quotes', i - 1);
    }
  };
  const array = () => {
    i++;
    const a = [];
    ws();
    if (s[i] === ']') return (i++, a);
    for (;;) {
      ws();
      a.push(value());
      ws();
      if (s[i] === ']') return (i++, a);
      if (s[i] !== ',') throw new JSONDecodeError("Expecting ',' delimiter", i);
      i++;
    }
  };
  if (s.charCodeAt(0) === 0xfeff) s = s.slice(1); // bytes decoded as utf-8-sig
  ws();
  const v = value();
  ws();
  if (i !== s.length) throw new JSONDecodeError('Extra data', i);
  return v;
}

class NotJSONCompliant extends Error {}

/** json.dumps(ensure_ascii=False, allow_nan=False, separators=(",", ":")). */
function pyJsonDumps(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new NotJSONCompliant('Out of range float values are not JSON compliant');
    return JSON.stringify(v);
  }
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyJsonDumps).join(',')}]`;
  return `{${Object.keys(v)
    .filter((k) => v[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${pyJsonDumps(v[k])}`)
    .join(',')}}`;
}

// ---------------------------------------------------------------- pydantic v2 (lax) validation

const isDict = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const err = (type, loc, msg, input, ctx) => (ctx ? { type, loc, msg, input, ctx } : { type, loc, msg, input });
const cmp = (a, b) =>
  typeof a === 'bigint' || typeof b === 'bigint' ? (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0) : a - b;
const BOOL_STR = {
  0: false,
  off: false,
  f: false,
  false: false,
  n: false,
  no: false,
  1: true,
  on: true,
  t: true,
  true: true,
  y: true,
  yes: true,
};

/** Validates one value against a field type; pushes errors; returns the coerced value. */
function validate(v, t, loc, errors) {
  if (v === null && t.kind !== 'model_root') return null; // every field is Optional[...] = None
  switch (t.kind) {
    case 'str':
      if (typeof v === 'string') return v;
      errors.push(err('string_type', loc, 'Input should be a valid string', v));
      return undefined;
    case 'int': {
      let n;
      if (typeof v === 'bigint') n = v;
      else if (typeof v === 'boolean') n = v ? 1 : 0;
      else if (typeof v === 'number') {
        if (!Number.isFinite(v))
          return (errors.push(err('finite_number', loc, 'Input should be a finite number', v)), undefined);
        if (!Number.isInteger(v))
          return (
            errors.push(
              err('int_from_float', loc, 'Input should be a valid integer, got a number with a fractional part', v),
            ),
            undefined
          );
        n = v;
      } else if (typeof v === 'string') {
        const m = /^([+-]?\d+)(?:\.0*)?$/.exec(v.trim());
        if (!m)
          return (
            errors.push(
              err('int_parsing', loc, 'Input should be a valid integer, unable to parse string as an integer', v),
            ),
            undefined
          );
        const b = BigInt(m[1]);
        n = b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
      } else return (errors.push(err('int_type', loc, 'Input should be a valid integer', v)), undefined);
      if (t.ge !== undefined && cmp(n, t.ge) < 0)
        return (
          errors.push(
            err('greater_than_equal', loc, `Input should be greater than or equal to ${t.ge}`, v, { ge: t.ge }),
          ),
          undefined
        );
      if (t.le !== undefined && cmp(n, t.le) > 0)
        return (
          errors.push(err('less_than_equal', loc, `Input should be less than or equal to ${t.le}`, v, { le: t.le })),
          undefined
        );
      return n;
    }
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number' && (v === 0 || v === 1)) return v === 1;
      if (typeof v === 'string' && Object.hasOwn(BOOL_STR, v.trim().toLowerCase()))
        return BOOL_STR[v.trim().toLowerCase()];
      if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string')
        return (
          errors.push(err('bool_parsing', loc, 'Input should be a valid boolean, unable to interpret input', v)),
          undefined
        );
      return (errors.push(err('bool_type', loc, 'Input should be a valid boolean', v)), undefined);
    case 'dict':
      if (isDict(v)) return v;
      return (errors.push(err('dict_type', loc, 'Input should be a valid dictionary', v)), undefined);
    case 'enum': {
      if (typeof v === 'string' && t.values.includes(v)) return v;
      const q = t.values.map((x) => `'${x}'`);
      const expected = q.length > 1 ? `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}` : q[0];
      return (errors.push(err('enum', loc, `Input should be ${expected}`, v, { expected })), undefined);
    }
    case 'list':
      if (!Array.isArray(v)) return (errors.push(err('list_type', loc, 'Input should be a valid list', v)), undefined);
      return v.map((x, k) => validate(x, t.item, [...loc, k], errors));
    case 'model':
    case 'model_root': {
      if (!isDict(v))
        return (
          errors.push(
            err('model_attributes_type', loc, 'Input should be a valid dictionary or object to extract fields from', v),
          ),
          undefined
        );
      const out = {};
      const set = new Set();
      for (const [name, ft] of Object.entries(t.fields)) {
        if (!Object.hasOwn(v, name)) continue;
        set.add(name);
        out[name] = validate(v[name], ft, [...loc, name], errors);
      }
      Object.defineProperty(out, '__fields_set__', { value: set, enumerable: false });
      return out;
    }
  }
  throw new Error(`unknown kind ${t.kind}`);
}

const STR = { kind: 'str' };
const INT = { kind: 'int' };
const BOOL = { kind: 'bool' };
const DICT = { kind: 'dict' };
const model = (fields) => ({ kind: 'model', fields });
const SPEECH = model({ style: STR, responsiveness: STR, interruptions: STR, emotions: STR });
const RECIPIENT = model({ phone_number: STR, metadata: DICT, assistant_overrides: DICT });
const CHANNELS = ['twilio', 'telnyx'];

const CampaignCreate = {
  kind: 'model_root',
  fields: {
    name: STR,
    assistant_id: STR,
    phone_number_id: STR,
    channel: { kind: 'enum', values: CHANNELS },
    scheduleStartTime: STR,
    scheduleEndTime: STR,
    max_concurrency: { kind: 'int', ge: 1, le: 200 },
    retry_policy: DICT,
    speech_settings: SPEECH,
    campaign_context: STR,
    opening_message_template: STR,
    use_returning_greeting: BOOL,
    use_short_term_summaries: BOOL,
    short_term_summaries_limit: INT,
    machine_detection_timeout_seconds: { kind: 'int', ge: 3, le: 60 },
    recipient_list_id: STR,
    recipients: { kind: 'list', item: RECIPIENT },
  },
};
const CampaignUpdate = {
  kind: 'model_root',
  fields: {
    name: STR,
    schedule_start_time: STR,
    schedule_end_time: STR,
    max_concurrency: { kind: 'int', ge: 1, le: 200 },
    retry_policy: DICT,
    speech_settings: SPEECH,
    campaign_context: STR,
    opening_message_template: STR,
    use_returning_greeting: BOOL,
    use_short_term_summaries: BOOL,
    short_term_summaries_limit: INT,
    status: { kind: 'enum', values: ['draft', 'scheduled', 'running', 'paused', 'completed'] },
    recipients: { kind: 'list', item: RECIPIENT },
  },
};
const RecipientCreate = { kind: 'model_root', fields: { phone_number: STR, metadata: DICT } };
const InviteCreate = { kind: 'model_root', fields: { email: STR, role: STR } };

// ---------------------------------------------------------------- HTTP helpers

class HTTPException extends Error {
  constructor(status, detail, headers = {}) {
    super(String(detail));
    this.status = status;
    this.detail = detail;
    this.headers = headers;
  }
}
class RequestValidationError extends Error {
  constructor(errors) {
    super('validation');
    this.errors = errors;
  }
}

/** pydantic v2 datetime serialisation of an aware UTC datetime: microseconds, 'Z'. */
const isoZ = (ms) => {
  const d = new Date(ms);
  const base = d.toISOString().slice(0, 19);
  const micro = d.getUTCMilliseconds() * 1000 + Math.floor(Math.random() * 1000);
  return `${base}.${String(micro).padStart(6, '0')}Z`;
};

/** urllib.parse.unquote: %XX runs decoded as UTF-8 with replacement, invalid escapes kept. */
const unquote = (p) =>
  p.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));

const ALL_METHODS = 'DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT';

function limitText(n, windowMs) {
  if (windowMs % 60000 === 0) return `${n} per ${windowMs / 60000} minute`;
  if (windowMs % 1000 === 0) return `${n} per ${windowMs / 1000} second`;
  return `${n} per ${windowMs} millisecond`;
}

// ---------------------------------------------------------------- the service

export async function start({ host = '127.0.0.1', port = 0, rateLimit = 100, rateWindowMs = 60000, fault } = {}) {
  void fault;
  const now = Date.now();
  const USER_ID = 'user_2fapi7Q9xLm3';
  const ORG_ID = 'org_fapi_5d41402abc';
  const RL_ID = 'rl_fapi_8f14e45fce';
  const KEY_ID = 'key_fapi_c9f0f895fb';
  const keys = new Map([['fapi_sk_3b9d8e7f6a5c4b3a2d1e0f9a8b7c', { id: KEY_ID, user: USER_ID, name: 'Default key' }]]);
  const fixtures = {
    api_key: [...keys.keys()][0],
    user_id: USER_ID,
    org_id: ORG_ID,
    recipient_list_id: RL_ID,
    api_key_id: KEY_ID,
    channels: [...CHANNELS],
  };

  const user = {
    id: USER_ID,
    idp_user_id: 'idp|fapi0001',
    email: 'owner@example.com',
    name: 'Fast Owner',
    default_org_id: ORG_ID,
  };
  const orgs = new Map([
    [ORG_ID, { id: ORG_ID, name: 'Fast Org', slug: 'fast-org', role: 'owner', contact_email: 'owner@example.com' }],
  ]);
  const recipientLists = new Map([
    [
      RL_ID,
      {
        id: RL_ID,
        name: 'Seed list',
        recipients: [{ id: randomUUID(), phone_number: '+15550100001', metadata: { first_name: 'Ada' } }],
      },
    ],
  ]);
  const speech = () => ({ style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' });
  const assistant = (id, name, phone) => ({
    id,
    name,
    system_instruction: `You are ${name}.`,
    voice: { voice_id: 'alloy', tts_provider: 'openai', tts_model: 'tts-1', language: 'en-US', speed: 1 },
    llm: { llm_provider: 'openai', model: 'gpt-4o-mini' },
    transcriber: { stt_provider: 'deepgram', stt_model: 'nova-2', language: 'en-US' },
    speech_settings: speech(),
    long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: 'Remember the caller.' },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarise the call.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['goodbye'],
      transfer_triggers: ['human'],
      transfer_number: '+15550109999',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 30,
      confirm_yes: ['yes'],
      confirm_no: ['no'],
      webhook_url: 'https://hooks.example.com/actions',
      webhook_timeout_ms: 3500,
    },
    description: null,
    first_message: 'Hello!',
    knowledge_base_ids: [],
    phone_number_id: phone,
    assistant_speaks_first: true,
  });
  const assistants = [
    assistant('asst_fapi_001', 'Reception', 'pn_fapi_001'),
    assistant('asst_fapi_002', 'Sales', 'pn_fapi_002'),
    assistant('asst_fapi_003', 'Support', null),
  ];
  const phoneNumbers = new Map([
    ['pn_fapi_001', '+15550100100'],
    ['pn_fapi_002', '+15550100200'],
  ]);
  const STATUSES = ['completed', 'completed', 'failed', 'no-answer', 'busy'];
  const calls = [];
  for (let k = 0; k < 64; k++) {
    const provider = CHANNELS[k % 2];
    const created = now - (64 - k) * 3600_000;
    const done = STATUSES[k % STATUSES.length] === 'completed';
    const dur = done ? 30 + k : null;
    calls.push({
      id: randomUUID(),
      to_number: `+1555020${String(k).padStart(4, '0')}`,
      provider,
      status: STATUSES[k % STATUSES.length],
      phone_number_id: k % 3 === 2 ? null : `pn_fapi_00${(k % 2) + 1}`,
      assistant_id: assistants[k % 3].id,
      from_number: k % 2 ? '+15550100200' : '+15550100100',
      provider_call_sid: provider === 'twilio' ? `CA${randomBytes(16).toString('hex')}` : `v3:${randomUUID()}`,
      direction: k % 4 === 0 ? 'inbound' : 'outbound',
      created_at: isoZ(created),
      started_at: isoZ(created + 2000),
      ended_at: dur === null ? null : isoZ(created + 2000 + dur * 1000),
      ended_reason: done ? 'customer-ended-call' : STATUSES[k % STATUSES.length],
      duration_seconds: dur,
      timestamp: isoZ(created),
      summary: done ? 'The caller asked about opening hours.' : null,
      user_messages: done ? 4 : null,
      agent_messages: done ? 5 : null,
      recording_url: done ? `https://rec.example.com/${k}.wav` : null,
      stereo_recording_url: null,
      recording_mp3_url: done ? `https://rec.example.com/${k}.mp3` : null,
      stereo_recording_mp3_url: null,
      latency_metrics: done ? { p50_ms: 620, p95_ms: 910 } : null,
      per_turn_latency: done ? [610, 640] : null,
      cost: done ? 0.05 * (k % 7) + 0.01 : null,
      total_credits: done ? k % 9 : null,
      cost_breakdown: done ? { llm: 0.01, tts: 0.01 } : null,
      costs: done ? [{ type: 'llm', amount: 0.01 }] : null,
      transcript: done
        ? [
            { role: 'agent', text: 'Hello!' },
            { role: 'user', text: 'Hi.' },
          ]
        : null,
    });
  }
  calls.reverse(); // newest first
  const campaigns = new Map();

  // --- dependencies
  function httpBearer(req) {
    const h = req.headers.authorization;
    if (!h) throw new HTTPException(401, 'Not authenticated', { 'www-authenticate': 'Bearer' });
    const sp = h.indexOf(' ');
    const scheme = sp < 0 ? h : h.slice(0, sp);
    const cred = sp < 0 ? '' : h.slice(sp + 1);
    if (!scheme || !cred) throw new HTTPException(401, 'Not authenticated', { 'www-authenticate': 'Bearer' });
    if (scheme.toLowerCase() !== 'bearer')
      throw new HTTPException(401, 'Invalid authentication credentials', { 'www-authenticate': 'Bearer' });
    return cred;
  }
  function userHeader(req) {
    const v = req.headers['x-user-id'];
    if (!v) throw new HTTPException(401, 'Not authenticated', { 'www-authenticate': 'Bearer' });
    return v;
  }
  const invalid = () => new HTTPException(401, 'Invalid authentication credentials', { 'www-authenticate': 'Bearer' });
  /** Depends(verify_api_key): bearer + X-User-ID. */
  function verifyUser(req) {
    const token = httpBearer(req);
    const uid = userHeader(req);
    const key = keys.get(token);
    if (!key || key.user !== uid) throw invalid();
    return { key, userId: uid };
  }
  /** Depends(verify_bearer): bearer only. */
  function verifyBearer(req) {
    const token = httpBearer(req);
    const key = keys.get(token);
    if (!key) throw invalid();
    return { key, userId: key.user };
  }

  const campaignRecord = (c) => ({
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
    recipient_list_name: c.recipient_list_name,
    recipient_list_row_count: c.recipient_list_row_count,
    counts: counts(c),
    created_at: c.created_at,
    updated_at: c.updated_at,
  });
  const OMITTED_ON_UPDATE = [
    'assistant_name',
    'machine_detection_timeout_seconds',
    'recipient_list_id',
    'recipient_list_name',
    'recipient_list_row_count',
    'counts',
  ];
  const updateRecord = (c) => {
    const r = campaignRecord(c);
    for (const k of OMITTED_ON_UPDATE) delete r[k];
    return r;
  };
  const counts = (c) => {
    const total = (c.recipients?.length ?? 0) + (c.recipient_list_row_count ?? 0);
    return {
      total,
      pending: c.status === 'completed' ? 0 : total,
      in_progress: 0,
      completed: c.status === 'completed' ? total : 0,
      failed: 0,
    };
  };
  const speechOut = (s) =>
    s
      ? {
          style: s.style ?? null,
          responsiveness: s.responsiveness ?? null,
          interruptions: s.interruptions ?? null,
          emotions: s.emotions ?? null,
        }
      : null;
  const recipientsOut = (rs) =>
    (rs ?? []).map((r) => ({
      phone_number: r.phone_number ?? null,
      metadata: r.metadata ?? null,
      assistant_overrides: r.assistant_overrides ?? null,
    }));

  // --- endpoints: (ctx) => [status, body]
  const routes = [
    {
      method: 'GET',
      path: '/calls',
      auth: verifyUser,
      query: {
        limit: { kind: 'int', ge: 0, le: 1000, default: 50 },
        offset: { kind: 'int', ge: 0, default: 0 },
        provider: { kind: 'str', default: null },
      },
      handler: ({ query }) => {
        const list = query.provider ? calls.filter((c) => c.provider === query.provider) : calls;
        const off = Number(query.offset > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : query.offset);
        return [200, list.slice(off, off + Number(query.limit))];
      },
    },
    {
      method: 'POST',
      path: '/campaign',
      auth: verifyUser,
      body: CampaignCreate,
      handler: ({ body }) => {
        let asst = null;
        if (body.assistant_id != null) {
          asst = assistants.find((a) => a.id === body.assistant_id);
          if (!asst) throw new HTTPException(404, 'Assistant not found');
        }
        let list = null;
        if (body.recipient_list_id != null) {
          list = recipientLists.get(body.recipient_list_id);
          if (!list) throw new HTTPException(404, 'Recipient list not found');
        }
        const ts = isoZ(Date.now());
        const phoneId = body.phone_number_id ?? asst?.phone_number_id ?? null;
        const c = {
          id: randomUUID(),
          name: body.name ?? null,
          assistant_id: body.assistant_id ?? null,
          assistant_name: asst?.name ?? null,
          channel: body.channel ?? null,
          phone_number_id: phoneId,
          caller_id_number: phoneId ? (phoneNumbers.get(phoneId) ?? null) : null,
          status: 'draft',
          max_concurrency: body.max_concurrency ?? 5,
          retry_policy: body.retry_policy ?? null,
          speech_settings: speechOut(body.speech_settings),
          schedule_start_time: body.scheduleStartTime ?? null,
          schedule_end_time: body.scheduleEndTime ?? null,
          campaign_context: body.campaign_context ?? null,
          opening_message_template: body.opening_message_template ?? null,
          use_returning_greeting: body.use_returning_greeting ?? false,
          use_short_term_summaries: body.use_short_term_summaries ?? false,
          short_term_summaries_limit: body.short_term_summaries_limit ?? null,
          machine_detection_timeout_seconds: body.machine_detection_timeout_seconds ?? null,
          recipient_list_id: list?.id ?? null,
          recipient_list_name: list?.name ?? null,
          recipient_list_row_count: list ? list.recipients.length : null,
          recipients: recipientsOut(body.recipients),
          created_at: ts,
          updated_at: ts,
        };
        campaigns.set(c.id, c);
        return [200, campaignRecord(c)];
      },
    },
    {
      method: 'GET',
      path: '/campaign/{campaign_id}',
      auth: verifyUser,
      handler: ({ params }) => {
        const c = campaigns.get(params.campaign_id);
        if (!c) throw new HTTPException(404, 'Campaign not found');
        return [200, { campaign: campaignRecord(c), counts: counts(c), calls: [] }];
      },
    },
    {
      method: 'PATCH',
      path: '/campaign/{campaign_id}',
      auth: verifyUser,
      body: CampaignUpdate,
      handler: ({ params, body }) => {
        const c = campaigns.get(params.campaign_id);
        if (!c) throw new HTTPException(404, 'Campaign not found');
        for (const k of body.__fields_set__) {
          const v = body[k];
          if (k === 'speech_settings') c.speech_settings = speechOut(v);
          else if (k === 'recipients') c.recipients = recipientsOut(v);
          else c[k] = v;
        }
        c.updated_at = isoZ(Date.now());
        return [200, updateRecord(c)];
      },
    },
    {
      method: 'POST',
      path: '/recipient-lists/{recipient_list_id}/recipients',
      auth: verifyUser,
      body: RecipientCreate,
      handler: ({ params, body }) => {
        const list = recipientLists.get(params.recipient_list_id);
        if (!list) throw new HTTPException(404, 'Recipient list not found');
        const r = {
          id: randomUUID(),
          recipient_list_id: list.id,
          phone_number: body.phone_number ?? null,
          metadata: body.metadata ?? {},
          created_at: isoZ(Date.now()),
        };
        list.recipients.push(r);
        return [200, r];
      },
    },
    {
      method: 'POST',
      path: '/orgs/{org_id}/invites',
      auth: verifyUser,
      body: InviteCreate,
      handler: ({ params, body }) => {
        if (!orgs.has(params.org_id)) throw new HTTPException(404, 'Organization not found');
        return [
          200,
          {
            id: randomUUID(),
            email: body.email ?? null,
            role: body.role ?? null,
            expires_at: isoZ(Date.now() + 7 * 86400_000),
            token: `inv_${randomBytes(24).toString('base64url')}`,
          },
        ];
      },
    },
    {
      method: 'GET',
      path: '/users/me',
      auth: verifyUser,
      handler: () => [200, { user, orgs: [...orgs.values()], default_org_id: ORG_ID }],
    },
    { method: 'GET', path: '/assistants', auth: verifyUser, handler: () => [200, assistants] },
    {
      method: 'POST',
      path: '/api-keys/api-keys/{key_id}/regenerate',
      auth: verifyBearer,
      handler: ({ params, auth }) => {
        const entry = [...keys.entries()].find(([, k]) => k.id === params.key_id && k.user === auth.userId);
        if (!entry) throw new HTTPException(404, 'API key not found');
        keys.delete(entry[0]);
        const fresh = `fapi_sk_${randomBytes(18).toString('hex')}`;
        keys.set(fresh, entry[1]);
        return [200, { key: fresh, id: entry[1].id, name: entry[1].name, upgraded: false }];
      },
    },
    {
      method: 'GET',
      path: '/health',
      handler: () => [
        200,
        { status: 'healthy', multi_user: true, resource_usage: { memory_percent: 50.0, cpu_percent: 12.5 } },
      ],
    },
    {
      method: 'OPTIONS',
      path: '/user-credentials/user-credentials/{credential_id}',
      auth: verifyBearer,
      handler: () => [200, {}],
    },
    { method: 'OPTIONS', path: '/logs/chat-logs/{session_id}', auth: verifyBearer, handler: () => [200, {}] },
    { method: 'OPTIONS', path: '/logs/chat-sessions', auth: verifyBearer, handler: () => [200, {}] },
    {
      method: 'GET',
      path: '/protected',
      auth: verifyUser,
      handler: ({ auth }) => [
        200,
        { message: `Hello, ${auth.userId}! This is a protected endpoint.`, user_id: auth.userId },
      ],
    },
    {
      method: 'GET',
      path: '/openapi.json',
      handler: () => [
        200,
        { openapi: '3.1.0', info: { title: 'Voice-Agent Platform API', version: '2.0.1' }, paths: {} },
      ],
    },
    {
      method: 'GET',
      path: '/docs',
      handler: () => [
        200,
        '<!DOCTYPE html><html><head><title>Voice-Agent Platform API - Swagger UI</title></head><body><div id="swagger-ui"></div></body></html>',
        'text/html; charset=utf-8',
      ],
    },
  ];
  for (const r of routes) {
    const names = [];
    const src = r.path.replace(/\{(\w+)\}/g, (_, n) => (names.push(n), '([^/]+)'));
    r.re = new RegExp(`^${src}$`);
    r.names = names;
  }
  /** Starlette's router: first FULL match, else first PARTIAL (path matches, method does not). */
  const route = (method, path) => {
    let partial = null;
    for (const r of routes) {
      const m = r.re.exec(path);
      if (!m) continue;
      const params = Object.fromEntries(r.names.map((n, k) => [n, m[k + 1]]));
      if (r.method === method) return { full: r, params };
      partial ??= r;
    }
    return { partial };
  };

  // --- slowapi: fixed window per client address
  const windows = new Map();
  const limitStr = limitText(rateLimit, rateWindowMs);
  function hit(clientKey) {
    const t = Date.now();
    let w = windows.get(clientKey);
    if (!w || t >= w.expiry) {
      w = { expiry: t + rateWindowMs, count: 0 };
      windows.set(clientKey, w);
    }
    w.count++;
    const reset = 1 + Math.floor(w.expiry / 1000);
    return {
      ok: w.count <= rateLimit,
      headers: {
        'x-ratelimit-limit': String(rateLimit),
        'x-ratelimit-remaining': String(Math.max(0, rateLimit - w.count)),
        'x-ratelimit-reset': String(reset),
        'retry-after': String(Math.trunc(reset - Date.now() / 1000)),
      },
    };
  }

  function send(req, res, status, body, headers = {}, contentType = 'application/json') {
    let text;
    if (contentType === 'application/json') {
      try {
        text = pyJsonDumps(body);
      } catch (e) {
        if (!(e instanceof NotJSONCompliant)) throw e;
        // ServerErrorMiddleware, outside CORS and slowapi: plain 500
        const t = 'Internal Server Error';
        res.writeHead(500, {
          date: new Date().toUTCString(),
          server: 'uvicorn',
          'content-length': String(t.length),
          'content-type': 'text/plain; charset=utf-8',
        });
        res.end(t);
        return;
      }
    } else text = body;
    const buf = Buffer.from(text, 'utf8');
    const h = {
      date: new Date().toUTCString(),
      server: 'uvicorn',
      'content-length': String(buf.length),
      'content-type': contentType,
      ...headers,
    };
    if (req.headers.origin !== undefined) h['access-control-allow-origin'] = '*';
    res.writeHead(status, h);
    res.end(buf);
  }

  async function readBody(req) {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    return Buffer.concat(chunks);
  }

  async function handle(req, res) {
    const method = req.method;
    const rawUrl = req.url ?? '/';
    const qi = rawUrl.indexOf('?');
    const rawPath = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
    const rawQuery = qi < 0 ? '' : rawUrl.slice(qi + 1);
    const path = unquote(rawPath);

    // CORSMiddleware (outermost): preflights answered here
    if (
      method === 'OPTIONS' &&
      req.headers.origin !== undefined &&
      req.headers['access-control-request-method'] !== undefined
    ) {
      req.resume();
      const h = {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': ALL_METHODS,
        'access-control-max-age': '600',
      };
      if (req.headers['access-control-request-headers'] !== undefined)
        h['access-control-allow-headers'] = req.headers['access-control-request-headers'];
      const okMethod = ALL_METHODS.split(', ').includes(req.headers['access-control-request-method']);
      const text = okMethod ? 'OK' : 'Disallowed CORS method';
      res.writeHead(okMethod ? 200 : 400, {
        date: new Date().toUTCString(),
        server: 'uvicorn',
        ...h,
        'content-length': String(Buffer.byteLength(text)),
        'content-type': 'text/plain; charset=utf-8',
      });
      res.end(text);
      return;
    }

    const bodyBytes = await readBody(req);
    const found = route(method, path);

    if (!found.full) {
      if (!found.partial) {
        // redirect_slashes
        if (path !== '/') {
          const other = path.endsWith('/') ? path.replace(/\/+$/, '') : `${path}/`;
          const again = route(method, other);
          if (again.full || again.partial) {
            const loc = `http://${req.headers.host ?? `${host}`}${other}${qi < 0 ? '' : `?${rawQuery}`}`;
            const h = { date: new Date().toUTCString(), server: 'uvicorn', 'content-length': '0', location: loc };
            if (req.headers.origin !== undefined) h['access-control-allow-origin'] = '*';
            res.writeHead(307, h);
            res.end();
            return;
          }
        }
        return send(req, res, 404, { detail: 'Not Found' });
      }
      return send(req, res, 405, { detail: 'Method Not Allowed' }, { allow: found.partial.method });
    }
    const r = found.full;

    // SlowAPIMiddleware: every matched route is limited (default_limits)
    const rl = hit(req.socket.remoteAddress ?? 'unknown');
    if (!rl.ok) return send(req, res, 429, { detail: `Rate limit exceeded: ${limitStr}` }, rl.headers);

    try {
      // 1. the body is read and decoded before dependencies are solved
      let body;
      if (r.body && bodyBytes.length > 0) {
        const ct = req.headers['content-type'];
        let isJson = !ct;
        if (ct) {
          const mt = ct.split(';')[0].trim().toLowerCase();
          const [main, sub = ''] = mt.split('/');
          isJson = main === 'application' && (sub === 'json' || sub.endsWith('+json'));
        }
        if (isJson) {
          let text;
          try {
            text = new TextDecoder('utf-8', { fatal: true }).decode(bodyBytes);
          } catch {
            // customisation 3: stock FastAPI says 400 here
            throw new RequestValidationError([
              {
                type: 'json_invalid',
                loc: ['body', 0],
                msg: 'JSON decode error',
                input: {},
                ctx: { error: "'utf-8' codec can't decode bytes" },
              },
            ]);
          }
          try {
            body = pyJsonLoads(text);
          } catch (e) {
            if (!(e instanceof JSONDecodeError)) throw e;
            throw new RequestValidationError([
              {
                type: 'json_invalid',
                loc: ['body', e.pos],
                msg: 'JSON decode error',
                input: {},
                ctx: { error: e.message },
              },
            ]);
          }
        } else body = bodyBytes.toString('utf8');
      }
      // 2. dependencies (security)
      const auth = r.auth ? r.auth(req) : null;
      // 3. path, query, body
      const errors = [];
      const params = Object.fromEntries(Object.entries(found.params));
      const query = {};
      if (r.query) {
        const sp = new URLSearchParams(rawQuery);
        for (const [name, q] of Object.entries(r.query)) {
          const all = sp.getAll(name);
          const raw = all.length ? all[all.length - 1] : undefined;
          if (raw === undefined) query[name] = q.default;
          else query[name] = validate(raw, q, ['query', name], errors);
        }
      }
      let model;
      if (r.body) {
        if (body === undefined || body === null)
          errors.push({ type: 'missing', loc: ['body'], msg: 'Field required', input: null });
        else model = validate(body, r.body, ['body'], errors);
      }
      if (errors.length) throw new RequestValidationError(errors);
      const [status, out, ct] = r.handler({ req, params, query, body: model, auth });
      return send(req, res, status, out, rl.headers, ct);
    } catch (e) {
      if (e instanceof HTTPException)
        return send(req, res, e.status, { detail: e.detail }, { ...e.headers, ...rl.headers });
      if (e instanceof RequestValidationError) return send(req, res, 422, { detail: e.errors }, rl.headers);
      throw e;
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      console.error(e);
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Internal Server Error');
      }
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const addr = server.address();
  return {
    url: `http://${host}:${addr.port}`,
    fixtures,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (n, d) => {
    const i = process.argv.indexOf(n);
    return i < 0 ? d : process.argv[i + 1];
  };
  const s = await start({
    host: arg('--host', '127.0.0.1'),
    port: Number(arg('--port', '4020')),
    rateLimit: Number(arg('--rate-limit', '100')),
    rateWindowMs: Number(arg('--rate-window-ms', '60000')),
  });
  console.log(`listening ${s.url}`);
  console.log(`fixtures ${JSON.stringify(s.fixtures)}`);
}
