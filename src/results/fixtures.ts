/**
 * Fixtures: the ids of test data a check may need, discovered from the API by a contract's profile
 * or given in the config file's `fixtures:` (or VAPC_FIXTURES). Missing ones make the checks that
 * need them skip. Which keys there are, and what each holds, is the contract's: its profile declares
 * them (`ContractProfile.fixtures`, this contract's in suites/profile.ts); the generic code reads
 * only the declarations below.
 */

/** An id with tags beside it, each optional (a phone number and the channel it goes with). */
export interface TaggedId {
  id: string;
  [tag: string]: string | undefined;
}

/** A fixture's value: an id, a list of strings, or a list of tagged ids (FixtureSpec says which). */
export type FixtureValue = string | string[] | TaggedId[];

/** The fixtures of a run, by key (a contract types its own view of them: suites/fixtures.ts). */
export type Fixtures = { [key: string]: FixtureValue | undefined };

/**
 * An id: a non-empty string (a number is read as its text). `body`: a request body field of the
 * key's name carries it (the valid generators fill it), `required` when a valid body cannot be
 * made without it, `optional` when the field is left out if the run has none.
 */
export interface IdFixtureSpec {
  key: string;
  kind: 'id';
  body?: 'required' | 'optional';
  /** A value shown in a refusal's example (`{"org_id": "org_123"}`). */
  example?: string;
}

/**
 * A non-empty list of non-empty strings; `items` names them in a refusal ("the provider
 * identifiers"). `providerIds`: the values of the body fields the spec marks as provider
 * identifiers (src/spec isProviderId), which a valid body with such a field needs.
 */
export interface ListFixtureSpec {
  key: string;
  kind: 'list';
  items: string;
  providerIds?: true;
}

/** A non-empty list of `{id, <tag>}`, the tag optional (`phone_numbers: [{id, channel}]`). */
export interface TaggedIdsFixtureSpec {
  key: string;
  kind: 'tagged-ids';
  tag: string;
}

/** One fixture a contract declares: its key and what its value is. */
export type FixtureSpec = IdFixtureSpec | ListFixtureSpec | TaggedIdsFixtureSpec;
