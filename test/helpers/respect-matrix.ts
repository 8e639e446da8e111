/**
 * `redocly respect` on the exported scenarios (issue 36), as two matrices split between the
 * everyday suite and the slow tier (test/slow/README.md): the correct independent servers, where it
 * must pass, and the catalogues' stateful faults, where it must fail. Each respect process costs
 * ~4 s of CPU, so `npm test` runs a fixed sample of each (test/e2e/arazzo-respect-*.test.ts) and
 * `npm run test:slow` the rest (test/slow/arazzo-respect-*.test.ts, the faults in two files so two workers share them): CI runs both, every server and
 * every fault once. One respect process at a time per file: on a 2-core machine concurrent ones starve.
 */
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../catalog/independent/with-faults/server.mjs';
import { checkOf, serverFaults, startFaultyServer } from '../catalog/faults/index.js';
import { exportedOnce, inputsFor, respect } from './arazzo-tools.js';
import { startIndependent } from './independent-faults.js';
import { withLoopbackServer, type LoopbackServer } from './loopback-runs.js';

/** The correct independent implementations (test/catalog/independent/<name>/server.mjs). */
export const CORRECT_SERVERS = [
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
] as const;

/** The everyday suite's sample of the correct servers: the strictest, and the one pairing channels with phone numbers. */
export const CORRECT_SAMPLE: readonly string[] = ['strict', 'pairing'];

interface FaultCase {
  catalogue: 'independent' | 'reference';
  name: string;
  description: string;
  start: (o: { rateLimit?: number; rateWindowMs?: number }) => Promise<LoopbackServer>;
}

/** Every stateful fault vapc kills: the independent fault server's judged ones, then the reference catalogue's. */
export const STATEFUL_FAULTS: readonly FaultCase[] = [
  ...FAULTS.filter((f) => f.suite === 'stateful' && f.unjudged === undefined).map((f) => ({
    catalogue: 'independent' as const,
    name: f.name,
    description: f.description,
    start: (o: object) => startIndependent({ ...o, fault: f.name }),
  })),
  ...serverFaults
    .filter((f) => f.catches.some((c) => checkOf(c).startsWith('stateful.')))
    .map((f) => ({
      catalogue: 'reference' as const,
      name: f.name,
      description: f.description,
      start: (o: object) => startFaultyServer(f.name, { host: '127.0.0.1', ...o }),
    })),
];

/** The everyday suite's sample of the faults: every sixteenth (three), so both catalogues are in it. */
export const inFaultSample = (index: number): boolean => index % 16 === 0;

/** Registers the respect run on each named correct server: it passes, with its own credentials and fixtures. */
export function describeRespectCorrect(names: readonly string[]): void {
  const { spec, exported, dir } = exportedOnce();
  describe('redocly respect passes the exported scenarios on every correct independent server', () => {
    for (const name of names)
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
}

/** Registers the respect run on each chosen stateful fault (by its index in STATEFUL_FAULTS): it fails. */
export function describeRespectFaults(chosen: (index: number) => boolean): void {
  const { spec, exported, dir } = exportedOnce();
  describe('redocly respect on the exported scenarios fails every stateful fault vapc kills', () => {
    for (const [i, f] of STATEFUL_FAULTS.entries()) {
      if (!chosen(i)) continue;
      // Both catalogues' servers take any channel with a phone number (pairs off).
      it(f.name, { timeout: 120_000 }, () =>
        withLoopbackServer(f.start, {}, async (s) => {
          const run = await respect(exported().file, s.url, await inputsFor(s, spec(), false), dir());
          expect(run.failed.length, `respect passed ${f.name} (${f.description})`).toBeGreaterThan(0);
          expect(run.status).toBe(1);
        }),
      );
    }
  });
}
