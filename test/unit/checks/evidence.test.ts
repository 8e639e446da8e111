// No pass without evidence: a check passes only on an answer it judged. One that recorded no probe
// at all judged nothing, so it is skipped with a reason, never passed (issue 22, STYLE "What to avoid").
import { describe, expect, it } from 'vitest';
import { NO_PROBE_REASON, passWithEvidence } from '../../../src/checks/evidence.js';
import { Findings, OK, RATE_LIMITED } from '../../../src/checks/outcomes.js';

describe('passWithEvidence', () => {
  it('passes a check with one judged answer', () => {
    expect(passWithEvidence({ judged: 1, unjudged: ['rate limited (429)'] }, 'ok')).toEqual({ status: 'passed', message: 'ok' });
  });

  it('skips a check whose every answer judged nothing, naming why', () => {
    expect(passWithEvidence({ judged: 0, unjudged: ['rate limited (429)'] }, 'ok')).toEqual({ status: 'skipped', message: 'not judged: rate limited (429)' });
  });

  it('skips a check that recorded no probe at all, with a reason: it has nothing to pass on', () => {
    expect(passWithEvidence({ judged: 0, unjudged: [] }, 'ok')).toEqual({ status: 'skipped', message: NO_PROBE_REASON });
    expect(NO_PROBE_REASON).toMatch(/^not judged: /);
  });
});

describe('Findings.outcome', () => {
  it('an empty Findings is a skip, not a pass', () => {
    expect(new Findings().outcome('every field answered as the contract allows')).toEqual({ status: 'skipped', message: NO_PROBE_REASON });
  });

  it('a judgement recorded inline (OK) is the evidence a pass needs', () => {
    const findings = new Findings();
    findings.add(RATE_LIMITED);
    findings.add(OK);
    expect(findings.outcome('judged')).toEqual({ status: 'passed', message: 'judged' });
  });
});
