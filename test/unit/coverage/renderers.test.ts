import { describe, expect, it } from 'vitest';
import { coverageMarkdown } from '../../../src/reporters/coverage-markdown.js';
import { coverageSarifResults } from '../../../src/reporters/coverage-sarif.js';
import { buildSarif, githubStepSummary } from '../../../src/reporters/index.js';
import { mdCell } from '../../../src/reporters/github.js';
import type { Coverage } from '../../../src/results/coverage.js';
import { fixture } from '../../helpers/reports.js';

const coverage: Coverage = {
  summary: { cells: 3, judged: 1, sent: 1, not_sent: 1, percent: 33.3 },
  cells: [
    {
      operation: 'GET /calls',
      dimension: 'status',
      item: '200',
      state: 'judged-pass',
      checks: ['schema.a'],
      requests: 2,
      spec_line: 10,
      spec_file: 'spec/openapi.yaml',
    },
    {
      operation: 'GET /calls',
      dimension: 'keyword',
      item: 'query limit | type',
      state: 'sent',
      checks: [],
      requests: 1,
      spec_line: 3,
      spec_file: 'spec/components/parameters/limit.yaml',
      reason: 'sent <b>only</b>',
    },
    {
      operation: 'POST /x',
      dimension: 'status',
      item: '5XX',
      state: 'not-sent',
      checks: [],
      requests: 0,
      spec_line: null,
    },
  ],
};

describe('coverage in the step summary', () => {
  it('adds the coverage line, a table per dimension and the cells not judged, every value escaped', () => {
    const md = githubStepSummary({ ...fixture('passing-run'), coverage });
    expect(md).toContain('### Coverage');
    expect(md).toContain('| keyword | 0 | 1 | 1 |');
    expect(md).toContain(
      `| GET /calls | keyword | ${mdCell('query limit | type')} | sent | spec/components/parameters/limit.yaml:3 | sent &lt;b&gt;only&lt;/b&gt; |`,
    );
    expect(md).not.toContain('<b>only');
    expect(coverageMarkdown(undefined, mdCell)).toEqual([]);
  });
});

describe('coverage in report.sarif', () => {
  it('adds notes on the spec lines of the cells not judged only when asked', () => {
    const report = { ...fixture('passing-run'), coverage };
    expect(buildSarif(report).runs[0]!.results!.some((r) => r.ruleId === 'coverage.not-judged')).toBe(false);
    const log = buildSarif(report, { coverage: true });
    const rules = log.runs[0]!.tool.driver.rules!;
    const notes = log.runs[0]!.results!.filter((r) => r.ruleId === 'coverage.not-judged');
    expect(notes.map((n) => [n.level, n.ruleIndex, n.locations![0]!.physicalLocation?.region?.startLine])).toEqual([
      ['note', rules.length - 1, 3],
      ['note', rules.length - 1, undefined],
    ]);
    expect(rules.at(-1)!.id).toBe('coverage.not-judged');
    expect(coverageSarifResults(undefined, 0)).toEqual([]);
  });
});
