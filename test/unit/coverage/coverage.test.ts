import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cellLinesText, packagedCellLines } from '../../../src/coverage/lines.js';
import { buildModel, type OpenAPIDocument } from '../../../src/spec/model.js';
import {
  buildUniverse,
  computeCoverage,
  coverageGate,
  coverageGateOf,
  coverageLine,
  ExchangeLog,
  mergeCoverage,
  parseCoverage,
  plannedCoverage,
  REASONS,
  touchedCells,
  type ExchangeFacts,
} from '../../../src/coverage/index.js';
import type { CheckResult } from '../../../src/results/model.js';

/** A small contract: one list operation with a bounded query, one create with an enum and a required field, one destructive. */
const document: OpenAPIDocument = {
  openapi: '3.1.0',
  info: { title: 'small', version: '1.0.0' },
  components: { securitySchemes: { BearerAuth: { type: 'http', scheme: 'bearer' } } },
  security: [{ BearerAuth: [] }],
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [{ name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 100 } }],
        responses: {
          '200': {
            description: 'ok',
            headers: { 'X-RateLimit-Limit': { schema: { type: 'integer' } } },
            content: { 'application/json': { schema: { type: 'array' } } },
          },
          '422': { description: 'bad' },
          '5XX': { description: 'server error' },
        },
      },
      post: {
        operationId: 'createThing',
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name'],
                properties: { name: { type: 'string', maxLength: 5 }, kind: { type: 'string', enum: ['a', 'b'] } },
              },
            },
          },
        },
        responses: { '201': { description: 'created' }, '422': { description: 'bad' } },
      },
    },
    '/things/{id}/burn': {
      post: {
        operationId: 'burnThing',
        'x-side-effects': 'burns it',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'burnt' } },
      },
    },
  },
};

const spec = buildModel(document);
const universe = buildUniverse(spec, null);
const items = (op: string) => universe.cells.filter((c) => c.operation === op).map((c) => `${c.dimension} ${c.item}`);

const ex = (
  method: string,
  url: string,
  status: number,
  body?: unknown,
  headers: Record<string, string> = { authorization: 'Bearer k' },
): ExchangeFacts => ({
  request: {
    method,
    url: `http://127.0.0.1:9${url}`,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  },
  response: { status },
});

const result = (id: string, status: CheckResult['status'], suite: CheckResult['suite'] = 'ranges') => ({
  id,
  status,
  suite,
});

describe('coverage universe', () => {
  it('reads statuses, inputs, keywords, enum values, responses, headers and security from the spec', () => {
    expect(items('GET /things')).toEqual([
      'status 200',
      'response 200 body',
      'header 200 X-RateLimit-Limit',
      'status 422',
      'status 5XX',
      'parameter query offset',
      'keyword query offset minimum',
      'keyword query offset maximum',
      'keyword query offset type',
      'security BearerAuth (Authorization)',
    ]);
    expect(items('POST /things')).toEqual(
      expect.arrayContaining([
        'keyword body name maxLength',
        'keyword body name required',
        'enum body kind = "a"',
        'enum body kind = "b"',
        'keyword body kind enum',
      ]),
    );
  });

  it('leaves out what no request can probe: a string path parameter has no type or required cell', () => {
    expect(items('POST /things/{id}/burn')).toEqual([
      'status 204',
      'parameter path id',
      'security BearerAuth (Authorization)',
    ]);
  });
});

describe('coverage touch', () => {
  it('counts a boundary or beyond-bound value as probing the range keyword, a value inside it as not', () => {
    const at = (offset: string) =>
      touchedCells(universe, ex('GET', `/things?offset=${offset}`, 200), { apiKey: 'k' })!.cells.map((k) =>
        k.split('\u0000').slice(1).join(' '),
      );
    expect(at('-1')).toContain('keyword query offset minimum');
    expect(at('0')).toContain('keyword query offset minimum');
    expect(at('50')).not.toContain('keyword query offset minimum');
    expect(at('101')).toContain('keyword query offset maximum');
    expect(at('abc')).toContain('keyword query offset type');
  });

  it('sees a left-out required field, an enum value, a missing credential and the documented status range', () => {
    const t = touchedCells(universe, ex('POST', '/things', 422, { kind: 'b' }, {}), { apiKey: 'k' })!;
    const names = t.cells.map((k) => k.split('\u0000').slice(1).join(' '));
    expect(names).toEqual(
      expect.arrayContaining([
        'keyword body name required',
        'enum body kind = "b"',
        'security BearerAuth (Authorization)',
        'status 422',
      ]),
    );
    expect(touchedCells(universe, ex('GET', '/things', 503), {})!.documented).toBe('5XX');
    expect(touchedCells(universe, ex('GET', '/things', 404), {})!.documented).toBeUndefined();
  });
});

