// The fault catalogue of the independent server (./server.mjs). Each entry is ONE breach of a fact the
// contract (/work/shared/seed/000_8298da82e2a63f1d.txt) states, quoted in `contract`. `suite` is the
// runner suite expected to catch it. `includeDestructive: true` marks faults in operations the runner
// exercises only with --include-destructive (invites, key regeneration).
const AUTH_BOTH =
  'Every endpoint except health checks requires both headers: `Authorization: Bearer <API_KEY>` and `X-User-ID: <USER_ID>`.';
const AUTH_401 = 'When credentials are missing or invalid, the response is 401 (section 7).';
const V422 = 'Validation failures return 422 with the validation error body (2.8).';
const V28 =
  '`detail`: array of objects with `loc` (array whose items are string or integer), `msg` string, `type` string.';
const MC = 'max_concurrency | integer | 1 <= x <= 200';
const MDT =
  'machine_detection_timeout_seconds | integer | 3 <= x <= 60; seconds; overrides the assistant default; one setting for all providers';
const RL_HEADERS =
  'Rate-limit response headers (present in responses): `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`. Each carries an integer. When the limit is exceeded, the response is 429.';

export const FAULTS = [
  // ---------------- auth ----------------
  {
    name: 'auth-user-id-not-checked',
    suite: 'auth',
    contract: AUTH_BOTH,
    description: 'X-User-ID is never checked: requests without it (or with any value) are served.',
  },
  {
    name: 'auth-wrong-user-id-accepted',
    suite: 'auth',
    contract: `${AUTH_BOTH} / ${AUTH_401}`,
    description: "X-User-ID must be present but any non-empty value is served as if it were the key's user.",
  },
  {
    name: 'auth-empty-user-id-accepted',
    suite: 'auth',
    contract: `${AUTH_BOTH} / ${AUTH_401}`,
    description: 'An empty (or blank) X-User-ID is accepted as the fixture user.',
  },
  {
    name: 'auth-any-bearer-accepted',
    suite: 'auth',
    contract: AUTH_401,
    description: 'Only the presence of a bearer token is checked; any well-formed token is accepted.',
  },
  {
    name: 'auth-scheme-not-checked',
    suite: 'auth',
    contract:
      'Every endpoint except health checks requires both headers: `Authorization: Bearer <API_KEY>` ... The security scheme for the bearer part is HTTP bearer',
    description: 'The Authorization scheme is ignored: "Token <key>", "Basic <key>" or a bare key are accepted.',
  },
  {
    name: 'auth-401-without-detail',
    suite: 'auth',
    contract:
      '401 | authentication credentials invalid | `{detail: string}`; the message says the credentials are invalid',
    description: '401 answers carry {error} instead of {detail: string}.',
  },
  {
    name: 'auth-401-message-unrelated',
    suite: 'auth',
    contract:
      '401 | authentication credentials invalid | `{detail: string}`; the message says the credentials are invalid',
    description:
      '401 answers carry {detail: "Request processed"}: a string, but one that does not say the credentials are invalid.',
    unjudged:
      'the contract fixes no wording of detail (a message in another language is as good): the words are observed, not judged (issue 31)',
  },
  {
    name: 'auth-403-for-invalid',
    suite: 'auth',
    contract: AUTH_401,
    description: 'An invalid (but present) bearer is answered 403 instead of 401.',
  },
  {
    name: 'auth-health-requires-credentials',
    suite: 'auth',
    contract:
      'The health operation is documented with a bearer header only; the general rule says health checks need no credentials.',
    description: 'GET /health without credentials is answered 401.',
  },
  {
    name: 'auth-protected-no-echo',
    suite: 'auth',
    contract: 'Response: object with `message` string (a greeting that contains the user id) and `user_id` string.',
    description: 'GET /protected answers user_id "me" and a greeting without the user id.',
  },
  {
    name: 'auth-preflight-requires-user-id',
    suite: 'auth',
    contract:
      'The key regeneration operation and the three preflight operations are documented with the bearer header only.',
    description: 'The three documented preflights answer 401 unless X-User-ID is also sent.',
  },

  // ---------------- validation ----------------
  {
    name: 'val-create-name-type-unchecked',
    suite: 'validation',
    contract: `POST /campaign: name | string. ${V422}`,
    description: 'POST /campaign accepts a non-string name (number, object, ...) and stores it.',
  },
  {
    name: 'val-patch-boolean-type-unchecked',
    suite: 'validation',
    contract: `PATCH /campaign/{campaign_id}: use_returning_greeting | boolean. ${V422}`,
    description: 'PATCH accepts any JSON type for use_returning_greeting (create still checks it).',
  },
  {
    name: 'val-recipient-metadata-type-unchecked',
    suite: 'validation',
    contract: `POST /recipient-lists/{id}/recipients: Request body: \`phone_number\` string; \`metadata\` object. ${V422}`,
    description: 'Add-recipient accepts a metadata that is not an object.',
  },
  {
    name: 'val-speech-settings-members-unchecked',
    suite: 'validation',
    contract: `SpeechSettings: Object with four members, each a string: \`style\`, \`responsiveness\`, \`interruptions\`, \`emotions\`. ${V422}`,
    description: 'speech_settings must be an object, but its members are never type-checked (style: 5 is accepted).',
  },
  {
    name: 'val-recipients-items-unchecked',
    suite: 'validation',
    contract: `POST /campaign: recipients | array of {phone_number string, metadata object, assistant_overrides object}. ${V422}`,
    description:
      'POST /campaign checks that recipients is an array but never checks its items (phone_number: 5, metadata: "x" accepted).',
  },
  {
    name: 'val-status-enum-unchecked',
    suite: 'validation',
    contract: 'status | string | one of draft, scheduled, running, paused, completed',
    description: 'PATCH stores any status string (e.g. "archived").',
  },
  {
    name: 'val-malformed-json-400',
    suite: 'validation',
    contract: V422,
    description:
      'A body that is not well-formed JSON is answered 400 {detail} instead of 422 with the validation error body.',
  },
  {
    name: 'val-detail-string',
    suite: 'validation',
    contract: V28,
    description: '422 answers carry detail as one string instead of an array of {loc, msg, type}.',
  },
  {
    name: 'val-error-item-missing-type',
    suite: 'validation',
    contract: V28,
    description: '422 error items carry loc and msg but no type.',
  },
  {
    name: 'val-loc-omits-field',
    suite: 'validation',
    contract: `${V28} (loc points at the faulty input)`,
    description: 'loc stops at the location (["body"], ["query"]) and never names the field.',
  },
  {
    name: 'val-loc-wrong-location',
    suite: 'validation',
    contract: `${V28} (loc points at the faulty input)`,
    description: 'Body errors are reported with loc ["query", field] (wrong location, right field).',
  },
  {
    name: 'val-limit-non-integer-accepted',
    suite: 'validation',
    contract: 'limit | integer | no | 50 ... Response 422: validation error body.',
    description:
      'GET /calls parses limit with parseInt: "abc" falls back to the default and "5.5" is read as 5, both answered 200.',
  },
  {
    name: 'val-offset-non-integer-accepted',
    suite: 'validation',
    contract: 'offset | integer | no | 0 ... Response 422: validation error body.',
    description: 'GET /calls checks limit but parses offset with parseInt ("abc" -> 0, "2.5" -> 2), answered 200.',
  },

  // ---------------- ranges ----------------
  {
    name: 'rng-create-mc-max-off-by-one',
    suite: 'ranges',
    contract: `POST /campaign: ${MC}`,
    description: 'POST /campaign accepts max_concurrency 201 (upper bound checked as <= 201).',
  },
  {
    name: 'rng-create-mc-min-zero',
    suite: 'ranges',
    contract: `POST /campaign: ${MC}`,
    description: 'POST /campaign accepts max_concurrency 0 (lower bound 0).',
  },
  {
    name: 'rng-create-mc-max-exclusive',
    suite: 'ranges',
    contract: `POST /campaign: ${MC}; campaign max_concurrency | integer, 1 to 200 inclusive`,
    description: 'POST /campaign rejects max_concurrency 200 (upper bound exclusive).',
  },
  {
    name: 'rng-create-mc-only-zero-rejected',
    suite: 'ranges',
    contract: `POST /campaign: ${MC}`,
    description:
      'The lower bound is checked as "== 0": negative max_concurrency values are accepted (only min-1 is rejected).',
  },
  {
    name: 'rng-update-mc-unchecked',
    suite: 'ranges',
    contract: `PATCH /campaign/{campaign_id}: ${MC}`,
    description: 'PATCH does not check the max_concurrency range at all (create does).',
  },
  {
    name: 'rng-update-mc-min-exclusive',
    suite: 'ranges',
    contract: `PATCH /campaign/{campaign_id}: ${MC}`,
    description: 'PATCH rejects max_concurrency 1 (lower bound exclusive on update only).',
  },
  {
    name: 'rng-update-mc-max-off-by-one',
    suite: 'ranges',
    contract: `PATCH /campaign/{campaign_id}: ${MC}`,
    description: 'PATCH accepts max_concurrency 201 (create rejects it).',
  },
  {
    name: 'rng-400-for-out-of-range',
    suite: 'ranges',
    contract: `${MC} / ${V422}`,
    description:
      'Out-of-range values are rejected, but with 400 and a string detail instead of 422 and the validation error body.',
  },
  {
    name: 'rng-mdt-max-off-by-one',
    suite: 'ranges',
    contract: MDT,
    description: 'POST /campaign accepts machine_detection_timeout_seconds 61.',
  },
  {
    name: 'rng-mdt-min-two',
    suite: 'ranges',
    contract: MDT,
    description: 'POST /campaign accepts machine_detection_timeout_seconds 2.',
  },
  {
    name: 'rng-mdt-min-exclusive',
    suite: 'ranges',
    contract: `${MDT}; campaign machine_detection_timeout_seconds | integer, 3 to 60 inclusive`,
    description: 'POST /campaign rejects machine_detection_timeout_seconds 3.',
  },
  {
    name: 'rng-mdt-loc-misnamed',
    suite: 'ranges',
    contract: `${MDT} / ${V28}`,
    description:
      'Out-of-range machine_detection_timeout_seconds is rejected with 422 but loc names "machine_detection_timeout".',
  },

  // ---------------- schema ----------------
  {
    name: 'sch-calls-offset-ignored',
    suite: 'schema',
    contract: 'offset | integer | no | 0',
    description: 'GET /calls ignores offset: every page starts at the first call.',
  },
  {
    name: 'sch-calls-limit-plus-one',
    suite: 'schema',
    contract: 'limit | integer | no | 50',
    description: 'GET /calls returns limit+1 calls.',
  },
  {
    name: 'sch-calls-default-limit-25',
    suite: 'schema',
    contract: 'GET /calls limit default | 50',
    description: 'GET /calls without limit returns 25 calls although 75 exist.',
  },
  {
    name: 'sch-calls-provider-ignored',
    suite: 'schema',
    contract:
      'provider | string|null | no | none (query parameter of GET /calls; the provider of a call is "identifier of the telephony provider")',
    description: 'GET /calls ignores the provider filter.',
  },
  {
    name: 'sch-calls-wrapped',
    suite: 'schema',
    contract: 'Response 200: JSON array of Call (2.1).',
    description: 'GET /calls answers {items: [...], total} instead of a JSON array.',
  },
  {
    name: 'sch-call-missing-to-number',
    suite: 'schema',
    contract: 'to_number | string | yes (Call, 2.1)',
    description: 'Some Call items lack the required to_number.',
  },
  {
    name: 'sch-call-duration-string',
    suite: 'schema',
    contract: 'duration_seconds | integer|null | no',
    description: 'Call.duration_seconds is a string like "42s".',
  },
  {
    name: 'sch-users-me-orgs-object',
    suite: 'schema',
    contract: '(2.6) orgs | array of object: id string; name string; slug string; role string; contact_email string',
    description: 'GET /users/me answers orgs as an object keyed by org id instead of an array.',
  },
  {
    name: 'sch-assistant-missing-llm',
    suite: 'schema',
    contract: 'Required: id, name, system_instruction, voice, llm, transcriber, speech_settings, ...',
    description: 'GET /assistants items lack the required llm.',
  },
  {
    name: 'sch-create-status-outside-enum',
    suite: 'schema',
    contract:
      'The create response describes status as read-only and server-managed with values: draft, running, paused, completed.',
    description: 'POST /campaign answers status "created".',
  },
  {
    name: 'sch-health-text-plain',
    suite: 'schema',
    contract: 'Response 200, content type application/json; body members: not shown.',
    description: 'GET /health answers text/plain.',
  },
  {
    name: 'sch-ratelimit-headers-missing-assistants',
    suite: 'schema',
    contract: RL_HEADERS,
    description: 'GET /assistants responses carry no X-RateLimit-* headers (all other responses do).',
  },

  // ---------------- stateful ----------------
  {
    name: 'st-create-camelcase-not-mapped',
    suite: 'stateful',
    contract: 'scheduleStartTime | string | camelCase on create ... (record) schedule_start_time | string',
    description:
      'Create reads snake_case schedule times only: scheduleStartTime/scheduleEndTime sent on create come back null.',
  },
  {
    name: 'st-create-max-concurrency-ignored',
    suite: 'stateful',
    contract: 'Campaign record returned by create ... max_concurrency | integer | range 1 to 200 on input',
    description: 'Create ignores max_concurrency and records 10.',
  },
  {
    name: 'st-create-speech-settings-dropped',
    suite: 'stateful',
    contract: 'Campaign record returned by create ... speech_settings | SpeechSettings',
    description: 'Create drops speech_settings (null in the record).',
  },
  {
    name: 'st-get-counts-number',
    suite: 'stateful',
    contract: 'Response: object with `campaign` (Campaign record, 2.2), `counts` (object), `calls` (array of objects).',
    description:
      'GET /campaign/{id} answers the top-level counts as a number (the recipient total) instead of an object.',
  },
  {
    name: 'st-get-stale-record',
    suite: 'stateful',
    contract:
      'GET /campaign/{campaign_id} ... Response: object with `campaign` (Campaign record, 2.2) / PATCH /campaign/{campaign_id}',
    description: 'GET returns the campaign as created, never showing updates (PATCH answers the updated record).',
  },
  {
    name: 'st-patch-not-persisting-context',
    suite: 'stateful',
    contract: 'PATCH /campaign/{campaign_id} ... campaign_context | string',
    description: 'PATCH echoes campaign_context but does not store it: a later GET shows the old value.',
  },
  {
    name: 'st-patch-schedule-camelcase-only',
    suite: 'stateful',
    contract:
      'PATCH /campaign/{campaign_id}. Request body (JSON), all snake_case: ... schedule_start_time | string; schedule_end_time | string',
    description:
      'PATCH reads the schedule times only from camelCase fields (as on create): schedule_start_time/schedule_end_time sent snake_case are ignored.',
  },
  {
    name: 'st-patch-returns-old',
    suite: 'stateful',
    contract: 'Response: Campaign record without the fields listed as omitted in 2.2. (PATCH)',
    description: 'PATCH stores the changes but answers the record as it was before them.',
  },
  {
    name: 'st-patch-response-full-shape',
    suite: 'stateful',
    contract:
      'The record returned by the update operation carries the same fields except assistant_name, machine_detection_timeout_seconds, recipient_list_id, recipient_list_name, recipient_list_row_count and counts.',
    description: 'PATCH answers the full create-shaped record (with counts, assistant_name, ...).',
  },
  {
    name: 'st-patch-rejects-scheduled',
    suite: 'stateful',
    contract:
      'The update request accepts a `status` field whose allowed values are: draft, scheduled, running, paused, completed.',
    description: 'PATCH rejects status "scheduled" with 422.',
  },
  {
    name: 'st-add-recipient-array',
    suite: 'stateful',
    contract: 'Adds a single recipient to the list. ... Response: a JSON object; its members: not shown.',
    description: 'Add-recipient answers a JSON array holding the recipient.',
  },
  {
    name: 'st-invite-role-ignored',
    suite: 'stateful',
    includeDestructive: true,
    contract: 'Request body: `email` string; `role` string ... Response: Invite (2.5). (`role` string)',
    description: 'Invites always get role "member", whatever role was sent. Needs includeDestructive.',
  },
  {
    name: 'st-invite-expires-number',
    suite: 'stateful',
    includeDestructive: true,
    contract:
      '`id` string; `email` string; `role` string; `expires_at` string; `token` string (invite token, a secret-bearing value).',
    description: 'The invite answer carries expires_at as an epoch number, not a string. Needs includeDestructive.',
  },
  {
    name: 'st-regen-upgraded-string',
    suite: 'stateful',
    includeDestructive: true,
    contract:
      '`key` string (the new secret key value, returned to the caller); `id` string; `name` string; `upgraded` boolean.',
    description: 'The regeneration result carries upgraded as the string "false". Needs includeDestructive.',
  },
  {
    name: 'st-regen-key-not-working',
    suite: 'stateful',
    includeDestructive: true,
    contract:
      '`key` string (the new secret key value, returned to the caller) / Regenerates an API key of the authenticated user.',
    description:
      'A new key is returned but never activated: it gets 401 (the old key keeps working). Needs includeDestructive.',
  },
  {
    name: 'st-regen-requires-user-id',
    suite: 'stateful',
    includeDestructive: true,
    contract:
      'Headers: `Authorization: Bearer <token>`; no X-User-ID header appears in the reference for this operation. / The key regeneration operation and the three preflight operations are documented with the bearer header only.',
    description:
      "Key regeneration answers 401 unless X-User-ID is also sent. Needs includeDestructive. (The auth suite's bearer-only check covers only the preflights, so this lands in stateful.)",
  },

  // ---------------- cors ----------------
  {
    name: 'cors-chat-sessions-405',
    suite: 'cors',
    contract: 'OPTIONS | /logs/chat-sessions | plain success',
    description: 'OPTIONS /logs/chat-sessions is answered 405.',
  },
  {
    name: 'cors-chat-logs-422',
    suite: 'cors',
    contract: 'Each answers a CORS preflight request ... OPTIONS /logs/chat-logs/{session_id}',
    description: 'OPTIONS /logs/chat-logs/{id} always answers 422, for any session id.',
  },
  {
    name: 'cors-no-allow-origin',
    suite: 'cors',
    contract: 'Each answers a CORS preflight request and is sent with the `Authorization: Bearer <token>` header.',
    description: 'Preflight answers carry no Access-Control-Allow-Origin.',
  },
  {
    name: 'cors-origin-mismatch',
    suite: 'cors',
    contract: 'Each answers a CORS preflight request and is sent with the `Authorization: Bearer <token>` header.',
    description: 'Preflight answers allow a fixed other origin instead of the request Origin (or *).',
  },
  {
    name: 'cors-allow-headers-missing-user-id',
    suite: 'cors',
    contract:
      'Each answers a CORS preflight request ... / Every endpoint except health checks requires both headers: ... `X-User-ID`',
    description: 'Access-Control-Allow-Headers omits X-User-ID, so a browser cannot send the required header.',
  },
  {
    name: 'cors-allow-methods-missing',
    suite: 'cors',
    contract: 'Each answers a CORS preflight request and is sent with the `Authorization: Bearer <token>` header.',
    description:
      'Preflight answers carry no Access-Control-Allow-Methods (a browser then refuses any non-simple method).',
  },
  {
    name: 'cors-allow-headers-wildcard',
    suite: 'cors',
    contract: 'Each answers a CORS preflight request and is sent with the `Authorization: Bearer <token>` header.',
    description:
      'Access-Control-Allow-Headers is "*", which (Fetch standard) never covers Authorization: the documented bearer cannot be sent by a browser.',
  },

  // ---------------- robustness ----------------
  {
    name: 'rob-500-long-string',
    suite: 'robustness',
    contract:
      'name | string (no maximum length: "Maximum values for limit, payload size, ... not shown") / Errors for ... server faults: not shown.',
    description: 'Any body string of 300+ characters makes the server answer 500.',
  },
  {
    name: 'rob-500-unicode',
    suite: 'robustness',
    contract: 'name | string; Every request and response body is JSON (any Unicode string is a JSON string).',
    description: 'Any non-ASCII character in a body answers 500.',
  },
  {
    name: 'rob-500-nested-metadata',
    suite: 'robustness',
    contract:
      'metadata object; Open objects ... whose internal structure is undefined here: ... metadata, assistant_overrides',
    description: 'Recipient metadata nested 3+ levels deep answers 500.',
  },
  {
    name: 'rob-500-empty-recipients',
    suite: 'robustness',
    contract: 'recipients | array of {phone_number string, metadata object, assistant_overrides object}',
    description: 'An empty recipients array answers 500.',
  },
  {
    name: 'rob-500-non-object-body',
    suite: 'robustness',
    contract: V422,
    description:
      'A well-formed JSON body that is not an object (array, number, string, null) answers 500 instead of 422.',
  },
  {
    name: 'rob-500-garbage-query',
    suite: 'robustness',
    contract: 'limit | integer ... Response 422: validation error body.',
    description: 'A non-integer offset answers 500 instead of 422.',
  },
  {
    name: 'rob-500-garbage-path-id',
    suite: 'robustness',
    contract: 'Path parameter: campaign_id string.',
    description: 'A campaign id with characters outside [A-Za-z0-9_-] answers 500.',
  },
  {
    name: 'rob-500-huge-offset',
    suite: 'robustness',
    contract: 'offset | integer | no | 0 (no maximum: "Maximum values for limit ... not shown")',
    description: 'GET /calls with an offset past the last call answers 500 instead of [].',
  },
  {
    name: 'rob-500-provider-control-char',
    suite: 'robustness',
    contract: 'provider | string|null | no | none',
    description: 'GET /calls with a control character (e.g. NUL) in provider answers 500.',
  },

  // ---------------- ratelimit ----------------
  {
    name: 'rl-remaining-increases',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'X-RateLimit-Remaining goes up by 3 on every 4th request within one window.',
  },
  {
    name: 'rl-remaining-stuck',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'X-RateLimit-Remaining always says limit-1 until the 429 comes.',
  },
  {
    name: 'rl-remaining-above-limit',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description:
      'X-RateLimit-Remaining is 5 more than the real count, above X-RateLimit-Limit at the start of a window.',
  },
  {
    name: 'rl-non-integer-reset',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'X-RateLimit-Reset is a decimal ("1.25").',
  },
  {
    name: 'rl-headers-missing-users-me',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'GET /users/me responses carry no X-RateLimit-* headers.',
  },
  {
    name: 'rl-429-without-detail',
    suite: 'ratelimit',
    contract: '429 | rate limit exceeded | `{detail: string}`; the message says the rate limit was exceeded',
    description: 'The 429 body is {error} instead of {detail}.',
  },
  {
    name: 'rl-429-message-unrelated',
    suite: 'ratelimit',
    contract: '429 | rate limit exceeded | `{detail: string}`; the message says the rate limit was exceeded',
    description: 'The 429 body is {detail: "Invalid request"}: a string that does not say the rate limit was exceeded.',
    unjudged:
      'the contract fixes no wording of detail (a message in another language is as good): the words are observed, not judged (issue 31)',
  },
  {
    name: 'rl-429-without-headers',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'The 429 answer carries no X-RateLimit-* headers (every other answer does).',
  },
  {
    name: 'rl-429-too-early',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description:
      'The server answers 429 after half the advertised limit while X-RateLimit-Remaining still shows requests left.',
  },
  {
    name: 'rl-no-enforcement',
    suite: 'ratelimit',
    contract: 'When the limit is exceeded, the response is 429.',
    description: 'The limit is advertised but never enforced: no 429 ever.',
  },
];

