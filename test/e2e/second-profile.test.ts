/**
 * The runner, coverage, the verdict and the reporters know no contract of their own: a second
 * contract (two operations of a small notes API, test/fixtures/second-profile/notes.yaml) with a
 * profile of its own (a custom suite, and a burst suite listed first that still runs last) goes
 * through the same public entries a package would use (`voice-agent-contract/runner` and
 * `/reporters`), against a loopback server of its own, with its own fault. Its fixtures are read by
 * the same config parser and filled into bodies by the same generators.
 */
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildRegistry,
  defineCheck,
  fail,
  Findings,
  GENERIC_PROFILE,
  judgeAnswer,
  loadSpec,
  OK,
  runConformance,
  suiteOrder,
  type CheckDefinition,
  type CheckOutcome,
  type Judgement,
  type ContractProfile,
  type Fixtures,
  type SpecModel,
} from '../../src/entries/runner.js';
import { parseReport, renderSummary, writeReports } from '../../src/entries/reporters.js';
import { packageRoot } from '../../src/paths.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { missingFixtures, validBody } from '../../src/generators/index.js';

const SPEC = join(packageRoot, 'test', 'fixtures', 'second-profile', 'notes.yaml');

/**
 * The notes contract's profile: its suites (the burst one named first, run last), its fixtures (a
 * notebook a create's body may name, tags), nothing to discover.
 */
const NOTES_PROFILE: ContractProfile = {
  ...GENERIC_PROFILE,
  suites: [{ name: 'limits', burst: true }, { name: 'notes' }],
  fixtures: [
    { key: 'notebook_id', kind: 'id', body: 'required' },
    { key: 'tags', kind: 'list', items: 'the tag names' },
  ],
  checkValues: { 'notes.create-echoes': 3 },
};

const notesChecks: CheckDefinition[] = [
  // Registered first, as the burst suite is listed first: the profile, not this order, puts it last.
  defineCheck({
    id: 'limits.burst-answered-429',
    suite: 'limits',
    rule: 'a request marked as over the limit is answered 429',
    contractRef: 'notes §limits',
    severity: 'minor',
    appliesTo: (op) => op.id === 'listNotes',
    async run(ctx, op) {
      // No retryOn429 given: a burst suite sees the 429 itself.
      const exchange = await ctx.send({ operation: op, method: 'GET', path: '/notes', headers: { 'x-burst': '1' } });
      const status = exchange.response?.status;
      if (status === 429) ctx.noteJudged?.(exchange);
      const j =
        status === 429
          ? OK
          : fail(ctx, exchange, 'status 429', `status ${status}`, 'no 429', undefined, { kind: 'status' });
      return outcomeOf(j, 'answered 429');
    },
  }),
  defineCheck({
    id: 'notes.list-is-array',
    suite: 'notes',
    rule: 'GET /notes answers 200 with an array',
    contractRef: 'notes §list',
    severity: 'major',
    expects: 'success',
    appliesTo: (op) => op.id === 'listNotes',
    async run(ctx, op) {
      const exchange = await ctx.send({ operation: op, method: 'GET', path: '/notes' });
      const rules = { what: 'a list request', expected: '200 with an array' };
      const j = judgeAnswer(ctx, op, exchange, rules, (res) =>
        res.status === 200 && Array.isArray(res.json)
          ? OK
          : fail(ctx, exchange, rules.expected, `status ${res.status}`, 'not an array', undefined, { kind: 'status' }),
      );
      return outcomeOf(j, 'an array');
    },
  }),
  defineCheck({
    id: 'notes.create-echoes',
    suite: 'notes',
    rule: 'POST /notes answers 201 with the text sent',
    contractRef: 'notes §create',
    severity: 'major',
    expects: 'success',
    appliesTo: (op) => op.id === 'createNote',
    async run(ctx, op) {
      const exchange = await ctx.send({ operation: op, method: 'POST', path: '/notes', json: { text: 'hello' } });
      const rules = { what: 'a valid create', expected: '201 with text "hello"' };
      const j = judgeAnswer(ctx, op, exchange, rules, (res) => {
        const text = (res.json as { text?: unknown } | undefined)?.text;
        const actual = `status ${res.status}, text ${JSON.stringify(text)}`;
        return res.status === 201 && text === 'hello'
          ? OK
          : fail(ctx, exchange, rules.expected, actual, 'the note does not echo its text', undefined, { kind: 'body' });
      });
      return outcomeOf(j, 'echoed');
    },
  }),
];

