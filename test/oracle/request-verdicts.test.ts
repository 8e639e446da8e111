// One oracle, requests (issue 35, point 4): the corpus of test/helpers/oracle.ts (fast-check cases
// from the project's generators, valid and invalid for every operation, fixed seed) judged by the
// project's validators on the wire request (the runner's view) and by the middleware on each
// framework, and by `vapc drift` on the corpus recorded as NDJSON (test/helpers/oracle-drift.ts).
// Every judge must agree with what each case was made to be, and so with each other: 0 disagreements.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceSpec } from '../../src/server/index.js';
import type { SpecModel } from '../../src/spec/model.js';
import { FRAMEWORKS, middlewareJudge } from '../helpers/middleware-apps.js';
import { driftOracle, type DriftOracle } from '../helpers/oracle-drift.js';
import {
  disagreement,
  oracleCases,
  validatorsJudge,
  type OracleCase,
  type RequestJudge,
  type RequestVerdict,
} from '../helpers/oracle.js';

const SEED = 35;
let spec: SpecModel;
let cases: OracleCase[];
let drift: DriftOracle;
const judges: Array<RequestJudge & { close?: () => Promise<void> }> = [];

beforeAll(async () => {
  spec = await referenceSpec();
  cases = oracleCases(spec, SEED);
  drift = await driftOracle(cases);
  judges.push(validatorsJudge(spec), ...(await Promise.all(FRAMEWORKS.map((f) => middlewareJudge(f)))), drift);
});
afterAll(() => Promise.all(judges.map((j) => j.close?.())));

describe('one oracle: request verdicts', () => {
  it('the corpus holds valid and invalid cases for every operation, of every kind the generators make', () => {
    const ops = new Set(cases.map((c) => c.operationId));
    expect([...ops].sort()).toEqual(spec.operations.map((o) => o.id).sort());
    for (const op of spec.operations)
      expect(cases.some((c) => c.operationId === op.id && c.intent === 'valid')).toBe(true);
    const kinds = new Set(cases.map((c) => c.intent));
    for (const kind of [
      'valid',
      'wrong-type',
      'enum',
      'below-minimum',
      'above-maximum',
      'malformed-json',
      'non-integer-query',
    ])
      expect(kinds).toContain(kind);
  });

  it('every judge agrees with every case: 0 disagreements', async () => {
    const found: string[] = [];
    for (const judge of judges) {
      for (const c of cases) {
        const problem = disagreement(c, await judge.judge(c));
        if (problem) found.push(`${judge.name}: ${c.id} (${c.request.method} ${c.request.url}): ${problem}`);
      }
    }
    expect(found.slice(0, 20)).toEqual([]);
    expect(cases.length * judges.length).toBeGreaterThan(1000);
  });

  it('can disagree: a judge that calls everything valid is caught on every invalid case', async () => {
    const lax: RequestJudge = { name: 'lax', judge: () => ({ valid: true }) };
    const invalid = cases.filter((c) => c.intent !== 'valid');
    const caught = invalid.filter((c) => disagreement(c, lax.judge(c) as { valid: boolean }) !== undefined);
    expect(caught.length).toBe(invalid.length);
    const misplaced = invalid.filter(
      (c) => c.intent !== 'malformed-json' && disagreement(c, { valid: false, locs: [['body', 'nowhere']] }),
    );
    expect(misplaced.length).toBe(invalid.filter((c) => c.intent !== 'malformed-json').length);
  });

  it("vapc drift's own judges agree on the same recording: each valid case's 500 is a finding, no invalid case's is", () => {
    expect(drift.err).toBe('');
    expect(drift.code).toBe(1);
    // robustness.no-5xx-valid judges the answers to valid requests on operations without outside effects.
    const judged = drift.report.results.filter((r) => r.id === 'robustness.no-5xx-valid' && r.status === 'failed');
    expect(judged.length).toBeGreaterThan(5);
    for (const result of judged) {
      const op = spec.operations.find((o) => `${o.method} ${o.path}` === result.operation)!;
      const valid = cases.filter((c) => c.operationId === op.id && c.intent === 'valid').length;
      expect(`${result.operation}: ${result.message}`).toContain(
        `(${valid} of the ${valid} recorded answer(s) judged failed)`,
      );
    }
    const withoutEffects = spec.operations.filter((o) => !o.sideEffects).map((o) => `${o.method} ${o.path}`);
    expect(judged.map((r) => r.operation).sort()).toEqual(withoutEffects.sort());
  });

  it('the drift judge can disagree: under a --base-path the recorded requests are off the contract, so none is judged', async () => {
    const off = await driftOracle(cases.slice(0, 40), { basePath: '/v2' });
    const found = cases.slice(0, 40).map((c) => disagreement(c, off.judge(c) as RequestVerdict));
    expect(found.every((f) => f === 'vapc drift did not judge the recorded request')).toBe(true);
    expect(off.code).toBe(3);
  });
});
