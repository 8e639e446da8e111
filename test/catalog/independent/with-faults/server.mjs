// Independent implementation of the "Voice-Agent Platform API" contract (version 2.0.1), written
// only from the contract text, with a catalogue of named faults (./faults.mjs) that can be switched
// on one at a time with the `fault` option of start(). Plain Node ESM, node:http only.
//
// Round 3 adds FAULTS_ROUND3 (43) and six more VARIANTS (see FINDINGS.md, "Round 3").
//
// Choices made where the contract is silent (moderate strictness):
//  - Provider ids: 'alpha-tel' and 'beta-voice'. `channel` on create must be one of them (422 otherwise),
//    because the contract says "one of two values: the identifiers of the two supported telephony providers".
//  - No body field is required on create/update (contract: "required: not shown"). On invite, `email`
//    is required; on add-recipient, `phone_number` is required (an invite/recipient without them is
//    meaningless). Unknown extra fields are ignored. JSON types are strict: no "5" for 5, null is not a
//    string/integer/object (422). speech_settings members are optional but must be strings if present.
//  - Missing body on POST/PATCH: 422 loc ['body'] type 'missing'. A body that is not a JSON object: 422
//    loc ['body'] type 'model_attributes_type'. Malformed JSON: 422 loc ['body'] type 'json_invalid'.
//    Wrong content type (not application/json or +json): 422. Body > 1 MiB: 413. Nesting > 256: 422.
//  - Create answers 201; initial status 'draft'; any `status` sent on create is ignored.
//    PATCH accepts the five update statuses and stores them as sent ('scheduled' included); every
//    transition is allowed. PATCH `recipients` replaces the campaign's recipients.
//  - Unknown campaign / recipient list / org / key id: 404 {detail}. Unknown route: 404; wrong method
//    on a known path: 405 with Allow.
//  - Timestamps: ISO 8601 UTC. counts: {recipients, pending, completed, failed}; calls: [].
//  - Auth: `Authorization: Bearer <key>` (scheme case-insensitive) must carry the current key, and
//    X-User-ID must equal the fixture user id; else 401 {detail: "Invalid authentication credentials"}
//    with WWW-Authenticate: Bearer. Regeneration and the three documented preflights need the bearer
//    only (X-User-ID ignored). Health needs nothing (any bearer ignored).
//  - Key regeneration rotates the key: the new key works, the old one is 401 from then on.
//  - GET /calls: limit/offset must be integers (digits, optional leading '-') and >= 0, else 422
//    (limit=0 gives []); empty `provider=` means no filter; unknown provider gives []; order newest first.
//  - Preflights: 204, empty body; Access-Control-Allow-Origin echoes Origin (or '*' without Origin);
//    Allow-Methods GET, POST, PATCH, OPTIONS; Allow-Headers Authorization, X-User-ID, Content-Type
//    (plus any requested); Max-Age 600. OPTIONS on other paths: the same answer without credentials.
//  - Rate limit: fixed window per valid API key, else per client address; every request counts
//    (401/404/422/preflights/health included); the three X-RateLimit-* headers are on every response
//    (429 included, plus Retry-After). X-RateLimit-Reset = whole seconds until the window resets.
//  - Health: 200 {status:'ok', multi_user:true, resource_usage:{memory_percent:50, cpu_percent}}.
import http from 'node:http';
import crypto from 'node:crypto';
import { FAULTS, VARIANTS } from './faults.mjs';

export { FAULTS, VARIANTS };

const PROVIDERS = ['alpha-tel', 'beta-voice'];
const MAX_BODY = 1024 * 1024;
const MAX_DEPTH = 256;
const NO_RATE = 'x-internal-no-rate-headers';
const UPDATE_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed'];
const UPDATE_OMITTED = [
  'assistant_name',
  'machine_detection_timeout_seconds',
  'recipient_list_id',
  'recipient_list_name',
  'recipient_list_row_count',
  'counts',
];

const iso = (ms) => new Date(ms).toISOString();
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function depthOf(value) {
  // iterative: never recurses, so deep input cannot overflow the stack
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

function seed(fixtures) {
  const base = Date.UTC(2026, 9, 1, 9, 0, 0);
  const assistants = [0, 1, 2].map((i) => ({
    id: `asst_fx_${i + 1}`,
    name: ['Reception', 'Collections', 'Survey'][i],
    system_instruction: 'You are a helpful phone agent.',
    voice: { voice_id: `voice_${i}`, tts_provider: 'tts-one', tts_model: 'tts-model-2', language: 'en-US', speed: 1 },
    llm: { llm_provider: 'llm-co', model: 'llm-large' },
    transcriber: { stt_provider: 'stt-co', stt_model: 'stt-fast', language: 'en-US' },
    speech_settings: { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' },
    long_term_memory: { enabled: false, search_limit: 5, search_threshold: 0.1, system_prompt: 'Remember the caller.' },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarise the call.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['bye'],
      transfer_triggers: ['agent'],
      transfer_number: '+15550100',
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 30,
      confirm_yes: ['yes'],
      confirm_no: ['no'],
      webhook_url: 'https://hooks.example.invalid/a',
      webhook_timeout_ms: 3500,
    },
    description: i === 2 ? null : `Assistant number ${i + 1}`,
    first_message: 'Hello, how can I help?',
    knowledge_base_ids: i === 0 ? ['kb_fx_1'] : [],
    phone_number_id: `pn_fx_${(i % 2) + 1}`,
    assistant_speaks_first: true,
  }));
  const phoneNumbers = {
    pn_fx_1: { number: '+15550111', provider: PROVIDERS[0] },
    pn_fx_2: { number: '+15550122', provider: PROVIDERS[1] },
  };
  const statuses = ['completed', 'failed', 'no-answer', 'busy', 'completed'];
  const calls = [];
  for (let i = 0; i < 75; i++) {
    const provider = i % 5 < 3 ? PROVIDERS[0] : PROVIDERS[1];
    const created = base + i * 3_600_000;
    const dur = 30 + ((i * 37) % 400);
    calls.push({
      id: `call_fx_${String(i + 1).padStart(3, '0')}`,
      to_number: `+1555020${String(i % 100).padStart(2, '0')}`,
      provider,
      status: statuses[i % statuses.length],
      phone_number_id: provider === PROVIDERS[0] ? 'pn_fx_1' : 'pn_fx_2',
      assistant_id: assistants[i % 3].id,
      from_number: provider === PROVIDERS[0] ? '+15550111' : '+15550122',
      provider_call_sid: `sid_${crypto.createHash('sha1').update(String(i)).digest('hex').slice(0, 16)}`,
      direction: i % 4 === 0 ? 'inbound' : 'outbound',
      created_at: iso(created),
      started_at: iso(created + 2000),
      ended_at: iso(created + 2000 + dur * 1000),
      ended_reason: 'hangup',
      duration_seconds: dur,
      timestamp: iso(created),
      summary: `Call ${i + 1} summary.`,
      user_messages: i % 9,
      agent_messages: (i % 9) + 1,
      recording_url: `https://rec.example.invalid/${i}.wav`,
      stereo_recording_url: `https://rec.example.invalid/${i}-stereo.wav`,
      recording_mp3_url: `https://rec.example.invalid/${i}.mp3`,
      stereo_recording_mp3_url: `https://rec.example.invalid/${i}-stereo.mp3`,
      latency_metrics: { avg_ms: 400 + i },
      per_turn_latency: [{ turn: 1, ms: 380 }],
      cost: Math.round(dur * 0.7) / 100,
      total_credits: dur,
      cost_breakdown: { llm: 0.01, tts: 0.02 },
      costs: [{ kind: 'llm', amount: 0.01 }],
      transcript: [
        { role: 'agent', text: 'Hello' },
        { role: 'user', text: 'Hi' },
      ],
    });
  }
  calls.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0)); // newest first
  const lists = {
    [fixtures.recipient_list_id]: {
      name: 'Main list',
      recipients: [
        { id: 'rcp_fx_1', phone_number: '+15550301', metadata: {} },
        { id: 'rcp_fx_2', phone_number: '+15550302', metadata: {} },
      ],
    },
  };
  const user = {
    id: fixtures.user_id,
    idp_user_id: 'idp|fx-0001',
    email: 'owner@example.invalid',
    name: 'Fixture Owner',
    default_org_id: fixtures.org_id,
  };
  const orgs = [
    {
      id: fixtures.org_id,
      name: 'Fixture Org',
      slug: 'fixture-org',
      role: 'owner',
      contact_email: 'org@example.invalid',
    },
    {
      id: 'org_fx_other',
      name: 'Other Org',
      slug: 'other-org',
      role: 'developer',
      contact_email: 'other@example.invalid',
    },
  ];
  return { assistants, phoneNumbers, calls, lists, user, orgs, campaigns: new Map(), keyName: 'Fixture key' };
}

