import { inconclusiveHeadline } from '../results/verdict.js';
import { hostname } from 'node:os';
import type { CheckResult, RunReport } from '../results/model.js';
import { causeKeysOf, causeOf } from '../results/causes.js';
import { compactJson, countsBySuite, failuresOf, prettyBody, reproOf, ruleWithRef } from './text.js';

/**
 * junit.xml, built by hand rather than with junit-report-builder: the builder cannot give
 * <skipped> a reason (message attribute) or <failure> a body (expected/actual/repro/exchange),
 * and it writes <properties> inside <testcase>, which the widely used junit-10.xsd rejects.
 * The XML here is small, escaped in one place, and validated against that XSD in the tests.
 *
 * Shape: <testsuites> with one <testsuite> per suite, one <testcase> per check x operation
 * (name = check id, classname = `suite.METHOD /path`), <failure> (message with the cause key of
 * src/results/causes.ts, so readers can group testcases that share a cause, + body with the
 * expected/actual, input, seed, repro and the exchange), <skipped message=reason>, <error> for
 * tool faults, time in seconds. Observations, which are never failures, go into a last
 * testsuite "observations" with no test cases, as <system-out>.
 */

// Characters XML 1.0 cannot carry at all, even escaped (NUL, most C0 controls, lone surrogates, U+FFFE/F).
const INVALID_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(s: string): string {
  return s.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlAttr(s: string): string {
  return xmlText(s)
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

const seconds = (ms: number): string => (Math.max(0, Number.isFinite(ms) ? ms : 0) / 1000).toFixed(3);

function failureBody(result: CheckResult): string {
  const parts: string[] = [];
  parts.push(`rule: ${ruleWithRef(result)}`, `severity: ${result.severity}`);
  failuresOf(result).forEach((f, i) => {
    const lines: string[] = [
      `--- failure ${i + 1}`,
      `cause: ${causeOf(result, f).key}`,
      `expected: ${f.expected}`,
      `actual: ${f.actual}`,
    ];
    if (f.input !== undefined) lines.push(`input: ${compactJson(f.input)}`);
    if (f.seed !== undefined) lines.push(`seed: ${f.seed}${f.path ? ` path: ${f.path}` : ''}`);
    const repro = reproOf(f, result);
    if (repro) lines.push(`repro: ${repro}`);
    if (f.request) {
      lines.push('request:', `  ${f.request.method} ${f.request.url}`);
      for (const [k, v] of Object.entries(f.request.headers ?? {})) lines.push(`  ${k}: ${v}`);
      if (f.request.body) lines.push('', indent(prettyBody(f.request.body)));
    }
    if (f.response) {
      lines.push(`response: ${f.response.status} (${f.response.duration_ms} ms)`);
      for (const [k, v] of Object.entries(f.response.headers ?? {})) lines.push(`  ${k}: ${v}`);
      if (f.response.body)
        lines.push('', indent(prettyBody(f.response.body)) + (f.response.truncated ? '\n  [truncated]' : ''));
    }
    parts.push(lines.join('\n'));
  });
  return parts.join('\n');
}

const indent = (s: string): string =>
  s
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

function testcase(result: CheckResult): string {
  const open = `    <testcase name="${xmlAttr(result.id)}" classname="${xmlAttr(`${result.suite}.${result.operation}`)}" time="${seconds(result.duration_ms)}"`;
  switch (result.status) {
    case 'passed':
      return `${open}/>`;
    case 'skipped':
      return `${open}>\n      <skipped message="${xmlAttr(result.message)}"/>\n    </testcase>`;
    case 'error':
      return `${open}>\n      <error message="${xmlAttr(result.message)}" type="tool-error">${xmlText(result.message)}</error>\n    </testcase>`;
    case 'failed': {
      // A known finding (--baseline) is not a failure of this run: skipped, with the reason and the details.
      if (result.baseline?.known) {
        const reason = `known finding (baseline): ${result.baseline.reason ?? ''} | ${result.message}`;
        return `${open}>\n      <skipped message="${xmlAttr(reason)}"/>\n      <system-out>${xmlText(failureBody(result))}</system-out>\n    </testcase>`;
      }
      const repro =
        result.repro ??
        failuresOf(result)
          .map((f) => f.repro)
          .find(Boolean);
      // The cause key (src/results/causes.ts) lets a reader group testcases that share one cause.
      const cause = `${result.message} | cause: ${causeKeysOf(result).join('; ')}`;
      const message = repro ? `${cause} | repro: ${repro}` : cause;
      return `${open}>\n      <failure message="${xmlAttr(message)}" type="${xmlAttr(result.severity)}">${xmlText(failureBody(result))}</failure>\n    </testcase>`;
    }
  }
}

/**
 * The run's verdict as one test case, so an inconclusive run is not all green in a JUnit viewer: an
 * error (the run could not judge enough; not a failure of the server) with the reasons, skipped when
 * --allow-inconclusive let it pass, a pass when the run judged enough. None for a report without a verdict.
 */
function verdictSuite(report: RunReport): { xml: string; error: number } | undefined {
  if (!report.verdict || !report.evidence) return undefined;
  const inconclusive = report.verdict === 'inconclusive';
  const allowed = inconclusive && report.evidence.allow_inconclusive === true;
  const why = report.evidence.reasons.map((r) => r.message).join('\n');
  const headline = `inconclusive: ${inconclusiveHeadline(report.evidence)}`;
  const body = !inconclusive
    ? ''
    : allowed
      ? `\n      <skipped message="${xmlAttr(`${headline} (allowed by --allow-inconclusive)`)}"/>\n    `
      : `\n      <error message="${xmlAttr(headline)}" type="inconclusive">${xmlText(why)}</error>\n    `;
  const error = inconclusive && !allowed ? 1 : 0;
  return {
    error,
    xml: `  <testsuite name="verdict" tests="1" failures="0" errors="${error}" skipped="${allowed ? 1 : 0}" time="0.000" package="vapc">\n    <testcase classname="vapc.verdict" name="the run judged enough to pass" time="0.000">${body}</testcase>\n  </testsuite>`,
  };
}

export function renderJunit(report: RunReport): string {
  const host = safeHostname();
  const timestamp = (report.started_at ?? '').replace(/\.\d+Z$/, '').replace(/Z$/, '');
  const knownIn = (suite?: string) =>
    report.results.filter(
      (r) => r.status === 'failed' && r.baseline?.known === true && (suite === undefined || r.suite === suite),
    ).length;
  const suites = countsBySuite(report).map((c) => {
    const known = knownIn(c.suite);
    const cases = report.results.filter((r) => r.suite === c.suite).map(testcase);
    const props = [
      ['target', report.target],
      ['seed', String(report.seed)],
      ['spec_version', report.spec_version],
      ['tool', `${report.tool?.name ?? 'voice-agent-contract'} ${report.tool?.version ?? ''}`.trim()],
    ]
      .map(([n, v]) => `      <property name="${xmlAttr(n!)}" value="${xmlAttr(v ?? '')}"/>`)
      .join('\n');
    return [
      `  <testsuite name="${xmlAttr(c.suite)}" tests="${c.total}" failures="${c.failed - known}" errors="${c.error}" skipped="${c.skipped + known}" time="${seconds(c.duration_ms)}"${timestamp ? ` timestamp="${xmlAttr(timestamp)}"` : ''} hostname="${xmlAttr(host)}" package="vapc">`,
      `    <properties>\n${props}\n    </properties>`,
      ...cases,
      '  </testsuite>',
    ].join('\n');
  });
  if (report.observations && report.observations.length > 0) {
    const text = report.observations
      .map((o) => `${o.id}${o.operation ? ` (${o.operation})` : ''}: ${o.message}`)
      .join('\n');
    suites.push(
      `  <testsuite name="observations" tests="0" failures="0" errors="0" skipped="0" time="0.000" package="vapc">\n    <system-out>${xmlText(text)}</system-out>\n  </testsuite>`,
    );
  }
  const notObserved = report.baseline?.not_observed ?? [];
  if (notObserved.length > 0) {
    // Baseline entries no failure matched this run: listed, never counted as fixed or passed.
    const text = notObserved
      .map((e) => `not observed: ${e.check} ${e.operation} ${e.kind} (this run: ${e.this_run}) - ${e.reason}`)
      .join('\n');
    suites.push(
      `  <testsuite name="baseline" tests="0" failures="0" errors="0" skipped="0" time="0.000" package="vapc">\n    <system-out>${xmlText(text)}</system-out>\n  </testsuite>`,
    );
  }
  const verdict = verdictSuite(report);
  if (verdict) suites.push(verdict.xml);
  const tests = report.results.length + (verdict ? 1 : 0);
  const count = (v: CheckResult['status']) => report.results.filter((r) => r.status === v).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttr(`vapc conformance: ${report.target}`)}" tests="${tests}" failures="${count('failed') - knownIn()}" errors="${count('error') + (verdict?.error ?? 0)}" time="${seconds(report.summary?.duration_ms ?? 0)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

function safeHostname(): string {
  try {
    return hostname();
  } catch {
    return 'localhost';
  }
}