// ======================= Round 2 (adversarial): 56 more faults =======================
const SEC_SCHEME =
  'The security scheme for the bearer part is HTTP bearer with the key format described as an API key; the scheme for X-User-ID is an API key carried in the request header named `X-User-ID`, described as the required user id for API key requests.';
const PRE_ONLY =
  'The key regeneration operation and the three preflight operations are documented with the bearer header only.';
const HEALTH =
  'The health operation is documented with a bearer header only; the general rule says health checks need no credentials.';
const PREFLIGHT = 'Each answers a CORS preflight request and is sent with the `Authorization: Bearer <token>` header.';
const CALLS_RESP = 'Response 200: JSON array of Call (2.1).';
const NO_5XX =
  'Validation failures return 422 with the validation error body (2.8). / Errors for ... server faults: not shown (no 5xx is documented for any operation).';
const RL_429 = '429 | rate limit exceeded | `{detail: string}`; the message says the rate limit was exceeded';

export const FAULTS_ROUND2 = [
  // ---------------- auth ----------------
  {
    name: 'auth-key-prefix-only',
    suite: 'auth',
    contract: `${AUTH_401} / ${SEC_SCHEME}`,
    description: 'Authentication only checks the key prefix ("ind_fx_"): any bearer with that prefix is accepted.',
  },
  {
    name: 'auth-key-case-insensitive',
    suite: 'auth',
    contract: `${AUTH_401} / ${SEC_SCHEME}`,
    description: 'The API key is compared case-insensitively: the key in upper case is accepted.',
    unjudged:
      'the case-changed key cannot be sent without showing it in reports (the redactor replaces the exact key only); low severity',
  },
  {
    name: 'auth-user-id-case-insensitive',
    suite: 'auth',
    contract: `${AUTH_BOTH} / ${AUTH_401}`,
    description: 'X-User-ID is compared case-insensitively ("USER_FX_0001" is served as user_fx_0001).',
    unjudged: 'the contract does not say user ids are case-sensitive',
  },
  {
    name: 'auth-user-id-prefix-match',
    suite: 'auth',
    contract: `${AUTH_BOTH} / ${AUTH_401}`,
    description: 'X-User-ID is accepted when it starts with the user id ("user_fx_0001-evil" is served).',
  },
  {
    name: 'auth-user-id-unchecked-on-writes',
    suite: 'auth',
    contract: `${AUTH_BOTH} / ${AUTH_401}`,
    description: 'X-User-ID is checked on GET only: POST and PATCH are served without it or with any value.',
  },
  {
    name: 'auth-missing-bearer-422',
    suite: 'auth',
    contract: `${AUTH_401} / 401 | authentication credentials invalid | \`{detail: string}\``,
    description:
      'A request without Authorization is answered 422 (FastAPI "Field required" for a header parameter) instead of 401.',
  },
  {
    name: 'auth-missing-user-id-422',
    suite: 'auth',
    contract: `${AUTH_401} / 401 | authentication credentials invalid | \`{detail: string}\``,
    description: 'A request without X-User-ID is answered 422 loc ["header","x-user-id"] instead of 401.',
  },
  {
    name: 'auth-preflight-rejects-user-id',
    suite: 'auth',
    contract: `${PRE_ONLY} / ${AUTH_BOTH}`,
    description:
      'The three documented preflights answer 401 when an X-User-ID header IS sent (bearer-only taken as "bearer and nothing else").',
    unjudged:
      'rule 5.4 documents the preflights with the bearer only; whether an extra X-User-ID may be refused is not stated',
  },
  {
    name: 'auth-health-401-wrong-bearer',
    suite: 'auth',
    contract: HEALTH,
    description: 'GET /health is open without credentials but answers 401 when a wrong bearer is sent.',
    unjudged: 'rule 5.3: health needs no credentials, but whether a wrong one may be refused is not stated',
  },

  // ---------------- validation ----------------
  {
    name: 'val-create-null-accepted',
    suite: 'validation',
    contract: `POST /campaign: name | string (every create field typed without |null). ${V422}`,
    description: 'POST /campaign accepts null for any field (treated as absent), e.g. {"name": null}.',
    unjudged:
      'null for an optional field read as absent is framework leniency the issue names: judged only with --strict-types',
  },
  {
    name: 'val-recipient-phone-number-coerced',
    suite: 'validation',
    contract: `POST /recipient-lists/{id}/recipients: Request body: \`phone_number\` string. ${V422}`,
    description: 'Add-recipient accepts a number phone_number and stores it as a string.',
  },
  {
    name: 'val-patch-recipients-items-unchecked',
    suite: 'validation',
    contract: `PATCH /campaign/{campaign_id}: recipients | array of {phone_number string, metadata object, assistant_overrides object}. ${V422}`,
    description: 'PATCH checks that recipients is an array but never checks its items (create does).',
  },
  {
    name: 'val-retry-policy-array-accepted',
    suite: 'validation',
    contract: `retry_policy | object (create and update). ${V422}`,
    description: 'retry_policy is checked with typeof === "object": an array is accepted on create and update.',
  },
  {
    name: 'val-short-term-limit-float',
    suite: 'validation',
    contract: `short_term_summaries_limit | integer (create and update). ${V422}`,
    description: 'short_term_summaries_limit is checked as a number, not an integer: 2.5 is accepted.',
  },
  {
    name: 'val-loc-dotted-string',
    suite: 'validation',
    contract: V28,
    description: '422 error items carry loc as a dotted string ("body.name") instead of an array.',
  },
  {
    name: 'val-patch-malformed-json-empty',
    suite: 'validation',
    contract: V422,
    description: 'PATCH treats a body that is not well-formed JSON as {} and answers 200 (create still answers 422).',
  },
  {
    name: 'val-status-case-insensitive',
    suite: 'validation',
    contract: 'status | string | one of draft, scheduled, running, paused, completed',
    description: 'PATCH accepts status in any case ("RUNNING", "Paused") and stores it lower-cased.',
  },
  {
    name: 'val-calls-limit-exponent-accepted',
    suite: 'validation',
    contract: 'limit | integer | no | 50 ... Response 422: validation error body.',
    description: 'GET /calls reads limit with Number(): "1e1" is accepted as 10.',
    unjudged: 'Number(\"1e1\") === 10 in JavaScript servers; failing it risks false alarms, low severity',
  },

  // ---------------- ranges ----------------
  {
    name: 'rng-update-mc-zero-falsy',
    suite: 'ranges',
    contract: `PATCH /campaign/{campaign_id}: ${MC}`,
    description:
      'PATCH checks max_concurrency with `if (body.max_concurrency && ...)`: 0 is accepted (negatives and 201 are rejected; create is right).',
  },
  {
    name: 'rng-mdt-zero-falsy',
    suite: 'ranges',
    contract: MDT,
    description:
      'POST /campaign skips the machine_detection_timeout_seconds check when the value is falsy: 0 is accepted (1, 2 and 61 are rejected).',
  },
  {
    name: 'rng-create-mc-unchecked-with-recipient-list',
    suite: 'ranges',
    contract: `POST /campaign: ${MC}`,
    description: 'POST /campaign skips the max_concurrency range when recipient_list_id is present.',
  },
  {
    name: 'rng-create-mc-upper-100',
    suite: 'ranges',
    contract: `POST /campaign: ${MC}; campaign max_concurrency | integer, 1 to 200 inclusive`,
    description:
      "POST /campaign rejects max_concurrency above 100 (the development plan's rate confused with the bound).",
  },
  {
    name: 'rng-mc-huge-accepted',
    suite: 'ranges',
    contract: `${MC} (create and update)`,
    description:
      'max_concurrency with more than five digits (|x| >= 100000) skips the range check, on create and update.',
  },
  {
    name: 'rng-update-mc-skipped-with-status',
    suite: 'ranges',
    contract: `PATCH /campaign/{campaign_id}: ${MC}`,
    description: 'PATCH skips the max_concurrency range when the body also carries status.',
  },
  {
    name: 'rng-mdt-max-exclusive',
    suite: 'ranges',
    contract: `${MDT}; campaign machine_detection_timeout_seconds | integer, 3 to 60 inclusive`,
    description: 'POST /campaign rejects machine_detection_timeout_seconds 60.',
  },

  // ---------------- schema ----------------
  {
    name: 'sch-calls-limit-capped-25',
    suite: 'schema',
    contract: 'limit | integer | no | 50 / GET /calls limit default | 50',
    description:
      'An explicit limit is capped at 25 (limit=50 gives 25 calls) although the default page (no limit) has 50.',
    unjudged: 'maximum values for limit are not shown (8); a cap below the default is odd but not ruled out',
  },
  {
    name: 'sch-calls-offset-off-by-one',
    suite: 'schema',
    contract: 'offset | integer | no | 0',
    description: 'GET /calls skips offset+1 calls when offset > 0.',
  },
  {
    name: 'sch-calls-provider-case-insensitive',
    suite: 'schema',
    contract: 'provider | string|null | no | none; Call.provider | string (identifier of the telephony provider)',
    description: 'The provider filter is case-insensitive: provider=ALPHA-TEL returns the alpha-tel calls.',
    unjudged: "the provider filter's matching rule (exact, case) is not stated",
  },
  {
    name: 'sch-calls-provider-prefix',
    suite: 'schema',
    contract: 'provider | string|null | no | none; Call.provider | string (identifier of the telephony provider)',
    description: 'The provider filter matches prefixes: provider=a returns the alpha-tel calls.',
    unjudged: "the provider filter's matching rule (exact, prefix) is not stated",
  },
  {
    name: 'sch-calls-duration-string-past-50',
    suite: 'schema',
    contract: `duration_seconds | integer|null | no. ${CALLS_RESP}`,
    description:
      'duration_seconds is a numeric string ("42") on calls at position 50 and beyond (second page, or limit > 50).',
  },
  {
    name: 'sch-calls-provider-missing-past-50',
    suite: 'schema',
    contract: `provider | string | yes. ${CALLS_RESP}`,
    description: 'Calls at position 50 and beyond lack the required provider.',
  },
  {
    name: 'sch-assistant-kb-ids-string',
    suite: 'schema',
    contract: 'knowledge_base_ids | array of string (Assistant, 2.4)',
    description: 'GET /assistants answers knowledge_base_ids as a comma-joined string.',
  },
  {
    name: 'sch-health-invalid-json',
    suite: 'schema',
    contract:
      'Response 200, content type application/json; body members: not shown. / Every request and response body is JSON unless stated otherwise.',
    description: 'GET /health answers content-type application/json with the body "OK" (not JSON).',
  },
  {
    name: 'sch-ratelimit-limit-with-unit-calls',
    suite: 'schema',
    contract: RL_HEADERS,
    description: 'GET /calls carries X-RateLimit-Limit "1000000/minute" (not an integer); other responses are right.',
  },

  // ---------------- stateful ----------------
  {
    name: 'st-patch-drops-speech-settings',
    suite: 'stateful',
    contract: 'PATCH /campaign/{campaign_id} ... speech_settings | SpeechSettings / Response: Campaign record',
    description: 'PATCH silently ignores speech_settings (200, old value in the answer and later GETs).',
    unjudged:
      'a known miss: only one value per SpeechSettings member is shown (2.3), so an update cannot differ from the create without inventing values',
  },
  {
    name: 'st-patch-includes-counts',
    suite: 'stateful',
    contract:
      'The record returned by the update operation carries the same fields except assistant_name, machine_detection_timeout_seconds, recipient_list_id, recipient_list_name, recipient_list_row_count and counts.',
    description: 'PATCH answers the update record plus counts (only that one omitted field).',
  },
  {
    name: 'st-create-schedule-camelcase-echoed',
    suite: 'stateful',
    contract:
      'scheduleStartTime | string | camelCase on create / (record 2.2) schedule_start_time | string; schedule_end_time | string',
    description:
      'The create record echoes the times camelCase (scheduleStartTime/scheduleEndTime) instead of schedule_start_time/schedule_end_time.',
    unjudged: 'record fields not marked required may be absent (2); the extra camelCase member is not forbidden',
  },
  {
    name: 'st-get-returns-first-campaign',
    suite: 'stateful',
    contract:
      'GET /campaign/{campaign_id}. Path parameter: campaign_id string. Response: object with `campaign` (Campaign record, 2.2)',
    description:
      'GET /campaign/{id} returns the first campaign ever created, whatever the id (right only for the first).',
  },
  {
    name: 'st-regen-returns-old-key',
    suite: 'stateful',
    includeDestructive: true,
    contract:
      '`key` string (the new secret key value, returned to the caller) / Regenerates an API key of the authenticated user.',
    description: 'Regeneration answers the current key again (nothing regenerated). Needs includeDestructive.',
  },
  {
    name: 'st-invite-role-always-developer',
    suite: 'stateful',
    includeDestructive: true,
    contract:
      'Request body: `email` string; `role` string (the reference shows the value developer ...) Response: Invite (2.5).',
    description: 'Invites always carry role "developer" whatever role was sent. Needs includeDestructive.',
    unjudged: 'only the role \"developer\" is shown (4.6); another role could be refused, so the echo cannot be judged',
  },
  {
    name: 'st-patch-status-not-persisted',
    suite: 'stateful',
    contract:
      'PATCH /campaign/{campaign_id} ... status | string / GET /campaign/{campaign_id} Response: object with `campaign` (Campaign record, 2.2)',
    description: 'PATCH echoes the new status but never stores it: a later GET shows the old status.',
  },
  {
    name: 'st-patch-falsy-ignored',
    suite: 'stateful',
    contract:
      'PATCH /campaign/{campaign_id} ... use_returning_greeting | boolean; use_short_term_summaries | boolean; short_term_summaries_limit | integer',
    description: 'PATCH applies only truthy values (`if (body[f])`): false, 0 and "" are silently ignored.',
  },
  {
    name: 'st-create-falsy-nulled',
    suite: 'stateful',
    contract:
      'Campaign record returned by create ... use_returning_greeting | boolean; use_short_term_summaries | boolean; short_term_summaries_limit | integer',
    description: 'Create records `body[f] || null`: false, 0 and "" come back null.',
  },
  {
    name: 'st-get-campaign-unwrapped',
    suite: 'stateful',
    contract: 'Response: object with `campaign` (Campaign record, 2.2), `counts` (object), `calls` (array of objects).',
    description: 'GET /campaign/{id} answers the bare record instead of {campaign, counts, calls}.',
  },

  // ---------------- cors ----------------
  {
    name: 'cors-preflight-401-with-origin',
    suite: 'cors',
    contract: PREFLIGHT,
    description:
      'The documented preflights answer 401 whenever an Origin header is sent (i.e. to every real preflight), bearer or not.',
  },
  {
    name: 'cors-allow-origin-null',
    suite: 'cors',
    contract: PREFLIGHT,
    description: 'Preflight answers carry Access-Control-Allow-Origin: null.',
  },
  {
    name: 'cors-allow-headers-missing-authorization',
    suite: 'cors',
    contract: `${PREFLIGHT} / ${AUTH_BOTH}`,
    description: 'Access-Control-Allow-Headers omits Authorization (lists X-User-ID, Content-Type).',
  },
  {
    name: 'cors-user-credentials-404',
    suite: 'cors',
    contract: `OPTIONS | /user-credentials/user-credentials/{credential_id} | failure body is the validation error body. ${PREFLIGHT}`,
    description: 'OPTIONS /user-credentials/user-credentials/{id} answers 404 {detail} for every id.',
  },

  // ---------------- robustness ----------------
  {
    name: 'rob-500-emoji-query',
    suite: 'robustness',
    contract: `provider | string|null | no | none. ${NO_5XX}`,
    description: 'GET /calls answers 500 when any query value holds a character outside the BMP (emoji).',
  },
  {
    name: 'rob-500-body-over-100kb',
    suite: 'robustness',
    contract: `Maximum values for limit, payload size, recipients per request and other per-operation limits: not shown. ${NO_5XX}`,
    description: 'Any body over 100 KB answers 500.',
  },
  {
    name: 'rob-500-null-field',
    suite: 'robustness',
    contract: `name | string (create/update fields are not nullable). ${NO_5XX}`,
    description: 'A null value for any create/update field answers 500 instead of 422.',
  },
  {
    name: 'rob-500-duplicate-query',
    suite: 'robustness',
    contract: `limit | integer; offset | integer. ${NO_5XX}`,
    description: 'GET /calls with a repeated limit or offset (?limit=5&limit=6) answers 500.',
  },
  {
    name: 'rob-500-big-integer',
    suite: 'robustness',
    contract: `${MC}; ${NO_5XX}`,
    description: 'An integer field beyond int32 (max_concurrency 3000000000) answers 500 instead of 422.',
  },

  // ---------------- ratelimit ----------------
  {
    name: 'rl-remaining-never-zero',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'X-RateLimit-Remaining never shows 0: the last allowed request says 1, the next is 429.',
  },
  {
    name: 'rl-reset-far-past',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'X-RateLimit-Reset is an epoch in seconds seven days in the past.',
  },
  {
    name: 'rl-429-remaining-positive',
    suite: 'ratelimit',
    contract: `${RL_HEADERS} / ${RL_429}`,
    description: 'The 429 answer carries X-RateLimit-Remaining: 5.',
  },
  {
    name: 'rl-limit-header-doubled',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description:
      'X-RateLimit-Limit advertises twice the enforced limit (Remaining counts the real one). Judged by issue 23 from Remaining after a reset, no longer since issue 31.',
    unjudged:
      'section 8 does not say how full a window is after its reset (a sliding window gives slots back one at a time), so Remaining far below Limit is observed, not judged (issue 31)',
  },
  {
    name: 'rl-503-instead-of-429',
    suite: 'ratelimit',
    contract: 'When the limit is exceeded, the response is 429.',
    description: 'Exceeding the limit answers 503 {detail} (with the headers) instead of 429.',
  },
  {
    name: 'rl-post-not-limited',
    suite: 'ratelimit',
    contract: `Requests per minute, development plan | 100. ${RL_HEADERS}`,
    description: 'Only GET/OPTIONS requests are limited: POST and PATCH are never answered 429 (they are counted).',
    unjudged: 'whether every operation counts toward the limit is not stated',
  },
];
FAULTS.push(...FAULTS_ROUND2);

