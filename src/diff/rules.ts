/**
 * The rule table of `vapc diff`: every kind of change the comparison can report, with a stable id,
 * its level, whom it breaks and the semantic-version bump it needs. The comparison (compare.ts,
 * schema.ts) only names a rule and writes the sentence; level, breaks and bump live here alone.
 *
 * Levels: `breaking` = a client written against BASE stops working against HEAD (semver major);
 * `warning` = an implementation of BASE no longer conforms to HEAD, or clients may break depending
 * on how they use the API (semver minor); `info` = an addition (minor) or documentation (patch).
 * Direction matters: a request-side narrowing breaks clients (they send what is now refused), a
 * request-side widening breaks implementations (they refuse what is now allowed); on the response
 * side it is the other way round.
 */
export type Level = 'breaking' | 'warning' | 'info';
export type Party = 'clients' | 'implementations';
export type Bump = 'major' | 'minor' | 'patch';

export interface RuleDefinition {
  level: Level;
  breaks: readonly Party[];
  bump: Bump;
  /** One sentence: what the rule reports and why it matters, for docs/diff.md and --help. */
  summary: string;
}

const C = ['clients'] as const;
const I = ['implementations'] as const;
const CI = ['clients', 'implementations'] as const;
const NONE = [] as const;

const breaking = (breaks: readonly Party[], summary: string): RuleDefinition => ({
  level: 'breaking',
  breaks,
  bump: 'major',
  summary,
});
const warning = (breaks: readonly Party[], summary: string): RuleDefinition => ({
  level: 'warning',
  breaks,
  bump: 'minor',
  summary,
});
const addition = (summary: string, breaks: readonly Party[] = NONE): RuleDefinition => ({
  level: 'info',
  breaks,
  bump: 'minor',
  summary,
});
const docs = (summary: string): RuleDefinition => ({ level: 'info', breaks: NONE, bump: 'patch', summary });

