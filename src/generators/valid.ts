/**
 * Arbitraries of valid values derived from the spec's JSON schemas: fully-populated, realistic
 * request bodies (every documented field present, fixture ids injected, only values the contract
 * shows where its enums are unknown), and a `hostile` flavour for robustness (unicode, long
 * strings, empty arrays, nested open objects, boundary numbers) that is still valid.
 */
import fc from 'fast-check';
import type { Fixtures, FixtureSpec, FixtureValue } from '../results/fixtures.js';
import type { JsonSchema, Operation } from '../spec/model.js';
import { enumOf, isProviderId, itemsOf, nonNull, propertiesOf, typesOf, unspecifiedOf } from './schema.js';

export type ValueMode = 'realistic' | 'hostile';

export interface GenOptions {
  fixtures?: Fixtures;
  /**
   * What the contract's fixtures are to a body (its profile's `fixtures`): the fields filled from an
   * id fixture of the same name, the fixture whose values the provider-id fields take. None: no
   * field is filled from a fixture.
   */
  fixtureSpecs?: readonly FixtureSpec[];
  /** realistic (default): values a real client sends; hostile: valid but awkward values. */
  mode?: ValueMode;
  /** Prefix for names of created test data, so a live server's operators recognise it. */
  namePrefix?: string;
}

/** Names of test data created by conformance runs start with this. */
export const TEST_DATA_PREFIX = 'vapc-test';

/** What the declared fixtures are to a request body (see GenOptions.fixtureSpecs). */
interface BodyFixtures {
  /** Body fields that carry a fixture id (the id fixture of the same name), each required by a valid body or not. */
  fields: ReadonlyMap<string, 'required' | 'optional'>;
  /** The list fixture whose values the provider-id fields take. */
  providerIds?: string;
}

const bodyFixturesBySpecs = new WeakMap<readonly FixtureSpec[], BodyFixtures>();
const NO_BODY_FIXTURES: BodyFixtures = { fields: new Map() };

function bodyFixturesOf(specs: readonly FixtureSpec[] | undefined): BodyFixtures {
  if (!specs) return NO_BODY_FIXTURES;
  let out = bodyFixturesBySpecs.get(specs);
  if (!out) {
    const fields = new Map<string, 'required' | 'optional'>();
    for (const s of specs) if (s.kind === 'id' && s.body) fields.set(s.key, s.body);
    const providerIds = specs.find((s) => s.kind === 'list' && s.providerIds)?.key;
    out = providerIds === undefined ? { fields } : { fields, providerIds };
    bodyFixturesBySpecs.set(specs, out);
  }
  return out;
}

/** Body field names that carry a fixture id (the declared id fixtures marked `body`): references to test data, not free text. */
export const bodyFixtureFields = (specs: readonly FixtureSpec[] | undefined): string[] => [
  ...bodyFixturesOf(specs).fields.keys(),
];

/** The strings of a list fixture's value (none when it is not a list of strings). */
const stringsOf = (value: FixtureValue | undefined): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/** The values the provider-id fields take: the declared fixture's (empty when none is declared or known). */
const providerValues = (options: Pick<GenOptions, 'fixtures' | 'fixtureSpecs'>): string[] => {
  const key = bodyFixturesOf(options.fixtureSpecs).providerIds;
  return key === undefined ? [] : stringsOf(options.fixtures?.[key]);
};

function isTimestamp(schema: JsonSchema): boolean {
  return unspecifiedOf(schema).some((u) => /timestamp/i.test(u));
}
/** Values the contract shows for a field whose full set is unknown (`examples`). */
function shownValues(schema: JsonSchema): unknown[] | undefined {
  const examples = nonNull(schema)['examples'];
  return Array.isArray(examples) && examples.length ? examples : undefined;
}

const WORDS = [
  'spring',
  'renewal',
  'follow-up',
  'outreach',
  'survey',
  'reminder',
  'welcome',
  'billing',
  'support',
  'pilot',
];
const wordsArb = (min: number, max: number) =>
  fc.array(fc.constantFrom(...WORDS), { minLength: min, maxLength: max }).map((w) => w.join(' '));

/** Future instants; an `...end...` field lands in the second half of the year, after any start. */
const futureIso = (late: boolean) =>
  fc
    .integer({ min: 1, max: 180 * 24 })
    .map((hours) => new Date(Date.UTC(2030, late ? 6 : 0, 1) + hours * 3_600_000).toISOString().replace('.000Z', 'Z'));

