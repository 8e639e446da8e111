// The stateful faults of the independent fault server (test/catalog/independent/with-faults) and of
// the reference server's catalogue (test/catalog/faults) that vapc's stateful suite kills
// (test/catalog/independent/faults-state.test.ts): `redocly respect` on the exported scenarios
// (issue 36) fails each of them too, a test per fault. The everyday sample (every sixteenth fault); the
// rest are test/slow/arazzo-respect-faults-{even,odd}.test.ts (test/helpers/respect-matrix.ts).
import { expect, it } from 'vitest';
import { describeRespectFaults, inFaultSample, STATEFUL_FAULTS } from '../helpers/respect-matrix.js';

it('the catalogues have stateful faults, and the sample takes some of each', () => {
  expect(STATEFUL_FAULTS.length).toBeGreaterThan(30);
  const sample = STATEFUL_FAULTS.filter((_, i) => inFaultSample(i));
  expect(sample.length).toBeGreaterThanOrEqual(3);
  expect(new Set(sample.map((f) => f.catalogue))).toEqual(new Set(['independent', 'reference']));
});

describeRespectFaults(inFaultSample);
