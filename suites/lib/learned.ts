/**
 * What a run learned about what the server requires of a valid create (issue 21): the pairing of
 * phone number, channel and assistant it accepted, or why none was accepted. Kept per run (on the
 * run's fixtures object), read by every valid body the suites generate.
 */
import type { CheckContext } from '../../src/checks/check.js';
import { contractFixtures, type ContractFixtures } from '../fixtures.js';
import type { NotJudged } from '../../src/results/model.js';

/** Why a valid request is refused, in words and as data (the status and the field a 422 named). */
export interface Refusal {
  reason: string;
  why: NotJudged;
}

export interface Learned {
  /** The fixture values of the create the server accepted after a refusal (phone number, channel, assistant). */
  pairing?: ContractFixtures;
  /**
   * The phone number, assistant and channel of the first create the server accepted: bodies that
   * must be accepted to judge one field (a create's base body) carry them, and a refused create
   * is tried again with them. Generation itself is left alone (so are the checks' samples).
   */
  accepted?: ContractFixtures;
  /** True once the combinations were tried: they are tried once per run. */
  searched: boolean;
  /** The configured fixtures pair phone numbers with channels (fixtures.phone_numbers with a channel): bodies follow them. */
  configuredPairs?: boolean;
  /** True once a valid create was sent (accepted or not). */
  tried?: boolean;
  /** Why no valid create was accepted (every combination refused), for skip reasons. */
  refused?: Refusal;
}

const byRun = new WeakMap<object, Learned>();

export function learnedOf(ctx: Pick<CheckContext, 'fixtures'>): Learned {
  let learned = byRun.get(ctx.fixtures);
  if (!learned) {
    learned = { searched: false };
    byRun.set(ctx.fixtures, learned);
  }
  return learned;
}

/**
 * The run's fixtures with the learned pairing over them: what valid bodies are generated from. When
 * the configuration pairs phone numbers with channels, the phone number in use goes with its channel
 * only: a server that pairs each phone number with one provider accepts every body the run
 * generates, not half of them (issue 31). Pairs read from the calls are not followed (they are tried
 * when a create is refused): the channels stay varied where nothing says they must not.
 */
export function learnedFixtures(ctx: Pick<CheckContext, 'fixtures'>): ContractFixtures {
  const learned = byRun.get(ctx.fixtures);
  const run = contractFixtures(ctx.fixtures);
  const fixtures = learned?.pairing ? { ...run, ...learned.pairing } : run;
  if (!learned?.configuredPairs) return fixtures;
  const channel = fixtures.phone_numbers?.find((p) => p.id === fixtures.phone_number_id)?.channel;
  if (channel === undefined || (fixtures.channels?.length === 1 && fixtures.channels[0] === channel)) return fixtures;
  return { ...fixtures, channels: [channel] };
}
