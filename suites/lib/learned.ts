/**
 * What a run learned about what the server requires of a valid create (issue 21): the pairing of
 * phone number, channel and assistant it accepted, or why none was accepted. Kept per run (on the
 * run's fixtures object), read by every valid body the suites generate.
 */
import type { CheckContext, Fixtures } from '../../src/checks/check.js';

export interface Learned {
  /** The fixture values of the create the server accepted after a refusal (phone number, channel, assistant). */
  pairing?: Partial<Fixtures>;
  /**
   * The phone number, assistant and channel of the first create the server accepted: bodies that
   * must be accepted to judge one field (a create's base body) carry them, and a refused create
   * is tried again with them. Generation itself is left alone (so are the checks' samples).
   */
  accepted?: Partial<Fixtures>;
  /** True once the combinations were tried: they are tried once per run. */
  searched: boolean;
  /** True once a valid create was sent (accepted or not). */
  tried?: boolean;
  /** Why no valid create was accepted (every combination refused), for skip reasons. */
  refused?: string;
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

/** The run's fixtures with the learned pairing over them: what valid bodies are generated from. */
export function learnedFixtures(ctx: Pick<CheckContext, 'fixtures'>): Fixtures {
  const pairing = byRun.get(ctx.fixtures)?.pairing;
  return pairing ? { ...ctx.fixtures, ...pairing } : ctx.fixtures;
}
