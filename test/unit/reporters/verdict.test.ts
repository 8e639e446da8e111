/**
 * An inconclusive run is said where people look (issue 31): the console's last line, the HTML
 * banner, a JUnit test case that is not green, the GitHub step summary and annotation, and SARIF's
 * notifications; --allow-inconclusive is said in each too. A run that passed shows none of it.
 */
import { describe, expect, it } from 'vitest';
import { renderSummary } from '../../../src/reporters/console.js';
import { renderHtml } from '../../../src/reporters/html.js';
import { renderJunit } from '../../../src/reporters/junit.js';
import { githubAnnotations, githubStepSummary } from '../../../src/reporters/github.js';
import { buildSarif } from '../../../src/reporters/sarif.js';
import type { RunReport } from '../../../src/results/model.js';
import { fixture } from '../../helpers/reports.js';

const REASON = 'no success answer judged on POST /campaign: refused with 403 (12 check(s) not judged)';

function inconclusive(allow = false): RunReport {
  const r = fixture('passing-run');
  return {
    ...r,
    verdict: 'inconclusive',
    evidence: {
      reasons: [
        {
          kind: 'operations-unjudged',
          items: ['POST /campaign'],
          cause: { cause: 'refused', status: 403 },
          message: REASON,
        },
      ],
      not_judged: [
        {
          cause: 'refused',
          status: 403,
          checks: 12,
          operations: ['POST /campaign'],
          counted: true,
          message: 'refused with 403: 12 check(s) not judged on POST /campaign',
        },
      ],
      floor: 50,
      rate_limited: 3,
      ...(allow ? { allow_inconclusive: true as const } : {}),
    },
  };
}

describe('an inconclusive run in every output', () => {
  it('console: the INCONCLUSIVE line with the reason, the reasons listed, the 429s counted', () => {
    const text = renderSummary(inconclusive());
    expect(text).toMatch(
      new RegExp(`\\nINCONCLUSIVE: ${REASON.replace(/[()]/g, '\\$&')}; \\d+ passed, \\d+ skipped\\n$`),
    );
    expect(text).toContain('Inconclusive: the run judged too little to pass (1 reason)');
    expect(text).toContain('refused with 403: 12 check(s) not judged on POST /campaign');
    expect(text).toContain('rate limit: 3 answer(s) were 429');
    expect(renderSummary(inconclusive(true))).toContain('(exit 0 only because of --allow-inconclusive)');
    expect(renderSummary(fixture('passing-run'))).toMatch(/\nPASSED: /);
  });

  it('report.html: the verdict badge and a banner with the reasons', () => {
    const html = renderHtml(inconclusive());
    expect(html).toContain('<span class="verdict inconclusive" id="verdict">inconclusive</span>');
    expect(html).toContain('<section class="banner inconclusive" id="inconclusive" role="status">');
    expect(html).toContain(REASON);
    expect(renderHtml(inconclusive(true))).toContain('inconclusive (allowed)');
    expect(renderHtml(fixture('passing-run'))).not.toContain('id="inconclusive"');
  });

  it('junit.xml: a verdict test case in error (skipped when allowed, passed when the run judged enough)', () => {
    const xml = renderJunit(inconclusive());
    expect(xml).toMatch(/<testsuite name="verdict" tests="1" failures="0" errors="1" skipped="0"/);
    expect(xml).toContain('<error message="inconclusive: no success answer judged on POST /campaign');
    expect(xml).toMatch(/<testsuites [^>]*errors="1"/);
    expect(renderJunit(inconclusive(true))).toMatch(
      /<testsuite name="verdict" tests="1" failures="0" errors="0" skipped="1"/,
    );
    const passed = renderJunit({
      ...fixture('passing-run'),
      verdict: 'passed',
      evidence: { reasons: [], not_judged: [], floor: 50, rate_limited: 0 },
    });
    expect(passed).toMatch(
      /<testcase classname="vapc.verdict" name="the run judged enough to pass" time="0.000"><\/testcase>/,
    );
  });

  it('GitHub: the step summary says inconclusive and why; one ::error annotation (a warning when allowed)', () => {
    const summary = githubStepSummary(inconclusive());
    expect(summary).toContain('## vapc conformance: ⚠️ inconclusive');
    expect(summary).toContain('### Inconclusive: why');
    expect(githubAnnotations(inconclusive())).toMatch(/^::error title=vapc run inconclusive::nothing failed, but/m);
    expect(githubAnnotations(inconclusive(true))).toMatch(/^::warning title=vapc run inconclusive::/m);
    expect(githubAnnotations(fixture('passing-run'))).not.toContain('inconclusive');
  });

  it('report.sarif: a notification of the run (error, or warning when allowed) and the verdict in the run properties', () => {
    const run = buildSarif(inconclusive()).runs[0]!;
    expect(run.invocations![0]!.toolExecutionNotifications).toContainEqual({
      level: 'error',
      message: { text: `inconclusive: ${REASON}` },
      descriptor: { id: 'vapc.verdict' },
    });
    expect(run.properties).toMatchObject({ verdict: 'inconclusive' });
    const allowed = buildSarif(inconclusive(true)).runs[0]!.invocations![0]!.toolExecutionNotifications!;
    expect(allowed.map((n) => n.level)).toContain('warning');
  });
});