/** A notes server: `echo` false is its fault (a create that answers another text). */
async function notesServer(echo: boolean): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}${req.headers['x-burst'] ? ' burst' : ''}`);
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      if (req.headers['x-burst']) return json(429, { detail: 'slow down' }, { 'retry-after': '0' });
      if (req.method === 'GET' && req.url === '/notes') return json(200, [{ id: 'n0', text: 'first' }]);
      if (req.method === 'POST' && req.url === '/notes') {
        const text = (JSON.parse(body || '{}') as { text?: string }).text;
        return json(201, { id: 'n1', text: echo ? text : 'something else' });
      }
      json(404, { detail: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One judgement as a check's outcome (the toolkit's Findings, as every shipped check ends). */
function outcomeOf(j: Judgement, passed: string): CheckOutcome {
  const findings = new Findings();
  findings.add(j);
  return findings.outcome(passed);
}

describe('a second contract through the same runner and reporters', () => {
  let spec: SpecModel;
  let dir: string;
  const checks = buildRegistry(notesChecks, ['limits', 'notes']);

  beforeAll(async () => {
    spec = await loadSpec({ path: SPEC });
    dir = mkdtempSync(join(tmpdir(), 'vapc-second-profile-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (baseUrl: string, fixtures: Fixtures = {}) =>
    runConformance({
      baseUrl,
      spec,
      checks,
      profile: NOTES_PROFILE,
      fixtures,
      credentials: { apiKey: 'notes-key' },
      seed: 1,
      runs: 1,
      followRateLimit: false,
      validateRequest: false,
    });

  it('runs its suites in its profile order (the burst last, its 429 seen once, not resent) and passes a correct server', async () => {
    const server = await notesServer(true);
    try {
      const { report } = await run(server.url);
      // create-echoes first: the profile's checkValues make it worth more per request than the list.
      expect(report.results.map((r) => [r.id, r.status])).toEqual([
        ['notes.create-echoes', 'passed'],
        ['notes.list-is-array', 'passed'],
        ['limits.burst-answered-429', 'passed'],
      ]);
      expect(server.seen.filter((s) => s.endsWith('burst'))).toEqual(['GET /notes burst']);
      expect(report.config?.suites).toEqual(['notes', 'limits']);
      expect(report.config?.all_suites).toEqual(['notes', 'limits']);
      // The floor holds this whole plan too: every cell of its two operations' statuses the run judged, or not.
      expect(report.verdict).toBe('passed');
      expect(report.coverage?.summary.judged).toBeGreaterThan(0);

      const written = await writeReports(report, join(dir, 'pass'));
      expect(written.errors).toEqual([]);
      // report.json reads back through the artefact schema, its suites none of the first contract's.
      const back = parseReport(readFileSync(written.json, 'utf8'));
      expect(new Set(back.results.map((r) => r.suite))).toEqual(new Set(['notes', 'limits']));
      const junit = readFileSync(written.junit, 'utf8');
      expect(junit).toMatch(/<testsuite name="notes"/);
      expect(junit).toMatch(/<testsuite name="limits"/);
      expect(readFileSync(written.html, 'utf8')).toContain('notes.create-echoes');
      expect(renderSummary(back)).toMatch(/notes[\s\S]*limits/);
    } finally {
      await server.close();
    }
  });

  it('fails a server with its fault, with the failure in every report', async () => {
    const server = await notesServer(false);
    try {
      const { report } = await run(server.url);
      const failed = report.results.filter((r) => r.status === 'failed').map((r) => r.id);
      expect(failed).toEqual(['notes.create-echoes']);
      expect(report.verdict).toBe('failed');
      const written = await writeReports(report, join(dir, 'fail'));
      expect(readFileSync(written.junit, 'utf8')).toMatch(/<failure[^>]*>[\s\S]*something else/);
      expect(JSON.parse(readFileSync(written.sarif, 'utf8')).runs[0].results[0].ruleId).toBe('notes.create-echoes');
    } finally {
      await server.close();
    }
  });

  /** Resolves a run's settings in a directory of its own holding `vapc.yaml`, for the notes profile's suites and fixtures. */
  const resolveNotes = (name: string, yaml: string, env: Record<string, string> = {}) => {
    const cwd = join(dir, name);
    mkdirSync(cwd);
    writeFileSync(join(cwd, 'vapc.yaml'), yaml);
    return resolveSettings(
      {},
      { env, cwd, suites: suiteOrder(NOTES_PROFILE), fixtures: NOTES_PROFILE.fixtures, checkBaseUrl: () => {} },
    );
  };

  it("reads its own fixtures through the same config parser (vapc.yaml and VAPC_FIXTURES), refusing another contract's", async () => {
    const settings = await resolveNotes(
      'config-own',
      'base_url: http://127.0.0.1:9\nsuite: notes\nfixtures:\n  notebookId: nb_1\n  tags: [red, blue]\n',
      { VAPC_FIXTURES: '{"tags": ["green"]}' },
    );
    expect(settings.suites).toEqual(['notes']);
    expect(settings.fixtures).toStrictEqual({ notebook_id: 'nb_1', tags: ['green'] });
    await expect(
      resolveNotes('config-foreign', 'base_url: http://127.0.0.1:9\nfixtures:\n  notebook_id: nb_1\n  org_id: org_1\n'),
    ).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: 'config file vapc.yaml: fixtures: unknown fixture "org_id"; known fixtures: notebook_id, tags (line 4)',
    });
    await expect(
      resolveNotes('config-kind', 'base_url: http://127.0.0.1:9\nfixtures:\n  tags: red\n'),
    ).rejects.toMatchObject({
      message:
        'config file vapc.yaml: fixtures.tags: expected a list of the tag names (strings), got string "red" (line 3)',
    });
    await expect(
      resolveNotes('env-foreign', 'base_url: http://127.0.0.1:9\n', { VAPC_FIXTURES: '{"channels": ["a"]}' }),
    ).rejects.toMatchObject({
      message: 'VAPC_FIXTURES: unknown fixture "channels"; known fixtures: notebook_id, tags',
    });

    // The configured fixtures reach the run, which reports where each came from.
    const server = await notesServer(true);
    try {
      const { report } = await run(server.url, settings.fixtures);
      expect(report.config?.fixtures_sources).toEqual({ notebook_id: 'config', tags: 'config' });
    } finally {
      await server.close();
    }
  });

  it('its generators fill the body field its profile marks from the fixture, and need that fixture', () => {
    // createNote with a notebook_id beside its text (the spec's own create has none: its coverage stays whole).
    const note = spec.operation('createNote');
    const schema = note.requestBody!.schema;
    const properties = { ...(schema['properties'] as object), notebook_id: { type: 'string' } };
    const create = { ...note, requestBody: { ...note.requestBody!, schema: { ...schema, properties } } };
    const options = { fixtures: { notebook_id: 'nb_1' }, fixtureSpecs: NOTES_PROFILE.fixtures };
    for (const body of fc.sample(validBody(create, options), { seed: 1, numRuns: 5 }))
      expect(body['notebook_id']).toBe('nb_1');
    expect(missingFixtures(create, options)).toEqual([]);
    expect(missingFixtures(create, { fixtures: {}, fixtureSpecs: NOTES_PROFILE.fixtures })).toEqual(['notebook_id']);
    // A profile that declares no fixture: the field is generated text, and nothing is missing.
    expect(missingFixtures(create, { fixtures: {}, fixtureSpecs: GENERIC_PROFILE.fixtures })).toEqual([]);
  });
});
