/**
 * Fixtures a check may need, discovered from the API (GET /assistants, GET /users/me, GET /calls)
 * or given in the config file's `fixtures:`. Missing ones make the checks that need them skip.
 * The keys are declared once, here.
 */
export const FIXTURE_KEYS = ['org_id', 'recipient_list_id', 'api_key_id', 'assistant_id', 'phone_number_id', 'channels'] as const;
export type FixtureKey = (typeof FIXTURE_KEYS)[number];

export interface Fixtures {
  org_id?: string;
  recipient_list_id?: string;
  api_key_id?: string;
  assistant_id?: string;
  phone_number_id?: string;
  /** The two telephony provider identifiers. */
  channels?: string[];
}
