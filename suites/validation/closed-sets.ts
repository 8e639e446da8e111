/**
 * validation.enum-violation: a value outside a stated closed set (the update's status, the two
 * provider ids of the campaign channel) is answered 422 naming the field.
 */
import fc from 'fast-check';
import { defineCheck } from '../../src/checks/check.js';
import { wireParts } from '../../src/checks/wire.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import {
  enumCase,
  enumNearMiss,
  enumFields,
  providerIdFields,
  setPointer,
  type InvalidCase,
} from '../../src/generators/index.js';
import { contractFixtures } from '../fixtures.js';
import { withControl } from '../lib/control.js';
import {
  Findings,
  baseBody,
  checkProperty,
  judgeInvalid,
  label,
  recordCost,
  request,
  type InvalidJudgeOptions,
} from '../lib.js';
import { controlOf, sendCase, targetFor } from './targets.js';

/** The wire body's value at a top-level field, as the validators read it (wireParts), or undefined. */
function sentValue(op: Operation, exchange: Exchange, field: string): unknown {
  const split = wireParts(op, exchange);
  const body = split.ok ? split.parts.body : undefined;
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
}

/** Values drawn outside an enum after its near miss: any word outside it shows an unchecked enum, so one. */
const ENUM_DRAWN = 1;

export const enumViolation = defineCheck({
  id: 'validation.enum-violation',
  suite: 'validation',
  rule: 'A value outside a stated closed set is answered 422 with the validation error body naming the field: the campaign status of the update (an allowed value in upper case first), and the campaign channel outside the two provider ids (judged when the fixtures name both)',
  contractRef: '3.1, 4.2, 4.4, 2.8, 7',
  severity: 'major',
  appliesTo: (op) => enumFields(op).length > 0 || providerIdFields(op).some((f) => f.depth === 0),
  plannedRequests: (op, runs, spec) =>
    (enumFields(op).length ? enumFields(op).length + Math.min(runs, ENUM_DRAWN) : 0) +
    providerIdFields(op).filter((f) => f.depth === 0).length +
    recordCost(op, spec),
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 13);
    if ('skip' in target) return target.skip;
    // The enum cases set their field themselves; the body keeps the record's own status otherwise.
    const under = providerIdFields(op)
      .filter((f) => f.depth === 0)
      .map((f) => String(f.loc[0]));
    const base = baseBody(ctx, op, 13, under, target.record);
    target.base = base;
    const findings = new Findings();
    const cases = enumFields(op)
      .map((f) => enumCase(base, f))
      .filter((a): a is fc.Arbitrary<InvalidCase> => a !== undefined);
    if (cases.length) {
      // First an allowed value in upper case ("DRAFT"): a comparison ignoring case lets it in.
      const examples = enumFields(op)
        .map((f) => enumNearMiss(base, f))
        .filter((c): c is InvalidCase => c !== undefined);
      findings.add(
        await checkProperty(ctx, fc.oneof(...cases), (kase) => sendCase(ctx, op, target, kase), {
          examples,
          numRuns: Math.min(ctx.runs, ENUM_DRAWN),
        }),
      );
    }
    // The provider ids are a closed set the spec cannot list (the contract does not name them): judged
    // only when the run knows both, and on the wire body as sent.
    const channels = contractFixtures(ctx.fixtures).channels ?? [];
    for (const field of providerIdFields(op).filter((f) => f.depth === 0)) {
      if (channels.length < 2) {
        ctx.observe({
          operation: label(op),
          message: `${field.field} outside the provider ids not judged: the run knows ${channels.length} of the two (set fixtures.channels)`,
        });
        continue;
      }
      const value = 'vapc-not-a-provider';
      const kase: InvalidCase = {
        kind: 'enum',
        location: 'body',
        loc: field.loc,
        field: field.field,
        value,
        body: setPointer(base, field.pointer, value),
        description: `${field.field}=${JSON.stringify(value)} (one of the two provider ids ${channels.join(', ')})`,
      };
      const exchange = await ctx.send(request(op, ctx, { pathValues: target.values, json: kase.body }));
      const options: InvalidJudgeOptions = {
        stillInvalid: (ex) => !channels.includes(sentValue(op, ex, field.field) as string),
      };
      if (target.validRefused !== undefined) options.validRefused = target.validRefused;
      findings.add(
        await withControl(ctx, op, exchange, judgeInvalid(ctx, op, exchange, kase, options), {
          what: kase.description,
          expected: 'a value outside a closed set is answered 422 with the validation error body (sections 2.8, 7)',
          field: { location: 'body', pointer: field.pointer },
          input: value,
          control: controlOf(ctx, op, target),
        }),
      );
    }
    return findings.outcome('422 naming the field for values outside the closed sets');
  },
});
