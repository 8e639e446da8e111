/**
 * validation.malformed-json: a body that is not well-formed JSON is answered 422 with the
 * validation error body; a covering design over the operations that take a body.
 */
import { defineCheck } from '../../src/checks/check.js';
import type { Operation } from '../../src/spec/model.js';
import { malformedJsonExamples, type InvalidCase } from '../../src/generators/index.js';
import { coveringShare } from '../lib/covering.js';
import { Findings, baseBody, recordCost } from '../lib.js';
import { sendCase, targetFor } from './targets.js';

/**
 * The malformations sent to an operation. A malformed body fails in the JSON parser, before any
 * field is read, and a server usually has one parser for every operation: so every malformation
 * goes to the operation that takes a body on a path of its own (POST /campaign, the first a client
 * calls and where a parser is set up), and each operation on a record's path is sent one, in a fixed
 * rotation over the operations in contract order, so a per-route parser is still tried and every
 * seed sends the same bodies. Not seen: a per-route parser that takes one malformation and refuses
 * another, on the operations with a path parameter.
 */
export function malformationsFor(spec: { operations: Operation[] }, op: Operation, base: unknown): InvalidCase[] {
  return coveringShare(spec, op, malformedJsonExamples(base));
}

export const malformedJsonCheck = defineCheck({
  id: 'validation.malformed-json',
  suite: 'validation',
  rule: 'A body that is not well-formed JSON is answered 422 with the validation error body (every malformation on the operation without a path parameter, one each in rotation on the others)',
  contractRef: '2.8, 4, 7',
  severity: 'major',
  core: true,
  appliesTo: (op) => Boolean(op.requestBody),
  plannedRequests: (op, _runs, spec) => malformationsFor(spec, op, {}).length + recordCost(op, spec),
  plannedCases: (op, spec) => [
    `body: ${malformationsFor(spec, op, {})
      .map((k) => k.description.replace(/^malformed JSON \((.*)\)$/, '$1'))
      .join(', ')}`,
  ],
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 17);
    if ('skip' in target) return target.skip;
    const base = baseBody(ctx, op, 17, [], target.record);
    target.base = base;
    const findings = new Findings();
    for (const kase of malformationsFor(ctx.spec, op, base)) findings.add(await sendCase(ctx, op, target, kase));
    return findings.outcome('422 with the validation error body for malformed JSON');
  },
});
