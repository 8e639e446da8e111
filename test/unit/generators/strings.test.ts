/**
 * String, array and object edges are read from the spec (src/generators/strings.ts): which strings
 * are free text, their stated lengths, the containers of a body; the edges themselves are fixed,
 * the same on every seed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  LONG_STRING_LENGTH,
  MIXED_EDGE,
  MIXED_WITHOUT_NUL,
  TEXT_CLASSES,
  containerTargets,
  deeper,
  describeStringEdge,
  groupEdges,
  lengthEdges,
  stringAllowed,
  stringTargets,
} from '../../../src/generators/index.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { Operation, SpecModel } from '../../../src/spec/model.js';
import { containerProbes, refusedProbes, stringGroups } from '../../../suites/strings.js';
import { FIXTURES } from '../../../suites/fixtures.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const where = (op: Operation) => stringTargets(op, FIXTURES).map((t) => `${t.location} ${t.loc.join('.')}`);

describe('string targets, from the spec', () => {
  it('every free string of a body, nested ones included; no enum, provider id or reference to test data', () => {
    const create = where(spec.operation('createCampaign'));
    expect(create).toEqual(
      expect.arrayContaining([
        'body name',
        'body campaign_context',
        'body speech_settings.style',
        'body recipients.0.phone_number',
      ]),
    );
    for (const notFree of [
      'body channel',
      'body assistant_id',
      'body phone_number_id',
      'body recipient_list_id',
      'body max_concurrency',
    ])
      expect(create).not.toContain(notFree);
    expect(where(spec.operation('updateCampaign'))).not.toContain('body status');
  });

  it('path ids and string query parameters are targets (a path id is looked up as sent)', () => {
    expect(where(spec.operation('getCampaign'))).toEqual(['path campaign_id']);
    expect(where(spec.operation('addRecipient'))).toContain('path recipient_list_id');
    expect(where(spec.operation('getCurrentUser'))).toEqual([]);
  });

  it('a stated maxLength gives the longest allowed and one past it; lengths count code points', () => {
    expect(lengthEdges({}).map((e) => [e.label, e.value.length])).toEqual([['long', LONG_STRING_LENGTH]]);
    expect(lengthEdges({ maxLength: 5 }).map((e) => [e.label, e.value.length])).toEqual([
      ['longest', 5],
      ['past-longest', 6],
    ]);
    expect(stringAllowed({ maxLength: 2 }, '😀😀')).toBe(true);
    expect(stringAllowed({ maxLength: 1 }, '😀😀')).toBe(false);
    expect(stringAllowed({ minLength: 1 }, '')).toBe(false);
  });

  it('a field with maxLength and minLength gets its refused probes, sent alone', () => {
    const op = {
      ...spec.operation('addRecipient'),
      requestBody: {
        ...spec.operation('addRecipient').requestBody!,
        schema: { type: 'object', properties: { note: { type: 'string', minLength: 1, maxLength: 20 } } },
      },
    } as Operation;
    expect(refusedProbes(op).map((p) => [p.target.name, p.edge.label, p.edge.value.length])).toEqual([
      ['note', 'past-longest', 21],
      ['note', 'empty', 0],
    ]);
    // The grouped edges send only what the stated lengths allow: no empty, the longest in place of the long.
    const body = stringGroups(op).filter((g) => g.where === 'body');
    expect(body.map((g) => g.edge.label)).toEqual(['whitespace', 'mixed', 'long']);
  });
});

describe('the edges', () => {
  it('the mixed value holds every character class; without its NUL, all but the NUL', () => {
    for (const cls of TEXT_CLASSES) expect(MIXED_EDGE.value).toContain(cls.value);
    expect(MIXED_EDGE.value).toContain('\u0000');
    expect(MIXED_WITHOUT_NUL.value).not.toContain('\u0000');
    expect([...MIXED_EDGE.value].some((c) => c.codePointAt(0)! > 0xffff)).toBe(true);
    expect(JSON.stringify(MIXED_EDGE.value)).toContain('\\u0000');
  });

  it('a body gets empty, whitespace, mixed and long; a path or query mixed and long', () => {
    expect(groupEdges('body').map((e) => e.label)).toEqual(['empty', 'whitespace', 'mixed', 'long']);
    expect(groupEdges('where').map((e) => e.label)).toEqual(['mixed', 'long']);
  });

  it('a description shows a long value by its length, a mixed one by its start', () => {
    expect(describeStringEdge([{ loc: ['name'] }], lengthEdges({})[0]!)).toBe('name=10000 × "x" (long)');
    expect(describeStringEdge([{ loc: ['a'] }, { loc: ['b', 0, 'c'] }], MIXED_EDGE)).toBe(
      'a, b.0.c="Crème brûlée 東京 | party ..." (mixed)',
    );
  });
});

describe('containers', () => {
  it('open objects and arrays are emptied (the top-most), open objects nested deeper; documented objects stay whole', () => {
    const targets = containerTargets(spec.operation('createCampaign'));
    expect(targets.find((t) => t.loc.join('.') === 'speech_settings')).toMatchObject({ kind: 'object', open: false });
    const probes = containerProbes(spec.operation('createCampaign'));
    expect(probes.map((p) => [p.label, p.targets.map((t) => t.loc.join('.'))])).toEqual([
      ['empty containers', ['retry_policy', 'recipients']],
      ['deeper objects', ['retry_policy', 'recipients.0.metadata', 'recipients.0.assistant_overrides']],
    ]);
  });

  it('deeper keeps the example and nests it one level further', () => {
    expect(deeper({ source: 'vapc' })).toEqual({
      source: 'vapc',
      vapc_nested: { level: 2, inner: { source: 'vapc', level: 3 } },
    });
    expect(deeper(undefined)).toEqual({ vapc_nested: { level: 2, inner: { level: 3 } } });
  });
});
