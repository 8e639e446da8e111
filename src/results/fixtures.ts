/**
 * Fixtures a check may need, discovered from the API (GET /assistants, GET /users/me, GET /calls)
 * or given in the config file's `fixtures:`. Missing ones make the checks that need them skip.
 * The keys are declared once, here.
 */
export const FIXTURE_KEYS = [
  'org_id',
  'recipient_list_id',
  'api_key_id',
  'assistant_id',
  'phone_number_id',
  'channels',
  'phone_numbers',
] as const;
export type FixtureKey = (typeof FIXTURE_KEYS)[number];

export interface Fixtures {
  org_id?: string;
  recipient_list_id?: string;
  api_key_id?: string;
  assistant_id?: string;
  phone_number_id?: string;
  /** The two telephony provider identifiers. */
  channels?: string[];
  /**
   * Phone numbers a campaign may call from, each with the channel (provider) it goes with when
   * known: given in the config (`phone_numbers: [{id, channel}]`) or read from the calls. A server
   * that pairs a campaign's channel with its phone number's provider is sent the pairs in turn.
   */
  phone_numbers?: PhoneNumberFixture[];
}

export interface PhoneNumberFixture {
  id: string;
  channel?: string;
}
