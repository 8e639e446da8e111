/**
 * The stateful suite's records: a campaign of the check's own, the skips when none can be made, a
 * valid request refused, and the repro of a failure on a record the check created and wrote to.
 */
import type { CheckContext, CheckOutcome } from '../../src/checks/check.js';
import { judgeAnswer } from '../../src/checks/judge.js';
import { FAILURE_KINDS as KIND, type NotJudged } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { missingFixtures } from '../../src/generators/index.js';
import { FIXTURES } from '../fixtures.js';
import { createWith, openRule, Findings, fail, label, skipped, statusText, type Judgement } from '../lib.js';

export const byId = (id: string) => (op: Operation) => op.id === id;
export const opById = (ctx: CheckContext, id: string): Operation | undefined =>
  ctx.spec.operations.find((o) => o.id === id);

/** A campaign of the check's own, created with the pairing the run learned (or why none could be made). */
export async function createCampaign(
  ctx: CheckContext,
  create: Operation,
  salt: number,
): Promise<{ exchange?: Exchange; body: Record<string, unknown>; id?: string; reason?: string }> {
  const made = await createWith(ctx, create, salt);
  return { ...made, body: made.body ?? {} };
}

export function needFixtures(ctx: CheckContext, op: Operation): string | undefined {
  const missing = missingFixtures(op, { fixtures: ctx.fixtures, fixtureSpecs: FIXTURES });
  return missing.length ? `fixture ${missing.join(', ')} missing (needed for a valid ${label(op)} body)` : undefined;
}

/** The create a check makes its own campaign with, or its skip: no create operation, or the fixtures a valid body needs missing. */
export function campaignCreate(ctx: CheckContext): { create: Operation } | { skip: CheckOutcome } {
  const create = opById(ctx, 'createCampaign');
  if (!create) return { skip: skipped('no create operation', { cause: 'runner' }) };
  const missing = needFixtures(ctx, create);
  if (missing) return { skip: skipped(missing, { cause: 'plan' }) };
  return { create };
}

/**
 * A valid request refused: through the one start (no answer and a 5xx fail, a 429 judges nothing),
 * then a failure, unless the refusal is a rule the contract leaves to the server (openRule: a 403
 * these credentials were served before is not one).
 */
export function refused(ctx: CheckContext, op: Operation, exchange: Exchange, what: string): Judgement {
  const expected = `${what} accepted`;
  const open = () => openRule(ctx, op, exchange, { valid: true, what, expected });
  return judgeAnswer(ctx, op, exchange, { what, expected, open }, (res) =>
    fail(ctx, exchange, expected, statusText(exchange), `${label(op)} refused ${what} (${res.status})`, undefined, {
      kind: KIND.status,
    }),
  );
}

/** The skip of a check whose campaign could not be created, its cause the refusal of the create. */
export const couldNotCreate = (made: { reason?: string; why?: NotJudged }): CheckOutcome =>
  skipped(`could not create a campaign (${made.reason ?? 'no reason given'})`, made.why ?? { cause: 'no-record' });

/**
 * A failure of a request that depends on earlier writes to the same record: its repro replays
 * them first (the request alone shows nothing on a fresh record, or a record moved on since), one
 * shell line: the writes && the request.
 */
export function withWrite(ctx: CheckContext, j: Judgement, writes: Exchange | readonly Exchange[]): Judgement {
  const list = Array.isArray(writes) ? writes : [writes as Exchange];
  if (j.ok || list.length === 0) return j;
  const replayed = list.map((w) => ctx.curl(w)).join(' && ');
  const repro = j.failure.repro ? `${replayed} && ${j.failure.repro}` : replayed;
  return { ...j, failure: { ...j.failure, repro } };
}

/**
 * The failures of a check judged on a record it created: each repro says so, naming the create as
 * a shell comment at its end (`# after: <create>`). Replaying the create would make another
 * record with another id, so the line stays runnable on the record the run made.
 */
export function afterCreate(ctx: CheckContext, findings: Findings, create: Exchange | undefined): Findings {
  if (!create) return findings;
  const note = afterNote(ctx, create);
  for (const f of findings.failures) if (f.repro && !f.repro.endsWith(note)) f.repro += note;
  return findings;
}

const afterNote = (ctx: CheckContext, create: Exchange): string => `  # after: ${ctx.curl(create)}`;

/** One failure on a record the check created, after `writes` to it: the writes replayed first, the create named last (see afterCreate). */
export function onRecord(
  ctx: CheckContext,
  j: Judgement,
  record: { create?: Exchange; writes: readonly Exchange[] },
): Judgement {
  const replayed = withWrite(ctx, j, record.writes);
  if (replayed.ok || !record.create || !replayed.failure.repro) return replayed;
  return {
    ...replayed,
    failure: { ...replayed.failure, repro: `${replayed.failure.repro}${afterNote(ctx, record.create)}` },
  };
}
