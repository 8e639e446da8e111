/**
 * What `vapc run --write-baseline FILE` writes, byte for byte (docs/baseline.md, "The file"): a run
 * with several causes, several entries per cause, entries kept from an older --baseline with and
 * without `expires` and `cause`, keys that sort differently by other rules than character codes, a
 * response-header pointer in mixed case, and a failure message (an old report's prose, which the
 * kind is read from) with a non-ASCII and a YAML-special character. The expected text is
 * test/fixtures/baseline/written.yaml, written by hand from the doc, not from the writer's output.
 * Then the round trip, and a file written before entries had a `cause` (before-causes.yaml).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyBaseline,
  causesOfFindings,
  compareEntries,
  entriesToWrite,
  parseBaseline,
  serializeBaseline,
  type Baseline,
} from '../../../src/baseline/index.js';
import { kindOfFailure } from '../../../src/baseline/kind.js';
import { saveBaseline } from '../../../src/cli/baseline.js';
import type { CheckResult, Failure, RunReport } from '../../../src/results/model.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'baseline');
const WRITTEN = readFileSync(join(FIXTURES, 'written.yaml'), 'utf8');
const BEFORE_CAUSES = readFileSync(join(FIXTURES, 'before-causes.yaml'), 'utf8');
const DOC = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'baseline.md'), 'utf8');

function result(
  id: string,
  operation: string,
  failures: Failure[] | undefined,
  status: CheckResult['status'] = 'failed',
) {
  return {
    id,
    suite: id.split('.')[0] as CheckResult['suite'],
    operation,
    status,
    message: status === 'failed' ? 'status 503' : 'ok',
    rule: 'r',
    contract_ref: '8',
    severity: 'major',
    duration_ms: 1,
    requests: 1,
    ...(failures ? { failures } : {}),
  } satisfies CheckResult;
}
const resetHeader = (name: string): Failure[] => [
  {
    kind: 'schema',
    field: { location: 'response-header', pointer: `/${name}`, status: '200' },
    expected: 'an integer',
    actual: 'an HTTP date',
  },
];
const accepted = (pointer: string, status: number): Failure => ({
  kind: 'accepted-invalid',
  field: { location: 'body', pointer },
  expected: '422',
  actual: String(status),
  response: { status, headers: {}, duration_ms: 1 },
});
const loc = (pointer: string): Failure[] => [
  {
    kind: 'loc',
    field: { location: 'body', pointer },
    expected: 'loc names the field',
    actual: 'loc is ["body"]',
    response: { status: 422, headers: {}, duration_ms: 1 },
  },
];

/** The run, in an order unlike the file's. */
const RUN: RunReport['results'] = [
  // An old report's failure: prose only, its kinds read from the wording (src/results/legacy.ts).
  result('schema.old-report', 'GET /calls', [
    {
      expected: 'a body the schema allows',
      actual: 'body /naïve_field must match pattern "^[a-z]+: #x$", got "Ünïcode"; status 500',
    },
  ]),
  result('schema.response-conforms', 'GET /agents/item9', resetHeader('X-RateLimit-Reset')),
  result('ranges.max-concurrency-below-minimum', 'POST /campaign', [accepted('/max_concurrency', 201)]),
  result('schema.response-conforms', 'GET /agents/_search', resetHeader('x-ratelimit-reset')),
  result('validation.wrong-type', 'PATCH /agents/{id}', loc('/name')),
  // One finding (status:2xx) of two causes, the later key first.
  result('ranges.campaign-bounds', 'POST /campaign', [
    accepted('/timeout_seconds', 201),
    accepted('/max_concurrency', 200),
  ]),
  result('ratelimit.headers-present', 'GET /protected', resetHeader('X-RateLimit-Reset')),
  result('ranges.max-concurrency-above-maximum', 'POST /campaign', [
    accepted('/max_concurrency', 500),
    accepted('/max_concurrency', 201),
  ]),
  result('schema.response-conforms', 'GET /agents/Batch', resetHeader('X-Ratelimit-Reset')),
  result('validation.required-fields', 'POST /agents', loc('/voice/0/name')),
  result('schema.response-conforms', 'GET /agents/item10', resetHeader('X-RATELIMIT-RESET')),
  // A failed result without failures (an old report): its message is its kind, its check and operation its cause.
  result('robustness.no-5xx-valid', 'GET /calls', []),
  result('auth.anonymous-refused', 'GET /agents', undefined, 'passed'),
];
const REPORT = { results: RUN } as RunReport;

