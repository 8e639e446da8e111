/**
 * The baseline's pure parts, clause by clause (the mutation run of src/baseline showed which went
 * unasserted): the file's exact text and order, each refusal of parseBaseline with its line, the
 * signature kinds read from `kind` and `field`, and what --write-baseline keeps or prunes.
 */
import { describe, expect, it } from 'vitest';
import { entriesToWrite, prunable } from '../../../src/baseline/apply.js';
import { compareEntries, parseBaseline, serializeBaseline, type BaselineEntry } from '../../../src/baseline/file.js';
import { kindOfFailure, kindsOfFailure, kindsOfResult } from '../../../src/baseline/kind.js';
import type { CheckResult, Failure } from '../../../src/results/model.js';

const entry = (check: string, operation: string, kind: string, extra: Partial<BaselineEntry> = {}): BaselineEntry => ({
  check,
  operation,
  kind,
  reason: 'r',
  ...extra,
});

describe('the baseline file: its text', () => {
  it('is written sorted by check, then operation, then kind, with a header and expires only where set', () => {
    const text = serializeBaseline([
      entry('b.check', 'GET /a', 'status:4xx'),
      entry('a.check', 'POST /b', 'mismatch', { expires: '2027-01-31' }),
      entry('a.check', 'GET /z', 'status:5xx'),
      entry('a.check', 'GET /z', 'content-type'),
    ]);
    expect(text).toBe(
      '# vapc baseline: known findings that `vapc run --baseline FILE` reports apart and does not fail on.\n' +
        '# One entry per (check, operation, kind). Give each a reason; an entry past its `expires` date\n' +
        '# (YYYY-MM-DD) fails again. Written by --write-baseline; see docs/baseline.md.\n' +
        'version: 1\n' +
        'findings:\n' +
        '  - check: a.check\n    operation: GET /z\n    kind: content-type\n    reason: r\n' +
        '  - check: a.check\n    operation: GET /z\n    kind: status:5xx\n    reason: r\n' +
        '  - check: a.check\n    operation: POST /b\n    kind: mismatch\n    reason: r\n    expires: 2027-01-31\n' +
        '  - check: b.check\n    operation: GET /a\n    kind: status:4xx\n    reason: r\n',
    );
    expect(parseBaseline(text, 'b.yaml').findings).toHaveLength(4);
  });

  it('compareEntries orders by each part in turn and says equal only for the same signature', () => {
    expect(compareEntries(entry('a', 'x', 'k'), entry('b', 'a', 'a'))).toBe(-1);
    expect(compareEntries(entry('b', 'a', 'a'), entry('a', 'x', 'k'))).toBe(1);
    expect(compareEntries(entry('a', 'x', 'k'), entry('a', 'y', 'a'))).toBe(-1);
    expect(compareEntries(entry('a', 'x', 'b'), entry('a', 'x', 'a'))).toBe(1);
    expect(compareEntries(entry('a', 'x', 'k'), entry('a', 'x', 'k', { reason: 'other' }))).toBe(0);
  });
});

