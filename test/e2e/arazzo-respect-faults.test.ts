// The stateful faults of the independent fault server (test/catalog/independent/with-faults): vapc's
// stateful suite kills every judged one (test/catalog/independent/faults-state.test.ts, the same
// list); here `redocly respect` on the exported scenarios (issue 36) fails each of them too, a test
// per fault; and so for the reference server's catalogue (test/catalog/faults) faults its stateful
// checks catch. One respect process at a time: on a shared 2-core machine concurrent ones starve.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { FAULTS } from '../catalog/independent/with-faults/server.mjs';
import { checkOf, serverFaults, startFaultyServer } from '../catalog/faults/index.js';
import { exportFromEmbedded, inputsFor, respect, scratch, type Exported } from '../helpers/arazzo-tools.js';
import { startIndependent } from '../helpers/independent-faults.js';
import { withLoopbackServer } from '../helpers/loopback-runs.js';

const STATEFUL = FAULTS.filter((f) => f.suite === 'stateful' && f.unjudged === undefined);
const REFERENCE_STATEFUL = serverFaults.filter((f) => f.catches.some((c) => checkOf(c).startsWith('stateful.')));

let spec: SpecModel;
let work: Awaited<ReturnType<typeof scratch>>;
let exported: Exported;

beforeAll(async () => {
  spec = await loadSpec();
  work = await scratch();
  exported = await exportFromEmbedded(work.dir, 1);
  expect(exported.status, exported.stderr).toBe(0);
});
afterAll(() => work.done());

describe('redocly respect on the exported scenarios fails every stateful fault vapc kills', () => {
  it('the catalogue has stateful faults', () => {
    expect(STATEFUL.length).toBeGreaterThan(20);
  });
  describe('each fault', () => {
    for (const f of STATEFUL)
      it(f.name, { timeout: 120_000 }, async () => {
        await withLoopbackServer(startIndependent, { fault: f.name }, async (s) => {
          // This server takes any channel with a phone number: the second channel input is another one.
          const run = await respect(exported.file, s.url, await inputsFor(s, spec, false), work.dir);
          expect(run.failed.length, `respect passed ${f.name} (${f.description})`).toBeGreaterThan(0);
          expect(run.status).toBe(1);
        });
      });
  });
});

describe('redocly respect on the exported scenarios fails the reference catalogue faults the stateful checks catch', () => {
  it('the catalogue has such faults', () => {
    expect(REFERENCE_STATEFUL.length).toBeGreaterThan(4);
  });
  describe('each fault', () => {
    for (const f of REFERENCE_STATEFUL)
      it(f.name, { timeout: 120_000 }, async () => {
        const s = await startFaultyServer(f.name, { host: '127.0.0.1', port: 0, rateLimit: 1_000_000 });
        try {
          const run = await respect(exported.file, s.url, await inputsFor(s, spec, false), work.dir);
          expect(run.failed.length, `respect passed ${f.name} (${f.description})`).toBeGreaterThan(0);
          expect(run.status).toBe(1);
        } finally {
          await s.close();
        }
      });
  });
});
