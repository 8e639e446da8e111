import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, type TestSuite, type TestSuites } from 'junit2json';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { renderJunit, writeReports } from '../../../src/reporters/index.js';
import type { RunReport } from '../../../src/results/model.js';
import { fixture, FIXTURES } from '../../helpers/reports.js';

// The widely used JUnit XSD (Jenkins xunit-plugin junit-10.xsd, MIT), copied from ../shared/junit/.
const XSD = readFileSync(join(FIXTURES, 'junit-10.xsd'), 'utf8');

async function validate(xml: string) {
  return validateXML({
    xml: [{ fileName: 'junit.xml', contents: xml }],
    schema: [{ fileName: 'junit-10.xsd', contents: XSD }],
  });
}

async function readBack(xml: string): Promise<TestSuites> {
  const parsed = await parse(xml);
  expect(parsed && 'testsuite' in parsed).toBe(true);
  return parsed as TestSuites;
}

const NAMES = ['passing-run', 'failing-run', 'secrets-run'] as const;

describe('junit.xml', () => {
  it('the XSD rejects a malformed report (the validation can fail)', async () => {
    const bad = renderJunit(fixture('failing-run')).replace(
      '<testsuite name="auth" tests="2"',
      '<testsuite name="auth"',
    );
    const result = await validate(bad);
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => e.message).join('\n')).toMatch(/tests/);
  });

  for (const name of NAMES) {
    it(`validates against junit-10.xsd and reads back with counts equal to report.json (${name})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vapc-junit-'));
      const written = await writeReports(fixture(name), dir);
      const xml = readFileSync(written.junit, 'utf8');
      const report = JSON.parse(readFileSync(written.json, 'utf8')) as RunReport;
      const result = await validate(xml);
      expect(result.errors).toEqual([]);
      expect(result.valid).toBe(true);

      const root = await readBack(xml);
      const suites = (root.testsuite ?? []).filter((s) => s.name !== 'observations');
      const cases = suites.flatMap((s) => s.testcase ?? []);
      expect(root.tests).toBe(report.results.length);
      expect(root.failures).toBe(report.summary.failed);
      expect(root.errors).toBe(report.summary.errors);
      expect(cases).toHaveLength(report.results.length);
      expect(cases.filter((c) => c.failure).length).toBe(report.summary.failed);
      expect(cases.filter((c) => c.skipped).length).toBe(report.summary.skipped);
      expect(cases.filter((c) => c.error).length).toBe(report.summary.errors);
      expect(cases.length - cases.filter((c) => c.failure || c.skipped || c.error).length).toBe(report.summary.passed);
      // One testsuite per suite, with its own counts.
      const bySuite = new Map<string, TestSuite>(suites.map((s) => [s.name!, s]));
      expect([...bySuite.keys()].sort()).toEqual([...new Set(report.results.map((r) => r.suite))].sort());
      for (const [suite, s] of bySuite) {
        const rs = report.results.filter((r) => r.suite === suite);
        expect([s.tests, s.failures, s.errors, s.skipped]).toEqual([
          rs.length,
          rs.filter((r) => r.status === 'failed').length,
          rs.filter((r) => r.status === 'error').length,
          rs.filter((r) => r.status === 'skipped').length,
        ]);
      }
      // name = check id, classname = suite + operation, time in seconds.
      for (const r of report.results) {
        const c = cases.find((x) => x.name === r.id && x.classname === `${r.suite}.${r.operation}`);
        expect(c, `${r.id} ${r.operation}`).toBeDefined();
        expect(c!.time).toBeCloseTo(r.duration_ms / 1000, 3);
      }
    });
  }

  it('a failure carries the message, the repro line, expected vs actual and the exchange; a skip carries its reason', async () => {
    const report = fixture('failing-run');
    const root = await readBack(renderJunit(report));
    const cases = (root.testsuite ?? []).flatMap((s) => s.testcase ?? []);
    const ranges = cases.find((c) => c.name === 'ranges.max-concurrency-above-maximum')!;
    expect(ranges.classname).toBe('ranges.POST /campaign');
    expect(ranges.time).toBeCloseTo(0.512);
    const failure = ranges.failure![0]!;
    expect(failure.message).toContain('max_concurrency=201 was accepted (200)');
    expect(failure.message).toContain(`repro: ${report.results[2]!.repro}`);
    expect(failure.inner).toContain('expected: 422 with a detail array naming body.max_concurrency');
    expect(failure.inner).toContain('actual: 200 and the campaign was created with max_concurrency 201');
    expect(failure.inner).toContain('rule: 4.2: max_concurrency 1..200 (contract 4.2)');
    expect(failure.inner).toContain('response: 200 (6 ms)');
    expect(failure.inner).toContain('"max_concurrency": 201');
    const skipped = cases.find((c) => c.name === 'stateful.recipient-added')!;
    expect(skipped.skipped![0]!.message).toMatch(/fixture recipient_list_id missing/);
    const error = cases.find((c) => c.name === 'stateful.create-then-get')!;
    expect(error.error![0]!.message).toMatch(/tool error/);
    const obs = (root.testsuite ?? []).find((s) => s.name === 'observations')!;
    expect(obs['system-out']![0]).toContain('validation.coerces-numeric-strings');
  });

  it('stays valid with hostile text (control characters, CDATA end, quotes, markup)', async () => {
    const report = fixture('failing-run');
    report.results[1]!.message = 'a\u0000b\u0007c ]]> "q" \'s\' <x/> &amp; \uD800 \r\n\ttab';
    report.results[1]!.id = 'auth.<weird> & "id"';
    const xml = renderJunit(report);
    const result = await validate(xml);
    expect(result.errors).toEqual([]);
    const cases = ((await readBack(xml)).testsuite ?? []).flatMap((s) => s.testcase ?? []);
    expect(cases.some((c) => c.name === 'auth.<weird> & "id"')).toBe(true);
  });
});