describe('the baseline file: what parseBaseline refuses, with the line', () => {
  const refusal = (text: string): string => {
    try {
      parseBaseline(text, 'f.yaml');
    } catch (error) {
      expect((error as { code?: string }).code).toBe('E_BASELINE');
      return (error as Error).message;
    }
    return 'accepted';
  };
  const one = (fields: string) => `version: 1\nfindings:\n  - check: c\n    operation: GET /x\n${fields}`;

  it('an empty file, an empty document and findings: null are an empty baseline', () => {
    for (const text of ['', '---\n', "''\n", 'version: 1\n', 'version: 1\nfindings:\n', 'findings: ~\n']) {
      expect(parseBaseline(text, 'f.yaml'), JSON.stringify(text)).toEqual({ version: 1, findings: [] });
    }
  });

  it('not YAML, not a mapping, an unknown top-level key, another version', () => {
    expect(refusal('findings: [\n')).toMatch(/^baseline f\.yaml:\d+: not valid YAML: /);
    expect(refusal('- a\n- b\n')).toBe('baseline f.yaml:1: expected a mapping with version: 1 and findings: [...]');
    expect(refusal('version: 1\nfinding: []\n')).toBe(
      'baseline f.yaml:2: unknown key "finding" (expected version, findings)',
    );
    expect(refusal('version: 2\n')).toBe('baseline f.yaml:1: version must be 1');
    expect(refusal('version: 1\nversion: 1\n')).toMatch(/^baseline f\.yaml:2: not valid YAML: /);
  });

  it('findings that are not a list, an entry that is not a mapping', () => {
    expect(refusal('version: 1\nfindings: many\n')).toBe('baseline f.yaml:2: findings must be a list');
    expect(refusal('version: 1\nfindings:\n  - just text\n')).toBe(
      'baseline f.yaml:3: finding 1: expected a mapping with check, operation, kind, reason',
    );
  });

  it('an unknown key, a value that is not a non-empty text, a missing key, a date that is not one', () => {
    expect(refusal(one('    kind: k\n    reason: r\n    owner: me\n'))).toBe(
      'baseline f.yaml:7: finding 1: unknown key "owner" (expected check, operation, kind, reason, expires, cause)',
    );
    expect(refusal(one('    kind: k\n    reason: "  "\n'))).toBe(
      'baseline f.yaml:6: finding 1: reason must be a non-empty text',
    );
    expect(refusal(one('    kind: k\n    reason:\n'))).toBe(
      'baseline f.yaml:6: finding 1: reason must be a non-empty text',
    );
    expect(refusal(one('    kind: [a, b]\n    reason: r\n'))).toBe(
      'baseline f.yaml:5: finding 1: kind must be a non-empty text',
    );
    expect(refusal(one('    kind: { a: 1 }\n    reason: r\n'))).toBe(
      'baseline f.yaml:5: finding 1: kind must be a non-empty text',
    );
    expect(refusal(one('    kind: k\n'))).toBe('baseline f.yaml:3: finding 1: missing reason');
    expect(refusal(one('    kind: k\n    reason: r\n    expires: 2027-02-30\n'))).toBe(
      'baseline f.yaml:7: finding 1: expires must be a date YYYY-MM-DD, got "2027-02-30"',
    );
    expect(
      refusal(one('    kind: k\n    reason: r\n  - check: c\n    operation: GET /x\n    kind: k\n    reason: again\n')),
    ).toBe('baseline f.yaml:7: finding 2 repeats finding 1 (same check, operation and kind)');
  });

  it('numbers and dates given as YAML scalars are read as their text', () => {
    const parsed = parseBaseline(one('    kind: 404\n    reason: r\n    expires: 2027-01-31\n'), 'f.yaml');
    expect(parsed.findings).toEqual([
      { check: 'c', operation: 'GET /x', kind: '404', reason: 'r', expires: '2027-01-31' },
    ]);
    expect(parseBaseline(one('    kind: k\n    reason: r\n'), 'f.yaml').findings[0]).not.toHaveProperty('expires');
  });
});

