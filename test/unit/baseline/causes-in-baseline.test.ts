/**
 * One cause, one finding, in the baseline too (issue 22 item 5): --write-baseline writes each
 * entry's cause and groups the entries under it, so a reviewer sees one wrong header with the
 * checks it touched; the cause is shown, never matched, and a file without causes reads as before.
 */
import { describe, expect, it } from 'vitest';
import { applyBaseline, causesOfFindings, entriesToWrite } from '../../../src/baseline/apply.js';
import { parseBaseline, serializeBaseline, TODO_REASON } from '../../../src/baseline/file.js';
import type { CheckResult, Failure, RunReport } from '../../../src/results/model.js';

const header = (name: string): Failure => ({
  kind: 'schema',
  field: { location: 'response-header', pointer: `/${name}`, status: '200' },
  expected: 'an integer',
  actual: 'soon',
});
const accepted = (pointer: string): Failure => ({
  kind: 'accepted-invalid',
  field: { location: 'body', pointer },
  expected: '422',
  actual: '201',
  response: { status: 201, headers: {}, duration_ms: 1 },
});

function failed(id: string, operation: string, failures?: Failure[]): CheckResult {
  return {
    id,
    suite: id.split('.')[0] as CheckResult['suite'],
    operation,
    status: 'failed',
    message: `${id} failed`,
    rule: 'r',
    contract_ref: '8',
    severity: 'major',
    duration_ms: 1,
    requests: 1,
    ...(failures ? { failures } : {}),
  };
}

/** One wrong X-RateLimit-Reset seen by three checks, and one unrelated accepted value. */
const RUN: Pick<RunReport, 'results'> = {
  results: [
    failed('schema.response-conforms', 'GET /agents', [header('x-ratelimit-reset')]),
    failed('stateful.create-read', 'POST /agents', [header('X-RateLimit-Reset')]),
    failed('ratelimit.headers-present', 'GET /protected', [header('x-ratelimit-reset')]),
    failed('ranges.max-concurrency-above-maximum', 'POST /campaign', [accepted('/max_concurrency')]),
    failed('schema.old-report', 'GET /calls'),
  ],
};
const RESET = 'schema response-header /x-ratelimit-reset @ *';

describe('--write-baseline writes the cause of each entry', () => {
  it('gives every finding the key of its cause; a result without failures has its check and operation', () => {
    const causes = causesOfFindings(RUN);
    expect(causes.get('schema.response-conforms\u0000GET /agents\u0000schema response-header /x-ratelimit-reset')).toBe(
      RESET,
    );
    expect(causes.get('stateful.create-read\u0000POST /agents\u0000schema response-header /x-ratelimit-reset')).toBe(
      RESET,
    );
    expect(causes.get('ranges.max-concurrency-above-maximum\u0000POST /campaign\u0000status:2xx')).toBe(
      'accepted-invalid body /max_concurrency @ /campaign',
    );
    expect(causes.get('schema.old-report\u0000GET /calls\u0000mismatch')).toBe('schema.old-report GET /calls');
    expect(causes.size).toBe(5);
  });

  it('groups the entries under their cause, one comment naming it with the checks it touched', () => {
    const text = serializeBaseline(entriesToWrite(RUN));
    const body = text.slice(text.indexOf('findings:\n'));
    expect(body.match(/# cause: .*/g)).toEqual([
      '# cause: accepted-invalid body /max_concurrency @ /campaign (1 finding)',
      `# cause: ${RESET} (3 findings in 3 checks)`,
      '# cause: schema.old-report GET /calls (1 finding)',
    ]);
    // The three entries of the header cause follow its comment, one after another.
    const group = body.slice(body.indexOf(`# cause: ${RESET}`), body.indexOf('# cause: schema.old-report'));
    expect(group.match(/- check: \S+/g)).toEqual([
      '- check: ratelimit.headers-present',
      '- check: schema.response-conforms',
      '- check: stateful.create-read',
    ]);
    expect(group.match(/cause: .*/g)?.slice(1)).toEqual([`cause: ${RESET}`, `cause: ${RESET}`, `cause: ${RESET}`]);
    // Read back and written again: the same bytes.
    expect(serializeBaseline(parseBaseline(text, 'b.yaml').findings)).toBe(text);
  });

  it("an entry kept from --baseline keeps its reason and expiry and takes this run's cause; one not seen keeps its own", () => {
    const previous = parseBaseline(
      [
        'version: 1',
        'findings:',
        '  - check: schema.response-conforms',
        '    operation: GET /agents',
        '    kind: schema response-header /x-ratelimit-reset',
        '    reason: API-7, header fixed next sprint',
        '    expires: 2027-01-31',
        '  - check: auth.gone',
        '    operation: GET /x',
        '    kind: status:5xx',
        '    reason: API-9',
        '    cause: an old cause',
        '',
      ].join('\n'),
      'b.yaml',
    );
    const entries = entriesToWrite(RUN, previous);
    expect(entries.find((e) => e.check === 'schema.response-conforms')).toEqual({
      check: 'schema.response-conforms',
      operation: 'GET /agents',
      kind: 'schema response-header /x-ratelimit-reset',
      reason: 'API-7, header fixed next sprint',
      expires: '2027-01-31',
      cause: RESET,
    });
    expect(entries.find((e) => e.check === 'auth.gone')?.cause).toBe('an old cause');
    expect(entries.find((e) => e.check === 'stateful.create-read')?.reason).toBe(TODO_REASON);
  });
});

describe('reading a baseline: the cause is shown, never matched', () => {
  const report = {
    results: RUN.results,
    summary: { passed: 0, failed: 5, skipped: 0, errors: 0, requests: 5, duration_ms: 1, observations: 0 },
  } as unknown as RunReport;

  it('a file written before causes (no cause key) still marks the findings known', () => {
    const old = parseBaseline(
      'version: 1\nfindings:\n  - check: ranges.max-concurrency-above-maximum\n    operation: POST /campaign\n    kind: status:2xx\n    reason: API-1, tracked\n',
      'old.yaml',
    );
    expect(old.findings[0]).not.toHaveProperty('cause');
    const marked = applyBaseline(report, old, { file: 'old.yaml', today: '2026-11-25' });
    expect(marked.results.find((r) => r.id === 'ranges.max-concurrency-above-maximum')?.baseline?.known).toBe(true);
  });

  it('an entry whose cause reads differently still matches by check, operation and kind', () => {
    const other = parseBaseline(
      'version: 1\nfindings:\n  - check: ranges.max-concurrency-above-maximum\n    operation: POST /campaign\n    kind: status:2xx\n    reason: API-1, tracked\n    cause: renamed since\n',
      'b.yaml',
    );
    expect(other.findings[0]?.cause).toBe('renamed since');
    const marked = applyBaseline(report, other, { file: 'b.yaml', today: '2026-11-25' });
    expect(marked.results.find((r) => r.id === 'ranges.max-concurrency-above-maximum')?.baseline?.known).toBe(true);
    expect(marked.baseline?.not_observed).toEqual([]);
  });
});
