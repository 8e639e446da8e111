import type { Operation, SpecModel } from '../spec/model.js';
import type { Failure, Observation, Severity, Suite } from '../results/model.js';
import type { Exchange, HttpRequest } from '../transport/types.js';

/**
 * Fixtures a check may need, discovered from the API (GET /assistants, GET /users/me, GET /calls)
 * or given in the config file's `fixtures:`. Missing ones make the checks that need them skip.
 */
export interface Fixtures {
  org_id?: string;
  recipient_list_id?: string;
  api_key_id?: string;
  assistant_id?: string;
  phone_number_id?: string;
  /** The two telephony provider identifiers. */
  channels?: string[];
}

export interface Credentials {
  apiKey?: string;
  userId?: string;
}

/**
 * What a check gets. `send` applies the documented credentials of `op` unless told otherwise,
 * paces under the rate limit, records the exchange and counts it. Checks never touch undici,
 * the console or process.
 */
export interface CheckContext {
  spec: SpecModel;
  fixtures: Fixtures;
  credentials: Credentials;
  seed: number;
  /** Generated cases per property. */
  runs: number;
  /** Opt-in strict-types mode: judge framework leniency (coercion of "5", "true", null as absent). */
  strictTypes: boolean;
  includeDestructive: boolean;
  /**
   * Sends a request. `auth: 'documented'` (default) adds the credentials the operation documents;
   * `'none'` adds nothing; a record sets exactly these headers (for auth probes).
   */
  send(request: HttpRequest & { auth?: 'documented' | 'none' }): Promise<Exchange>;
  /** Records something notable the contract does not rule on. */
  observe(observation: Omit<Observation, 'id'> & { id?: string }): void;
  /** Replaces the API key in use (after a key regeneration that rotates it). */
  rotateApiKey(newKey: string): void;
  /** Renders a curl line for an exchange, secrets as $VAPC_API_KEY / $VAPC_USER_ID placeholders. */
  curl(exchange: Exchange): string;
}

export type CheckOutcome =
  | { status: 'passed'; message: string }
  | { status: 'skipped'; message: string }
  | { status: 'failed'; message: string; failures: Failure[] };

export interface CheckDefinition {
  /** Stable id `suite.name`, e.g. `ranges.max-concurrency-above-maximum`. */
  id: string;
  suite: Suite;
  /** The rule in words. */
  rule: string;
  /** Contract section(s), e.g. "4.2, 8". */
  contractRef: string;
  severity: Severity;
  /** Operations the check applies to (read from the spec model, never typed by hand). */
  appliesTo(op: Operation, spec: SpecModel): boolean;
  /** Has effects outside test data; runs only with --include-destructive. */
  destructive?: boolean;
  run(ctx: CheckContext, op: Operation): Promise<CheckOutcome>;
}

/** Identity helper that keeps definitions typed. */
export function defineCheck(definition: CheckDefinition): CheckDefinition {
  return definition;
}