describe('signature kinds from kind and field', () => {
  const f = (over: Partial<Failure>): Failure => ({ expected: 'e', actual: 'a', ...over });
  const response = { status: 422, headers: {}, duration_ms: 1 };

  it('array indices of any length become *, at the end too; an empty pointer is /', () => {
    expect(kindOfFailure({ kind: 'schema', field: { location: 'response', pointer: '/12/calls/3' } })).toBe(
      'schema response /*/calls/*',
    );
    expect(kindOfFailure({ kind: 'schema', field: { location: 'response', pointer: '/a1/2b' } })).toBe(
      'schema response /a1/2b',
    );
    expect(kindOfFailure({ kind: 'invalid-json', field: { location: 'response', pointer: '' } })).toBe(
      'invalid-json response /',
    );
  });

  it('a status kind is the class answered, or no-response without an answer; other kinds stand alone without a field', () => {
    for (const kind of ['status', 'accepted-invalid', 'rejected-valid', 'undocumented-status']) {
      expect(kindOfFailure({ kind, response, field: { location: 'body', pointer: '/a' } })).toBe('status:4xx');
      expect(kindOfFailure({ kind })).toBe('no-response');
    }
    expect(kindOfFailure({ kind: 'mismatch', response })).toBe('mismatch');
    expect(kindsOfFailure(f({ kind: 'loc', field: { location: 'query', pointer: '/limit' } }))).toEqual([
      'loc query /limit',
    ]);
  });

  it('a result: the kinds of its failures, once each, sorted; none unless it failed', () => {
    const result = (failures: Failure[] | undefined, status: CheckResult['status'] = 'failed') =>
      ({ status, message: 'status 500', ...(failures ? { failures } : {}) }) as Pick<
        CheckResult,
        'status' | 'failures' | 'message'
      >;
    const a = f({ kind: 'mismatch' });
    const b = f({ kind: 'content-type' });
    expect(kindsOfResult(result([a, b, a]))).toEqual(['content-type', 'mismatch']);
    expect(kindsOfResult(result([a], 'passed'))).toEqual([]);
    // An old report's result without failures: its message, read as the old wording.
    expect(kindsOfResult(result(undefined))).toEqual(['status:5xx']);
    expect(kindsOfResult(result([]))).toEqual(['status:5xx']);
  });
});

describe('--write-baseline and --prune-baseline', () => {
  const failed = (id: string, operation: string): CheckResult =>
    ({
      id,
      operation,
      status: 'failed',
      message: 'm',
      failures: [{ kind: 'mismatch', expected: 'e', actual: 'a' }],
    }) as unknown as CheckResult;
  const passed = (id: string, operation: string): CheckResult =>
    ({ id, operation, status: 'passed', message: 'm' }) as unknown as CheckResult;

  it('keeps entries not seen this run unless pruning drops those whose pair passed', () => {
    const previous = {
      version: 1 as const,
      findings: [entry('a.x', 'GET /p', 'status:4xx'), entry('a.y', 'GET /q', 'mismatch')],
    };
    const report = { results: [failed('a.z', 'GET /r'), passed('a.x', 'GET /p')] };
    const sig = (e: BaselineEntry) => `${e.check} ${e.operation} ${e.kind}`;
    expect(entriesToWrite(report, previous).map(sig).sort()).toEqual([
      'a.x GET /p status:4xx',
      'a.y GET /q mismatch',
      'a.z GET /r mismatch',
    ]);
    expect(entriesToWrite(report, previous, false).map(sig).sort()).toEqual([
      'a.x GET /p status:4xx',
      'a.y GET /q mismatch',
      'a.z GET /r mismatch',
    ]);
    expect(entriesToWrite(report, previous, true).map(sig).sort()).toEqual([
      'a.y GET /q mismatch',
      'a.z GET /r mismatch',
    ]);
    expect(entriesToWrite(report, undefined, true).map(sig)).toEqual(['a.z GET /r mismatch']);
  });

  it('a pair that failed anywhere is not prunable, even where it also passed', () => {
    const previous = { version: 1 as const, findings: [entry('a.x', 'GET /p', 'status:4xx')] };
    expect(prunable(previous, { results: [passed('a.x', 'GET /p'), failed('a.x', 'GET /p')] })).toEqual([]);
    expect(prunable(previous, { results: [failed('a.x', 'GET /p'), passed('a.x', 'GET /p')] })).toEqual([]);
    expect(prunable(previous, { results: [passed('a.x', 'GET /p'), passed('a.x', 'GET /p')] })).toEqual(
      previous.findings,
    );
  });
});
