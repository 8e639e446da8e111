// The console shows the answer of every failure it lists (status and body, as report.json records
// it), on one line, escaped and bounded: no detective work in report.json to see what the server said.
import { describe, expect, it } from 'vitest';
import { CONSOLE_BODY_MAX, createConsoleReporter, renderSummary } from '../../../src/reporters/console.js';
import type { CheckResult, RunReport } from '../../../src/results/model.js';
import { printable } from '../../../src/results/printable.js';
import { fixture } from '../../helpers/reports.js';

function withFailure(body: string, extra: Partial<CheckResult> = {}): RunReport {
  const report = fixture('failing-run');
  const result: CheckResult = {
    id: 'validation.wrong-type',
    suite: 'validation',
    operation: 'POST /campaign',
    status: 'failed',
    message: 'name=7 answered 400, not 422',
    rule: 'r',
    contract_ref: '7',
    severity: 'major',
    duration_ms: 1,
    requests: 1,
    failures: [{ expected: '422', actual: '400', response: { status: 400, headers: {}, body, duration_ms: 1 } }],
    ...extra,
  };
  return { ...report, results: [result] };
}

describe('the console shows the response body of each failure', () => {
  it('every failure of a failing run, full and brief', () => {
    const report = fixture('failing-run');
    const full = renderSummary(report);
    const brief = renderSummary(report, { brief: true });
    for (const r of report.results.filter((x) => x.status === 'failed')) {
      for (const [i, f] of (r.failures ?? []).slice(0, 3).entries()) {
        const start = `${f.response!.status} ${printable(f.response!.body ?? '').slice(0, 40)}`;
        expect(full, `${r.id} failure ${i + 1}`).toContain(`body:     ${start}`);
        if (i === 0) expect(brief, r.id).toContain(`body:  ${start}`);
      }
    }
  });

  it('on one line, control characters escaped, cut at the bound', () => {
    const body = `{"detail":"\u001b[2J\u001b]0;owned\u0007\n::error::fake"}${'x'.repeat(2000)}`;
    let out = '';
    const console = createConsoleReporter({ write: (t) => (out += t), isTTY: false, env: {} });
    console.onEnd?.(withFailure(body));
    const line = out.split('\n').find((l) => l.includes('body:'))!;
    expect(line).toContain('400 {"detail":"\\x1b[2J\\x1b]0;owned\\x07\\n::error::fake"}');
    expect(out).not.toMatch(/[\u0000-\u0008\u001b\u007f]/);
    expect(line.length).toBeLessThan(CONSOLE_BODY_MAX + 80);
    expect(line).toMatch(/\[cut here; report\.json has the recorded body\]$/);
  });

  it('says when the recorded body itself was cut, and when there was none', () => {
    const cut = withFailure('{"detail":"x"}');
    cut.results[0]!.failures![0]!.response!.truncated = true;
    expect(renderSummary(cut)).toContain('body:     400 {"detail":"x"} [cut at the recorded size cap]');
    expect(renderSummary(withFailure(''))).toContain('body:     400 (empty body)');
  });

  it('no body line for a failure that got no answer', () => {
    const report = withFailure('');
    delete report.results[0]!.failures![0]!.response;
    expect(renderSummary(report)).not.toContain('body:');
  });

  it('never shows a secret the body held', () => {
    let out = '';
    const console = createConsoleReporter({
      write: (t) => (out += t),
      isTTY: false,
      env: {},
      secrets: { apiKeys: ['sk_live_BodySecret12345'] },
    });
    console.onEnd?.(withFailure('{"echo":"sk_live_BodySecret12345"}'));
    expect(out).toContain('body:     400 {"echo":');
    expect(out).not.toContain('BodySecret');
  });
});