const phoneArb = fc.integer({ min: 0, max: 9999 }).map((n) => `+1415555${String(n).padStart(4, '0')}`);
const emailArb = fc.integer({ min: 1, max: 1_000_000 }).map((n) => `vapc-test+${n}@example.com`);

/**
 * Any code point (lone surrogates included), built as a unit arbitrary: fast-check's built-in
 * `unit: 'binary'` allocates ~160 MB of tables when constructed, which alone broke the runner's
 * 200 MB memory target.
 */
const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp));

const hostileString = fc.oneof(
  fc.string({ unit: anyCodePoint, maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  fc.constant(''),
  fc.string({ minLength: 1000, maxLength: 4000 }),
  fc.constantFrom(
    '😀🎉 ünïcödé',
    '\u0000',
    'Robert"); DROP TABLE campaigns;--',
    '<script>alert(1)</script>',
    '../../etc/passwd',
  ),
);

const openObject = (mode: ValueMode): fc.Arbitrary<Record<string, unknown>> =>
  mode === 'realistic'
    ? fc.constant({})
    : fc.oneof(
        fc.constant({}),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<unknown>, {
          maxKeys: 6,
        }),
        fc
          .letrec((tie) => ({
            nest: fc.oneof({ depthSize: 'small' }, fc.string({ maxLength: 8 }), fc.record({ inner: tie('nest') })),
          }))
          .nest.map((inner) => ({ nested: inner })),
      );

interface FieldContext {
  field: string;
  options: GenOptions;
}

/** A valid value of `schema`. `field` is the member name, used for fixture ids and realistic text. */
export function validValue(schema: JsonSchema, ctx: FieldContext): fc.Arbitrary<unknown> {
  const s = nonNull(schema);
  const mode = ctx.options.mode ?? 'realistic';
  const fixtures = ctx.options.fixtures ?? {};
  const body = bodyFixturesOf(ctx.options.fixtureSpecs);
  const values = enumOf(s);
  if (values && values.length) return fc.constantFrom(...values.filter((v) => v !== null));
  if ('const' in s) return fc.constant(s['const']);
  const types = typesOf(s).filter((t) => t !== 'null');
  const type = types[0];

  switch (type) {
    case 'string': {
      if (body.fields.has(ctx.field)) {
        const id = fixtures[ctx.field];
        if (typeof id === 'string') return fc.constant(id);
      }
      const providers = isProviderId(s) ? providerValues(ctx.options) : [];
      if (providers.length) return fc.constantFrom(...providers);
      const shown = shownValues(s);
      if (shown) return fc.constantFrom(...shown);
      if (isTimestamp(s)) return futureIso(/end/i.test(ctx.field));
      if (ctx.field === 'name') {
        const rest = mode === 'hostile' ? hostileString : wordsArb(1, 3);
        return rest.map((w) => `${ctx.options.namePrefix ?? TEST_DATA_PREFIX} ${w}`);
      }
      if (mode === 'hostile') return hostileString;
      if (/email/i.test(ctx.field)) return emailArb;
      if (/phone_number$|_number$/.test(ctx.field)) return phoneArb;
      if (/url$/i.test(ctx.field)) return fc.constant('https://example.com/vapc');
      return wordsArb(2, 8).map((w) => w.charAt(0).toUpperCase() + w.slice(1) + '.');
    }
    case 'integer':
    case 'number': {
      const min = typeof s['minimum'] === 'number' ? s['minimum'] : undefined;
      const max = typeof s['maximum'] === 'number' ? s['maximum'] : undefined;
      const lo = min ?? (mode === 'hostile' ? 0 : 1);
      const hi = max ?? (mode === 'hostile' ? 2 ** 31 - 1 : Math.max(lo, 10));
      const base =
        type === 'integer'
          ? fc.integer({ min: lo, max: hi })
          : fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
      return mode === 'hostile' ? fc.oneof(fc.constantFrom(lo, hi), base) : base;
    }
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const items = itemsOf(s);
      const item = items ? validValue(items, { ...ctx, field: ctx.field }) : fc.constant('x');
      return fc.array(item, { minLength: mode === 'hostile' ? 0 : 1, maxLength: mode === 'hostile' ? 5 : 2 });
    }
    case 'object': {
      const properties = propertiesOf(s);
      if (!Object.keys(properties).length) {
        if (mode === 'realistic' && /metadata/i.test(ctx.field)) return fc.record({ source: fc.constant('vapc') });
        return openObject(mode);
      }
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, child] of Object.entries(properties)) {
        // A reference to test data the run has no fixture for is left out rather than invented.
        if (body.fields.has(name) && fixtures[name] === undefined) continue;
        model[name] = validValue(child, { field: name, options: ctx.options });
      }
      return fc.record(model);
    }
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<unknown>;
  }
}

