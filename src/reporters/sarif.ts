/**
 * report.sarif: the run as a SARIF 2.1.0 log, so code scanning shows each finding on the line of
 * the contract (spec/) it breaks. One rule per check (id, short and full description, the contract
 * section, help text), one result per failed check × operation, located on the request body field,
 * parameter or response property the failures' `field` names when they name one, else on the
 * operation's method key.
 * Tool errors (the runner could not check) are notifications of the invocation, never results.
 * Built on the @types/sarif definitions; a builder library added nothing the types do not give.
 */
import { inconclusiveHeadline } from '../results/verdict.js';
import { createHash } from 'node:crypto';
import type * as Sarif from 'sarif';
import { segmentsOf, type CheckResult, type Failure, type RunReport, type Severity } from '../results/model.js';
import { legacyFieldOf } from '../results/legacy.js';
import { coverageRule, coverageSarifResults } from './coverage-sarif.js';
import { sarifText } from '../secrets/guard.js';

/** A position in the authored spec: `file` relative to the repository root, 1-based line and column. */
export interface SarifPosition {
  file: string;
  line: number;
  column: number;
}

/** The request field a failure is about: where it is sent and its path (`['speech_settings', 'style']`). */
export interface FailureField {
  /** body, query, path, header; or `response` for a property of the response body. */
  location?: string;
  /** With `response`: the status answered. */
  status?: string;
  segments: string[];
}

/** Finds spec positions; the default (src/spec/source.ts) reads the authored split files. */
export interface SarifLocator {
  /** `METHOD /path` → the line of the operation. */
  operation(label: string): SarifPosition | undefined;
  /** The line of a body property or parameter of the operation. */
  field(label: string, field: FailureField): SarifPosition | undefined;
}

/** What a rule is made of: a check definition fits (id, suite, rule, contractRef, severity). */
export interface SarifRuleSource {
  id: string;
  suite: string;
  rule: string;
  contractRef: string;
  severity: Severity;
}

export interface SarifOptions {
  /** Every check of the registry (so rules list all checks); the report's own results fill in the rest. */
  rules?: readonly SarifRuleSource[];
  locator?: SarifLocator;
  /** Also one `note` result on the spec line of each coverage cell not judged (--sarif-coverage). */
  coverage?: boolean;
}

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
const MAX_RELATED = 10;

const LEVEL: Record<Severity, Sarif.ReportingConfiguration.level> = {
  critical: 'error',
  major: 'error',
  minor: 'warning',
};

/** The first sentence of a rule, short enough for a title. */
function shortText(text: string): string {
  const first = /^(.+?[.;:])(\s|$)/.exec(text)?.[1] ?? text;
  return first.length <= 160 ? first : `${first.slice(0, 157)}...`;
}

/**
 * A rule as SARIF shows it. A rule of the registry is vapc's own text and gets Markdown help; a
 * rule made from a report's result (a check id the registry lacks, so from an artefact that could
 * be forged) gets plain-text help only, so nothing it holds renders as a link, image or HTML.
 */
function ruleOf(source: SarifRuleSource, trusted: boolean): Sarif.ReportingDescriptor {
  const section = source.contractRef.includes(',') ? 'sections' : 'section';
  const text =
    `${source.rule}\n\nContract: Voice-Agent Platform API, ${section} ${source.contractRef}. ` +
    `Each result names the request that broke the rule and a curl line that reproduces it; ` +
    `rerun the check alone with \`npx --no-install vapc run --suite ${source.suite} --seed <the run's seed>\`.`;
  const markdown =
    `${source.rule}\n\n**Contract:** Voice-Agent Platform API, ${section} ${source.contractRef}.\n\n` +
    `Each result names the request that broke the rule and a \`curl\` line that reproduces it; ` +
    `rerun the check alone with \`npx --no-install vapc run --suite ${source.suite} --seed <the run's seed>\`.`;
  return {
    id: source.id,
    name: source.id,
    shortDescription: { text: shortText(source.rule) },
    fullDescription: { text: `${source.rule} (contract ${section} ${source.contractRef})` },
    help: trusted ? { text, markdown } : { text },
    defaultConfiguration: { level: LEVEL[source.severity] },
    properties: {
      tags: ['contract', source.suite],
      suite: source.suite,
      contract_ref: source.contractRef,
      severity: source.severity,
      precision: 'very-high',
    },
  };
}

/** Rules of the registry first (in its order), then any check the report has that the registry lacks. */
function rulesFor(report: RunReport, options: SarifOptions): Sarif.ReportingDescriptor[] {
  const byId = new Map<string, { source: SarifRuleSource; trusted: boolean }>();
  for (const r of options.rules ?? []) byId.set(r.id, { source: r, trusted: true });
  for (const r of report.results) {
    if (!byId.has(r.id))
      byId.set(r.id, {
        source: {
          id: r.id,
          suite: r.suite,
          rule: r.rule || r.id,
          contractRef: r.contract_ref || '?',
          severity: r.severity,
        },
        trusted: false,
      });
  }
  return [...byId.values()].map(({ source, trusted }) => ruleOf(source, trusted));
}

/**
 * The field a failure is located on: its `field` (data), the pointer's array indices dropped since
 * the spec describes the items, not one of them. A response header has no line of its own here
 * (the operation's line is used). A failure of a report written before `field` existed: what its
 * prose names (src/results/legacy.ts).
 */
