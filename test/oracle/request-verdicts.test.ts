// One oracle, requests (issue 35, point 4): the corpus of test/helpers/oracle.ts (fast-check cases
// from the project's generators, valid and invalid for every operation, fixed seed) judged by the
// project's validators on the wire request (the runner's view) and by the middleware on each
// framework. Every judge must agree with what each case was made to be, and so with each other:
// 0 disagreements. `vapc drift` joins as one more judge in JUDGES when it exists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceSpec } from '../../src/server/index.js';
import type { SpecModel } from '../../src/spec/model.js';
import { FRAMEWORKS, middlewareJudge } from '../helpers/middleware-apps.js';
import { disagreement, oracleCases, validatorsJudge, type OracleCase, type RequestJudge } from '../helpers/oracle.js';

const SEED = 35;
let spec: SpecModel;
let cases: OracleCase[];
const judges: Array<RequestJudge & { close?: () => Promise<void> }> = [];

beforeAll(async () => {
  spec = await referenceSpec();
  cases = oracleCases(spec, SEED);
  judges.push(validatorsJudge(spec), ...(await Promise.all(FRAMEWORKS.map((f) => middlewareJudge(f)))));
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
});
