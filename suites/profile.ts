/**
 * This contract's profile (see src/checks/profile.ts): what the generic runner needs to know of
 * the voice-agent API beyond its checks. Discovery reads GET /assistants (assistant_id,
 * phone_number_id), GET /users/me (org_id) and GET /calls (channels from the calls' providers,
 * phone numbers with their channel, assistant and phone number as a fallback); the `key_id` path
 * parameter names the api_key_id fixture; the operations with `x-side-effects` are destructive, and
 * key regeneration replaces the credential in use.
 */
import { asRecord } from '../src/spec/model.js';
import { FIXTURE_KEYS, type FixtureKey, type Fixtures, type PhoneNumberFixture } from '../src/results/fixtures.js';
import type { ContractProfile, DiscoveryRead } from '../src/checks/profile.js';
import { OPEN_RULES } from './lib/judges.js';

/** The read-only operations discovery sends, by operationId (GET, no side effects). */
export const DISCOVERY_OPERATIONS = ['listAssistants', 'getCurrentUser', 'listCalls'] as const;

/** The operation whose answer replaces the API key in use (section 4.9). */
export const CREDENTIAL_REPLACING = ['regenerateApiKey'] as const;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const rec = asRecord;

/** Phone numbers seen, each once, with the first channel (provider) seen beside it. */
class PhoneBook {
  private readonly phones = new Map<string, PhoneNumberFixture>();
  add(id: string | undefined, channel?: string): void {
    if (!id) return;
    const known = this.phones.get(id);
    if (!known) this.phones.set(id, channel ? { id, channel } : { id });
    else if (!known.channel && channel) known.channel = channel;
  }
  list(): PhoneNumberFixture[] {
    return [...this.phones.values()];
  }
}

/** An assistant (the first with a phone number, else the first) and every phone number named. */
function fromAssistants(assistants: unknown, found: Fixtures, phones: PhoneBook): void {
  if (!Array.isArray(assistants)) return;
  const all = assistants.map(rec);
  for (const a of all) phones.add(str(a['phone_number_id']));
  const first = all.find((a) => str(a['id']) && str(a['phone_number_id'])) ?? all.find((a) => str(a['id']));
  if (!first) return;
  found.assistant_id = str(first['id'])!;
  const phone = str(first['phone_number_id']);
  if (phone) found.phone_number_id = phone;
}

/** The user's organisation: its default, or the first it belongs to. */
function fromCurrentUser(body: unknown, found: Fixtures): void {
  const me = rec(body);
  const org =
    str(me['default_org_id']) ??
    str(rec(me['user'])['default_org_id']) ??
    (Array.isArray(me['orgs']) ? str(rec(me['orgs'][0])['id']) : undefined);
  if (org) found.org_id = org;
}

/** Two channels from the calls' providers, phone numbers with their channel, fallbacks for the rest. */
function fromCalls(calls: unknown, found: Fixtures, phones: PhoneBook): void {
  if (!Array.isArray(calls)) return;
  const providers: string[] = [];
  for (const call of calls.map(rec)) {
    const provider = str(call['provider']);
    if (provider && !providers.includes(provider)) providers.push(provider);
    phones.add(str(call['phone_number_id']), provider);
    found.phone_number_id ??= str(call['phone_number_id']);
    found.assistant_id ??= str(call['assistant_id']);
  }
  if (found.phone_number_id === undefined) delete found.phone_number_id;
  if (found.assistant_id === undefined) delete found.assistant_id;
  if (providers.length > 0) found.channels = providers.slice(0, 2);
}

async function discover(read: DiscoveryRead): Promise<Fixtures> {
  const found: Fixtures = {};
  const phones = new PhoneBook();
  fromAssistants(await read('listAssistants'), found, phones);
  fromCurrentUser(await read('getCurrentUser'), found);
  fromCalls(await read('listCalls', [['limit', '50']]), found, phones);
  const list = phones.list();
  if (list.length > 0) found.phone_numbers = list;
  return found;
}

/**
 * The statuses this contract leaves open whatever the request (section 7: "Errors for missing
 * resources, forbidden access, conflicts and server faults: not shown"; section 8: maximum payload
 * size and other per-operation limits not shown): the unconditional rules of OPEN_RULES (409, 403),
 * 413 for a body past a payload limit, 414 and 431 for a request line or headers past a server's
 * limit (the runner sends 10,000-character ids and query values). A 404 is left open only for an id the run made up (the coverage log knows which),
 * a 5xx never (robustness judges it).
 */
const LEFT_OPEN_STATUSES: NonNullable<ContractProfile['leftOpenStatuses']> = [
  ...OPEN_RULES.filter((r) => r.status === 409 || r.status === 403),
  { status: 413, rule: '413 for a body past a payload limit (section 8: maximum payload size not shown)' },
  // HTTP's own limits on a request's head (Apache's 8190-byte request line, nginx's 8k buffers).
  {
    status: 414,
    rule: '414 for a request-target past a length limit (section 8: other per-operation limits not shown)',
  },
  { status: 431, rule: '431 for request headers past a size limit (section 8: other per-operation limits not shown)' },
];

export const profile: ContractProfile = {
  fixtureKeys: FIXTURE_KEYS,
  // `key_id` is the api_key_id fixture; the other path parameters are named as their fixture.
  fixtureOfParam: (name) =>
    name === 'key_id'
      ? 'api_key_id'
      : (FIXTURE_KEYS as readonly string[]).includes(name)
        ? (name as FixtureKey)
        : undefined,
  discover,
  destructive: (op) => op.sideEffects,
  replacesCredential: (op) => (CREDENTIAL_REPLACING as readonly string[]).includes(op.id),
  leftOpenStatuses: LEFT_OPEN_STATUSES,
};