export function failureField(failure: Failure): FailureField | undefined {
  if (typeof failure.kind !== 'string') return legacyFieldOf(failure);
  const field = failure.field;
  if (!field || field.location === 'response-header') return undefined;
  const segments = segmentsOf(String(field.pointer ?? '')).filter((s) => s !== '' && !/^\d+$/.test(s));
  if (segments.length === 0) return undefined;
  const out: FailureField = { location: field.location, segments };
  if (field.status !== undefined) out.status = field.status;
  return out;
}

function physical(position: SarifPosition): Sarif.PhysicalLocation {
  // Split file names may hold `{}`: percent-encode them, as a URI reference requires.
  return {
    artifactLocation: { uri: encodeURI(position.file) },
    region: { startLine: position.line, startColumn: position.column },
  };
}

function locate(result: CheckResult, locator: SarifLocator | undefined) {
  const operation = locator?.operation(result.operation);
  const fields = new Map<string, SarifPosition>();
  for (const failure of result.failures ?? []) {
    const field = failureField(failure);
    const position = field && locator?.field(result.operation, field);
    if (position) fields.set(`${position.file}:${position.line}`, position);
  }
  const logical: Sarif.LogicalLocation[] = [
    { name: result.operation, fullyQualifiedName: result.operation, kind: 'function' },
  ];
  const single = fields.size === 1 ? [...fields.values()][0]! : undefined;
  const primary = single ?? operation;
  const locations: Sarif.Location[] = [
    primary ? { physicalLocation: physical(primary), logicalLocations: logical } : { logicalLocations: logical },
  ];
  const related: Sarif.Location[] = [];
  if (single && operation)
    related.push({
      id: 1,
      physicalLocation: physical(operation),
      message: { text: sarifText(`the operation ${result.operation}`) },
    });
  if (!single) {
    for (const position of [...fields.values()].slice(0, MAX_RELATED)) {
      related.push({
        id: related.length + 1,
        physicalLocation: physical(position),
        message: { text: 'a field the failures name' },
      });
    }
  }
  return { locations, related, anchor: single ? `${single.file}:${single.line}` : '' };
}

function messageOf(result: CheckResult): string {
  const first = result.failures?.[0];
  const lines = [`${result.operation}: ${result.message}`];
  if (first) lines.push(`Expected: ${first.expected}`, `Actual: ${first.actual}`);
  const more = (result.failures?.length ?? 0) - 1;
  if (more > 0)
    lines.push(`(${more} more failure${more === 1 ? '' : 's'} of this check on this operation in report.json)`);
  if (result.repro) lines.push(`Reproduce: ${result.repro}`);
  // A server's `[text](https://...)` would be an embedded link in SARIF message text (§3.11.6).
  return sarifText(lines.join('\n'));
}

function resultOf(
  result: CheckResult,
  ruleIndex: number,
  report: RunReport,
  locator: SarifLocator | undefined,
): Sarif.Result {
  const { locations, related, anchor } = locate(result, locator);
  const out: Sarif.Result = {
    ruleId: result.id,
    ruleIndex,
    level: LEVEL[result.severity],
    kind: 'fail',
    message: { text: messageOf(result) },
    locations,
    // Stable across seeds and runs: the check, the operation and the field it is located on.
    partialFingerprints: {
      'vapcFinding/v1': createHash('sha256').update(`${result.id}|${result.operation}|${anchor}`).digest('hex'),
    },
    properties: {
      operation: result.operation,
      suite: result.suite,
      seed: report.seed,
      failures: result.failures?.length ?? 0,
    },
  };
  if (related.length > 0) out.relatedLocations = related;
  return out;
}

/** The SARIF log of a report (already redacted by the caller, as writeReports does). */
export function buildSarif(report: RunReport, options: SarifOptions = {}): Sarif.Log {
  const rules = rulesFor(report, options);
  const withCoverage = options.coverage === true && report.coverage !== undefined;
  if (withCoverage) rules.push(coverageRule);
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const errors = report.results.filter((r) => r.status === 'error');
  const invocation: Sarif.Invocation = {
    executionSuccessful: errors.length === 0 && report.run?.status !== 'aborted',
    toolExecutionNotifications: [
      ...errors.map((r) => ({
        level: 'error' as const,
        message: { text: sarifText(`${r.id} on ${r.operation}: ${r.message}`) },
        descriptor: { id: r.id },
      })),
      // An inconclusive run is not a pass: said where a SARIF viewer shows the run's own messages.
      ...(report.verdict === 'inconclusive' && report.evidence
        ? [
            {
              level: report.evidence.allow_inconclusive ? ('warning' as const) : ('error' as const),
              message: { text: sarifText(`inconclusive: ${inconclusiveHeadline(report.evidence)}`) },
              descriptor: { id: 'vapc.verdict' },
            },
          ]
        : []),
    ],
  };
  if (report.started_at) invocation.startTimeUtc = report.started_at;
  return {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: { name: report.tool.name, semanticVersion: report.tool.version, version: report.tool.version, rules },
        },
        invocations: [invocation],
        results: [
          ...report.results
            .filter((r) => r.status === 'failed')
            .map((r) => resultOf(r, index.get(r.id)!, report, options.locator)),
          ...(withCoverage ? coverageSarifResults(report.coverage, rules.length - 1) : []),
        ],
        columnKind: 'utf16CodeUnits',
        properties: {
          target: report.target,
          seed: report.seed,
          spec_version: report.spec_version,
          summary: report.summary,
          ...(report.verdict ? { verdict: report.verdict } : {}),
          ...(report.evidence ? { evidence: report.evidence } : {}),
        },
      },
    ],
  };
}

export function renderSarif(report: RunReport, options: SarifOptions = {}): string {
  return `${JSON.stringify(buildSarif(report, options), null, 2)}\n`;
}