describe('coverage computation', () => {
  it('judges a cell only through a check that passed or failed, and keeps why the others were not judged', () => {
    const log = new ExchangeLog(universe, () => ({ apiKey: 'k' }));
    const judged = ex('GET', '/things?offset=-1', 422);
    log.exchange(judged, 'ranges.offset');
    log.judged(judged, 'ranges.offset'); // the one verdict path noted its answer as judged
    log.checkDone();
    const skipped = ex('GET', '/things?offset=101', 422);
    log.exchange(skipped, 'ranges.skipped');
    log.judged(skipped, 'ranges.skipped');
    log.checkDone();
    log.exchange(ex('GET', '/things', 404), undefined); // discovery: not a check's
    const plan = [
      { suite: 'ranges', operation: 'GET /things' },
      { suite: 'ranges', operation: 'POST /things/{id}/burn', skip: 'destructive', destructive: true },
    ];
    const coverage = computeCoverage({
      universe,
      records: log.records,
      results: [result('ranges.offset', 'passed'), result('ranges.skipped', 'skipped')],
      plan,
    });
    const cell = (item: string) => coverage.cells.find((c) => c.item === item)!;
    expect(cell('query offset minimum')).toMatchObject({
      state: 'judged-pass',
      checks: ['ranges.offset'],
      requests: 1,
    });
    expect(cell('query offset maximum')).toMatchObject({ state: 'sent', reason: REASONS.sentOnly });
    expect(cell('204')).toMatchObject({ state: 'not-sent', reason: REASONS.destructive });
    expect(cell('5XX')).toMatchObject({ state: 'not-sent', reason: REASONS.serverError });
    expect(cell('name maxLength'.replace(/^/, 'body '))).toMatchObject({
      state: 'not-sent',
      reason: REASONS.notPlanned,
    });
    expect(coverage.undocumented_statuses).toBeUndefined();
    expect(coverage.summary.cells).toBe(universe.cells.length);
    expect(coverage.summary.judged + coverage.summary.sent + coverage.summary.not_sent).toBe(coverage.summary.cells);
  });

  it('counts a cell judged only through an answer the check judged (not a 429, not an open rule), noted by its own check', () => {
    const log = new ExchangeLog(universe);
    const unjudgedAnswer = ex('GET', '/things?offset=-1', 403);
    log.exchange(unjudgedAnswer, 'ranges.offset');
    // Another check's note on it is no judgement of the sender's.
    log.judged(unjudgedAnswer, 'schema.other');
    const coverage = computeCoverage({
      universe,
      records: log.records,
      results: [result('ranges.offset', 'passed')],
      plan: [{ suite: 'ranges', operation: 'GET /things' }],
    });
    expect(coverage.cells.find((c) => c.item === 'query offset minimum')).toMatchObject({
      state: 'sent',
      reason: REASONS.sentOnly,
    });
  });

  it('marks a cell judged-fail when a failing check judged it, and lists an undocumented status', () => {
    const log = new ExchangeLog(universe);
    const failing = ex('POST', '/things', 404, { name: 'abcdef' });
    log.exchange(failing, 'validation.x');
    log.judged(failing, 'validation.x');
    const coverage = computeCoverage({
      universe,
      records: log.records,
      results: [result('validation.x', 'failed', 'validation')],
      plan: [],
    });
    expect(coverage.cells.find((c) => c.item === 'body name maxLength')!.state).toBe('judged-fail');
    expect(coverage.undocumented_statuses).toEqual([
      { operation: 'POST /things', status: 404, requests: 1, checks: ['validation.x'] },
    ]);
  });

  it('marks an undocumented status answered to an id the run made up (not one handed out or in the fixtures), and one left open', () => {
    const log = new ExchangeLog(universe, undefined, () => ({ org_id: 'fixture-1', nested: { ids: ['fixture-2'] } }));
    const created = ex('POST', '/things', 201, { name: 'a' });
    created.response = { status: 201, json: { id: 'thing-1', owner_id: 'echoed-1' } };
    log.exchange(created, 'setup'); // the suites' shared record: not a check's, but its id is learned
    log.exchange(ex('POST', '/things/thing-1/burn', 418), 'robustness.a'); // a created record: counted
    log.exchange(ex('POST', '/things/fixture-2/burn', 418), 'robustness.a'); // a fixture: counted
    log.exchange(ex('POST', '/things/made-up/burn', 404), 'robustness.a'); // made up: an observation
    log.exchange(ex('POST', '/things/echoed-1/burn', 404), 'robustness.a'); // only echoed, never an `id`: made up
    log.exchange(ex('POST', '/things/made-up/burn', 204), 'robustness.a'); // documented: nothing to mark
    log.exchange(ex('GET', '/things', 418), 'robustness.a'); // no path id: counted
    log.exchange(ex('GET', '/things', 409), 'robustness.a'); // a status the contract leaves open
    const coverage = computeCoverage({
      universe,
      records: log.records,
      results: [result('robustness.a', 'passed')],
      plan: [],
      leftOpen: [{ status: 409, rule: '409 for a conflict' }],
    });
    expect(coverage.undocumented_statuses).toEqual([
      { operation: 'GET /things', status: 409, requests: 1, checks: ['robustness.a'], left_open: '409 for a conflict' },
      { operation: 'GET /things', status: 418, requests: 1, checks: ['robustness.a'] },
      {
        operation: 'POST /things/{id}/burn',
        status: 404,
        requests: 2,
        checks: ['robustness.a'],
        unknown_id_requests: 2,
      },
      { operation: 'POST /things/{id}/burn', status: 418, requests: 2, checks: ['robustness.a'] },
    ]);
  });

  it('does not count a 429 retried outside the ratelimit suite as judged', () => {
    const log = new ExchangeLog(universe);
    log.exchange(ex('GET', '/things?offset=0', 429), 'ranges.offset');
    const coverage = computeCoverage({
      universe,
      records: log.records,
      results: [result('ranges.offset', 'passed')],
      plan: [],
    });
    expect(coverage.cells.find((c) => c.item === 'query offset minimum')!.state).toBe('sent');
  });
});

