/**
 * validation.non-integer-query: an integer query parameter given a word or a fraction is answered
 * 422 naming the parameter; all of them packed into one request per value.
 */
import { defineCheck } from '../../src/checks/check.js';
import type { Operation } from '../../src/spec/model.js';
import { integerQueryParams, nonIntegerQueryExamples } from '../../src/generators/index.js';
import { probePacked } from '../lib/packed.js';
import { Findings, skipped } from '../lib.js';
import { sendCase, sendTogether } from './targets.js';

/** The non-integer values every integer query parameter is given (nonIntegerQueryExamples: a word, a fraction), one packed request each. */
const nonIntegerRounds = (op: Operation): string[] => [
  ...new Set(nonIntegerQueryExamples(op).map((k) => String(k.value))),
];

export const nonIntegerQueryCheck = defineCheck({
  id: 'validation.non-integer-query',
  suite: 'validation',
  rule: 'An integer query parameter given a non-integer value (a word, a decimal) is answered 422 with the validation error body naming the parameter (every parameter judged on its own: all of them in one request, each counted only when the 422 names it, the others sent again without it)',
  contractRef: '4.1, 2.8, 7',
  severity: 'major',
  appliesTo: (op) => integerQueryParams(op).length > 0,
  plannedRequests: (op) => nonIntegerRounds(op).length,
  plannedCases: (op) =>
    integerQueryParams(op).map(
      (p) =>
        `query ${p.name}: ${nonIntegerQueryExamples(op)
          .filter((k) => k.field === p.name)
          .map((k) => k.value)
          .join(' ')}`,
    ),
  async run(ctx, op) {
    const examples = nonIntegerQueryExamples(op);
    if (!examples.length) return skipped('no integer query parameter', { cause: 'runner' });
    const findings = new Findings();
    // The fixed word and fraction reach every parameter on every seed; random ones repeat them.
    for (const value of nonIntegerRounds(op)) {
      await probePacked(
        ctx,
        findings,
        examples.filter((k) => k.value === value),
        {
          together: (open) => sendTogether(ctx, op, { values: {} }, open, {}),
          alone: (kase) => sendCase(ctx, op, { values: {} }, kase),
        },
      );
    }
    return findings.outcome('422 naming the parameter for non-integer query values');
  },
});
