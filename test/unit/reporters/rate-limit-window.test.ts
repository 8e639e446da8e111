// The end of a run says when the rate-limit window it spent reopens (report.json `rate_limit`, the
// console's last lines), so a repro copied right after the run does not meet an unexplained 429.
import { describe, expect, it } from 'vitest';
import { renderSummary } from '../../../src/reporters/console.js';
import { renderHtml } from '../../../src/reporters/html.js';
import { rateLimitNote } from '../../../src/reporters/text.js';
import type { RunReport } from '../../../src/results/model.js';
import { runCheck, startTarget } from '../../helpers/checks.js';
import { fixture } from '../../helpers/reports.js';

const END = Date.parse('2026-01-02T10:00:00.000Z');
function ended(rate_limit: RunReport['rate_limit']): RunReport {
  const report = fixture('passing-run');
  return {
    ...report,
    started_at: new Date(END - 5000).toISOString(),
    summary: { ...report.summary, duration_ms: 5000 },
    ...(rate_limit ? { rate_limit } : {}),
  };
}

describe('the rate-limit window at the end of a run', () => {
  it('a burst spends the window: report.json has its reset, the console says when it reopens', async () => {
    // A minute's window of 5: the burst's 6th request is limited, and the reset is ~60 s away.
    const target = await startTarget({ rateLimit: 5, rateWindowMs: 60_000 });
    try {
      const run = await runCheck(target, 'ratelimit.burst-429');
      expect(run.results.map((r) => r.status)).toEqual(['passed']);
      const { rate_limit, started_at, summary } = run.report;
      expect(rate_limit?.remaining).toBe(0);
      const end = Date.parse(started_at) + summary.duration_ms;
      const reset = Date.parse(rate_limit!.reset_at);
      expect(reset).toBeGreaterThan(end);
      expect(reset).toBeLessThanOrEqual(end + 61_000);
      expect(renderSummary(run.report)).toMatch(
        /\nrate-limit window reopens at \d\d:\d\d:\d\d UTC \(in \d+ s\); repro lines sent before then may get 429\n/,
      );
      expect(renderSummary(run.report, { brief: true })).toContain('rate-limit window reopens at');
    } finally {
      await target.close();
    }
  });

  it('names the time in UTC and the seconds from the run end', () => {
    expect(rateLimitNote(ended({ reset_at: new Date(END + 41_200).toISOString(), limit: 20, remaining: 0 }))).toBe(
      'rate-limit window reopens at 10:00:42 UTC (in 42 s); repro lines sent before then may get 429',
    );
    expect(rateLimitNote(ended({ reset_at: new Date(END + 10_000).toISOString() }))).toMatch(
      /^rate-limit window reopens at 10:00:10 UTC/,
    );
    expect(rateLimitNote(ended({ reset_at: new Date(END + 10_000).toISOString(), limit: 100, remaining: 3 }))).toBe(
      'rate-limit window: 3 of 100 requests left until 10:00:10 UTC (in 10 s); more repro lines than that before then may get 429',
    );
  });

  it('says nothing when the window has requests to spare, has already reopened, or is unreadable', () => {
    expect(
      rateLimitNote(ended({ reset_at: new Date(END + 10_000).toISOString(), limit: 100, remaining: 50 })),
    ).toBeUndefined();
    expect(
      rateLimitNote(ended({ reset_at: new Date(END - 1).toISOString(), limit: 100, remaining: 0 })),
    ).toBeUndefined();
    expect(rateLimitNote(ended({ reset_at: 'soon', remaining: 0 }))).toBeUndefined();
    expect(rateLimitNote(ended(undefined))).toBeUndefined();
    expect(renderSummary(ended(undefined))).not.toContain('rate-limit window');
  });
});

describe('report.html says it too', () => {
  it('in the header, when the window was spent', () => {
    const html = renderHtml(ended({ reset_at: new Date(END + 41_200).toISOString(), limit: 20, remaining: 0 }));
    expect(html).toContain(
      '<dd id="rate-limit">rate-limit window reopens at 10:00:42 UTC (in 42 s); repro lines sent before then may get 429</dd>',
    );
    expect(renderHtml(ended(undefined))).not.toContain('id="rate-limit"');
  });
});