export const RULES = {
  // operations
  'operation-removed': breaking(C, 'An operation was removed: clients calling it get an error.'),
  'operation-added': addition('A new operation was added.'),
  'operation-deprecated': warning(C, 'An operation was marked deprecated: clients should plan to stop calling it.'),
  'operation-id-changed': warning(C, 'The operationId changed: generated client method names change.'),
  'path-parameter-renamed': docs('A path parameter was renamed; the URL on the wire is the same.'),
  'header-name-case-changed': docs(
    'A header name changed only in case: header names are case-insensitive, the wire is the same.',
  ),
  // parameters (request side)
  'request-parameter-added-required': breaking(
    C,
    'A new required parameter: existing requests lack it and are refused.',
  ),
  'request-parameter-added': addition('A new optional parameter.', I),
  'request-parameter-removed': warning(
    C,
    'A parameter was removed: clients still sending it may be refused or ignored.',
  ),
  'request-parameter-became-required': breaking(C, 'A parameter became required: requests without it are refused.'),
  'request-parameter-became-optional': warning(
    I,
    'A parameter became optional: implementations must accept requests without it.',
  ),
  'request-parameter-style-changed': breaking(C, 'The serialisation (style/explode) of a parameter changed.'),
  // request bodies
  'request-body-added-required': breaking(C, 'A required request body was added: existing requests lack it.'),
  'request-body-added': addition('An optional request body was added.', I),
  'request-body-removed': warning(C, 'The request body was removed: clients still sending one may be refused.'),
  'request-body-became-required': breaking(C, 'The request body became required.'),
  'request-body-became-optional': warning(
    I,
    'The request body became optional: implementations must accept requests without one.',
  ),
  'request-media-type-removed': breaking(C, 'A request media type is no longer accepted.'),
  'request-media-type-added': warning(I, 'A new request media type: implementations must accept it.'),
  // request schemas (bodies and parameters)
  'request-property-added-required': breaking(
    C,
    'A new required request property: existing requests lack it and are refused.',
  ),
  'request-property-added': addition('A new optional request property.', I),
  'request-property-removed': warning(
    C,
    'A request property was removed: clients still sending it may be refused or ignored.',
  ),
  'request-property-became-required': breaking(
    C,
    'A request property became required: requests without it are refused.',
  ),
  'request-property-became-optional': warning(
    I,
    'A request property became optional: implementations must accept requests without it.',
  ),
  'request-type-changed': breaking(
    CI,
    'The type of a request value changed: clients send the old type, implementations expect the new one.',
  ),
  'request-type-narrowed': breaking(
    C,
    'A request value accepts fewer types: clients sending a dropped type are refused.',
  ),
  'request-type-widened': warning(I, 'A request value accepts more types: implementations must accept them.'),
  'request-became-not-nullable': breaking(C, 'A request value no longer accepts null.'),
  'request-became-nullable': warning(I, 'A request value now accepts null: implementations must accept it.'),
  'request-enum-value-removed': breaking(C, 'A request enum lost a value: clients sending it are refused.'),
  'request-enum-value-added': warning(I, 'A request enum gained a value: implementations must accept it.'),
  'request-max-decreased': breaking(
    C,
    'An upper bound of a request value was lowered or added: values clients send may now be refused.',
  ),
  'request-max-increased': warning(
    I,
    'An upper bound of a request value was raised or removed: implementations must accept larger values.',
  ),
  'request-min-increased': breaking(
    C,
    'A lower bound of a request value was raised or added: values clients send may now be refused.',
  ),
  'request-min-decreased': warning(
    I,
    'A lower bound of a request value was lowered or removed: implementations must accept smaller values.',
  ),
  'request-pattern-changed': breaking(
    C,
    'The pattern of a request string was added or changed: values clients send may now be refused.',
  ),
  'request-pattern-removed': warning(
    I,
    'The pattern of a request string was removed: implementations must accept any string.',
  ),
  'request-format-changed': breaking(C, 'The format of a request value changed: clients send the old format.'),
  'request-default-changed': warning(
    C,
    'The default of a request value changed: clients that omit it get another behaviour.',
  ),
  'request-union-branch-removed': breaking(
    C,
    'A request union (anyOf/oneOf) lost a branch: clients sending that shape are refused.',
  ),
  'request-union-branch-added': warning(
    I,
    'A request union (anyOf/oneOf) gained a branch: implementations must accept it.',
  ),
  // responses
  'response-success-status-removed': breaking(
    C,
    'A success status was removed: clients handling it lose the documented result.',
  ),
  'response-success-status-added': warning(
    C,
    'A new success status: clients that check for the old one may treat the response as a failure.',
  ),
  'response-error-status-removed': warning(
    I,
    'An error status was removed: implementations returning it no longer conform.',
  ),
  'response-error-status-added': addition('A new error status is documented.'),
  'response-media-type-removed': breaking(C, 'A response media type was removed: clients reading it lose the body.'),
  'response-media-type-added': warning(C, 'A new response media type: clients may receive a body they cannot parse.'),
  'response-header-removed': breaking(C, 'A response header was removed: clients reading it lose it.'),
  'response-header-added': addition('A new optional response header.'),
  'response-header-added-required': warning(I, 'A new required response header: implementations must send it.'),
  'response-header-became-optional': breaking(C, 'A response header became optional: clients may not receive it.'),
  'response-header-became-required': warning(
    I,
    'A response header became required: implementations must always send it.',
  ),
  'ratelimit-header-removed': breaking(C, 'A rate-limit header was removed: clients pacing themselves on it lose it.'),
  'ratelimit-header-added': warning(I, 'A rate-limit header was added: implementations must send it.'),
  // response schemas (bodies and headers)
  'response-property-removed': breaking(C, 'A response property was removed: clients reading it break.'),
  'response-property-added': addition('A new optional response property.'),
  'response-property-added-required': warning(I, 'A new required response property: implementations must send it.'),
  'response-property-became-optional': breaking(C, 'A response property became optional: clients may not receive it.'),
  'response-property-became-required': warning(
    I,
    'A response property became required: implementations must always send it.',
  ),
  'response-type-changed': breaking(
    CI,
    'The type of a response value changed: clients parse the old type, implementations send the new one.',
  ),
  'response-type-widened': breaking(
    C,
    'A response value may have more types: clients may receive a type they do not handle.',
  ),
  'response-type-narrowed': warning(
    I,
    'A response value has fewer types: implementations sending a dropped type no longer conform.',
  ),
  'response-became-nullable': breaking(C, 'A response value may now be null: clients that do not expect null break.'),
  'response-became-not-nullable': warning(
    I,
    'A response value can no longer be null: implementations sending null no longer conform.',
  ),
  'response-enum-value-added': breaking(
    C,
    'A response enum gained a value: clients that switch over the values meet an unknown one.',
  ),
  'response-enum-value-removed': warning(
    I,
    'A response enum lost a value: implementations sending it no longer conform.',
  ),
  'response-max-increased': breaking(
    C,
    'An upper bound of a response value was raised or removed: clients may receive larger values.',
  ),
  'response-max-decreased': warning(
    I,
    'An upper bound of a response value was lowered or added: implementations must send smaller values.',
  ),
  'response-min-decreased': breaking(
    C,
    'A lower bound of a response value was lowered or removed: clients may receive smaller values.',
  ),
  'response-min-increased': warning(
    I,
    'A lower bound of a response value was raised or added: implementations must send larger values.',
  ),
  'response-pattern-changed': warning(
    I,
    'The pattern of a response string was added or changed: implementations must follow it.',
  ),
  'response-pattern-removed': warning(
    C,
    'The pattern of a response string was removed: clients may receive any string.',
  ),
  'response-format-changed': breaking(C, 'The format of a response value changed: clients parse the old format.'),
  'response-default-changed': docs('The documented default of a response value changed.'),
  'response-union-branch-added': breaking(
    C,
    'A response union (anyOf/oneOf) gained a branch: clients may receive a shape they do not handle.',
  ),
  'response-union-branch-removed': warning(
    I,
    'A response union (anyOf/oneOf) lost a branch: implementations sending it no longer conform.',
  ),
  // security
  'security-requirement-removed': breaking(C, 'A way to authenticate was removed: clients using it are refused.'),
  'security-scheme-added': breaking(
    C,
    'An operation requires one more credential: clients not sending it are refused.',
  ),
  'security-requirement-added': warning(I, 'A new way to authenticate: implementations must accept it.'),
  'security-scheme-removed': warning(
    I,
    'An operation requires one credential fewer: implementations must accept requests without it.',
  ),
  'security-scheme-changed': breaking(
    C,
    'A security scheme changed how the credential is sent (type, scheme, header name).',
  ),
  // servers
  'server-removed': warning(C, 'A server URL was removed: clients configured with it must move.'),
  'server-added': addition('A new server URL.'),
  'server-variable-changed': warning(C, 'A server variable (default or allowed values) changed.'),
  // documentation
  'description-changed': docs('A description, summary, title or example changed.'),
  'x-unspecified-changed': docs('The list of what the contract leaves unspecified (x-unspecified) changed.'),
  'unclassified-change': docs('A change no other rule classifies (extensions, tags, ...).'),
} as const satisfies Record<string, RuleDefinition>;

export type RuleId = keyof typeof RULES;

export const ruleOf = (id: RuleId): RuleDefinition => RULES[id];
