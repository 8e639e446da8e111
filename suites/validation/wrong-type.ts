/**
 * validation.wrong-type: a body field of the wrong JSON type is answered 422 naming it; the fields
 * go packed into one request and each counts only when a 422 names it (suites/lib/packed.ts).
 */
import fc from 'fast-check';
import { defineCheck, type CheckContext } from '../../src/checks/check.js';
import type { Operation } from '../../src/spec/model.js';
import {
  nearMissWrongValue,
  strictNearMissWrongValue,
  typedFields,
  wrongTypeValue,
  wrongTypeOf,
  type FieldInfo,
} from '../../src/generators/index.js';
import { probePacked } from '../lib/packed.js';
import { Findings, baseBody, recordCost, skipped } from '../lib.js';
import { sendCase, sendTogether, targetFor } from './targets.js';

/**
 * The fields of an operation in packs that can share a request: no field in a pack holds another
 * (a wrong `speech_settings` would hide a wrong `speech_settings.style`), so the innermost fields
 * go first and each parent in the pack after its deepest member.
 */
export function fieldPacks(fields: readonly FieldInfo[]): FieldInfo[][] {
  const inside = (child: FieldInfo, parent: FieldInfo) =>
    child !== parent && child.pointer.startsWith(`${parent.pointer}/`);
  const height = (f: FieldInfo): number => Math.max(0, ...fields.filter((c) => inside(c, f)).map((c) => height(c) + 1));
  const packs: FieldInfo[][] = [];
  for (const f of fields) (packs[height(f)] ??= []).push(f);
  return packs.filter((p) => p.length > 0);
}

/** The wrong values a field is given, one per round: the near miss, (strict types) the coerced one, and one drawn by the seed. */
function wrongValues(
  ctx: CheckContext,
  f: FieldInfo,
  i: number,
  drawn: boolean,
): Array<{ value: unknown } | undefined> {
  const arb = wrongTypeValue(f.schema, ctx.strictTypes);
  const near = nearMissWrongValue(f.schema);
  const coerced = ctx.strictTypes ? strictNearMissWrongValue(f.schema) : undefined;
  const sample = () => (arb ? { value: fc.sample(arb, { seed: ctx.seed + i, numRuns: 1 })[0] } : undefined);
  return [
    near !== undefined ? { value: near } : sample(),
    coerced !== undefined ? { value: coerced } : undefined,
    drawn ? sample() : undefined,
  ];
}

/** Rounds of wrong values (near miss, strict, drawn): how many are sent per pack. */
const wrongRounds = (op: Operation, runs: number, strictTypes: boolean | undefined): number =>
  1 +
  (strictTypes && typedFields(op).some((f) => strictNearMissWrongValue(f.schema) !== undefined) ? 1 : 0) +
  (Math.min(runs, DRAWN) > 0 ? 1 : 0);

/** One packed round of wrong values after the fixed ones, each field's drawn by the seed. */
const DRAWN = 1;

export const wrongType = defineCheck({
  id: 'validation.wrong-type',
  suite: 'validation',
  rule: 'A body field of the wrong JSON type is answered 422 with the validation error body naming the field in loc (every field judged on its own: packed into one request, each field counted only when the 422 names it, the others sent again without it)',
  contractRef: '2.8, 4, 7',
  severity: 'major',
  core: true,
  appliesTo: (op) => typedFields(op).length > 0,
  plannedRequests: (op, runs, spec, options) =>
    fieldPacks(typedFields(op)).length * wrongRounds(op, runs, options?.strictTypes) + recordCost(op, spec),
  async run(ctx, op) {
    const target = await targetFor(ctx, op, 11);
    if ('skip' in target) return target.skip;
    const fields = typedFields(op);
    // Per field: the near miss a hand-written check most often lets through (7 for a string, 2.5 for
    // an integer, [] for an object), with strict types what frameworks coerce, then one drawn by the seed.
    const values = fields.map((f, i) => wrongValues(ctx, f, i, Math.min(ctx.runs, DRAWN) > 0));
    if (!values.some((v) => v.some(Boolean))) return skipped('no field whose type can be broken', { cause: 'runner' });
    const findings = new Findings();
    // The body: the required fields and the top-level members under test, one wrong value per field.
    const baseOf = (fs: readonly FieldInfo[]) =>
      baseBody(ctx, op, 11, [...new Set(fs.map((f) => String(f.loc[0])))], target.record);
    target.base = baseOf([]);
    let cases = 0;
    for (let round = 0; round < 3; round++) {
      for (const pack of fieldPacks(fields)) {
        const kases = pack.flatMap((f) => {
          const v = values[fields.indexOf(f)]![round];
          return v ? [wrongTypeOf(baseOf([f]), f, v.value)] : [];
        });
        if (!kases.length) continue;
        cases += kases.length;
        await probePacked(ctx, findings, kases, {
          together: (open) =>
            sendTogether(ctx, op, target, open, baseOf(open.map((k) => fields.find((f) => f.loc === k.loc)!))),
          alone: async (kase) => {
            const j = await sendCase(ctx, op, target, kase);
            return j.ok ? j : { ...j, failure: { ...j.failure, input: ctx.redact(kase) } };
          },
        });
      }
    }
    return findings.outcome(`422 with the field named in loc for ${cases} wrong-type values`);
  },
});
