/**
 * The reference server's seeded test data: calls across the two provider identifiers, assistants in
 * the full documented shape, the current user with two organizations, one recipient list, two phone
 * numbers and one API key id. Deterministic: the same options give the same data (only the API key,
 * when none is given, is random).
 *
 * Every record here is checked against the spec by the server's tests (validateResponse), so the
 * shapes follow the contract; the values are invented, realistic and clearly fake (example.invalid
 * URLs, 555-01xx phone numbers).
 */

export type Json = Record<string, unknown>;

export interface SeedOptions {
  userId: string;
  channels: readonly [string, string];
  /** The moment "now" of the seed, so timestamps are stable within one server. */
  now: Date;
}

export interface PhoneNumber {
  id: string;
  number: string;
  provider: string;
}

export interface RecipientList {
  id: string;
  name: string;
  recipients: Json[];
}

export interface Org {
  id: string;
  name: string;
  slug: string;
  role: string;
  contact_email: string;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
}

export interface Seed {
  calls: Json[];
  assistants: Json[];
  phoneNumbers: PhoneNumber[];
  orgs: Org[];
  user: Json;
  recipientLists: RecipientList[];
  apiKey: ApiKeyRecord;
}

/** How many calls are seeded: more than the default page (50) so limit and offset show. */
export const SEEDED_CALLS = 120;

const SPEECH_SETTINGS = { style: 'neutral', responsiveness: 'balanced', interruptions: 'on', emotions: 'natural' };

