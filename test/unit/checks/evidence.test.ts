// No pass without evidence: a check passes only on an answer it judged. One that recorded no probe
// at all judged nothing, so it is skipped with a reason, never passed (issue 22, STYLE "What to avoid").
import { describe, expect, it } from 'vitest';
import { NO_PROBE_REASON, passWithEvidence } from '../../../src/checks/evidence.js';
import { Findings, OK, RATE_LIMITED, recordedFailures } from '../../../src/checks/outcomes.js';
import type { Failure } from '../../../src/results/model.js';

describe('passWithEvidence', () => {
  it('passes a check with one judged answer', () => {
    expect(
      passWithEvidence({ judged: 1, unjudged: ['rate limited (429)'], why: [{ cause: 'rate-limited' }] }, 'ok'),
    ).toEqual({
      status: 'passed',
      message: 'ok',
    });
  });

  it('skips a check whose every answer judged nothing, naming why', () => {
    expect(
      passWithEvidence(
        { judged: 0, unjudged: ['rate limited (429)'], why: [{ cause: 'rate-limited', status: 429 }] },
        'ok',
      ),
    ).toEqual({
      status: 'skipped',
      message: 'not judged: rate limited (429)',
      notJudged: { cause: 'rate-limited', status: 429 },
    });
  });

  it('skips a check that recorded no probe at all, with a reason: it has nothing to pass on', () => {
    expect(passWithEvidence({ judged: 0, unjudged: [], why: [] }, 'ok')).toEqual({
      status: 'skipped',
      message: NO_PROBE_REASON,
      notJudged: { cause: 'runner' },
    });
    expect(NO_PROBE_REASON).toMatch(/^not judged: /);
  });
});

describe('Findings.outcome', () => {
  it('an empty Findings is a skip, not a pass', () => {
    expect(new Findings().outcome('every field answered as the contract allows')).toEqual({
      status: 'skipped',
      message: NO_PROBE_REASON,
      notJudged: { cause: 'runner' },
    });
  });

  it('a judgement recorded inline (OK) is the evidence a pass needs', () => {
    const findings = new Findings();
    findings.add(RATE_LIMITED);
    findings.add(OK);
    expect(findings.outcome('judged')).toEqual({ status: 'passed', message: 'judged' });
  });
});

describe('recordedFailures: which failures a result keeps is read from data, never from wording', () => {
  // 30 failures: 6 fields, 5 wordings each; the first 20 alone would keep 4 of the 6 fields.
  const failures: Failure[] = [];
  for (let field = 0; field < 6; field++) {
    for (let n = 0; n < 5; n++)
      failures.push({
        kind: 'accepted-invalid',
        field: { location: 'body', pointer: `/f${field}` },
        expected: '422',
        actual: `value ${n} accepted`,
      });
  }
  const fields = (kept: Failure[]) => [...new Set(kept.map((f) => f.field?.pointer))];

  it('keeps one failure of each finding first, then other wordings, at most 20, in their order', () => {
    const kept = recordedFailures(failures);
    expect(kept).toHaveLength(20);
    expect(fields(kept)).toEqual(['/f0', '/f1', '/f2', '/f3', '/f4', '/f5']);
    expect(kept.map((f) => failures.indexOf(f))).toEqual(
      [...kept.map((f) => failures.indexOf(f))].sort((a, b) => a - b),
    );
  });

  it('the same findings are kept when every text is renamed; the same words at two fields are two failures', () => {
    const renamed = failures.map((f) => ({ ...f, expected: 'x', actual: 'x' }));
    expect(fields(recordedFailures(renamed))).toEqual(fields(recordedFailures(failures)));
    expect(recordedFailures(renamed)).toHaveLength(6);
    // Without a kind (a custom check's, an old report's): the words decide, as before.
    expect(
      recordedFailures([
        { expected: 'a', actual: 'b' },
        { expected: 'a', actual: 'b' },
        { expected: 'a', actual: 'c' },
      ]),
    ).toHaveLength(2);
  });
});