/** The --baseline the run was given: the file from before causes, and one entry written since. */
const PREVIOUS: Baseline = {
  version: 1,
  findings: [
    ...parseBaseline(BEFORE_CAUSES, 'before-causes.yaml').findings,
    {
      check: 'stateful.delete-twice',
      operation: 'DELETE /agents/{id}',
      kind: 'status:5xx',
      reason: 'API-9, the second delete answers 500 until 3.2',
      expires: '2027-02-28',
      cause: 'status (stateful.delete-twice DELETE /agents/{id})',
    },
  ],
};

describe('--write-baseline: the file written, byte for byte', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vapc-written-baseline-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the documented header, the entries grouped by cause in key order (uncaused last), then by check, operation, kind', async () => {
    const file = join(dir, 'nested', 'baseline.yaml');
    const lines = await saveBaseline({ writeBaseline: file }, REPORT, PREVIOUS);
    expect(readFileSync(file, 'utf8')).toBe(WRITTEN);
    expect(lines).toEqual([`baseline: wrote 17 findings to ${file} (12 with a TODO reason to fill in; 7 causes)`]);
  });

  it('orders by character codes, which no other usual rule matches on these keys', () => {
    const operations = [...WRITTEN.matchAll(/check: schema\.response-conforms\n {4}operation: (.*)/g)].map((m) => m[1]);
    expect(operations).toEqual(['GET /agents/Batch', 'GET /agents/_search', 'GET /agents/item10', 'GET /agents/item9']);
    const others = [
      (a: string, b: string) => a.localeCompare(b, 'en'),
      (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true }),
      (a: string, b: string) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1),
    ];
    for (const rule of others) expect([...operations].sort(rule)).not.toEqual(operations);
  });
});

