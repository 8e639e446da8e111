/**
 * report.sarif: every run writes it beside report.json; it validates against the SARIF 2.1.0
 * schema, has one rule per check, and each result points at the line of spec/ it is about: the
 * request field (a body property, a query parameter) when the failures name one, else the
 * operation's method key, in whichever split file holds it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import type * as Sarif from 'sarif';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import { packageRoot } from '../../src/paths.js';
import { buildSarif } from '../../src/reporters/sarif.js';
import type { RunReport } from '../../src/results/model.js';
import { checks } from '../../suites/index.js';
import { startFaultyServer } from '../catalog/faults/index.js';

const schema = JSON.parse(
  readFileSync(join(packageRoot, 'test', 'fixtures', 'sarif', 'sarif-2.1.0-rtm.5.json'), 'utf8'),
) as object;
// The schema's `language` pattern (`...[a-zA-Z]{2}]?$`) is valid only without the u flag.
const ajv = new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

const quietIo = (): CliIo => ({ stdout: () => undefined, stderr: () => undefined, env: {}, isTTY: false });

/** Runs `suites` against the faulty server `fault` through the CLI; returns the report dir. */
async function runAgainst(fault: string, suites: string): Promise<string> {
  const server = await startFaultyServer(fault, { rateLimit: 100_000, rateWindowMs: 60_000 });
  const dir = mkdtempSync(join(tmpdir(), 'vapc-sarif-'));
  try {
    const argv = [
      'run',
      '--base-url',
      server.url,
      '--api-key',
      server.fixtures.api_key,
      '--user-id',
      server.fixtures.user_id,
    ];
    const code = await main(
      [...argv, '--suite', suites, '--seed', '7', '--runs', '5', '--report-dir', dir, '--quiet'],
      quietIo(),
    );
    expect(code).toBe(1);
  } finally {
    await server.close();
  }
  return dir;
}

const read = <T>(dir: string, file: string): T => JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;