/** A small deterministic generator (mulberry32), so seeded values vary without randomness. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function assistants(phoneNumbers: PhoneNumber[]): Json[] {
  const base = (i: number, name: string, instruction: string, language: string): Json => ({
    id: `asst_ref_${pad(i + 1, 3)}`,
    name,
    system_instruction: instruction,
    voice: {
      voice_id: `voice-${pad(i + 1, 2)}`,
      tts_provider: 'tts-provider-a',
      tts_model: 'tts-model-1',
      language,
      speed: 1,
    },
    llm: { llm_provider: 'llm-provider-a', model: 'llm-model-large' },
    transcriber: { stt_provider: 'stt-provider-a', stt_model: 'stt-model-1', language },
    speech_settings: { ...SPEECH_SETTINGS },
    long_term_memory: {
      enabled: false,
      search_limit: 5,
      search_threshold: 0.1,
      system_prompt: 'Recall what the caller told us before.',
    },
    short_term_memory: { enabled: false, search_limit: 3 },
    call_summary: { prompt: 'Summarise the call in two sentences.' },
    recording: { enabled: false, stereo: true, mp3_enabled: true },
    call_actions: {
      enabled: true,
      allow_hangup: true,
      allow_transfer: true,
      hangup_triggers: ['goodbye', 'that is all'],
      transfer_triggers: ['speak to a person'],
      transfer_number: `+1555010${pad(90 + i, 4)}`,
      transfer_mode: 'cold',
      confirm_required: true,
      auto_hangup_silence_seconds: 20,
      confirm_yes: ['yes', 'sure'],
      confirm_no: ['no', 'not now'],
      webhook_url: `https://hooks.example.invalid/assistants/${i + 1}`,
      webhook_timeout_ms: 3500,
    },
    description: `${name}, a reference assistant of the vapc test server.`,
    first_message: 'Hello, this is a test call from the reference server.',
    knowledge_base_ids: [`kb_ref_${pad(i + 1, 3)}`],
    phone_number_id: phoneNumbers[i % phoneNumbers.length]!.id,
    assistant_speaks_first: i % 2 === 0,
  });
  return [
    base(0, 'Appointment reminder', 'Remind the caller of their appointment and offer to reschedule.', 'en-US'),
    base(1, 'Order status', 'Tell the caller where their order is.', 'en-GB'),
    base(2, 'Survey', 'Ask three short satisfaction questions.', 'es-ES'),
  ];
}

const STATUSES = ['completed', 'completed', 'completed', 'no-answer', 'busy', 'failed'];
const ENDED_REASONS: Record<string, string> = {
  completed: 'customer-ended-call',
  'no-answer': 'no-answer',
  busy: 'busy',
  failed: 'provider-error',
};

function calls(options: SeedOptions, phoneNumbers: PhoneNumber[], assistantIds: string[]): Json[] {
  const random = prng(4010);
  const out: Json[] = [];
  const nowMs = options.now.getTime();
  for (let i = 0; i < SEEDED_CALLS; i++) {
    // 3 of every 5 calls on the first provider, 2 on the second: the filter visibly changes counts.
    const providerIndex = i % 5 < 3 ? 0 : 1;
    const provider = options.channels[providerIndex];
    const phone = phoneNumbers[providerIndex]!;
    const status = STATUSES[Math.floor(random() * STATUSES.length)]!;
    const answered = status === 'completed';
    const duration = answered ? 20 + Math.floor(random() * 400) : 0;
    // Newest first: call 0 is the most recent, one call every 37 minutes before it.
    const created = new Date(nowMs - (i + 1) * 37 * 60_000);
    const started = new Date(created.getTime() + 2_000);
    const ended = new Date(started.getTime() + duration * 1000);
    const turns = answered ? 2 + Math.floor(random() * 6) : 0;
    const cost = Math.round((0.01 + duration * 0.0021) * 10_000) / 10_000;
    out.push({
      id: `call_ref_${pad(i + 1, 4)}`,
      to_number: `+1555011${pad(i, 4)}`,
      provider,
      status,
      phone_number_id: phone.id,
      assistant_id: assistantIds[i % assistantIds.length]!,
      from_number: phone.number,
      provider_call_sid: `${provider}-sid-${pad(i + 1, 6)}`,
      direction: i % 4 === 3 ? 'inbound' : 'outbound',
      created_at: created.toISOString(),
      started_at: started.toISOString(),
      ended_at: ended.toISOString(),
      ended_reason: ENDED_REASONS[status] ?? 'unknown',
      duration_seconds: duration,
      timestamp: created.toISOString(),
      summary: answered ? `Caller ${i + 1} confirmed the appointment.` : 'The call was not answered.',
      user_messages: turns,
      agent_messages: answered ? turns + 1 : 0,
      recording_url: `https://recordings.example.invalid/${i + 1}/mono.wav`,
      stereo_recording_url: `https://recordings.example.invalid/${i + 1}/stereo.wav`,
      recording_mp3_url: `https://recordings.example.invalid/${i + 1}/mono.mp3`,
      stereo_recording_mp3_url: `https://recordings.example.invalid/${i + 1}/stereo.mp3`,
      latency_metrics: { avg_ms: 300 + Math.floor(random() * 400), p95_ms: 900 + Math.floor(random() * 600) },
      per_turn_latency: Array.from({ length: Math.min(turns, 3) }, (_, t) => ({
        turn: t + 1,
        ms: 250 + Math.floor(random() * 500),
      })),
      cost,
      total_credits: Math.ceil(cost * 100),
      cost_breakdown: {
        llm: Math.round(cost * 4000) / 10_000,
        tts: Math.round(cost * 3000) / 10_000,
        stt: Math.round(cost * 1000) / 10_000,
        telephony: Math.round(cost * 2000) / 10_000,
      },
      costs: [
        { kind: 'llm', amount: Math.round(cost * 4000) / 10_000 },
        { kind: 'telephony', amount: Math.round(cost * 2000) / 10_000 },
      ],
      transcript: answered
        ? [
            { role: 'assistant', text: 'Hello, this is a reminder of your appointment tomorrow.' },
            { role: 'user', text: 'Thanks, I will be there.' },
          ]
        : [],
    });
  }
  return out;
}

export function seed(options: SeedOptions): Seed {
  const phoneNumbers: PhoneNumber[] = [
    { id: 'pn_ref_001', number: '+15550100001', provider: options.channels[0] },
    { id: 'pn_ref_002', number: '+15550100002', provider: options.channels[1] },
  ];
  const seededAssistants = assistants(phoneNumbers);
  const orgs: Org[] = [
    {
      id: 'org_ref_primary',
      name: 'Reference Org',
      slug: 'reference-org',
      role: 'owner',
      contact_email: 'owner@example.invalid',
    },
    {
      id: 'org_ref_partner',
      name: 'Partner Org',
      slug: 'partner-org',
      role: 'developer',
      contact_email: 'partner@example.invalid',
    },
  ];
  return {
    phoneNumbers,
    assistants: seededAssistants,
    calls: calls(
      options,
      phoneNumbers,
      seededAssistants.map((a) => a['id'] as string),
    ),
    orgs,
    user: {
      id: options.userId,
      idp_user_id: `idp|${options.userId}`,
      email: 'developer@example.invalid',
      name: 'Reference Developer',
      default_org_id: orgs[0]!.id,
    },
    recipientLists: [
      {
        id: 'rl_ref_main',
        name: 'Reference recipients',
        recipients: [0, 1, 2].map((i) => ({
          id: `rcp_ref_${pad(i + 1, 3)}`,
          phone_number: `+1555012${pad(i, 4)}`,
          metadata: { first_name: ['Ada', 'Grace', 'Alan'][i] },
        })),
      },
    ],
    apiKey: { id: 'key_ref_main', name: 'Reference key' },
  };
}