describe("docs/baseline.md's example file", () => {
  it('is what the writer writes for its entries, quotes included', () => {
    const start = DOC.indexOf('```yaml\n', DOC.indexOf('\n## The file\n')) + '```yaml\n'.length;
    const block = DOC.slice(start, DOC.indexOf('\n```\n', start) + 1);
    expect(block).toMatch(/^# vapc baseline: /);
    expect(serializeBaseline(parseBaseline(block, 'docs/baseline.md').findings)).toBe(block);
  });
});

describe('the written file read back', () => {
  it('gives the entries that were written, in the file order, the comments not read', () => {
    const written = [...entriesToWrite(REPORT, PREVIOUS)].sort(compareEntries);
    const read = parseBaseline(WRITTEN, 'written.yaml').findings;
    expect(read).toEqual(written);
    expect(read.filter((e) => e.cause === undefined).map((e) => e.check)).toEqual([
      'auth.anonymous-refused',
      'cors.preflight-allowed',
    ]);
    expect(read.find((e) => e.check === 'schema.old-report')?.kind).toBe(
      'body /naïve_field must match pattern "^[a-z]+: #x$"',
    );
    for (const e of read.filter((x) => x.cause === undefined)) expect(e).not.toHaveProperty('cause');
  });

  it('written again, alone or as the --baseline of the same run, gives the same bytes', () => {
    const read = parseBaseline(WRITTEN, 'written.yaml');
    expect(serializeBaseline(read.findings)).toBe(WRITTEN);
    expect(serializeBaseline([...read.findings].reverse())).toBe(WRITTEN);
    expect(serializeBaseline(entriesToWrite(REPORT, read))).toBe(WRITTEN);
  });
});

describe('a file written before entries had a cause', () => {
  const old = parseBaseline(BEFORE_CAUSES, 'before-causes.yaml');

  it('reads as its entries, none with a cause', () => {
    expect(old.findings).toEqual([
      {
        check: 'auth.anonymous-refused',
        operation: 'GET /agents',
        kind: 'status:2xx',
        reason: 'API-3, public until the portal ships',
        expires: '2027-01-15',
      },
      {
        check: 'cors.preflight-allowed',
        operation: '*',
        kind: 'mismatch',
        reason: 'API-4: the CDN answers preflights',
      },
      {
        check: 'ranges.max-concurrency-above-maximum',
        operation: 'POST /campaign',
        kind: 'status:2xx',
        reason: 'Ticket API-12 #2, clamped in 3.2',
        expires: '2027-02-15',
      },
      {
        check: 'schema.response-conforms',
        operation: 'GET /agents/Batch',
        kind: 'schema response-header /x-ratelimit-reset',
        reason: "API-380: l'en-tête Reset est une date HTTP — corrigé en mars",
        expires: '2027-03-31',
      },
    ]);
  });

  it('marks the findings it names as known, and lists the ones not seen with their expiry', () => {
    const report = {
      ...REPORT,
      summary: { passed: 1, failed: 12, skipped: 0, errors: 0, requests: 13, duration_ms: 1, observations: 0 },
    } as RunReport;
    const marked = applyBaseline(report, old, { file: 'before-causes.yaml', today: '2026-11-25' });
    const known = marked.results.filter((r) => r.baseline?.known).map((r) => `${r.id} ${r.operation}`);
    expect(known).toEqual(['schema.response-conforms GET /agents/Batch']);
    // above-maximum also shows status:5xx, which the old file does not name: new, with that kind.
    const above = marked.results.find((r) => r.id === 'ranges.max-concurrency-above-maximum')?.baseline;
    expect(above).toMatchObject({ known: false, new_kinds: ['status:5xx'], expires: '2027-02-15' });
    expect(marked.baseline?.not_observed).toEqual([
      {
        check: 'auth.anonymous-refused',
        operation: 'GET /agents',
        kind: 'status:2xx',
        reason: 'API-3, public until the portal ships',
        expires: '2027-01-15',
        this_run: 'passed',
      },
      {
        check: 'cors.preflight-allowed',
        operation: '*',
        kind: 'mismatch',
        reason: 'API-4: the CDN answers preflights',
        this_run: 'not-run',
      },
    ]);
  });
});

describe('the cause of a finding', () => {
  it("comes only from failed results: a passed result's failures give none", () => {
    const causes = causesOfFindings({
      results: [
        result('schema.response-conforms', 'GET /agents', resetHeader('X-RateLimit-Reset'), 'passed'),
        result('schema.response-conforms', 'GET /agents', [accepted('/name', 201)]),
      ],
    });
    expect([...causes]).toEqual([
      ['schema.response-conforms\u0000GET /agents\u0000status:2xx', 'accepted-invalid body /name @ /agents'],
    ]);
  });
});

describe('what the entry and the file refuse, with the line (the clauses the written file leaves)', () => {
  const refusal = (text: string): string => {
    try {
      parseBaseline(text, 'f.yaml');
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };
  const one = (fields: string) => `version: 1\nfindings:\n  - check: c\n    operation: GET /x\n${fields}`;

  it("bad YAML: the parser's first line whole", () => {
    expect(refusal('version: 1\nfindings: "open\n')).toBe('baseline f.yaml:3: not valid YAML: Missing closing "quote');
  });

  it('a document that is one text, not a mapping', () => {
    expect(refusal('just text\n')).toBe('baseline f.yaml:1: expected a mapping with version: 1 and findings: [...]');
  });

  it('a key that is not a text, at the top and in an entry', () => {
    expect(refusal('? [a, b]\n: 1\n')).toBe('baseline f.yaml:1: unknown key "" (expected version, findings)');
    expect(refusal(one('    kind: k\n    reason: r\n    ? [a]\n    : 1\n'))).toBe(
      'baseline f.yaml:7: finding 1: unknown key "" (expected check, operation, kind, reason, expires, cause)',
    );
  });

  it('a key without a value is named at its own line; a tagged value that is not text is refused', () => {
    expect(refusal(one('    kind: k\n    ? reason\n'))).toBe(
      'baseline f.yaml:6: finding 1: reason must be a non-empty text',
    );
    expect(refusal(one('    kind: !!binary aGk=\n    reason: r\n'))).toBe(
      'baseline f.yaml:5: finding 1: kind must be a non-empty text',
    );
  });
});

describe('a kind of a failure whose field has no pointer', () => {
  it('is the whole location, /', () => {
    const field = { location: 'body' } as unknown as NonNullable<Failure['field']>;
    expect(kindOfFailure({ kind: 'schema', field })).toBe('schema body /');
  });
});
