/**
 * The generators read everything from the spec: valid bodies validate and are fully populated with
 * fixture ids and the values the contract shows; each invalid case breaks exactly one stated
 * constraint; boundaries are min-1/min/max/max+1 of spec.bounds().
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  boundCase,
  fillPath,
  boundaryValues,
  enumCase,
  enumFields,
  fieldsOf,
  inRange,
  malformedJson,
  nonIntegerQuery,
  outOfRange,
  propertiesOf,
  typedFields,
  validBody,
  wrongTypeCase,
  wrongTypeValue,
  nearMissWrongValue,
  numericEdges,
  numericTargets,
  nonIntegerQueryExamples,
  setPointer,
  typeLimitsOutside,
} from '../../../src/generators/index.js';
import { walkProperties } from '../../../src/spec/model.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { Operation, SpecModel } from '../../../src/spec/model.js';
import { validateRequest } from '../../../src/validators/index.js';
import { FIXTURES } from '../../../suites/fixtures.js';

let spec: SpecModel;
let bodyOps: Operation[];
const fixtures = {
  assistant_id: 'asst_1',
  phone_number_id: 'pn_1',
  recipient_list_id: 'rl_1',
  org_id: 'org_1',
  channels: ['prov-a', 'prov-b'],
};
const SEED = 20260101;

beforeAll(async () => {
  spec = await loadSpec();
  bodyOps = spec.operations.filter((o) => o.requestBody);
});

const pathOf = (op: Operation) =>
  Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, 'x1']));
const check = (op: Operation, body: unknown) => validateRequest(op.id, { path: pathOf(op), body });

describe('validBody', () => {
  it('is valid for every operation with a body, realistic and hostile', () => {
    expect(bodyOps.length).toBeGreaterThan(3);
    for (const op of bodyOps) {
      for (const mode of ['realistic', 'hostile'] as const) {
        fc.assert(
          fc.property(validBody(op, { fixtureSpecs: FIXTURES, fixtures, mode }), (body) => {
            const result = check(op, body);
            expect(result.ok ? [] : result.issues.map((i) => i.message)).toEqual([]);
          }),
          { seed: SEED, numRuns: 30 },
        );
      }
    }
  });

  it('is fully populated: every documented field present (realistic mode, fixtures known)', () => {
    for (const op of bodyOps) {
      const body = fc.sample(validBody(op, { fixtureSpecs: FIXTURES, fixtures }), { seed: SEED, numRuns: 1 })[0]!;
      expect(Object.keys(body).sort()).toEqual(Object.keys(propertiesOf(op.requestBody!.schema)).sort());
    }
  });

  it('injects fixture ids and provider ids, and uses only the values the contract shows where enums are unknown', () => {
    const op = spec.operation('createCampaign');
    for (const body of fc.sample(validBody(op, { fixtureSpecs: FIXTURES, fixtures }), { seed: SEED, numRuns: 20 })) {
      expect(body['assistant_id']).toBe('asst_1');
      expect(body['phone_number_id']).toBe('pn_1');
      expect(fixtures.channels).toContain(body['channel']);
      const shown = (spec.schema('SpeechSettings')['examples'] as unknown[])[0];
      expect(body['speech_settings']).toEqual(shown);
      expect(String(body['name'])).toMatch(/^vapc-test /);
    }
  });

  it('leaves out a reference it has no fixture for instead of inventing one', () => {
    const body = fc.sample(
      validBody(spec.operation('createCampaign'), { fixtureSpecs: FIXTURES, fixtures: { channels: ['a', 'b'] } }),
      {
        seed: SEED,
        numRuns: 1,
      },
    )[0]!;
    expect(body).not.toHaveProperty('assistant_id');
    expect(body).not.toHaveProperty('recipient_list_id');
  });
});

describe('invalid cases break exactly one stated constraint', () => {
  it('wrong type: one issue, at the field, for every field of every body', () => {
    for (const op of bodyOps) {
      const base = fc.sample(validBody(op, { fixtureSpecs: FIXTURES, fixtures }), { seed: SEED, numRuns: 1 })[0]!;
      for (const field of typedFields(op)) {
        const arb = wrongTypeCase(base, field);
        expect(arb, `${op.id} ${field.pointer}`).toBeDefined();
        for (const kase of fc.sample(arb!, { seed: SEED, numRuns: 10 })) {
          const result = check(op, kase.body);
          expect(result.ok, `${op.id} ${kase.description} was valid`).toBe(false);
          if (!result.ok)
            expect(
              result.issues.map((i) => i.pointer).every((p) => p.startsWith(field.pointer)),
              `${op.id} ${kase.description}`,
            ).toBe(true);
        }
      }
    }
  });

  it('outside strict-types mode never sends what frameworks coerce by design ("5", "true", null), and does send 7 for a string, 2.5 for an integer, [] for an object', () => {
    const integer = { type: 'integer' };
    const string = { type: 'string' };
    const boolean = { type: 'boolean' };
    const object = { type: 'object' };
    for (const [schema, coercible, nearMiss] of [
      [
        integer,
        (v: unknown) => (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) || typeof v === 'boolean',
        (v: unknown) => typeof v === 'number' && !Number.isInteger(v),
      ],
      [string, (v: unknown) => typeof v === 'boolean', (v: unknown) => typeof v === 'number'],
      [boolean, (v: unknown) => typeof v === 'string' && /^(true|false|yes|no|on|off|[01tfyn])$/i.test(v), () => false],
      [object, () => false, (v: unknown) => Array.isArray(v)],
    ] as const) {
      const values = fc.sample(wrongTypeValue(schema)!, { seed: SEED, numRuns: 200 });
      expect(values.filter((v) => v === null || coercible(v))).toEqual([]);
      if (schema !== boolean) expect(values.some(nearMiss), JSON.stringify(schema)).toBe(true);
      const strict = fc.sample(wrongTypeValue(schema, true)!, { seed: SEED, numRuns: 400 });
      expect(strict.some((v) => v === null || coercible(v))).toBe(true);
    }
    expect([integer, string, object, boolean].map((s) => nearMissWrongValue(s))).toEqual([2.5, 7, [], 'qxyes']);
  });

  it('enum violation: a value outside the enum, one issue', () => {
    const op = spec.operation('updateCampaign');
    const fields = enumFields(op);
    expect(fields.map((f) => f.field)).toEqual(['status']);
    const base = fc.sample(validBody(op, { fixtureSpecs: FIXTURES, fixtures }), { seed: SEED, numRuns: 1 })[0]!;
    for (const kase of fc.sample(enumCase(base, fields[0]!)!, { seed: SEED, numRuns: 20 })) {
      const result = check(op, kase.body);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues.map((i) => i.rule)).toEqual(['enum']);
    }
  });

  it('malformed JSON never parses', () => {
    for (const kase of fc.sample(malformedJson({ name: 'x', max_concurrency: 5 }), { seed: SEED, numRuns: 30 })) {
      expect(() => JSON.parse(kase.rawBody!)).toThrow();
    }
    expect(() => JSON.parse(fc.sample(malformedJson({}), { seed: 1, numRuns: 1 })[0]!.rawBody!)).toThrow();
  });

  it('non-integer query values are rejected by the validators', () => {
    const op = spec.operation('listCalls');
    for (const kase of fc.sample(nonIntegerQuery(op)!, { seed: SEED, numRuns: 20 })) {
      const result = validateRequest(op.id, { query: Object.fromEntries(kase.query!) });
      expect(result.ok, kase.description).toBe(false);
    }
  });
});

describe('boundaries come from spec.bounds()', () => {
  it('min-1, min, max, max+1 of every bound; in-range valid, out-of-range invalid with minimum/maximum', () => {
    const bounds = spec.bounds();
    expect(bounds.length).toBeGreaterThanOrEqual(3);
    for (const bound of bounds) {
      const op = spec.operation(bound.operationId);
      const base = fc.sample(validBody(op, { fixtureSpecs: FIXTURES, fixtures }), { seed: SEED, numRuns: 1 })[0]!;
      const edges = boundaryValues(bound);
      expect(edges.map((e) => e.value)).toEqual([bound.minimum! - 1, bound.minimum, bound.maximum, bound.maximum! + 1]);
      for (const edge of edges) {
        const result = check(op, boundCase(base, bound, edge.value).body);
        expect(result.ok, `${bound.field}=${edge.value}`).toBe(edge.inRange);
        if (!result.ok)
          expect(result.issues.map((i) => i.rule)).toEqual([edge.label === 'min-1' ? 'minimum' : 'maximum']);
      }
      for (const v of fc.sample(inRange(bound), { seed: SEED, numRuns: 20 }))
        expect(check(op, boundCase(base, bound, v).body).ok).toBe(true);
      for (const side of ['below-minimum', 'above-maximum'] as const) {
        for (const v of fc.sample(outOfRange(bound, side)!, { seed: SEED, numRuns: 20 }))
          expect(check(op, boundCase(base, bound, v).body).ok).toBe(false);
      }
    }
  });

  it('fieldsOf walks nested objects and array items', () => {
    const pointers = fieldsOf(spec.operation('createCampaign').requestBody!.schema).map((f) => f.pointer);
    expect(pointers).toContain('/speech_settings/style');
    expect(pointers).toContain('/recipients/0/phone_number');
  });
});

describe('numeric edges come from the spec', () => {
  /** Numeric members of the spec found independently of the generators: parameters, and walkProperties over bodies. */
  const numericOf = (op: Operation): string[] => {
    const isNumeric = (schema: Record<string, unknown>) =>
      ['integer', 'number'].some((t) => JSON.stringify(schema['type'] ?? '').includes(t));
    const out = op.parameters
      .filter((p) => (p.in === 'query' || p.in === 'path') && isNumeric(p.schema))
      .map((p) => `${p.in} /${p.name}`);
    if (op.requestBody)
      walkProperties(
        op.requestBody.schema,
        '',
        (pointer, _field, schema) => isNumeric(schema) && out.push(`body ${pointer.replace(/\*/g, '0')}`),
      );
    return out;
  };

  it('numericTargets finds every numeric parameter and body field, bounded or not, with the bounds the spec states', () => {
    const all = spec.operations.flatMap((op) => numericTargets(op).map((t) => ({ op, t })));
    for (const op of spec.operations) {
      expect(
        numericTargets(op)
          .map((t) => `${t.location} ${t.pointer ?? `/${t.name}`}`)
          .sort(),
        op.id,
      ).toEqual(numericOf(op).sort());
    }
    // The offset of GET /calls has no bound: it gets its edges all the same.
    const offset = all.find(({ op, t }) => op.id === 'listCalls' && t.name === 'offset')!.t;
    expect(offset).toMatchObject({ location: 'query', type: 'integer', loc: ['offset'] });
    expect(offset.minimum).toBeUndefined();
    for (const bound of spec.bounds()) {
      const t = all.find(({ op, t }) => op.id === bound.operationId && t.pointer === bound.pointer)!.t;
      expect([t.minimum, t.maximum], bound.field).toEqual([bound.minimum, bound.maximum]);
    }
    expect(all.filter(({ t }) => t.minimum === undefined && t.maximum === undefined).length).toBeGreaterThanOrEqual(4);
  });

  it('every number gets -1, 0, 2^31, 2^53, 2^53+1, -2^53 and a numeric string; "allowed" is what the validators say', () => {
    for (const op of spec.operations) {
      const base = op.requestBody
        ? fc.sample(validBody(op, { fixtureSpecs: FIXTURES, fixtures }), { seed: SEED, numRuns: 1 })[0]!
        : undefined;
      for (const target of numericTargets(op)) {
        const edges = numericEdges(target);
        expect(edges.map((e) => e.label)).toEqual([
          'negative',
          'zero',
          '2^31',
          '2^53',
          '2^53+1',
          '-2^53',
          'numeric string',
        ]);
        expect(edges.map((e) => e.literal).slice(0, 6)).toEqual([
          '-1',
          '0',
          '2147483648',
          '9007199254740992',
          '9007199254740993',
          '-9007199254740992',
        ]);
        for (const edge of edges) {
          if (target.location === 'query') {
            if (edge.label === 'numeric string') continue; // exponent notation: a framework's choice, not judged
            const result = validateRequest(op.id, {
              path: pathOf(op),
              query: { [target.name]: edge.literal },
              body: base,
            });
            expect(result.ok, `${op.id} ${target.name}=${edge.literal}`).toBe(edge.withinBounds);
          } else if (target.location === 'body') {
            const body = JSON.parse(
              JSON.stringify(setPointer(base, target.pointer!, 'MARK')).replace(
                '"MARK"',
                edge.quoted ? JSON.stringify(edge.literal) : edge.literal,
              ),
            );
            // A numeric string is never valid as sent (leniency is judged apart); a number is when within the bounds.
            expect(check(op, body).ok, `${op.id} ${target.pointer}=${edge.literal}`).toBe(
              edge.withinBounds && !edge.quoted,
            );
          }
        }
      }
    }
  });

  it('a body numeric string spells the first value past a stated bound, else -1', () => {
    const create = spec.operation('createCampaign');
    const strings = Object.fromEntries(
      numericTargets(create).map((t) => [t.name, numericEdges(t).find((e) => e.quoted)!]),
    );
    for (const bound of spec.bounds().filter((b) => b.operationId === create.id)) {
      expect(strings[bound.field]).toMatchObject({ literal: String(bound.maximum! + 1), withinBounds: false });
    }
    expect(strings['short_term_summaries_limit']).toMatchObject({ literal: '-1', withinBounds: true });
  });

  it('typeLimitsOutside gives the range checks the type limits beyond each bound, all invalid', () => {
    for (const bound of spec.bounds()) {
      const op = spec.operation(bound.operationId);
      const base = fc.sample(validBody(op, { fixtureSpecs: FIXTURES, fixtures }), { seed: SEED, numRuns: 1 })[0]!;
      const below = typeLimitsOutside(bound, 'below-minimum');
      const above = typeLimitsOutside(bound, 'above-maximum');
      expect(below).toEqual(expect.arrayContaining([-1, -(2 ** 53)]));
      expect(above).toEqual([2 ** 31, 2 ** 53]);
      for (const v of [...below, ...above])
        expect(check(op, boundCase(base, bound, v).body).ok, `${bound.field}=${v}`).toBe(false);
    }
  });

  it('each integer query parameter is given a word and a fraction first, both invalid', () => {
    const calls = spec.operation('listCalls');
    const examples = nonIntegerQueryExamples(calls);
    expect(examples.map((k) => `${k.field}=${k.value}`)).toEqual([
      'limit=xyz',
      'limit=2.5',
      'offset=xyz',
      'offset=2.5',
    ]);
    for (const k of examples) expect(validateRequest(calls.id, { query: Object.fromEntries(k.query!) }).ok).toBe(false);
  });
});

describe('fillPath', () => {
  it('fills every placeholder URL-encoded, marks a missing one, and leaves plain paths alone', () => {
    expect(fillPath('/campaign/{campaign_id}', { campaign_id: 'a b/c?' })).toBe('/campaign/a%20b%2Fc%3F');
    expect(fillPath('/a/{x}/b/{y}', { x: '1' })).toBe('/a/1/b/vapc-missing-y');
    expect(fillPath('/a/{x}/b/{x}', { x: 'é' })).toBe('/a/%C3%A9/b/%C3%A9');
    expect(fillPath('/calls', {})).toBe('/calls');
    expect(fillPath('/{x}', { x: '' })).toBe('/');
  });
});
