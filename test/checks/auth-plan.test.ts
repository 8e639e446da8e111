// The auth suite's covering design (suites/auth.ts): every variant on GET /users/me, one per check on each
// other operation, each credential of each operation probed, the same cases on every seed, and its size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checksOf } from '../../suites/index.js';
import { profile } from '../../suites/profile.js';
import { runConformance } from '../../src/runner/conformance.js';
import { validateWireRequest } from '../../src/checks/wire.js';
import { referenceSpec, type ReferenceInternals } from '../../src/server/index.js';
import type { Operation, SpecModel } from '../../src/spec/model.js';
import { startTarget, describeResults, type Target } from '../helpers/checks.js';

interface Sent {
  check: string;
  operation: string;
  authorization: string;
  userId: string;
}

/** The default run's size (--runs 50): the property checks send their most. */
const DEFAULT_RUNS = 50;

/** The auth target of issue 25: a default run's auth suite sends at most this many requests. */
const AUTH_BUDGET = 75;

/** A credential header as sent, with the run's values and the seed-dependent ones named. */
function shape(
  value: string | undefined,
  valid: string,
  secret: string,
  wrong: RegExp,
  fixed: readonly string[],
): string {
  if (value === undefined) return 'absent';
  if (value === valid) return 'valid';
  if (wrong.test(value)) return 'wrong';
  const named = value.split(secret).join('REAL');
  return fixed.includes(named) ? named : 'random';
}

const AUTH_FIXED = [
  'Bearer ',
  'Basic REAL',
  'REAL',
  'Token REAL',
  'BearerREAL',
  'Bearer vapc-not-a-key',
  'Bearer REALx',
  'Bearer REAL x',
];
const USER_FIXED = ['', 'REAL-x'];

function operationOf(spec: SpecModel, method: string, url: string): Operation | undefined {
  const path = new URL(url).pathname;
  return spec.operations.find(
    (op) => op.method === method && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
  );
}

async function authRun(target: Target, seed: number, spec: SpecModel) {
  const f = target.server.fixtures;
  const sent: Sent[] = [];
  const { report } = await runConformance({
    baseUrl: target.server.url,
    checks: checksOf(['auth']),
    profile,
    suites: ['auth'],
    spec,
    seed,
    runs: DEFAULT_RUNS,
    credentials: { apiKey: f.api_key, userId: f.user_id },
    fixtures: {
      org_id: f.org_id,
      recipient_list_id: f.recipient_list_id,
      api_key_id: f.api_key_id,
      channels: [...f.channels],
    },
    validateRequest: validateWireRequest,
    onExchange: (exchange, checkId) => {
      if (!checkId?.startsWith('auth.')) return;
      const op = operationOf(spec, exchange.request.method, exchange.request.url);
      const h = exchange.request.headers;
      sent.push({
        check: checkId,
        operation: op ? `${op.method} ${op.path}` : exchange.request.url,
        authorization: shape(h['authorization'], `Bearer ${f.api_key}`, f.api_key, /^Bearer vapc_wrong_/, AUTH_FIXED),
        userId: shape(h['x-user-id'], f.user_id, f.user_id, /^vapc-wrong-user-/, USER_FIXED),
      });
    },
  });
  return { sent, report };
}

const key = (s: Sent): string => `${s.check} ${s.operation} ${s.authorization} ${s.userId}`;

describe('auth: the covering design', () => {
  let target: Target;
  let spec: SpecModel;
  let runs: Awaited<ReturnType<typeof authRun>>[];
  beforeAll(async () => {
    target = await startTarget();
    spec = await referenceSpec();
    runs = [await authRun(target, 1, spec), await authRun(target, 2, spec)];
  });
  afterAll(() => target.close());

  it(`sends at most ${AUTH_BUDGET} requests in a default run`, () => {
    for (const { sent } of runs) expect(sent.length).toBeLessThanOrEqual(AUTH_BUDGET);
  });

  it('sends the same cases on every seed (only the random malformed values differ, and only on GET /users/me)', () => {
    const [one, two] = runs.map(({ sent }) =>
      sent
        .filter((s) => s.authorization !== 'random')
        .map(key)
        .sort(),
    );
    expect(two).toEqual(one);
    for (const { sent } of runs) {
      const random = sent.filter((s) => s.authorization === 'random');
      expect(new Set(random.map((s) => s.operation))).toEqual(new Set(['GET /users/me']));
    }
  });

  it('sends every variant to GET /users/me', () => {
    const full = runs[0]!.sent.filter((s) => s.operation === 'GET /users/me');
    const withUser = new Set(
      full.filter((s) => s.userId === 'valid' && s.authorization !== 'random').map((s) => s.authorization),
    );
    expect([...withUser].sort()).toEqual(['absent', 'wrong', ...AUTH_FIXED].sort());
    const withKey = new Set(full.filter((s) => s.authorization === 'valid').map((s) => s.userId));
    expect([...withKey].sort()).toEqual(['absent', 'wrong', ...USER_FIXED].sort());
    expect(full.some((s) => s.authorization === 'absent' && s.userId === 'absent')).toBe(true);
  });

  it('probes each credential of every operation, with every check that applies to it', () => {
    const { sent, report } = runs[0]!;
    const judged = report.results.filter((r) => r.suite === 'auth' && r.status !== 'skipped');
    for (const r of judged)
      expect(
        sent.some((s) => s.check === r.id && s.operation === r.operation),
        `${r.id} ${r.operation} ${JSON.stringify(sent.filter((s) => s.check === r.id))}`,
      ).toBe(true);
    for (const op of spec.operations.filter(
      (o) => o.requiresCredentials && judged.some((r) => r.operation === `${o.method} ${o.path}`),
    )) {
      const on = sent.filter((s) => s.operation === `${op.method} ${op.path}`);
      if (op.credentials.includes('bearer'))
        expect(
          on.some((s) => s.authorization !== 'valid'),
          `${op.method} ${op.path} bearer`,
        ).toBe(true);
      if (op.credentials.includes('userId'))
        expect(
          on.some((s) => s.userId !== 'valid'),
          `${op.method} ${op.path} user id`,
        ).toBe(true);
    }
  });
});

/** Lets a request through when `skip` says the operation does not check that credential. */
function skipping(skip: 'bearer' | 'userId') {
  return (_app: unknown, internals: ReferenceInternals) => {
    const original = internals.authenticate.bind(internals);
    internals.authenticate = (op, headers) => {
      const bearerOk = headers['authorization'] === `Bearer ${internals.store.apiKey}`;
      const userOk = headers['x-user-id'] === internals.store.userId;
      return original(op, headers) || (skip === 'bearer' ? userOk : bearerOk);
    };
  };
}

describe('auth: an operation that skips one credential is caught on that operation', () => {
  for (const credential of ['bearer', 'userId'] as const) {
    it(`fails on every operation needing both credentials when the ${credential} is never checked`, async () => {
      const target = await startTarget({ configure: skipping(credential) });
      try {
        const spec = await referenceSpec();
        const { report } = await authRun(target, 7, spec);
        const both = spec.operations.filter(
          (o) => o.requiresCredentials && o.credentials.length === 2 && !o.sideEffects,
        );
        expect(both.length).toBeGreaterThan(5);
        const failed = new Set(report.results.filter((r) => r.status === 'failed').map((r) => r.operation));
        for (const op of both)
          expect(
            failed.has(`${op.method} ${op.path}`),
            `${op.method} ${op.path}\n${describeResults(report.results)}`,
          ).toBe(true);
      } finally {
        await target.close();
      }
    });
  }
});
