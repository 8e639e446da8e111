/**
 * report.sarif's coverage results (behind `--sarif-coverage`): one result at level `note` on the
 * spec line of each cell the run did not judge, under one rule `coverage.not-judged`, so code
 * scanning shows what the run left out where the contract states it.
 */
import { createHash } from 'node:crypto';
import type * as Sarif from 'sarif';
import type { Coverage } from '../results/coverage.js';
import { sarifText } from '../secrets/guard.js';

export const COVERAGE_RULE_ID = 'coverage.not-judged';

export const coverageRule: Sarif.ReportingDescriptor = {
  id: COVERAGE_RULE_ID,
  name: COVERAGE_RULE_ID,
  shortDescription: { text: 'A cell of the contract no check judged in this run.' },
  fullDescription: {
    text: 'A documented status, parameter, constraint keyword, enum value, response, header or security requirement that no check which passed or failed sent a request for (docs/coverage.md).',
  },
  defaultConfiguration: { level: 'note' },
  properties: { tags: ['coverage'] },
};

/** The note results of the cells not judged; `ruleIndex` is where the caller put `coverageRule`. */
export function coverageSarifResults(coverage: Coverage | undefined, ruleIndex: number): Sarif.Result[] {
  if (!coverage) return [];
  return coverage.cells
    .filter((c) => c.state === 'not-sent' || c.state === 'sent')
    .map((c) => {
      const result: Sarif.Result = {
        ruleId: COVERAGE_RULE_ID,
        ruleIndex,
        level: 'note',
        kind: 'review',
        message: {
          text: sarifText(
            `${c.operation}: ${c.dimension} ${c.item} was ${c.state === 'sent' ? 'sent but not judged' : 'not sent'}${c.reason ? ` (${c.reason})` : ''}.`,
          ),
        },
        locations: [
          {
            ...(c.spec_line === null
              ? {}
              : {
                  physicalLocation: {
                    artifactLocation: { uri: encodeURI(c.spec_file ?? 'spec/openapi.yaml') },
                    region: { startLine: c.spec_line },
                  },
                }),
            logicalLocations: [{ name: c.operation, fullyQualifiedName: c.operation, kind: 'function' }],
          },
        ],
        partialFingerprints: {
          'vapcCoverage/v1': createHash('sha256').update(`${c.operation}|${c.dimension}|${c.item}`).digest('hex'),
        },
        properties: { operation: c.operation, dimension: c.dimension, item: c.item, state: c.state },
      };
      return result;
    });
}