// ======================= Round 3 (adversarial, grader's view): 43 more faults =======================
const R401 =
  '401 | authentication credentials invalid | `{detail: string}`; the message says the credentials are invalid';
const PROTECTED =
  'Example protected endpoint. Requires bearer and X-User-ID. Response: object with `message` string (a greeting that contains the user id) and `user_id` string.';
const CHANNEL = 'channel | string | one of two values: the identifiers of the two supported telephony providers';
const RECIPIENTS = 'recipients | array of {phone_number string, metadata object, assistant_overrides object}';
const CREATE_ECHO = 'Campaign record returned by create (201/200 not distinguished, see section 4)';
const PER_MINUTE = 'Requests per minute, development plan | 100';

export const FAULTS_ROUND3 = [
  // ---------------- auth ----------------
  {
    name: 'auth-401-detail-object',
    suite: 'auth',
    contract: R401,
    description:
      '401 answers carry detail as an object ({detail: {message: "Invalid authentication credentials"}}), not a string.',
  },
  {
    name: 'auth-calls-open',
    suite: 'auth',
    contract: AUTH_BOTH,
    description:
      'GET /calls forgot its auth dependency: served with no credentials at all (every other operation is right).',
  },
  {
    name: 'auth-bearer-trailing-garbage',
    suite: 'auth',
    contract: `${AUTH_BOTH} / ${SEC_SCHEME}`,
    description: 'The bearer is read with /^Bearer (\\S+)/ without an end anchor: "Bearer <key> junk" is accepted.',
  },
  {
    name: 'auth-empty-bearer-user-id-fallback',
    suite: 'auth',
    contract: `${AUTH_BOTH} / ${AUTH_401}`,
    description:
      'An empty bearer ("Bearer ") is accepted when the X-User-ID is right (the user id alone authenticates).',
  },
  {
    name: 'auth-protected-message-without-id',
    suite: 'auth',
    contract: PROTECTED,
    description:
      'GET /protected echoes user_id but its message ("Hello, you reached a protected endpoint.") does not contain the user id.',
  },
  {
    name: 'auth-regen-open',
    suite: 'auth',
    includeDestructive: true,
    contract: `${PRE_ONLY} / ${AUTH_401}`,
    description: 'Key regeneration is served without any bearer. Needs includeDestructive.',
  },

  // ---------------- validation ----------------
  {
    name: 'val-channel-enum-unchecked',
    suite: 'validation',
    contract: `POST /campaign: ${CHANNEL}. ${V422}`,
    description: 'POST /campaign accepts any string as channel (only its JSON type is checked).',
  },
  {
    name: 'val-assistant-overrides-unchecked',
    suite: 'validation',
    contract: `${RECIPIENTS} (create and update). ${V422}`,
    description:
      'recipients[i].assistant_overrides is never type-checked ("x", 5, [] accepted); phone_number and metadata are.',
  },
  {
    name: 'val-mdt-type-unchecked',
    suite: 'validation',
    contract: `${MDT}. ${V422}`,
    description:
      'machine_detection_timeout_seconds is range-checked when it is a number, but any other JSON type ("abc", true, {}) is accepted.',
  },
  {
    name: 'val-error-item-missing-msg',
    suite: 'validation',
    contract: V28,
    description: '422 error items carry loc and type but no msg.',
  },
  {
    name: 'val-patch-status-type-unchecked',
    suite: 'validation',
    contract: `PATCH: status | string | one of draft, scheduled, running, paused, completed. ${V422}`,
    description: 'PATCH checks the status enum only for strings: status 5, true or {} is accepted and stored.',
  },

  // ---------------- ranges ----------------
  {
    name: 'rng-create-mc-min-exclusive',
    suite: 'ranges',
    contract: `POST /campaign: ${MC}; campaign max_concurrency | integer, 1 to 200 inclusive`,
    description: 'POST /campaign rejects max_concurrency 1 (lower bound exclusive on create only).',
  },
  {
    name: 'rng-update-mc-max-exclusive',
    suite: 'ranges',
    contract: `PATCH /campaign/{campaign_id}: ${MC}; campaign max_concurrency | integer, 1 to 200 inclusive`,
    description: 'PATCH rejects max_concurrency 200 (upper bound exclusive on update only).',
  },
  {
    name: 'rng-update-mc-lower-unchecked',
    suite: 'ranges',
    contract: `PATCH /campaign/{campaign_id}: ${MC}`,
    description: 'PATCH checks only the upper bound of max_concurrency: 0 and negative values are accepted.',
  },
  {
    name: 'rng-mdt-lower-unchecked',
    suite: 'ranges',
    contract: MDT,
    description:
      'POST /campaign checks only the upper bound of machine_detection_timeout_seconds: 2, 0 and negatives are accepted.',
  },
  {
    name: 'rng-mc-wraps-uint8',
    suite: 'ranges',
    contract: `POST /campaign: ${MC}`,
    description:
      'POST /campaign stores max_concurrency in a byte and checks the wrapped value: 257..456 (and 513..712, ...) are accepted as 1..200; 201..256 are rejected.',
  },

  // ---------------- schema ----------------
  {
    name: 'sch-calls-limit-ignored',
    suite: 'schema',
    contract: 'limit | integer | no | 50',
    description: 'GET /calls ignores limit: every page has 50 calls (limit=5 included).',
  },
  {
    name: 'sch-calls-limit-zero-falsy',
    suite: 'schema',
    contract: 'limit | integer | no | 50 (no minimum is stated; limit=0 asks for no call)',
    description: 'GET /calls reads `limit || 50`: limit=0 answers the default page of 50 calls.',
  },
  {
    name: 'sch-calls-provider-inverted',
    suite: 'schema',
    contract: 'provider | string|null | no | none (query parameter of GET /calls)',
    description: 'The provider filter is inverted: provider=p returns the calls of the other provider.',
  },
  {
    name: 'sch-call-status-null',
    suite: 'schema',
    contract: 'status | string | yes (Call, 2.1)',
    description: 'Calls whose status would be "busy" carry status null (a required string).',
  },
  {
    name: 'sch-assistant-voice-speed-string',
    suite: 'schema',
    contract: 'voice | object: voice_id string; tts_provider string; tts_model string; language string; speed number',
    description: 'GET /assistants answers voice.speed as the string "1".',
  },
  {
    name: 'sch-users-me-no-content-type',
    suite: 'schema',
    contract: 'Every request and response body is JSON unless stated otherwise. (GET /users/me, 2.6)',
    description: 'GET /users/me answers a JSON body with no Content-Type header at all.',
  },

  // ---------------- stateful ----------------
  {
    name: 'st-create-retry-policy-dropped',
    suite: 'stateful',
    contract: `${CREATE_ECHO} ... retry_policy | object`,
    description: 'Create drops retry_policy (null in the record and in later GETs).',
  },
  {
    name: 'st-create-schedule-swapped',
    suite: 'stateful',
    contract:
      'scheduleStartTime | string | camelCase on create; scheduleEndTime | string | camelCase on create / (record) schedule_start_time, schedule_end_time',
    description: 'Create maps scheduleStartTime to schedule_end_time and scheduleEndTime to schedule_start_time.',
  },
  {
    name: 'st-create-channel-always-first',
    suite: 'stateful',
    contract: `${CHANNEL} / ${CREATE_ECHO} ... channel | string`,
    description: 'Create records channel as the first provider whatever was sent.',
  },
  {
    name: 'st-create-flags-swapped',
    suite: 'stateful',
    contract: `${CREATE_ECHO} ... use_returning_greeting | boolean; use_short_term_summaries | boolean`,
    description: 'Create stores use_returning_greeting in use_short_term_summaries and vice versa.',
  },
  {
    name: 'st-add-recipient-404-fixture-list',
    suite: 'stateful',
    contract:
      'POST /recipient-lists/{recipient_list_id}/recipients: Adds a single recipient to the list. ... Response: a JSON object',
    description: 'Adding a recipient to the (existing) fixture list answers 404 {detail: "Recipient list not found"}.',
  },
  {
    name: 'st-patch-nulls-unsent',
    suite: 'stateful',
    contract:
      'PATCH /campaign/{campaign_id} (update; every body field optional: "Which fields of the create and update bodies are required: not shown")',
    description:
      'PATCH replaces the record (PUT semantics): every update field not sent becomes null. Judged since issue 23 (stateful.update-keeps-unsent: PATCH is a partial update, RFC 5789).',
  },
  {
    name: 'st-invite-email-wrong',
    suite: 'stateful',
    includeDestructive: true,
    contract: 'Request body: `email` string; `role` string ... Response: Invite (2.5): `email` string',
    description:
      "The invite answer carries the inviting user's email instead of the invitee's. Needs includeDestructive.",
  },

  // ---------------- cors ----------------
  {
    name: 'cors-allow-headers-case-sensitive',
    suite: 'cors',
    contract: `${PREFLIGHT} / ${AUTH_BOTH}`,
    description:
      'Access-Control-Allow-Headers echoes only the requested headers that match "Authorization", "X-User-ID", "Content-Type" case-sensitively; browsers request them lower-case, so none is allowed.',
  },
  {
    name: 'cors-allow-origin-list',
    suite: 'cors',
    contract: PREFLIGHT,
    description:
      'Access-Control-Allow-Origin carries a list ("<origin>, https://admin.example.invalid"), which browsers reject.',
  },
  {
    name: 'cors-chat-sessions-no-allow-origin',
    suite: 'cors',
    contract: `OPTIONS | /logs/chat-sessions | plain success. ${PREFLIGHT}`,
    description:
      'OPTIONS /logs/chat-sessions answers 204 without Access-Control-Allow-Origin (the two other preflights are right).',
  },

  // ---------------- robustness ----------------
  {
    name: 'rob-500-empty-speech-settings',
    suite: 'robustness',
    contract: `speech_settings | SpeechSettings (its members' presence: not stated). ${NO_5XX}`,
    description: 'speech_settings {} (no member) answers 500 on create and update.',
  },
  {
    name: 'rob-500-empty-name',
    suite: 'robustness',
    contract: `name | string (no minimum length stated). ${NO_5XX}`,
    description: 'An empty name "" answers 500 on create and update.',
  },
  {
    name: 'rob-500-patch-empty-body',
    suite: 'robustness',
    contract: `PATCH /campaign/{campaign_id} ... Which fields of the create and update bodies are required: not shown. ${NO_5XX}`,
    description:
      'PATCH with a body holding no update field ({} or unknown members only) answers 500 (an empty UPDATE ... SET).',
  },
  {
    name: 'rob-500-calls-limit-huge',
    suite: 'robustness',
    contract: `limit | integer | no | 50 (maximum not shown). ${NO_5XX}`,
    description: 'GET /calls with limit above 10000 answers 500.',
  },
  {
    name: 'rob-500-recipients-many',
    suite: 'robustness',
    contract: `${RECIPIENTS}; recipients per request: maximum not shown. ${NO_5XX}`,
    description: 'A recipients array of more than 10 items answers 500.',
  },
  {
    name: 'rob-no-answer-long-path-id',
    suite: 'robustness',
    contract: `Path parameter: campaign_id string. ${NO_5XX}`,
    description: 'A path id longer than 100 characters makes the server drop the connection without an answer.',
  },

  // ---------------- ratelimit ----------------
  {
    name: 'rl-reset-negative',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'X-RateLimit-Reset is the negated seconds-until (-1, -2).',
  },
  {
    name: 'rl-reset-days',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description:
      'X-RateLimit-Reset says three days (259200 + seconds-until) on the first three answers of each window, although the window is 1.5 s.',
    unjudged:
      'Reset is judged on answers after discovery; a Reset implausible only on the first answers of a window is left (low)',
  },
  {
    name: 'rl-429-late',
    suite: 'ratelimit',
    contract: `${RL_HEADERS} / When the limit is exceeded, the response is 429.`,
    description:
      'The limit is enforced 5 requests late: after Remaining reaches 0, five more requests are served (Remaining 0) before the 429.',
    unjudged:
      'a moving-window or token-bucket limiter lawfully serves a request after Remaining 0 when an old request ages out; the issue asks only for no 429 sooner than advertised',
  },
  {
    name: 'rl-remaining-decimal',
    suite: 'ratelimit',
    contract: RL_HEADERS,
    description: 'X-RateLimit-Remaining is written as a decimal ("19.0").',
  },
  {
    name: 'rl-never-resets',
    suite: 'ratelimit',
    contract: `${PER_MINUTE}. ${RL_HEADERS}`,
    description:
      'Once a key is over the limit, its window never resets: every later request is 429 although Reset advertises a fresh window. Judged since issue 23 (ratelimit.reset-honoured).',
  },
];
FAULTS.push(...FAULTS_ROUND3);

