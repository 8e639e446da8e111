/**
 * This contract's profile (see src/checks/profile.ts): what the generic runner needs to know of
 * the voice-agent API beyond its checks. Discovery reads GET /assistants (assistant_id,
 * phone_number_id), GET /users/me (org_id) and GET /calls (channels from the calls' providers,
 * phone numbers with their channel, assistant and phone number as a fallback); the `key_id` path
 * parameter names the api_key_id fixture; the operations with `x-side-effects` are destructive, and
 * key regeneration replaces the credential in use.
 */
import { asRecord, type Operation } from '../src/spec/model.js';
import { CATALOGUE_FAULTS } from './check-values.js';
import type { Fixtures } from '../src/results/fixtures.js';
import {
  contractFixtures,
  FIXTURES,
  fixtureOfParam,
  type ContractFixtures,
  type PhoneNumberFixture,
} from './fixtures.js';
import { suiteOrder, type ContractProfile, type DiscoveryRead, type SuiteSpec } from '../src/checks/profile.js';
import type { CheckContext } from '../src/checks/check.js';
import { providerIdFields } from '../src/generators/index.js';
import { creatorOf, validCreateRefused } from './lib/requests.js';
import { learnedOf } from './lib/learned.js';
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
function fromAssistants(assistants: unknown, found: ContractFixtures, phones: PhoneBook): void {
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
function fromCurrentUser(body: unknown, found: ContractFixtures): void {
  const me = rec(body);
  const org =
    str(me['default_org_id']) ??
    str(rec(me['user'])['default_org_id']) ??
    (Array.isArray(me['orgs']) ? str(rec(me['orgs'][0])['id']) : undefined);
  if (org) found.org_id = org;
}

/** Two channels from the calls' providers, phone numbers with their channel, fallbacks for the rest. */
function fromCalls(calls: unknown, found: ContractFixtures, phones: PhoneBook): void {
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
  const found: ContractFixtures = {};
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

/** The configured fixtures a valid create carries in its body (the path ids are probed by the runner). */
const BODY_FIXTURES = ['phone_number_id', 'assistant_id', 'channels', 'phone_numbers'] as const;

/**
 * The run's preparation (ContractProfile.prepare): the configured phone ↔ channel pairs, then the
 * configured body fixtures against the target: one valid create (the once-per-run create that
 * learns the pairing, suites/lib/requests.ts) with them. When every create the run knows how to make
 * is refused with a 404 or a 422 naming a field those fixtures fill, they are the cause: named, with
 * the answer. Any other refusal (a 403, a 422 naming another field) is left to the checks and the verdict.
 */
async function prepare(
  ctx: CheckContext,
  fixtures: Fixtures,
  operations: readonly Operation[],
): Promise<string | undefined> {
  const configured = contractFixtures(fixtures);
  // Phone numbers configured with their channel: every valid body goes by those pairs (learned.ts).
  if (configured.phone_numbers?.some((p) => p.channel !== undefined)) learnedOf(ctx).configuredPairs = true;
  const given = BODY_FIXTURES.filter((k) => configured[k] !== undefined);
  const creator = ctx.spec.operations.find((op) => op.id === 'createCampaign');
  // Only a plan that creates records (the create, or an operation on a created record) sends one anyway.
  const creates = operations.some((op) => op === creator || creatorOf(ctx, op) === creator);
  if (!given.length || !creator || !creates) return undefined;
  const refused = await validCreateRefused(ctx, creator);
  if (!refused) return replacedFixtures(ctx, configured);
  // The body fields each configured fixture fills: a refusal naming one of them is that fixture's.
  const channel = providerIdFields(creator).map((f) => f.field);
  const fills: Record<(typeof BODY_FIXTURES)[number], readonly string[]> = {
    phone_number_id: ['phone_number_id'],
    assistant_id: ['assistant_id'],
    channels: channel,
    phone_numbers: ['phone_number_id', ...channel],
  };
  const parts = refused.why.loc?.split('.') ?? [];
  const blamed = given.filter((k) => fills[k].some((field) => parts.includes(field)));
  if (refused.why.status !== 404 && !(refused.why.status === 422 && blamed.length > 0)) return undefined;
  const shown = (blamed.length ? blamed : given)
    .map((k) => `fixtures.${k} ${JSON.stringify(configured[k])}`)
    .join(', ');
  return `the configured ${shown}: ${refused.reason}; give values the target has, or remove them from the config file's fixtures: so discovery finds them`;
}

/**
 * A create was accepted only once the run left a configured value out (the learned pairing, from
 * the phone numbers and channels discovery found): the configured phone number, or every configured
 * channel, is one the target refuses. Named, with what the target accepted instead.
 */
function replacedFixtures(ctx: CheckContext, configured: ContractFixtures): string | undefined {
  const learned = learnedOf(ctx);
  const pairing = learned.pairing;
  if (!pairing) return undefined;
  const wrong: string[] = [];
  if (configured.phone_number_id !== undefined && pairing.phone_number_id !== configured.phone_number_id)
    wrong.push(`fixtures.phone_number_id ${JSON.stringify(configured.phone_number_id)}`);
  const channel = pairing.channels?.[0];
  if (configured.channels?.length && channel !== undefined && !configured.channels.includes(channel))
    wrong.push(`fixtures.channels ${JSON.stringify(configured.channels)}`);
  if (!wrong.length) return undefined;
  return `the configured ${wrong.join(' and ')}: every valid create with ${wrong.length > 1 ? 'them' : 'it'} was refused; the target accepted phone_number_id ${pairing.phone_number_id} with channel ${channel} (found by discovery) instead; give values the target has, or remove them from the config file's fixtures: so discovery finds them`;
}

/**
 * The contract's suites, in run order. The rate-limit suite bursts past the advertised limit and
 * waits for the window's reset, so it runs last and alone in shard 1 (SuiteSpec.burst).
 */
const SUITES: readonly SuiteSpec[] = [
  { name: 'auth' },
  { name: 'validation' },
  { name: 'ranges' },
  { name: 'schema' },
  { name: 'stateful', scenarios: true },
  { name: 'cors' },
  { name: 'robustness' },
  // A team's Arazzo workflows (`vapc run --arazzo FILE`): checks built at run time from the files.
  { name: 'workflows', workflows: true },
  { name: 'ratelimit', burst: true },
];

export const profile: ContractProfile = {
  suites: SUITES,
  checkValues: CATALOGUE_FAULTS,
  fixtures: FIXTURES,
  fixtureOfParam,
  discover,
  destructive: (op) => op.sideEffects,
  replacesCredential: (op) => (CREDENTIAL_REPLACING as readonly string[]).includes(op.id),
  prepare,
  leftOpenStatuses: LEFT_OPEN_STATUSES,
};

/** The contract's suite names, in run order: what --suite and the config file's `suites` accept. */
export const SUITE_NAMES: readonly string[] = suiteOrder(profile);