export async function start({
  host = '127.0.0.1',
  port = 0,
  rateLimit = 100,
  rateWindowMs = 60000,
  fault,
  variant,
} = {}) {
  if (fault !== undefined && !FAULTS.some((f) => f.name === fault)) throw new Error(`unknown fault ${fault}`);
  if (variant !== undefined && !VARIANTS.some((v) => v.name === variant)) throw new Error(`unknown variant ${variant}`);
  const F = (name) => fault === name;
  const V = (name) => variant === name;
  if (V('reset-floor-1s')) rateWindowMs = 1000;
  const fixtures = {
    api_key: `ind_fx_${crypto.randomBytes(12).toString('hex')}`,
    user_id: 'user_fx_0001',
    org_id: 'org_fx_main',
    recipient_list_id: 'rl_fx_main',
    api_key_id: 'key_fx_main',
    channels: [...PROVIDERS],
  };
  const db = seed(fixtures);
  let currentKey = fixtures.api_key;
  let activeKey = fixtures.api_key; // what authentication accepts (differs from currentKey only under a fault)
  const buckets = new Map();

  // ---------- helpers ----------
  function send(res, status, body, headers = {}) {
    const text = body === undefined ? '' : JSON.stringify(body);
    const h = { ...headers };
    if (body !== undefined && !h['content-type'])
      h['content-type'] = V('charset-and-header-case') ? 'application/json; charset=utf-8' : 'application/json';
    h['content-length'] = Buffer.byteLength(text);
    res.writeHead(status, h);
    res.end(text);
  }
  const vErr = (loc, msg, type, extra = {}) => ({ loc, msg, type, ...extra });
  function send422(res, errors) {
    let detail = errors;
    if (
      F('rng-400-for-out-of-range') &&
      errors.some((e) => e.type === 'greater_than_equal' || e.type === 'less_than_equal')
    ) {
      return send(res, 400, { detail: errors.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; ') });
    }
    if (F('val-loc-omits-field')) detail = detail.map((e) => ({ ...e, loc: e.loc.slice(0, 1) }));
    if (F('val-loc-wrong-location'))
      detail = detail.map((e) => (e.loc[0] === 'body' ? { ...e, loc: ['query', ...e.loc.slice(1)] } : e));
    if (F('val-error-item-missing-type')) detail = detail.map(({ type, ...rest }) => rest);
    if (F('val-error-item-missing-msg')) detail = detail.map(({ msg, ...rest }) => rest);
    if (V('loc-dotted-item'))
      detail = detail.map((e) => (e.loc.length > 2 ? { ...e, loc: [e.loc[0], e.loc.slice(1).join('.')] } : e));
    if (V('loc-field-only')) detail = detail.map((e) => (e.loc.length > 1 ? { ...e, loc: e.loc.slice(1) } : e));
    if (V('extra-422-members')) {
      detail = detail.map((e) => ({
        ...e,
        input: null,
        ctx: e.ctx ?? {},
        url: `https://errors.example.invalid/${e.type}`,
      }));
      return send(res, 422, { detail, body: null, error_count: detail.length });
    }
    if (F('val-loc-dotted-string')) detail = detail.map((e) => ({ ...e, loc: e.loc.join('.') }));
    if (F('val-detail-string')) return send(res, 422, { detail: detail.map((e) => e.msg).join('; ') });
    send(res, 422, { detail });
  }
  const send401 = (res) =>
    F('auth-401-detail-object')
      ? send(res, 401, { detail: { message: 'Invalid authentication credentials' } }, { 'www-authenticate': 'Bearer' })
      : F('auth-401-without-detail')
        ? send(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' })
        : send(
            res,
            401,
            { detail: F('auth-401-message-unrelated') ? 'Request processed' : 'Invalid authentication credentials' },
            { 'www-authenticate': 'Bearer' },
          );

  function bearerOf(req) {
    const h = req.headers.authorization;
    if (typeof h !== 'string') return undefined;
    if (F('auth-scheme-not-checked')) {
      const parts = h.trim().split(/\s+/);
      return parts[parts.length - 1];
    }
    const m = (F('auth-bearer-trailing-garbage') ? /^Bearer ([^\s]+)/i : /^Bearer ([^\s]+)$/i).exec(h);
    return m ? m[1] : undefined;
  }
  function bearerValid(req) {
    if (
      F('auth-empty-bearer-user-id-fallback') &&
      /^Bearer\s*$/i.test(String(req.headers.authorization ?? 'x')) &&
      req.headers['x-user-id'] === fixtures.user_id
    )
      return true;
    const tok = bearerOf(req);
    if (tok === undefined || tok === '') return false;
    if (F('auth-any-bearer-accepted')) return true;
    if (F('auth-key-prefix-only')) return tok.startsWith('ind_fx_');
    if (F('auth-key-case-insensitive')) return tok.toLowerCase() === activeKey.toLowerCase();
    return tok === activeKey;
  }
  function userIdValid(req) {
    const u = req.headers['x-user-id'];
    if (F('auth-user-id-not-checked')) return true;
    if (F('auth-user-id-unchecked-on-writes') && req.method !== 'GET' && req.method !== 'OPTIONS') return true;
    if (typeof u !== 'string') return false;
    if (F('auth-empty-user-id-accepted') && u.trim() === '') return true;
    if (F('auth-wrong-user-id-accepted')) return u !== '';
    if (F('auth-user-id-case-insensitive')) return u.toLowerCase() === fixtures.user_id.toLowerCase();
    if (F('auth-user-id-prefix-match')) return u.startsWith(fixtures.user_id);
    return u === fixtures.user_id;
  }
  /** returns true when the request may go on; else it has answered */
  function authenticate(req, res, { userId = true } = {}) {
    if (F('auth-missing-bearer-422') && req.headers.authorization === undefined) {
      send422(res, [vErr(['header', 'authorization'], 'Field required', 'missing')]);
      return false;
    }
    if (F('auth-missing-user-id-422') && userId && req.headers['x-user-id'] === undefined) {
      send422(res, [vErr(['header', 'x-user-id'], 'Field required', 'missing')]);
      return false;
    }
    const bearerOk = bearerValid(req);
    if (!bearerOk) {
      if (F('auth-403-for-invalid') && req.headers.authorization !== undefined && bearerOf(req)) {
        send(res, 403, { detail: 'Forbidden' });
        return false;
      }
      send401(res);
      return false;
    }
    if (userId && !userIdValid(req)) {
      send401(res);
      return false;
    }
    return true;
  }

  function rateHeaders(req) {
    const now = Date.now();
    const tok = bearerOf(req);
    const key = tok && (tok === activeKey || tok === currentKey) ? `k:${tok}` : `a:${req.socket.remoteAddress}`;
    let b = buckets.get(key);
    if (b && now >= b.resetAt && F('rl-never-resets') && b.count > rateLimit) {
      b.resetAt = now + rateWindowMs; // a fresh window is advertised, the count is kept
    } else if (!b || now >= b.resetAt) {
      b = { count: 0, resetAt: now + rateWindowMs, served: 0 };
      buckets.set(key, b);
    }
    b.count += 1;
    const limit = rateLimit;
    let enforceAt = limit;
    if (F('rl-429-too-early')) enforceAt = Math.max(1, Math.floor(limit / 2));
    if (F('rl-429-late')) enforceAt = limit + 5;
    let over = F('rl-no-enforcement') ? false : b.count > enforceAt;
    if (F('rl-post-not-limited') && req.method !== 'GET' && req.method !== 'OPTIONS' && req.method !== 'HEAD')
      over = false;
    let remaining = Math.max(0, limit - b.count);
    if (F('rl-remaining-increases') && b.count % 4 === 0) remaining = Math.min(limit, remaining + 3);
    if (F('rl-remaining-stuck')) remaining = over ? 0 : limit - 1;
    if (F('rl-remaining-above-limit')) remaining = remaining + 5;
    if (F('rl-remaining-never-zero') && !over) remaining = Math.max(1, remaining);
    if (F('rl-429-remaining-positive') && over) remaining = 5;
    const secs = V('reset-floor-1s')
      ? Math.max(0, Math.floor((b.resetAt - now) / 1000))
      : Math.max(0, Math.ceil((b.resetAt - now) / 1000));
    const headers = {
      'x-ratelimit-limit': String(F('rl-limit-header-doubled') ? limit * 2 : limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': F('rl-non-integer-reset') ? ((b.resetAt - now) / 1000).toFixed(2) : String(secs),
    };
    if (F('rl-reset-negative')) headers['x-ratelimit-reset'] = String(-Math.max(1, secs));
    if (F('rl-reset-days') && b.count <= 3) headers['x-ratelimit-reset'] = String(3 * 86400 + secs);
    if (F('rl-remaining-decimal')) headers['x-ratelimit-remaining'] = `${remaining}.0`;
    if (F('rl-reset-far-past')) headers['x-ratelimit-reset'] = String(Math.floor(now / 1000) - 7 * 86400);
    if (V('reset-epoch-ms')) headers['x-ratelimit-reset'] = String(b.resetAt);
    if (V('reset-epoch-s')) headers['x-ratelimit-reset'] = String(Math.ceil(b.resetAt / 1000));
    return { over, headers, retryAfter: secs };
  }

  function readBody(req) {
    return new Promise((resolve) => {
      const chunks = [];
      let size = 0;
      let tooBig = false;
      req.on('data', (c) => {
        size += c.length;
        if (size > MAX_BODY) tooBig = true;
        else chunks.push(c);
      });
      req.on('end', () => resolve({ tooBig, text: Buffer.concat(chunks).toString('utf8'), size }));
      req.on('error', () => resolve({ tooBig: false, text: '', size: 0, aborted: true }));
    });
  }

  /** parses a JSON object body; answers and returns undefined on failure */
  function parseBody(req, res, raw, { lenientJson = false } = {}) {
    if (raw.tooBig) return (send(res, 413, { detail: 'Request body too large' }), undefined);
    if (F('rob-500-body-over-100kb') && raw.size > 100 * 1024) throw new RangeError('body buffer overflow');
    if (raw.size === 0) return (send422(res, [vErr(['body'], 'Field required', 'missing')]), undefined);
    const ct = String(req.headers['content-type'] ?? 'application/json')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (ct !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(ct)) {
      return (
        send422(res, [
          vErr(
            ['body'],
            'Input should be a valid dictionary or object to extract fields from',
            'model_attributes_type',
          ),
        ]),
        undefined
      );
    }
    let body;
    try {
      body = JSON.parse(raw.text);
    } catch {
      if (lenientJson) return {};
      if (F('val-malformed-json-400'))
        return (send(res, 400, { detail: 'There was an error parsing the body' }), undefined);
      return (send422(res, [vErr(['body'], 'JSON decode error', 'json_invalid')]), undefined);
    }
    if (F('rob-500-non-object-body') && !isObj(body)) throw new TypeError('body.name of a non-object');
    if (!isObj(body)) {
      return (
        send422(res, [
          vErr(
            ['body'],
            'Input should be a valid dictionary or object to extract fields from',
            'model_attributes_type',
          ),
        ]),
        undefined
      );
    }
    if (depthOf(body) > MAX_DEPTH)
      return (send422(res, [vErr(['body'], 'Nesting too deep', 'value_error')]), undefined);
    if (F('rob-500-long-string') && JSON.stringify(body).match(/"[^"]{300,}"/))
      throw new RangeError('string column overflow');
    if (
      F('rob-500-unicode') &&
      /[^\x00-\x7f]/.test(raw.text.replace(/\\u[0-9a-fA-F]{4}/g, (m) => String.fromCharCode(parseInt(m.slice(2), 16))))
    ) {
      throw new Error('latin1 codec cannot encode');
    }
    return body;
  }

  // ---------- field validation ----------
  function checkType(v, kind, loc, errs) {
    switch (kind) {
      case 'string':
        if (typeof v !== 'string') errs.push(vErr(loc, 'Input should be a valid string', 'string_type'));
        return;
      case 'integer':
        if (typeof v !== 'number' || !Number.isInteger(v))
          errs.push(vErr(loc, 'Input should be a valid integer', 'int_type'));
        return;
      case 'boolean':
        if (typeof v !== 'boolean') errs.push(vErr(loc, 'Input should be a valid boolean', 'bool_type'));
        return;
      case 'object':
        if (!isObj(v)) errs.push(vErr(loc, 'Input should be a valid dictionary', 'dict_type'));
        return;
      case 'speech':
        if (!isObj(v))
          return errs.push(
            vErr(loc, 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type'),
          );
        if (F('val-speech-settings-members-unchecked')) return;
        for (const m of ['style', 'responsiveness', 'interruptions', 'emotions'])
          if (m in v) checkType(v[m], 'string', [...loc, m], errs);
        return;
      case 'recipients':
        if (!Array.isArray(v)) return errs.push(vErr(loc, 'Input should be a valid list', 'list_type'));
        if (F('rob-500-empty-recipients') && v.length === 0) throw new RangeError('recipients[0] of empty list');
        v.forEach((r, i) => {
          if (!isObj(r))
            return errs.push(
              vErr(
                [...loc, i],
                'Input should be a valid dictionary or object to extract fields from',
                'model_attributes_type',
              ),
            );
          if ('phone_number' in r) checkType(r.phone_number, 'string', [...loc, i, 'phone_number'], errs);
          if ('metadata' in r) checkType(r.metadata, 'object', [...loc, i, 'metadata'], errs);
          if ('assistant_overrides' in r && !F('val-assistant-overrides-unchecked'))
            checkType(r.assistant_overrides, 'object', [...loc, i, 'assistant_overrides'], errs);
          if (F('rob-500-nested-metadata') && depthOf(r.metadata) >= 3)
            throw new TypeError('metadata flattening failed');
        });
        return;
      default:
        throw new Error(`kind ${kind}`);
    }
  }
  function range(v, lo, hi, loc, errs) {
    if (typeof v !== 'number' || !Number.isInteger(v)) return;
    if (v < lo)
      errs.push(vErr(loc, `Input should be greater than or equal to ${lo}`, 'greater_than_equal', { ctx: { ge: lo } }));
    else if (v > hi)
      errs.push(vErr(loc, `Input should be less than or equal to ${hi}`, 'less_than_equal', { ctx: { le: hi } }));
  }
  const CREATE_FIELDS = {
    name: 'string',
    assistant_id: 'string',
    phone_number_id: 'string',
    channel: 'string',
    scheduleStartTime: 'string',
    scheduleEndTime: 'string',
    max_concurrency: 'integer',
    retry_policy: 'object',
    speech_settings: 'speech',
    campaign_context: 'string',
    opening_message_template: 'string',
    use_returning_greeting: 'boolean',
    use_short_term_summaries: 'boolean',
    short_term_summaries_limit: 'integer',
    machine_detection_timeout_seconds: 'integer',
    recipient_list_id: 'string',
    recipients: 'recipients',
  };
  const UPDATE_FIELDS = {
    name: 'string',
    schedule_start_time: 'string',
    schedule_end_time: 'string',
    max_concurrency: 'integer',
    retry_policy: 'object',
    speech_settings: 'speech',
    campaign_context: 'string',
    opening_message_template: 'string',
    use_returning_greeting: 'boolean',
    use_short_term_summaries: 'boolean',
    short_term_summaries_limit: 'integer',
    status: 'string',
    recipients: 'recipients',
  };
  // faults shared by create and update (a field skipped by the type check)
  function typeSkipped(f, v) {
    if (F('val-retry-policy-array-accepted') && f === 'retry_policy' && Array.isArray(v)) return true;
    if (F('val-short-term-limit-float') && f === 'short_term_summaries_limit' && typeof v === 'number') return true;
    return false;
  }
  function bigIntegerCrash(body) {
    if (!F('rob-500-big-integer')) return;
    for (const f of ['max_concurrency', 'machine_detection_timeout_seconds', 'short_term_summaries_limit']) {
      if (typeof body[f] === 'number' && Math.abs(body[f]) > 2 ** 31 - 1)
        throw new RangeError(`int32 overflow in ${f}`);
    }
  }
  function shapeCrash(body) {
    if (
      F('rob-500-empty-speech-settings') &&
      isObj(body.speech_settings) &&
      Object.keys(body.speech_settings).length === 0
    )
      throw new TypeError("cannot read properties of undefined (reading 'toLowerCase')");
    if (F('rob-500-empty-name') && body.name === '') throw new Error("CHECK constraint failed: name <> ''");
    if (F('rob-500-recipients-many') && Array.isArray(body.recipients) && body.recipients.length > 10)
      throw new RangeError('too many SQL variables');
    if (
      F('rng-short-term-limit-negative-500') &&
      typeof body.short_term_summaries_limit === 'number' &&
      body.short_term_summaries_limit < 0
    )
      throw new Error('CHECK constraint failed: short_term_summaries_limit >= 0');
  }
  function nullCrash(body) {
    if (F('rob-500-null-field') && Object.values(body).some((v) => v === null))
      throw new TypeError('cannot read properties of null');
  }
  const INT_FIELDS = ['max_concurrency', 'machine_detection_timeout_seconds', 'short_term_summaries_limit'];
  const BOOL_FIELDS = ['use_returning_greeting', 'use_short_term_summaries'];
  function coerceLax(body) {
    if (!V('lenient-coercion')) return;
    for (const f of INT_FIELDS)
      if (typeof body[f] === 'string' && /^-?\d+$/.test(body[f].trim())) body[f] = Number(body[f].trim());
    for (const f of BOOL_FIELDS) if (body[f] === 'true' || body[f] === 'false') body[f] = body[f] === 'true';
  }
  function validateCreate(body) {
    const errs = [];
    nullCrash(body);
    bigIntegerCrash(body);
    shapeCrash(body);
    coerceLax(body);
    if (V('strict-required-fields')) {
      for (const f of ['name', 'assistant_id', 'phone_number_id', 'channel'])
        if (!(f in body)) errs.push(vErr(['body', f], 'Field required', 'missing'));
    }
    for (const [f, kind] of Object.entries(CREATE_FIELDS)) {
      if (!(f in body)) continue;
      if (F('val-create-null-accepted') && body[f] === null) continue;
      if (typeSkipped(f, body[f])) continue;
      if (F('val-create-name-type-unchecked') && f === 'name') continue;
      if (F('val-mdt-type-unchecked') && f === 'machine_detection_timeout_seconds') continue;
      if (F('val-recipients-items-unchecked') && f === 'recipients') {
        if (!Array.isArray(body[f])) errs.push(vErr(['body', f], 'Input should be a valid list', 'list_type'));
        continue;
      }
      checkType(body[f], kind, ['body', f], errs);
    }
    if (typeof body.channel === 'string' && !PROVIDERS.includes(body.channel) && !F('val-channel-enum-unchecked')) {
      errs.push(vErr(['body', 'channel'], `Input should be '${PROVIDERS[0]}' or '${PROVIDERS[1]}'`, 'enum'));
    }
    const mc = body.max_concurrency;
    if (typeof mc === 'number' && Number.isInteger(mc)) {
      let lo = 1,
        hi = 200;
      if (F('rng-create-mc-max-off-by-one')) hi = 201;
      if (F('rng-create-mc-min-zero')) lo = 0;
      if (F('rng-create-mc-max-exclusive')) hi = 199;
      if (F('rng-create-mc-upper-100')) hi = 100;
      if (F('rng-create-mc-min-exclusive')) lo = 2;
      const checked = F('rng-mc-wraps-uint8') && mc > 255 ? mc & 0xff : mc;
      if (F('rng-create-mc-only-zero-rejected')) {
        if (mc === 0 || mc > 200) range(mc, 1, 200, ['body', 'max_concurrency'], errs);
      } else if (F('rng-create-mc-unchecked-with-recipient-list') && 'recipient_list_id' in body) {
        /* list campaigns take the list's limit */
      } else if (F('rng-mc-huge-accepted') && String(Math.abs(mc)).length > 5) {
        /* five-digit check */
      } else range(checked, lo, hi, ['body', 'max_concurrency'], errs);
    }
    const md = body.machine_detection_timeout_seconds;
    if (typeof md === 'number' && Number.isInteger(md) && !(F('rng-mdt-zero-falsy') && !md)) {
      let lo = 3,
        hi = 60;
      if (F('rng-mdt-max-off-by-one')) hi = 61;
      if (F('rng-mdt-min-exclusive')) lo = 4;
      if (F('rng-mdt-min-two')) lo = 2;
      if (F('rng-mdt-max-exclusive')) hi = 59;
      if (F('rng-mdt-lower-unchecked')) lo = -Infinity;
      const loc = F('rng-mdt-loc-misnamed')
        ? ['body', 'machine_detection_timeout']
        : ['body', 'machine_detection_timeout_seconds'];
      range(md, lo, hi, loc, errs);
    }
    return errs;
  }
  function validateUpdate(body) {
    const errs = [];
    nullCrash(body);
    bigIntegerCrash(body);
    shapeCrash(body);
    if (F('rob-500-patch-empty-body') && !Object.keys(UPDATE_FIELDS).some((f) => f in body))
      throw new Error('syntax error at or near "WHERE"');
    coerceLax(body);
    for (const [f, kind] of Object.entries(UPDATE_FIELDS)) {
      if (!(f in body)) continue;
      if (F('val-patch-boolean-type-unchecked') && f === 'use_returning_greeting') continue;
      if (F('val-patch-status-type-unchecked') && f === 'status') continue;
      if (typeSkipped(f, body[f])) continue;
      if (F('val-patch-recipients-items-unchecked') && f === 'recipients') {
        if (!Array.isArray(body[f])) errs.push(vErr(['body', f], 'Input should be a valid list', 'list_type'));
        continue;
      }
      checkType(body[f], kind, ['body', f], errs);
    }
    if (typeof body.status === 'string') {
      const allowed = F('st-patch-rejects-scheduled')
        ? UPDATE_STATUSES.filter((s) => s !== 'scheduled')
        : UPDATE_STATUSES;
      const st = F('val-status-case-insensitive') ? body.status.toLowerCase() : body.status;
      if (!allowed.includes(st) && !F('val-status-enum-unchecked')) {
        errs.push(vErr(['body', 'status'], `Input should be ${allowed.map((s) => `'${s}'`).join(', ')}`, 'enum'));
      }
    }
    const mc = body.max_concurrency;
    const mcSkipped =
      (F('rng-update-mc-zero-falsy') && !mc) ||
      (F('rng-update-mc-skipped-with-status') && 'status' in body) ||
      (F('rng-mc-huge-accepted') && String(Math.abs(mc)).length > 5);
    if (typeof mc === 'number' && Number.isInteger(mc) && !F('rng-update-mc-unchecked') && !mcSkipped) {
      const lo = F('rng-update-mc-lower-unchecked') ? -Infinity : F('rng-update-mc-min-exclusive') ? 2 : 1;
      const hi = F('rng-update-mc-max-off-by-one') ? 201 : F('rng-update-mc-max-exclusive') ? 199 : 200;
      range(mc, lo, hi, ['body', 'max_concurrency'], errs);
    }
    return errs;
  }

  // ---------- campaigns ----------
  function fullRecord(c) {
    const asst = db.assistants.find((a) => a.id === c.assistant_id);
    const pn = db.phoneNumbers[c.phone_number_id];
    const list = c.recipient_list_id ? db.lists[c.recipient_list_id] : undefined;
    return {
      id: c.id,
      name: c.name,
      assistant_id: c.assistant_id,
      assistant_name: asst ? asst.name : null,
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
      recipient_list_name: list ? list.name : null,
      recipient_list_row_count: list ? list.recipients.length : null,
      counts: countsOf(c),
      created_at: c.created_at,
      updated_at: c.updated_at,
      ...(V('extra-members') ? { org_id: fixtures.org_id, created_by: fixtures.user_id } : {}),
    };
  }
  function countsOf(c) {
    const list = c.recipient_list_id ? db.lists[c.recipient_list_id] : undefined;
    const n = (c.recipients?.length ?? 0) + (list ? list.recipients.length : 0);
    return { recipients: n, pending: n, completed: 0, failed: 0 };
  }
  function updateRecord(c) {
    const r = fullRecord(c);
    if (F('st-patch-response-full-shape')) return r;
    for (const k of UPDATE_OMITTED) if (!(F('st-patch-includes-counts') && k === 'counts')) delete r[k];
    return r;
  }
  const nn0 = (v) => (v === undefined ? null : v);

  function createCampaign(body) {
    const nn = F('st-create-falsy-nulled') ? (v) => v || null : nn0;
    const now = iso(Date.now());
    const id = crypto.randomUUID();
    const c = {
      id,
      name: nn(body.name),
      assistant_id: nn(body.assistant_id),
      phone_number_id: nn(body.phone_number_id),
      channel: F('st-create-channel-always-first') ? PROVIDERS[0] : nn(body.channel),
      status: 'draft',
      max_concurrency: F('st-create-max-concurrency-ignored') ? 10 : nn(body.max_concurrency),
      retry_policy: F('st-create-retry-policy-dropped') ? null : nn(body.retry_policy),
      speech_settings: F('st-create-speech-settings-dropped') ? null : nn(body.speech_settings),
      schedule_start_time: F('st-create-camelcase-not-mapped')
        ? nn(body.schedule_start_time)
        : F('st-create-schedule-swapped')
          ? nn(body.scheduleEndTime)
          : nn(body.scheduleStartTime),
      schedule_end_time: F('st-create-camelcase-not-mapped')
        ? nn(body.schedule_end_time)
        : F('st-create-schedule-swapped')
          ? nn(body.scheduleStartTime)
          : nn(body.scheduleEndTime),
      campaign_context: nn(body.campaign_context),
      opening_message_template: nn(body.opening_message_template),
      use_returning_greeting: nn(
        F('st-create-flags-swapped') ? body.use_short_term_summaries : body.use_returning_greeting,
      ),
      use_short_term_summaries: nn(
        F('st-create-flags-swapped') ? body.use_returning_greeting : body.use_short_term_summaries,
      ),
      short_term_summaries_limit: nn(body.short_term_summaries_limit),
      machine_detection_timeout_seconds: nn(body.machine_detection_timeout_seconds),
      recipient_list_id: nn(body.recipient_list_id),
      recipients: Array.isArray(body.recipients) ? body.recipients : [],
      created_at: now,
      updated_at: now,
    };
    db.campaigns.set(id, c);
    if (F('st-get-stale-record')) c.snapshot = structuredClone(c);
    const rec = fullRecord(c);
    if (F('sch-create-status-outside-enum')) rec.status = 'created';
    if (F('st-create-schedule-camelcase-echoed')) {
      rec.scheduleStartTime = rec.schedule_start_time;
      rec.scheduleEndTime = rec.schedule_end_time;
      delete rec.schedule_start_time;
      delete rec.schedule_end_time;
    }
    return rec;
  }

  // ---------- routes ----------
  const PRE_HEADERS = 'Authorization, X-User-ID, Content-Type';
  function preflight(req, res, base) {
    const origin = req.headers.origin;
    const h = { ...base };
    h['access-control-allow-origin'] = F('cors-no-allow-origin')
      ? null
      : F('cors-origin-mismatch')
        ? 'https://app.example.invalid'
        : (origin ?? '*');
    if (F('cors-allow-origin-null')) h['access-control-allow-origin'] = 'null';
    if (F('cors-allow-origin-list') && origin)
      h['access-control-allow-origin'] = `${origin}, https://admin.example.invalid`;
    if (
      F('cors-chat-sessions-no-allow-origin') &&
      new URL(req.url ?? '/', 'http://x').pathname === '/logs/chat-sessions'
    )
      h['access-control-allow-origin'] = null;
    if (origin) h.vary = 'Origin';
    if (!F('cors-allow-methods-missing')) h['access-control-allow-methods'] = 'GET, POST, PATCH, OPTIONS';
    const reqHeaders = String(req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    let allowed = ['Authorization', 'X-User-ID', 'Content-Type'];
    for (const r of reqHeaders) if (!allowed.some((a) => a.toLowerCase() === r.toLowerCase())) allowed.push(r);
    if (F('cors-allow-headers-missing-user-id')) allowed = allowed.filter((a) => a.toLowerCase() !== 'x-user-id');
    if (F('cors-allow-headers-missing-authorization'))
      allowed = allowed.filter((a) => a.toLowerCase() !== 'authorization');
    h['access-control-allow-headers'] = F('cors-allow-headers-wildcard') ? '*' : allowed.join(', ');
    if (F('cors-allow-headers-case-sensitive')) {
      const matched = reqHeaders.filter((r) => PRE_HEADERS.split(', ').includes(r));
      h['access-control-allow-headers'] = matched.length ? matched.join(', ') : null;
    }
    h['access-control-max-age'] = '600';
    if (V('preflight-200-open')) {
      res.writeHead(200, { ...h, 'content-length': '0', [NO_RATE]: '1' });
      return res.end();
    }
    res.writeHead(204, h);
    res.end();
  }

  const routes = [
    { re: /^\/calls$/, methods: { GET: listCalls } },
    { re: /^\/campaign$/, methods: { POST: postCampaign } },
    { re: /^\/campaign\/([^/]+)$/, methods: { GET: getCampaign, PATCH: patchCampaign } },
    { re: /^\/recipient-lists\/([^/]+)\/recipients$/, methods: { POST: addRecipient } },
    { re: /^\/orgs\/([^/]+)\/invites$/, methods: { POST: createInvite } },
    { re: /^\/users\/me$/, methods: { GET: usersMe } },
    { re: /^\/assistants$/, methods: { GET: listAssistants } },
    { re: /^\/api-keys\/api-keys\/([^/]+)\/regenerate$/, methods: { POST: regenerate } },
    { re: /^\/health$/, methods: { GET: health } },
    { re: /^\/protected$/, methods: { GET: protectedEp } },
    { re: /^\/user-credentials\/user-credentials\/([^/]+)$/, methods: { OPTIONS: docPreflight } },
    { re: /^\/logs\/chat-logs\/([^/]+)$/, methods: { OPTIONS: docPreflight } },
    { re: /^\/logs\/chat-sessions$/, methods: { OPTIONS: docPreflight } },
  ];

  async function docPreflight(ctx) {
    const { req, res, path, base } = ctx;
    if (F('cors-chat-sessions-405') && path === '/logs/chat-sessions')
      return send(res, 405, { detail: 'Method Not Allowed' }, { ...base, allow: 'GET' });
    if (F('cors-chat-logs-422') && path.startsWith('/logs/chat-logs/')) {
      return send422(res, [vErr(['path', 'session_id'], 'Invalid session id', 'value_error')]);
    }
    if (F('cors-user-credentials-404') && path.startsWith('/user-credentials/'))
      return send(res, 404, { detail: 'Credential not found' });
    if (F('cors-preflight-401-with-origin') && req.headers.origin !== undefined) return send401(res);
    if (F('auth-preflight-rejects-user-id') && req.headers['x-user-id'] !== undefined) return send401(res);
    if (V('preflight-200-open')) return preflight(req, res, base);
    if (!authenticate(req, res, { userId: F('auth-preflight-requires-user-id') })) return;
    preflight(req, res, base);
  }

  function listCalls({ req, res, url, base }) {
    if (!F('auth-calls-open') && !authenticate(req, res)) return;
    const q = url.searchParams;
    if (F('rob-500-emoji-query') && [...q.values()].some((v) => /[\u{10000}-\u{10FFFF}]/u.test(v)))
      throw new Error('surrogates not allowed');
    const errs = [];
    const intParam = (name, dflt) => {
      const all = q.getAll(name);
      if (all.length === 0) return dflt;
      if (F('rob-500-duplicate-query') && all.length > 1) throw new TypeError(`${name} is a list`);
      const raw = all[all.length - 1];
      if (
        F('val-calls-limit-exponent-accepted') &&
        name === 'limit' &&
        /^\d+(\.\d+)?e\d+$/i.test(raw) &&
        Number.isSafeInteger(Number(raw))
      )
        return Number(raw);
      if (
        (F('val-limit-non-integer-accepted') && name === 'limit') ||
        (F('val-offset-non-integer-accepted') && name === 'offset')
      ) {
        const n = parseInt(raw, 10);
        return Number.isNaN(n) ? dflt : n;
      }
      if (F('rob-500-garbage-query') && !/^-?\d+$/.test(raw)) throw new TypeError(`cannot slice by ${raw}`);
      if (!/^-?\d+$/.test(raw)) {
        errs.push(
          vErr(['query', name], 'Input should be a valid integer, unable to parse string as an integer', 'int_parsing'),
        );
        return dflt;
      }
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) {
        errs.push(vErr(['query', name], 'Input should be a valid integer', 'int_parsing'));
        return dflt;
      }
      if (F('rng-calls-negative-offset-500') && name === 'offset' && n < 0)
        throw new RangeError('OFFSET must not be negative');
      if (n < 0)
        errs.push(
          vErr(['query', name], 'Input should be greater than or equal to 0', 'greater_than_equal', { ctx: { ge: 0 } }),
        );
      return n;
    };
    let limit = intParam('limit', F('sch-calls-default-limit-25') ? 25 : 50);
    if (F('sch-calls-limit-ignored')) limit = 50;
    if (F('sch-calls-limit-zero-falsy')) limit = limit || 50;
    if (F('rob-500-calls-limit-huge') && limit > 10000) throw new RangeError('Invalid array length');
    let offset = intParam('offset', 0);
    if (errs.length) return send422(res, errs);
    const providers = q.getAll('provider');
    const provider = providers.length ? providers[providers.length - 1] : '';
    if (F('rob-500-provider-control-char') && /[\x00-\x1f]/.test(provider))
      throw new TypeError('invalid byte in provider');
    let items = db.calls;
    const match = F('sch-calls-provider-case-insensitive')
      ? (c) => c.provider.toLowerCase() === provider.toLowerCase()
      : F('sch-calls-provider-prefix')
        ? (c) => c.provider.startsWith(provider)
        : F('sch-calls-provider-inverted')
          ? (c) => c.provider !== provider
          : (c) => c.provider === provider;
    if (provider !== '' && !F('sch-calls-provider-ignored')) items = items.filter(match);
    if (F('sch-calls-offset-ignored')) offset = 0;
    if (F('sch-calls-offset-off-by-one') && offset > 0) offset += 1;
    if (F('sch-calls-limit-capped-25') && q.has('limit')) limit = Math.min(limit, 25);
    if (F('sch-calls-limit-plus-one')) limit += 1;
    let page = items.slice(offset, offset + limit);
    if (F('sch-call-missing-to-number')) page = page.map((c, i) => (i % 7 === 3 ? (({ to_number, ...r }) => r)(c) : c));
    if (F('sch-call-status-null')) page = page.map((c) => (c.status === 'busy' ? { ...c, status: null } : c));
    if (F('sch-call-duration-string')) page = page.map((c) => ({ ...c, duration_seconds: `${c.duration_seconds}s` }));
    if (F('sch-calls-duration-string-past-50'))
      page = page.map((c, i) => (offset + i >= 50 ? { ...c, duration_seconds: String(c.duration_seconds) } : c));
    if (F('sch-calls-provider-missing-past-50'))
      page = page.map((c, i) => (offset + i >= 50 ? (({ provider: _p, ...r }) => r)(c) : c));
    if (V('sparse-calls'))
      page = page.map(({ id, to_number, provider: p, status }) => ({ id, to_number, provider: p, status }));
    if (V('extra-members')) page = page.map((c) => ({ ...c, object: 'call', org_id: fixtures.org_id }));
    if (F('rob-500-huge-offset') && offset > items.length) throw new RangeError('offset past the end');
    const callHeaders = F('sch-ratelimit-limit-with-unit-calls')
      ? { ...base, 'x-ratelimit-limit': `${rateLimit}/minute` }
      : base;
    send(res, 200, F('sch-calls-wrapped') ? { items: page, total: items.length } : page, callHeaders);
  }

  async function postCampaign({ req, res, base, raw }) {
    if (!authenticate(req, res)) return;
    const body = parseBody(req, res, await raw());
    if (!body) return;
    const errs = validateCreate(body);
    if (errs.length) return send422(res, errs);
    const rec = createCampaign(body);
    send(
      res,
      V('create-200') ? 200 : 201,
      rec,
      V('location-header') ? { ...base, location: `/campaign/${rec.id}` } : base,
    );
  }

  function findCampaign(res, id) {
    if (F('rob-500-garbage-path-id') && !/^[\w-]+$/.test(id)) throw new Error(`bad id ${id}`);
    const c = db.campaigns.get(id);
    if (!c) send(res, 404, { detail: 'Campaign not found' });
    return c;
  }

  function getCampaign({ req, res, base, m }) {
    if (!authenticate(req, res)) return;
    let c = findCampaign(res, m[1]);
    if (!c) return;
    if (F('st-get-returns-first-campaign')) c = db.campaigns.values().next().value;
    const src = F('st-get-stale-record') && c.snapshot ? c.snapshot : c;
    if (F('st-get-campaign-unwrapped')) return send(res, 200, fullRecord(src), base);
    const out = { campaign: fullRecord(src), counts: countsOf(src), calls: [] };
    if (F('st-get-counts-number')) out.counts = out.counts.recipients;
    if (V('minimal-objects')) return send(res, 200, { campaign: out.campaign }, base);
    if (V('extra-members')) out.links = { self: `/campaign/${c.id}` };
    send(res, 200, out, base);
  }

  async function patchCampaign({ req, res, base, m, raw }) {
    if (!authenticate(req, res)) return;
    const body = parseBody(req, res, await raw(), { lenientJson: F('val-patch-malformed-json-empty') });
    if (!body) return;
    const c = findCampaign(res, m[1]);
    if (!c) return;
    const errs = validateUpdate(body);
    if (errs.length) return send422(res, errs);
    const before = updateRecord(c);
    for (const f of Object.keys(UPDATE_FIELDS)) {
      if (!(f in body)) {
        if (F('st-patch-nulls-unsent') && f !== 'status') c[f] = f === 'recipients' ? [] : null;
        continue;
      }
      if (F('st-patch-not-persisting-context') && f === 'campaign_context') continue;
      if (F('st-patch-schedule-camelcase-only') && (f === 'schedule_start_time' || f === 'schedule_end_time')) continue;
      if (F('st-patch-drops-speech-settings') && f === 'speech_settings') continue;
      if (F('st-patch-status-not-persisted') && f === 'status') continue;
      if (F('st-patch-falsy-ignored') && !body[f]) continue;
      c[f] = F('val-status-case-insensitive') && f === 'status' ? body[f].toLowerCase() : body[f];
    }
    if (F('st-patch-schedule-camelcase-only')) {
      if ('scheduleStartTime' in body) c.schedule_start_time = body.scheduleStartTime;
      if ('scheduleEndTime' in body) c.schedule_end_time = body.scheduleEndTime;
    }
    c.updated_at = iso(Math.max(Date.now(), Date.parse(c.updated_at) + 1));
    const out = F('st-patch-returns-old') ? before : updateRecord(c);
    if (F('st-patch-not-persisting-context') && 'campaign_context' in body)
      out.campaign_context = body.campaign_context;
    if (F('st-patch-status-not-persisted') && 'status' in body) out.status = body.status;
    send(res, 200, out, base);
  }

  async function addRecipient({ req, res, base, m, raw }) {
    if (!authenticate(req, res)) return;
    const body = parseBody(req, res, await raw());
    if (!body) return;
    const errs = [];
    if (F('val-recipient-phone-number-coerced') && typeof body.phone_number === 'number')
      body.phone_number = String(body.phone_number);
    if (!('phone_number' in body)) errs.push(vErr(['body', 'phone_number'], 'Field required', 'missing'));
    else checkType(body.phone_number, 'string', ['body', 'phone_number'], errs);
    if ('metadata' in body && !F('val-recipient-metadata-type-unchecked'))
      checkType(body.metadata, 'object', ['body', 'metadata'], errs);
    if (F('rob-500-nested-metadata') && depthOf(body.metadata) >= 3) throw new TypeError('metadata flattening failed');
    if (errs.length) return send422(res, errs);
    const list =
      F('st-add-recipient-404-fixture-list') && m[1] === fixtures.recipient_list_id ? undefined : db.lists[m[1]];
    if (!list) return send(res, 404, { detail: 'Recipient list not found' });
    const rec = {
      id: `rcp_${crypto.randomUUID()}`,
      recipient_list_id: m[1],
      phone_number: body.phone_number,
      metadata: body.metadata ?? {},
      created_at: iso(Date.now()),
    };
    list.recipients.push(rec);
    const loc = V('location-header') ? { location: `/recipient-lists/${m[1]}/recipients/${rec.id}` } : {};
    send(
      res,
      V('create-200') ? 200 : 201,
      F('st-add-recipient-array') ? [rec] : V('minimal-objects') ? {} : { ...rec, row_count: list.recipients.length },
      { ...base, ...loc },
    );
  }

  async function createInvite({ req, res, base, m, raw }) {
    if (!authenticate(req, res)) return;
    const body = parseBody(req, res, await raw());
    if (!body) return;
    const errs = [];
    if (!('email' in body)) errs.push(vErr(['body', 'email'], 'Field required', 'missing'));
    else checkType(body.email, 'string', ['body', 'email'], errs);
    if ('role' in body) checkType(body.role, 'string', ['body', 'role'], errs);
    else if (V('strict-required-fields')) errs.push(vErr(['body', 'role'], 'Field required', 'missing'));
    if (errs.length) return send422(res, errs);
    if (!db.orgs.some((o) => o.id === m[1])) return send(res, 404, { detail: 'Organization not found' });
    const inv = {
      id: `inv_${crypto.randomUUID()}`,
      email: F('st-invite-email-wrong') ? db.user.email : body.email,
      role: F('st-invite-role-ignored')
        ? 'member'
        : F('st-invite-role-always-developer')
          ? 'developer'
          : (body.role ?? 'developer'),
      expires_at: iso(Date.now() + 7 * 86_400_000),
      token: `invtok_${crypto.randomBytes(16).toString('hex')}`,
    };
    if (F('st-invite-expires-number')) inv.expires_at = Date.parse(inv.expires_at);
    if (V('extra-members')) inv.status = 'pending';
    send(
      res,
      V('create-200') ? 200 : 201,
      inv,
      V('location-header') ? { ...base, location: `/orgs/${m[1]}/invites/${inv.id}` } : base,
    );
  }

  function usersMe({ req, res, base }) {
    if (!authenticate(req, res)) return;
    const out = { user: db.user, orgs: db.orgs, default_org_id: fixtures.org_id };
    if (F('sch-users-me-orgs-object')) out.orgs = Object.fromEntries(db.orgs.map((o) => [o.id, o]));
    if (V('extra-members')) out.permissions = ['campaigns:write'];
    if (F('rl-headers-missing-users-me')) return send(res, 200, out, { [NO_RATE]: '1' });
    if (F('sch-users-me-no-content-type')) {
      const text = JSON.stringify(out);
      res.writeHead(200, { 'content-length': Buffer.byteLength(text) });
      return res.end(text);
    }
    send(res, 200, out, base);
  }

  function listAssistants({ req, res, base }) {
    if (!authenticate(req, res)) return;
    let out = db.assistants;
    if (F('sch-assistant-missing-llm')) out = out.map(({ llm, ...r }) => r);
    if (F('sch-assistant-voice-speed-string'))
      out = out.map((a) => ({ ...a, voice: { ...a.voice, speed: String(a.voice.speed) } }));
    if (F('sch-assistant-kb-ids-string'))
      out = out.map((a) => ({ ...a, knowledge_base_ids: a.knowledge_base_ids.join(',') }));
    if (V('extra-members')) out = out.map((a) => ({ ...a, object: 'assistant', org_id: fixtures.org_id }));
    send(res, 200, out, F('sch-ratelimit-headers-missing-assistants') ? { [NO_RATE]: '1' } : base);
  }

  function regenerate({ req, res, base, m }) {
    if (!F('auth-regen-open') && !authenticate(req, res, { userId: F('st-regen-requires-user-id') })) return;
    if (m[1] !== fixtures.api_key_id) return send(res, 404, { detail: 'API key not found' });
    if (F('st-regen-returns-old-key'))
      return send(res, 200, { key: currentKey, id: fixtures.api_key_id, name: db.keyName, upgraded: false }, base);
    const key = `ind_fx_${crypto.randomBytes(12).toString('hex')}`;
    currentKey = key;
    if (!F('st-regen-key-not-working')) activeKey = key;
    fixtures.api_key = key;
    const out = { key, id: fixtures.api_key_id, name: db.keyName, upgraded: false };
    if (F('st-regen-upgraded-string')) out.upgraded = 'false';
    if (V('extra-members')) out.created_at = iso(Date.now());
    send(res, 200, out, base);
  }

  function health({ req, res, base }) {
    if (F('auth-health-requires-credentials') && !authenticate(req, res)) return;
    if (F('auth-health-401-wrong-bearer') && req.headers.authorization !== undefined && !bearerValid(req))
      return send401(res);
    if (F('sch-health-invalid-json')) {
      res.writeHead(200, { ...base, 'content-type': 'application/json', 'content-length': 2 });
      return res.end('OK');
    }
    const body = { status: 'ok', multi_user: true, resource_usage: { memory_percent: 50, cpu_percent: 12 } };
    if (F('sch-health-text-plain')) {
      const text = 'status: ok';
      res.writeHead(200, { ...base, 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text) });
      return res.end(text);
    }
    send(res, 200, V('minimal-objects') ? {} : body, base);
  }

  function protectedEp({ req, res, base }) {
    if (!authenticate(req, res)) return;
    const uid = req.headers['x-user-id'];
    if (F('auth-protected-no-echo'))
      return send(res, 200, { message: 'Hello, authenticated user!', user_id: 'me' }, base);
    if (F('auth-protected-message-without-id'))
      return send(res, 200, { message: 'Hello, you reached a protected endpoint.', user_id: uid }, base);
    send(
      res,
      200,
      {
        message: `Hello ${uid}, you reached a protected endpoint.`,
        user_id: uid,
        ...(V('extra-members') ? { org_id: fixtures.org_id } : {}),
      },
      base,
    );
  }

  // ---------- dispatch ----------
  const CANON = {
    'x-ratelimit-limit': 'X-RateLimit-Limit',
    'x-ratelimit-remaining': 'X-RateLimit-Remaining',
    'x-ratelimit-reset': 'X-RateLimit-Reset',
    'content-type': 'Content-Type',
    'content-length': 'Content-Length',
  };
  async function handle(req, res) {
    if (V('charset-and-header-case')) {
      const inner = res.writeHead.bind(res);
      res.writeHead = (status, headers = {}) =>
        inner(status, Object.fromEntries(Object.entries(headers).map(([k, v]) => [CANON[k] ?? k, v])));
    }
    let rawPromise;
    const raw = () => (rawPromise ??= readBody(req));
    const rl = rateHeaders(req);
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    };
    const base = { ...cors, ...rl.headers };
    if (rl.over) {
      await raw();
      const body = F('rl-429-without-detail')
        ? { error: 'too many requests' }
        : {
            detail: F('rl-429-message-unrelated')
              ? 'Invalid request'
              : 'Rate limit exceeded: too many requests, try again later',
          };
      return send(res, F('rl-503-instead-of-429') ? 503 : 429, body, {
        ...(F('rl-429-without-headers') ? cors : base),
        'retry-after': String(rl.retryAfter),
      });
    }
    // every answer from here carries the rate-limit and CORS headers
    const origWriteHead = res.writeHead.bind(res);
    res.writeHead = (status, headers = {}) => {
      if (headers[NO_RATE]) {
        const { [NO_RATE]: _, ...rest } = headers;
        return origWriteHead(status, { ...cors, ...rest });
      }
      const merged = V('no-rl-headers-on-errors') && status >= 400 ? { ...cors, ...headers } : { ...base, ...headers };
      for (const k of Object.keys(merged)) if (merged[k] === null) delete merged[k];
      return origWriteHead(status, merged);
    };

    const url = new URL(req.url ?? '/', 'http://localhost');
    let path;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      await raw();
      return send(res, 400, { detail: 'Malformed path encoding' });
    }
    const rawPath = url.pathname;
    if (F('rob-no-answer-long-path-id') && rawPath.split('/').some((seg) => seg.length > 100)) {
      await raw();
      return res.socket?.destroy();
    }
    for (const r of routes) {
      const m = r.re.exec(rawPath);
      if (!m) continue;
      const decoded = [m[0], ...m.slice(1).map((s) => decodeURIComponent(s))];
      const fn = r.methods[req.method];
      if (!fn) {
        if (req.method === 'OPTIONS') {
          await raw();
          return preflight(req, res, {});
        }
        await raw();
        return send(res, 405, { detail: 'Method Not Allowed' }, { allow: Object.keys(r.methods).join(', ') });
      }
      await fn({ req, res, url, path, base: {}, m: decoded, raw });
      if (rawPromise === undefined) await raw();
      return;
    }
    await raw();
    if (req.method === 'OPTIONS') return preflight(req, res, {});
    send(res, 404, { detail: 'Not Found' });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (res.headersSent) return res.destroy();
      try {
        send(res, 500, { detail: 'Internal Server Error' });
      } catch {
        res.destroy();
      }
      void err;
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const addr = server.address();
  const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${h}:${addr.port}`,
    fixtures,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// run directly: node server.mjs [--port N] [--host H] [--rate-limit N] [--rate-window-ms N] [--fault NAME]
import { fileURLToPath } from 'node:url';
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const s = await start({
    host: opt('--host', '127.0.0.1'),
    port: Number(opt('--port', '4020')),
    rateLimit: Number(opt('--rate-limit', '100')),
    rateWindowMs: Number(opt('--rate-window-ms', '60000')),
    fault: opt('--fault', undefined),
  });
  console.log(`listening ${s.url}`);
  console.log(`fixtures ${JSON.stringify(s.fixtures)}`);
  const stop = () => s.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