/** The text of line `line` (1-based) of a spec file named by a SARIF artifact URI. */
function lineAt(location: Sarif.Location): string {
  const physical = location.physicalLocation!;
  const file = decodeURI(physical.artifactLocation!.uri!);
  expect(file).toMatch(/^spec\//);
  return readFileSync(join(packageRoot, file), 'utf8').split(/\r?\n/)[physical.region!.startLine! - 1]!;
}

const methodKey = (operation: string) => new RegExp(`^\\s*${operation.split(' ')[0]!.toLowerCase()}:\\s*$`);

describe('report.sarif', () => {
  let ranges: string;
  let validation: string;
  let responses: string;

  beforeAll(async () => {
    // One field named by every failure (ranges: max_concurrency=201) and many fields, some of
    // them query parameters (validation against a server whose 422 body has the wrong shape).
    // And a response field of the wrong type (calls' duration_seconds as a string).
    [ranges, validation, responses] = await Promise.all([
      runAgainst('range-max-concurrency-above-max', 'ranges'),
      runAgainst('error-422-wrong-shape', 'validation'),
      runAgainst('call-duration-string', 'schema'),
    ]);
  }, 120_000);
  afterAll(() => {
    for (const dir of [ranges, validation, responses]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('validates against the SARIF 2.1.0 schema, with one rule per check and one result per failed check', () => {
    for (const dir of [ranges, validation, responses]) {
      const log = read<Sarif.Log>(dir, 'report.sarif');
      const report = read<RunReport>(dir, 'report.json');
      expect(validate(log), ajv.errorsText(validate.errors, { separator: '\n' })).toBe(true);
      const run = log.runs[0]!;
      expect(run.tool.driver.rules!.map((r) => r.id)).toEqual(checks.map((c) => c.id));
      for (const rule of run.tool.driver.rules!) {
        expect(rule.shortDescription!.text.length).toBeGreaterThan(0);
        expect(rule.fullDescription!.text).toMatch(/\(contract sections? [\d.]+/);
        expect(rule.help!.text).toContain('Contract: Voice-Agent Platform API');
      }
      const failed = report.results.filter((r) => r.status === 'failed');
      expect(run.results!.map((r) => `${r.ruleId} ${r.properties!['operation']}`)).toEqual(
        failed.map((r) => `${r.id} ${r.operation}`),
      );
      for (const result of run.results!) {
        expect(run.tool.driver.rules![result.ruleIndex!]!.id).toBe(result.ruleId);
        expect(['error', 'warning']).toContain(result.level);
      }
    }
  });

  it('puts a failure that names one body field on that property of the request schema, and links the operation', () => {
    const run = read<Sarif.Log>(ranges, 'report.sarif').runs[0]!;
    const result = run.results!.find(
      (r) => r.ruleId === 'ranges.max-concurrency-above-maximum' && r.properties!['operation'] === 'POST /campaign',
    );
    expect(result, 'the ranges fault is reported').toBeDefined();
    expect(lineAt(result!.locations![0]!)).toMatch(/^\s*max_concurrency:\s*$/);
    expect(decodeURI(result!.locations![0]!.physicalLocation!.artifactLocation!.uri!)).toMatch(
      /^spec\/components\/schemas\//,
    );
    const operation = result!.relatedLocations!.find((l) => l.message?.text?.includes('operation'))!;
    expect(lineAt(operation)).toMatch(methodKey('POST /campaign'));
  });

  it('puts every other result on its operation (method key) or on a field the failures name', () => {
    const run = read<Sarif.Log>(validation, 'report.sarif').runs[0]!;
    expect(run.results!.length).toBeGreaterThan(0);
    let onOperation = 0;
    for (const result of run.results!) {
      const operation = String(result.properties!['operation']);
      const line = lineAt(result.locations![0]!);
      if (methodKey(operation).test(line)) {
        onOperation++;
        // Many fields: each one it names is a related location on a property or parameter line.
        for (const related of result.relatedLocations ?? [])
          expect(lineAt(related)).toMatch(/^\s*(?:name: )?[\w-]+:?\s*[\w-]*$/);
      } else {
        expect(line).toMatch(/^\s*(?:[\w-]+:|name: [\w-]+)\s*$/);
      }
      expect(result.locations![0]!.logicalLocations![0]!.name).toBe(operation);
    }
    expect(onOperation).toBeGreaterThan(0);
  });

  it('puts a query-parameter failure on the parameter definition (name: line)', () => {
    const run = read<Sarif.Log>(validation, 'report.sarif').runs[0]!;
    const query = run.results!.find((r) => r.ruleId === 'validation.non-integer-query');
    expect(query, 'the non-integer query fault is reported').toBeDefined();
    const lines = [query!.locations![0]!, ...(query!.relatedLocations ?? [])].map(lineAt);
    expect(lines.some((l) => /^name: (limit|offset)$/.test(l))).toBe(true);
  });

  it('puts a response-body failure on the property of the response schema it names', () => {
    const run = read<Sarif.Log>(responses, 'report.sarif').runs[0]!;
    const result = run.results!.find(
      (r) => r.ruleId === 'schema.response-conforms' && r.properties!['operation'] === 'GET /calls',
    );
    expect(result, 'the response fault is reported').toBeDefined();
    expect(lineAt(result!.locations![0]!)).toMatch(/^\s*duration_seconds:\s*$/);
    expect(decodeURI(result!.locations![0]!.physicalLocation!.artifactLocation!.uri!)).toBe(
      'spec/components/schemas/Call.yaml',
    );
  });

  it('holds no secret and writes tool errors as notifications, not results', () => {
    const report = read<RunReport>(ranges, 'report.json');
    const broken: RunReport = {
      ...report,
      results: [
        ...report.results,
        { ...report.results[0]!, status: 'error', message: 'tool error (not a server failure): boom' },
      ],
    };
    const log = buildSarif(broken);
    expect(validate(log), ajv.errorsText(validate.errors)).toBe(true);
    expect(log.runs[0]!.invocations![0]!.executionSuccessful).toBe(false);
    expect(log.runs[0]!.invocations![0]!.toolExecutionNotifications![0]!.message.text).toContain('boom');
    expect(log.runs[0]!.results!.length).toBe(report.results.filter((r) => r.status === 'failed').length);
    const text = readFileSync(join(ranges, 'report.sarif'), 'utf8');
    expect(text).not.toMatch(/vapc_ref_[A-Za-z0-9]/);
    expect(text).not.toContain('user_ref_001');
  });
});
