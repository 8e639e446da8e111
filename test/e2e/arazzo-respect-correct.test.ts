// `redocly respect` runs the exported scenarios (issue 36) to a pass against every correct
// independent implementation of the test catalogue (test/catalog/independent/<name>/server.mjs),
// each with its own credentials and the fixtures discovery finds on it, as a team would pass them:
// the criteria hold for what the contract promises, not for one server's choices.
import { describe, expect, it } from 'vitest';
import { exportedOnce, inputsFor, respect } from '../helpers/arazzo-tools.js';
import { withLoopbackServer, type LoopbackServer } from '../helpers/loopback-runs.js';

const CORRECT = [
  'strict',
  'lenient',
  'fastapi-like',
  'express-like',
  'gatekeeper',
  'ledger',
  'pairing',
  'records',
  'slow',
  'wire',
];

const { spec, exported, dir } = exportedOnce();

describe('redocly respect passes the exported scenarios on every correct independent server', () => {
  // One respect process at a time: on a shared 2-core machine concurrent ones starve.
  describe('each server', () => {
    for (const name of CORRECT)
      it(name, { timeout: 120_000 }, async () => {
        const { start } = (await import(`../catalog/independent/${name}/server.mjs`)) as {
          start: (o: object) => Promise<LoopbackServer>;
        };
        await withLoopbackServer(start, {}, async (s) => {
          const run = await respect(exported().file, s.url, await inputsFor(s, spec()), dir());
          expect(run.failed).toEqual([]);
          expect(run.status).toBe(0);
          expect(run.checks).toBeGreaterThan(200);
        });
      });
  });
});