// Issue 12: numbers at their edges. The contract states no bound for limit, offset and
// short_term_summaries_limit; a negative value must not crash the server (accepted, or refused with 422).
FAULTS.push(
  {
    name: 'rng-calls-negative-offset-500',
    suite: 'ranges',
    contract: `offset | integer | no | 0 (no minimum stated). ${NO_5XX}`,
    description:
      'GET /calls answers 500 to a negative offset (an SQL OFFSET -1) instead of serving it or refusing it with 422.',
  },
  {
    name: 'rng-short-term-limit-negative-500',
    suite: 'ranges',
    contract: `short_term_summaries_limit | integer (no bound stated; create and update). ${NO_5XX}`,
    description:
      'A negative short_term_summaries_limit answers 500 on create and update (a CHECK constraint the validation does not know).',
  },
);

// Correct variations (not faults): a strict or lenient but correct server. The runner must pass them
// with zero failures. `suites` lists what the test runs against each.
export const VARIANTS = [
  {
    name: 'create-200',
    contract: 'Campaign record returned by create (201/200 not distinguished, see section 4)',
    description: 'POST /campaign, add-recipient and invite creation answer 200 instead of 201.',
  },
  {
    name: 'reset-epoch-ms',
    ratelimit: true,
    contract: 'Unit and epoch of X-RateLimit-Reset: not shown.',
    description: 'X-RateLimit-Reset is the reset time as epoch milliseconds.',
  },
  {
    name: 'reset-epoch-s',
    ratelimit: true,
    contract: 'Unit and epoch of X-RateLimit-Reset: not shown.',
    description: 'X-RateLimit-Reset is the reset time as epoch seconds.',
  },
  {
    name: 'no-rl-headers-on-errors',
    contract: 'Rate-limit response headers (present in responses) (which responses: not said)',
    description: 'Error answers other than 429 (401, 404, 405, 413, 422) carry no X-RateLimit-* headers.',
  },
  {
    name: 'extra-members',
    contract: 'Unless marked required, a response field may be absent or null. (extra members are not forbidden)',
    description:
      'Every response object carries extra members (object, org_id, links, permissions, status, created_at).',
  },
  {
    name: 'sparse-calls',
    contract: 'Call (2.1): only id, to_number, provider, status are required.',
    description: 'Call items carry only the four required fields.',
  },
  {
    name: 'charset-and-header-case',
    ratelimit: true,
    contract: 'Every request and response body is JSON; header names are case-insensitive (HTTP).',
    description:
      'Content-Type "application/json; charset=utf-8" and canonical-case header names (X-RateLimit-Limit, Content-Type).',
  },
  {
    name: 'preflight-200-open',
    contract: 'OPTIONS /logs/chat-sessions | plain success (credentials for preflights: browsers send none)',
    description:
      'The documented preflights answer 200 with an empty body, need no credentials and carry no rate-limit headers.',
  },
  {
    name: 'lenient-coercion',
    contract: 'max_concurrency | integer (FastAPI/pydantic lax mode coerces "5" and "true")',
    description:
      'Numeric strings are coerced to integers and "true"/"false" to booleans (ranges still checked after coercion).',
  },
  {
    name: 'strict-required-fields',
    contract: 'Which fields of the create and update bodies are required: not shown.',
    description:
      'Create requires name, assistant_id, phone_number_id and channel; invites require email and role (422 missing).',
  },
  // Round 3
  {
    name: 'minimal-objects',
    contract:
      '4.5 "Response: a JSON object; its members: not shown." / 4.10 "body members: not shown" / section 2: "Unless marked required, a response field may be absent or null."',
    description:
      'Add-recipient answers {}, health answers {}, GET /campaign/{id} answers only {campaign} (counts and calls absent).',
  },
  {
    name: 'reset-floor-1s',
    ratelimit: true,
    contract: 'Unit and epoch of X-RateLimit-Reset: not shown. (window length not shown for tests)',
    description:
      'A 1 s window; X-RateLimit-Reset is whole seconds until the reset rounded down (0 during the last second).',
  },
  {
    name: 'loc-dotted-item',
    contract: '`loc` (array whose items are string or integer)',
    description:
      'Nested 422 locs join the path below the location into one string item: ["body", "recipients.0.phone_number"].',
  },
  {
    name: 'extra-422-members',
    contract: '2.8 names detail, loc, msg, type; extra members are not forbidden',
    description: '422 bodies carry extra top-level members (body, error_count) and items carry input, ctx and url.',
  },
  {
    name: 'location-header',
    contract: 'Response headers other than X-RateLimit-*: not shown.',
    description: 'Every 201 carries a Location header naming the created resource.',
  },
  {
    name: 'loc-field-only',
    contract: '`loc` (array whose items are string or integer); where it starts is not shown',
    description:
      '422 locs name the field without the location ("name", not "body", "name"); a whole-body fault keeps ["body"].',
  },
];