describe('coverage merge, gate and plan', () => {
  const run = (exchanges: Array<[ExchangeFacts, string, CheckResult['status']]>) => {
    const log = new ExchangeLog(universe);
    for (const [e, id] of exchanges) {
      log.exchange(e, id);
      log.judged(e, id);
      log.checkDone();
    }
    return computeCoverage({
      universe,
      records: log.records,
      results: exchanges.map(([, id, status]) => result(id, status)),
      plan: [{ suite: 'ranges', operation: 'GET /things' }],
    });
  };
  const a: [ExchangeFacts, string, CheckResult['status']] = [ex('GET', '/things?offset=0', 200), 'ranges.a', 'passed'];
  const b: [ExchangeFacts, string, CheckResult['status']] = [
    ex('GET', '/things?offset=100', 422),
    'ranges.b',
    'skipped',
  ];
  const c: [ExchangeFacts, string, CheckResult['status']] = [
    ex('GET', '/things?offset=100', 422),
    'ranges.c',
    'passed',
  ];

  it('merges shards exactly: judged in any shard is judged, requests summed', () => {
    expect(mergeCoverage([run([a]), run([b]), run([c])])).toEqual(run([a, b, c]));
    expect(mergeCoverage([undefined])).toBeUndefined();
  });

  it('reads a coverage block back and refuses a bad one', () => {
    const block = run([a, b]);
    expect(
      parseCoverage(JSON.parse(JSON.stringify(block)), (w) => {
        throw new Error(w);
      }),
    ).toEqual(block);
    expect(() =>
      parseCoverage({ cells: [{ ...block.cells[0], state: 'maybe' }] }, (w) => {
        throw new Error(w);
      }),
    ).toThrow(/state must be one of/);
  });

  it('gates on --min-coverage with the missing cells, and on unseen and undocumented statuses when asked', () => {
    const coverage = run([a]);
    expect(coverageLine(coverage)).toMatch(
      /^coverage: \d+\/\d+ cells judged \(\d+%\), \d+ documented status(es)? never seen$/,
    );
    const gate = coverageGate(coverage, { minCoverage: 90 });
    expect(gate.failed).toBe(true);
    expect(gate.lines.join('\n')).toContain('POST /things · keyword · body name maxLength · not-sent');
    expect(coverageGate(coverage, { minCoverage: 1 }).failed).toBe(false);
    expect(coverageGate(coverage, {}).failed).toBe(false);
    expect(coverageGate(coverage, { failOnUnseenStatus: true }).lines.join('\n')).toContain('POST /things 201');
    expect(coverageGateOf({ minCoverage: 50, failOnUnseenStatus: false })).toEqual({ minCoverage: 50 });
  });

  it('--min-coverage N passes a run judged at exactly N% and fails one judged below it', () => {
    const cells = (judged: number, total: number) =>
      Array.from({ length: total }, (_, i) => ({
        operation: 'GET /things',
        dimension: 'parameter' as const,
        item: `query p${i}`,
        state: i < judged ? ('judged-pass' as const) : ('not-sent' as const),
        checks: [],
        requests: 0,
        spec_line: null,
      }));
    const of = (judged: number, total: number) => ({
      summary: {
        cells: total,
        judged,
        sent: 0,
        not_sent: total - judged,
        percent: Math.floor((judged * 1000) / total) / 10,
      },
      cells: cells(judged, total),
    });
    expect(coverageGate(of(2, 4), { minCoverage: 50 }).failed).toBe(false);
    expect(coverageGate(of(2, 4), { minCoverage: 50.1 }).failed).toBe(true);
    expect(coverageGate(of(1, 4), { minCoverage: 50 }).failed).toBe(true);
  });

  it('--fail-on-undocumented-status counts neither answers to ids the run made up nor statuses left open; merged, read back', () => {
    const undocumented = (requests: number, unknown = 0) => ({
      ...run([a]),
      undocumented_statuses: [
        {
          operation: 'POST /things/{id}/burn',
          status: 404,
          requests,
          checks: ['robustness.a'],
          ...(unknown > 0 ? { unknown_id_requests: unknown } : {}),
        },
      ],
    });
    const madeUp = undocumented(2, 2);
    expect(coverageLine(madeUp)).toMatch(/, 1 undocumented status observed \(1 left open by the contract\)$/);
    expect(coverageGate(madeUp, { failOnUndocumentedStatus: true })).toEqual({ failed: false, lines: [] });
    const mixed = mergeCoverage([madeUp, undocumented(1)])!;
    expect(mixed.undocumented_statuses).toEqual([
      {
        operation: 'POST /things/{id}/burn',
        status: 404,
        requests: 3,
        checks: ['robustness.a'],
        unknown_id_requests: 2,
      },
    ]);
    const gate = coverageGate(mixed, { failOnUndocumentedStatus: true });
    expect(gate.failed).toBe(true);
    expect(gate.lines).toEqual([
      'coverage: 1 undocumented status(es) observed (--fail-on-undocumented-status):',
      '  POST /things/{id}/burn answered 404 (1 request(s); robustness.a)',
    ]);
    const bad = (w: string): never => {
      throw new Error(w);
    };
    expect(parseCoverage(JSON.parse(JSON.stringify(mixed)), bad)).toEqual(mixed);
    const conflict = {
      ...run([a]),
      undocumented_statuses: [{ ...mixed.undocumented_statuses![0], status: 409, left_open: '409 for a conflict' }],
    };
    expect(coverageGate(conflict, { failOnUndocumentedStatus: true }).failed).toBe(false);
    expect(coverageGate(mergeCoverage([conflict, mixed]), { failOnUndocumentedStatus: true }).lines).toEqual([
      ...gate.lines,
      '  (1 more left open by the contract: answered only to ids the run made up, or a status it leaves open; not counted)',
    ]);
    expect(parseCoverage(JSON.parse(JSON.stringify(conflict)), bad)).toEqual(conflict);
    const forged = {
      ...mixed,
      undocumented_statuses: [{ ...mixed.undocumented_statuses![0], unknown_id_requests: 4 }],
    };
    expect(() => parseCoverage(forged, bad)).toThrow(/unknown_id_requests must be a count no larger than requests/);
  });

  it('plans the cells of the suites that will run on an operation, none of a skipped one', () => {
    const { planned } = plannedCoverage(universe, [
      { suite: 'ranges', operation: 'GET /things', checks: 1, skipped: 0 },
      { suite: 'auth', operation: 'POST /things/{id}/burn', checks: 1, skipped: 1 },
    ]);
    const names = planned.map((p) => `${p.operation} ${p.item}`);
    expect(names).toContain('GET /things query offset minimum');
    expect(names.some((n) => n.startsWith('POST /things/{id}/burn'))).toBe(false);
  });
});

