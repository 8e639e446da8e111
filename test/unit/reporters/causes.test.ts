// One cause, one finding: failures grouped by (kind, normalised field, operation family), read from
// the failures' data, never their prose; each reporter shows a cause once, escaped.
import { describe, expect, it } from 'vitest';
import { causeLines, renderSummary } from '../../../src/reporters/console.js';
import { causeMarkdown, githubStepSummary } from '../../../src/reporters/github.js';
import { renderJunit } from '../../../src/reporters/junit.js';
import { causeKeysOf, causeLabel, familyOf, groupCauses, sharedCauseNotes } from '../../../src/results/causes.js';
import { normalisePointer } from '../../../src/results/model.js';
import { kindOfFailure } from '../../../src/baseline/kind.js';
import type { CheckResult, Failure, Suite } from '../../../src/results/model.js';
import { fixture } from '../../helpers/reports.js';

function failed(
  id: string,
  operation: string,
  failures: Failure[] | undefined,
  suite = id.split('.')[0] as Suite,
): CheckResult {
  return {
    id,
    suite,
    operation,
    status: 'failed',
    message: `${id} failed`,
    rule: 'r',
    contract_ref: '1',
    severity: 'major',
    duration_ms: 1,
    requests: 1,
    ...(failures ? { failures } : {}),
  };
}

const header = (name: string, status = '200'): Failure => ({
  kind: 'schema',
  field: { location: 'response-header', pointer: `/${name}`, status },
  expected: 'an integer',
  actual: 'soon',
});
const loc = (pointer: string, location = 'body'): Failure => ({
  kind: 'loc',
  field: { location, pointer },
  expected: 'loc names the field',
  actual: 'loc ["body"]',
});
const accepted = (pointer: string): Failure => ({
  kind: 'accepted-invalid',
  field: { location: 'body', pointer },
  expected: '422',
  actual: '201',
});

/** One wrong X-RateLimit-Reset seen by checks of three suites on many operations. */
const RESET_RUN: CheckResult[] = [
  failed('schema.response-conforms', 'GET /agents', [header('x-ratelimit-reset')]),
  failed('schema.response-conforms', 'POST /agents', [header('x-ratelimit-reset', '201')]),
  failed('stateful.create-read', 'POST /agents', [header('X-RateLimit-Reset', '201'), header('x-ratelimit-reset')]),
  failed('stateful.update-read', 'PATCH /agents/{id}', [header('x-ratelimit-reset')]),
  failed('ratelimit.headers-present', 'GET /protected', [header('x-ratelimit-reset')]),
];

