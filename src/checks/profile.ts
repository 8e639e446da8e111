/**
 * What the runner needs to know of one contract beyond its checks: its suites and their order (the
 * one that spends the rate limit last), how much each check is worth when a budget cuts the plan,
 * how to find the fixtures the checks need from the target's read-only operations, which path
 * parameters name a fixture, and which operations are destructive or replace the credential in use.
 * The runner, coverage and the shards are generic and name no suite: the CLI passes this contract's
 * profile (suites/profile.ts) beside its checks.
 */
import type { Fixtures, FixtureSpec } from '../results/fixtures.js';
import type { Operation } from '../spec/model.js';
import type { CheckContext } from './check.js';

/** Sends one read-only operation (GET, by operationId) and returns its JSON body on a 2xx, else undefined. */
export type DiscoveryRead = (operationId: string, query?: Array<[string, string]>) => Promise<unknown>;

/** A suite of the contract, as the runner orders and treats it. */
export interface SuiteSpec {
  name: string;
  /**
   * The suite spends the target's rate-limit window (a burst past the advertised limit, the wait
   * for its reset): it runs after every other suite in the order its checks are registered, stays
   * whole in shard 1, is sent 429 as an answer to judge (never waited out and resent), and its
   * judged 429 answers count as coverage.
   */
  burst?: true;
  /**
   * The suite's checks are stateful scenarios (records made, read, changed): `vapc export arazzo`
   * writes what they sent on a run that passed as Arazzo workflows.
   */
  scenarios?: true;
  /**
   * The suite of a team's Arazzo workflows (`vapc run --arazzo FILE`): its checks, one per workflow,
   * are built at run time from the files given and named `<suite>.<workflowId>`.
   */
  workflows?: true;
}

export interface ContractProfile {
  /** The suites, in run order (a burst suite after the others whatever its place here). */
  suites: readonly SuiteSpec[];
  /**
   * What each check is worth to a budget's cut (--budget N): per check id, how many faults of a
   * catalogue it catches; a check absent counts 1. None: every check is worth the same.
   */
  checkValues?: Readonly<Record<string, number>>;
  /**
   * The fixtures of the contract, in the order the report lists where each came from: each key and
   * what its value is (an id, a list of strings, a list of tagged ids), and which request body field
   * a valid generator fills from it. The config file's `fixtures:` and VAPC_FIXTURES accept these.
   */
  fixtures: readonly FixtureSpec[];
  /** The fixture a path parameter names (undefined: none). */
  fixtureOfParam(name: string): string | undefined;
  /** Reads the fixtures from the target's read-only operations; `read` sends, counts and notes each. */
  discover(read: DiscoveryRead): Promise<Fixtures>;
  /** Why an operation has effects outside test data (it then runs only with --include-destructive); undefined when it has none. */
  destructive(op: Operation): string | undefined;
  /** Whether an operation replaces the credential in use (it runs after every other destructive pair). */
  replacesCredential(op: Operation): boolean;
  /**
   * Readies the run for the checks once discovery is done (not in a dry run): takes what the
   * configured fixtures say beyond their values (which phone number goes with which channel), and
   * checks the ones the target must hold beyond path ids (values a valid body carries): when the
   * target refuses every valid request that uses them, naming them, one line saying which fixture
   * and what the target answered (the run stops: a setup error, exit 2); undefined when they work
   * or the refusal is not theirs. Sends through `ctx`, as setup, and only what the plan's
   * `operations` would send anyway.
   */
  prepare?(ctx: CheckContext, configured: Fixtures, operations: readonly Operation[]): Promise<string | undefined>;
  /**
   * Statuses the contract names a condition for without showing them (a conflict, forbidden
   * access, a payload limit): observed undocumented, they are listed but do not fail
   * --fail-on-undocumented-status (docs/coverage.md). None when absent.
   */
  leftOpenStatuses?: ReadonlyArray<{ status: number; rule: string }>;
}

/**
 * The profile of a contract the runner knows nothing about: no fixtures, no discovery, no fixture named by a
 * path, an operation destructive when its spec declares side effects, none replacing a credential.
 */
export const GENERIC_PROFILE: ContractProfile = {
  suites: [],
  fixtures: [],
  fixtureOfParam: () => undefined,
  discover: async () => ({}),
  destructive: (op) => op.sideEffects,
  replacesCredential: () => false,
};

/**
 * The run order of the suites: the profile's, then any suite of the checks the profile does not
 * name (in registry order), and the burst suites last of all, so nothing runs on a spent window.
 */
export function suiteOrder(profile: ContractProfile, checks: readonly { suite: string }[] = []): string[] {
  const bursts = profile.suites.filter((s) => s.burst).map((s) => s.name);
  const others = [...profile.suites.map((s) => s.name), ...checks.map((c) => c.suite)];
  return [...new Set([...others.filter((n) => !bursts.includes(n)), ...bursts])];
}

/** The suites that spend the rate-limit window (SuiteSpec.burst). */
export const burstSuites = (profile: ContractProfile): ReadonlySet<string> =>
  new Set(profile.suites.filter((s) => s.burst).map((s) => s.name));