describe('spec lines of the cells', () => {
  it('are looked up only when read, once per response or input: a dry run parses no YAML', () => {
    const asked: string[] = [];
    const at = (what: string) => {
      asked.push(what);
      return { file: 'spec/openapi.yaml', line: asked.length, column: 1 };
    };
    const located = buildUniverse(spec, {
      operation: (op) => at(`op ${op.id}`),
      status: (op, s) => at(`${op.id} ${s}`),
      slot: (op, slot) => at(`${op.id} ${slot.label}`),
    });
    expect(located.cells.length).toBeGreaterThan(0);
    expect(asked).toEqual([]);
    const ok = located.cells.find(
      (c) => c.operation === 'GET /things' && c.dimension === 'status' && c.item === '200',
    )!;
    expect([ok.spec_file, ok.spec_line]).toEqual(['spec/openapi.yaml', 1]);
    const body = located.cells.find(
      (c) => c.operation === 'GET /things' && c.dimension === 'response' && c.item === '200 body',
    )!;
    expect(body.spec_line).toBe(1); // the same response: found once
    expect(asked).toEqual(['listThings 200']);
    expect(JSON.parse(JSON.stringify(ok))).toMatchObject({ spec_line: 1, spec_file: 'spec/openapi.yaml' });
  });
});