describe('groupCauses', () => {
  it('one kind and field across suites, operations and statuses is one cause, counting every failure', () => {
    const causes = groupCauses(RESET_RUN);
    expect(causes).toHaveLength(1);
    const c = causes[0]!;
    expect(c).toMatchObject({
      kind: 'schema',
      location: 'response-header',
      pointer: '/x-ratelimit-reset',
      family: '*',
      failures: 6,
      results: 5,
    });
    expect(c.suites).toEqual(['schema', 'stateful', 'ratelimit']);
    expect(c.checks).toEqual([
      'schema.response-conforms',
      'stateful.create-read',
      'stateful.update-read',
      'ratelimit.headers-present',
    ]);
    expect(c.operations).toEqual(['GET /agents', 'POST /agents', 'PATCH /agents/{id}', 'GET /protected']);
  });

  it('different pointers, kinds or locations are different causes', () => {
    const causes = groupCauses([
      failed('schema.response-conforms', 'GET /agents', [header('x-ratelimit-reset'), header('x-ratelimit-limit')]),
      failed('validation.missing', 'POST /agents', [accepted('/name'), accepted('/voice')]),
      failed('validation.wrong-type', 'POST /agents', [
        { ...accepted('/name'), kind: 'status' },
        { ...accepted('/name'), field: { location: 'query', pointer: '/name' } },
      ]),
    ]);
    expect(causes.map((c) => c.key).sort()).toEqual(
      [
        'accepted-invalid body /name @ /agents',
        'accepted-invalid body /voice @ /agents',
        'accepted-invalid query /name @ /agents',
        'schema response-header /x-ratelimit-limit @ *',
        'schema response-header /x-ratelimit-reset @ *',
        'status body /name @ /agents',
      ].sort(),
    );
  });

  it('reads a pointer as the baseline does: one normalisation, header names in any case, `/` kept for old signatures', () => {
    const mixed = header('X-RateLimit-Reset');
    const [cause] = causeKeysOf(failed('ratelimit.a', 'GET /calls', [mixed]));
    expect(kindOfFailure({ ...mixed, kind: 'schema' })).toBe('schema response-header /x-ratelimit-reset');
    expect(cause).toBe('schema response-header /x-ratelimit-reset @ *');
    expect(kindOfFailure({ kind: 'schema', field: { location: 'response', pointer: '/0/items/12' } })).toBe(
      'schema response /*/items/*',
    );
    expect(normalisePointer('/')).toBe('/');
  });

  it('normalises array indices, keeps the method out of the family and other paths apart', () => {
    expect(normalisePointer('/detail/0/loc/12')).toBe('/detail/*/loc/*');
    expect(normalisePointer('/speech_settings/style')).toBe('/speech_settings/style');
    expect(normalisePointer('/X-RateLimit-Reset', 'response-header')).toBe('/x-ratelimit-reset');
    expect(normalisePointer('/Name', 'body')).toBe('/Name');
    expect(familyOf('PATCH /agents/{id}')).toBe('/agents/{id}');
    expect(familyOf('PATCH /agents/{id}', 'response-header')).toBe('*');
    expect(familyOf('*', 'body')).toBe('*');
    const causes = groupCauses([
      failed('validation.a', 'POST /agents', [accepted('/tools/0/name')]),
      failed('validation.b', 'PUT /agents', [accepted('/tools/3/name')]),
      failed('validation.a', 'POST /campaign', [accepted('/tools/0/name')]),
    ]);
    expect(causes.map((c) => [c.key, c.failures])).toEqual([
      ['accepted-invalid body /tools/*/name @ /agents', 2],
      ['accepted-invalid body /tools/*/name @ /campaign', 1],
    ]);
  });

  it('a 422 loc or body-shape fault is one cause per location on every operation, whatever field was sent', () => {
    const causes = groupCauses([
      failed('validation.wrong-type', 'POST /campaign', [loc('/name'), loc('/max_concurrency')]),
      failed('ranges.max-concurrency', 'PATCH /campaign/{campaign_id}', [loc('/max_concurrency')]),
      failed('validation.missing', 'POST /recipients', [loc('/phone', 'query')]),
      failed('validation.error-body-shape', 'POST /campaign', [{ ...loc('/name'), kind: 'validation-body' }]),
    ]);
    expect(causes.map((c) => [c.key, c.failures, c.results])).toEqual([
      ['loc body * @ *', 3, 2],
      ['loc query * @ *', 1, 1],
      ['validation-body body * @ *', 1, 1],
    ]);
    expect(causeLabel(causes[0]!)).toBe('loc at body, any field (all operations)');
  });

  it('a failure without kind or field falls back to its check and operation: nothing merged, nothing lost', () => {
    const noKind: Failure = { expected: 'x', actual: 'y' };
    const kindOnly: Failure = { kind: 'status', expected: 'x', actual: 'y' };
    const results = [
      failed('auth.a', 'GET /agents', [noKind, noKind]),
      failed('auth.b', 'GET /agents', [noKind]),
      failed('auth.a', 'GET /calls', undefined),
      failed('cors.c', 'GET /agents', [kindOnly]),
      failed('cors.d', 'GET /agents', [kindOnly]),
      { ...failed('auth.z', 'GET /agents', [header('x-ratelimit-reset')]), status: 'passed' as const },
    ];
    const causes = groupCauses(results);
    expect(causes.map((c) => [c.key, c.failures])).toEqual([
      ['auth.a GET /agents', 2],
      ['auth.a GET /calls', 1],
      ['auth.b GET /agents', 1],
      ['status (cors.c GET /agents)', 1],
      ['status (cors.d GET /agents)', 1],
    ]);
    expect(causes.reduce((n, c) => n + c.failures, 0)).toBe(6);
    expect(causeKeysOf(results[0]!)).toEqual(['auth.a GET /agents']);
  });

  it('notes a suite whose failures all share a cause with another suite, and only that', () => {
    const results = [
      ...RESET_RUN,
      failed('ratelimit.burst', 'GET /protected', [{ kind: 'status', expected: '429', actual: '200' }]),
    ];
    const notes = sharedCauseNotes(results, groupCauses(results));
    expect(notes.map((n) => [n.suite, n.failed])).toEqual([
      ['schema', 2],
      ['stateful', 2],
    ]);
    // A cause of one suite alone is no note.
    expect(sharedCauseNotes(RESET_RUN.slice(0, 2), groupCauses(RESET_RUN.slice(0, 2)))).toEqual([]);
  });
});

