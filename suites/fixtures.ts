/**
 * This contract's fixtures (ContractProfile.fixtures), declared once: each key, what its value is,
 * and which request body field a valid body takes from it; and the typed view the suites read them
 * through. The config parser (`fixtures:`, VAPC_FIXTURES), discovery's report and the valid
 * generators know them only through this declaration.
 */
import type { Fixtures, FixtureSpec } from '../src/results/fixtures.js';

/** The fixtures, in the order the report lists where each came from. */
export const FIXTURES = [
  { key: 'org_id', kind: 'id', body: 'required', example: 'org_123' },
  // An optional attachment: a valid body without one leaves the field out.
  { key: 'recipient_list_id', kind: 'id', body: 'optional' },
  { key: 'api_key_id', kind: 'id', body: 'required' },
  // What a campaign calls with.
  { key: 'assistant_id', kind: 'id', body: 'required' },
  { key: 'phone_number_id', kind: 'id', body: 'required' },
  /** The two telephony provider identifiers: the values of a campaign's `channel`. */
  { key: 'channels', kind: 'list', items: 'the provider identifiers', providerIds: true },
  /**
   * Phone numbers a campaign may call from, each with the channel (provider) it goes with when
   * known: given in the config (`phone_numbers: [{id, channel}]`) or read from the calls. A server
   * that pairs a campaign's channel with its phone number's provider is sent the pairs in turn.
   */
  { key: 'phone_numbers', kind: 'tagged-ids', tag: 'channel' },
] as const satisfies readonly FixtureSpec[];

export type FixtureKey = (typeof FIXTURES)[number]['key'];
/** The keys of the id fixtures (a string each). */
type IdFixtureKey = Extract<(typeof FIXTURES)[number], { kind: 'id' }>['key'];

/** A phone number and the channel it goes with (a type, not an interface: a `TaggedId` of the generic Fixtures). */
export type PhoneNumberFixture = {
  id: string;
  channel?: string;
};

/** The fixtures of this contract as the suites read them (the generic `Fixtures`, typed by FIXTURES). */
export type ContractFixtures = {
  org_id?: string;
  recipient_list_id?: string;
  api_key_id?: string;
  assistant_id?: string;
  phone_number_id?: string;
  channels?: string[];
  phone_numbers?: PhoneNumberFixture[];
};

// ContractFixtures has exactly the declared keys (a key added to one and not the other fails the type check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameKeys: Same<keyof ContractFixtures, FixtureKey> = true;
void sameKeys;

/** The body fields a valid body fills from an id fixture of the same name (the ones declared `body`). */
export const BODY_FIXTURE_FIELDS: readonly IdFixtureKey[] = FIXTURES.flatMap((f) =>
  f.kind === 'id' && 'body' in f ? [f.key] : [],
);

/** The fixture a path parameter names: `key_id` is the api_key_id fixture; the others are named as their fixture. */
export const fixtureOfParam = (name: string): FixtureKey | undefined =>
  name === 'key_id' ? 'api_key_id' : FIXTURES.find((f) => f.key === name)?.key;

/** A run's fixtures as this contract's view: the config parser and discovery keep each key's declared kind. */
export const contractFixtures = (fixtures: Fixtures): ContractFixtures => fixtures as ContractFixtures;