describe('spec lines found by the build (dist/cell-lines.json)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vapc-cell-lines-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are read back by cell key while the spec folder is unchanged, and ignored once it changes', () => {
    const specDir = join(dir, 'spec');
    mkdirSync(specDir);
    const specFile = join(specDir, 'openapi.yaml');
    writeFileSync(specFile, 'openapi: 3.1.0\n');
    const file = join(dir, 'cell-lines.json');
    const cells = [
      { key: 'GET /things\u0000status\u0000200', spec_line: 12, spec_file: 'spec/openapi.yaml' },
      { key: 'GET /things\u0000status\u0000422', spec_line: null },
    ];
    writeFileSync(file, cellLinesText(cells, specFile));
    const lines = packagedCellLines(file, specFile)!;
    expect([...lines]).toEqual([
      ['GET /things\u0000status\u0000200', { file: 'spec/openapi.yaml', line: 12, column: 1 }],
    ]);
    writeFileSync(specFile, 'openapi: 3.1.1\n');
    expect(packagedCellLines(file, specFile)).toBeUndefined();
    expect(packagedCellLines(join(dir, 'absent.json'), specFile)).toBeUndefined();
  });

  it('a locator with known lines is not asked for them', () => {
    const asked: string[] = [];
    const never = (what: string) => (asked.push(what), undefined);
    const key = 'GET /things\u0000status\u0000200';
    const located = buildUniverse(spec, {
      operation: () => never('op'),
      status: () => never('status'),
      slot: () => never('slot'),
      known: new Map([[key, { file: 'spec/x.yaml', line: 7, column: 1 }]]),
    });
    const ok = located.cells.find((c) => c.key === key)!;
    expect([ok.spec_file, ok.spec_line]).toEqual(['spec/x.yaml', 7]);
    expect(asked).toEqual([]);
  });
});