describe('the reporters show each cause once', () => {
  it('console: Causes (1) with its checks and operations, and a note under the suite table', () => {
    const report = { ...fixture('failing-run'), results: RESET_RUN };
    const text = renderSummary(report);
    expect(text).toContain('Causes (1) of 6 failures in 5 checks');
    expect(text).toContain('1. schema at response-header /x-ratelimit-reset (all operations): 6 failures in 3 suites');
    expect(text).toContain(
      '   checks:     schema.response-conforms, stateful.create-read, stateful.update-read, ratelimit.headers-present',
    );
    expect(text).toContain(
      'note: stateful: 2 failed, all from 1 cause shared with schema, ratelimit: schema at response-header /x-ratelimit-reset (all operations)',
    );
    // The causes come before the per-check failures, which stay listed.
    expect(text.indexOf('Causes (1)')).toBeLessThan(text.indexOf('Failures (5)'));
    expect(causeLines(RESET_RUN.slice(0, 1))).toEqual([]);
  });

  it('says nothing more when no cause touches two failed checks (a report without kinds)', () => {
    const report = fixture('failing-run');
    expect(groupCauses(report.results).every((c) => c.results === 1)).toBe(true);
    expect(renderSummary(report)).not.toContain('Causes (');
    expect(githubStepSummary(report)).not.toContain('### Causes');
    expect(causeMarkdown(RESET_RUN.slice(0, 2))).toContain(
      '| schema at response-header /x-ratelimit-reset \\(all operations\\) | 2 | schema | schema.response-conforms | GET /agents, POST /agents |',
    );
  });

  it('GitHub summary: one row per cause, escaped', () => {
    const md = githubStepSummary({ ...fixture('failing-run'), results: RESET_RUN });
    expect(md).toContain('### Causes (1) of 6 failures in 5 checks');
    expect(md).toContain(
      '| schema at response-header /x-ratelimit-reset \\(all operations\\) | 6 | schema, stateful, ratelimit |',
    );
    expect(md).toContain('- stateful: 2 failed, all from 1 cause shared with schema, ratelimit:');
  });

  it('untrusted kinds, pointers and operations are escaped in every output', () => {
    const hostile = (op: string): CheckResult =>
      failed('schema.x', op, [
        {
          kind: 'k|<b>\u001b[31m',
          field: { location: 'body\n::error::x', pointer: '/a|b/[x](http://e)' },
          expected: 'e',
          actual: 'a',
        },
      ]);
    const results = [hostile('GET /a|<img src=x>'), hostile('POST /a|<img src=x>')];
    const console = causeLines(results).join('\n');
    expect(console).not.toMatch(/[\u001b\n]::error/);
    expect(console).not.toContain('\u001b');
    const md = causeMarkdown(results).join('\n');
    expect(md).not.toContain('<img');
    expect(md).not.toContain('<b>');
    expect(md).not.toContain('](http');
    expect(md).not.toMatch(/[^\\]\|b/);
    const xml = renderJunit({ ...fixture('failing-run'), results });
    expect(xml).not.toContain('<img');
    expect(xml).toContain('cause: k|&lt;b&gt;');
  });

  it('JUnit keeps one testcase per check x operation and names the cause in each failure message', () => {
    const xml = renderJunit({ ...fixture('failing-run'), results: RESET_RUN });
    expect(xml.match(/<testcase /g)).toHaveLength(RESET_RUN.length);
    expect(xml.match(/message="[^"]*\| cause: schema response-header \/x-ratelimit-reset @ \*"/g)).toHaveLength(
      RESET_RUN.length,
    );
    expect(xml).toContain('cause: schema response-header /x-ratelimit-reset @ *\nexpected: an integer');
  });
});