/**
 * What a body arbitrary depends on besides its schema: the mode, the name prefix and the fixture
 * values `validValue` reads (ids by body field name, the provider ids' values), and which fields
 * those are.
 */
function optionsKey(options: GenOptions): string {
  const fixtures = options.fixtures ?? {};
  const body = bodyFixturesOf(options.fixtureSpecs);
  let key = `${options.mode ?? 'realistic'}\u0000${options.namePrefix ?? ''}`;
  for (const name of body.fields.keys()) {
    const id = fixtures[name];
    key += `\u0000${name}=${typeof id === 'string' ? `s${id}` : id === undefined ? 'u' : `o${JSON.stringify(id)}`}`;
  }
  const providers = body.providerIds === undefined ? undefined : fixtures[body.providerIds];
  key += `\u0000${body.providerIds ?? ''}=${providers === undefined ? 'u' : JSON.stringify(providers)}`;
  return key;
}

/**
 * Body arbitraries by request schema and options key. An arbitrary is an immutable description
 * (the values come from the seed given to fc.sample/fc.check), so one built for the same schema
 * and options generates exactly what a fresh one would; building it walks the whole schema, which
 * checks did once per request.
 */
const bodyArbitraries = new WeakMap<object, Map<string, fc.Arbitrary<Record<string, unknown>>>>();

/** Every documented field present: fully-populated valid bodies of the operation's request schema. */
export function validBody(op: Operation, options: GenOptions = {}): fc.Arbitrary<Record<string, unknown>> {
  if (!op.requestBody) return fc.constant({});
  const schema = op.requestBody.schema;
  let bySchema = bodyArbitraries.get(schema);
  if (!bySchema) {
    bySchema = new Map();
    bodyArbitraries.set(schema, bySchema);
  }
  const key = optionsKey(options);
  let arb = bySchema.get(key);
  if (!arb) {
    arb = validValue(schema, { field: '', options }) as fc.Arbitrary<Record<string, unknown>>;
    if (bySchema.size > 64) bySchema.clear();
    bySchema.set(key, arb);
  }
  return arb;
}

/**
 * The fixtures the body needs that the run does not have (so a valid body cannot be built): the
 * required id fixtures of its fields, and the provider ids' fixture for a provider-id field
 * (`options.fixtureSpecs` says which; an `optional` one is left out of the body instead).
 */
export function missingFixtures(op: Operation, options: Pick<GenOptions, 'fixtures' | 'fixtureSpecs'>): string[] {
  if (!op.requestBody) return [];
  const fixtures = options.fixtures ?? {};
  const body = bodyFixturesOf(options.fixtureSpecs);
  const missing: string[] = [];
  for (const [name, schema] of Object.entries(propertiesOf(op.requestBody.schema))) {
    if (body.fields.get(name) === 'required' && !fixtures[name]) missing.push(name);
    if (
      body.providerIds !== undefined &&
      typesOf(schema).includes('string') &&
      isProviderId(nonNull(schema)) &&
      !providerValues(options).length
    )
      missing.push(body.providerIds);
  }
  return missing;
}

/** The id fixture a path parameter names (`fixtureOf`: the profile's fixtureOfParam; by default, the fixture of its name). */
export function pathFixture(
  name: string,
  fixtures: Fixtures,
  fixtureOf: (param: string) => string | undefined = (param) => param,
): string | undefined {
  const key = fixtureOf(name);
  const value = key === undefined ? undefined : fixtures[key];
  return typeof value === 'string' ? value : undefined;
}

/** Fills `{name}` placeholders of a path template (the spec's one parser), each value URL-encoded. */
export { fillPath } from '../spec/path-template.js';

/** A valid value for a query parameter, as the string a client sends. */
export function validQueryValue(schema: JsonSchema, name: string, options: GenOptions = {}): fc.Arbitrary<string> {
  return validValue(schema, { field: name, options }).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
}
