import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addDays,
  baselineHygiene,
  isPlaceholderReason,
  MAX_EXPIRY_DAYS,
  serializeBaseline,
  TODO_REASON,
  type BaselineEntry,
} from '../../../src/baseline/index.js';
import { main, type CliIo } from '../../../src/cli/main.js';
import { loadBaselineFlags } from '../../../src/cli/baseline.js';
import { isVapcError } from '../../../src/errors.js';

const TODAY = '2026-11-25';
const entry = (over: Partial<BaselineEntry>): BaselineEntry => ({
  check: 'ranges.max-concurrency-above-maximum',
  operation: 'POST /campaign',
  kind: 'status:2xx',
  reason: 'Accepted until API-412 ships (framework limit)',
  expires: '2027-01-31',
  ...over,
});

const root = mkdtempSync(join(tmpdir(), 'vapc-hygiene-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
function file(entries: BaselineEntry[]): string {
  const path = join(mkdtempSync(join(root, 'b-')), 'baseline.yaml');
  writeFileSync(path, serializeBaseline(entries));
  return path;
}

describe('baseline hygiene: a real reason and an expiry within the maximum', () => {
  it('calls placeholders placeholders, and real reasons real', () => {
    for (const r of [
      TODO_REASON,
      'TODO',
      'todo: later',
      'FIXME',
      'tbd',
      'TBD.',
      '-',
      '--',
      '',
      '   ',
      '...',
      'n/a',
      'N/A',
      'none',
      'ok',
      'wip',
      'xx',
      '?',
    ]) {
      expect(isPlaceholderReason(r), JSON.stringify(r)).toBe(true);
    }
    for (const r of [
      'Accepted until API-412 ships',
      'known issue in API-412, fixed in v3',
      'Our framework answers {errors: [...]}',
      'Vendor bug #77',
    ]) {
      expect(isPlaceholderReason(r), r).toBe(false);
    }
  });

  it('names each entry with a placeholder reason, no expires, or an expires past the maximum', () => {
    const latest = addDays(TODAY, MAX_EXPIRY_DAYS);
    expect(latest).toBe('2027-02-23');
    const good = entry({});
    const problems = baselineHygiene(
      {
        version: 1,
        findings: [
          good,
          entry({ kind: 'a', reason: 'TODO' }),
          entry({ kind: 'b', expires: undefined }),
          entry({ kind: 'c', expires: '2027-02-24' }),
          entry({ kind: 'd', expires: latest }),
          entry({ kind: 'e', reason: '-', expires: '2099-01-01' }),
        ],
      },
      TODAY,
    );
    expect(problems.map((p) => [p.entry.kind, p.problems.length])).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 1],
      ['e', 2],
    ]);
    expect(problems[1]!.problems[0]).toMatch(/no expires \(give one within 90 days, by 2027-02-23\)/);
    expect(problems[2]!.problems[0]).toMatch(/expires 2027-02-24 is more than 90 days away/);
  });

  it('warns through the given writer and still loads the baseline', async () => {
    const lines: string[] = [];
    const b = await loadBaselineFlags(
      { baseline: file([entry({}), entry({ kind: 'x', reason: 'TODO', expires: undefined })]) },
      { today: TODAY, warn: (l) => lines.push(l) },
    );
    expect(b?.findings).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^vapc: warning: baseline .*: 1 entry without a real reason or a near enough expiry .*--strict-baseline fails on this/,
    );
    expect(lines[1]).toMatch(
      /ranges\.max-concurrency-above-maximum POST \/campaign x: the reason "TODO" is a placeholder; no expires/,
    );
    expect(lines).toHaveLength(2);
  });

  it('--strict-baseline refuses such a baseline with one E_BASELINE line naming the entries', async () => {
    const path = file([entry({ kind: 'x', reason: 'FIXME' }), entry({ kind: 'y', expires: '2030-01-01' })]);
    const error = await loadBaselineFlags({ baseline: path, strictBaseline: true }, { today: TODAY }).catch(
      (e: unknown) => e,
    );
    expect(isVapcError(error) && error.code).toBe('E_BASELINE');
    expect((error as Error).message).toMatch(
      /2 entries break the rules .*: .* x: the reason "FIXME" is a placeholder \| .* y: expires 2030-01-01 is more than 90 days away/,
    );
    expect((error as Error).message).not.toContain('\n');
    expect(
      await loadBaselineFlags({ baseline: file([entry({})]), strictBaseline: true }, { today: TODAY }),
    ).toBeDefined();
  });

  it('placeholder text from the file reaches the warning escaped', async () => {
    const lines: string[] = [];
    await loadBaselineFlags(
      { baseline: file([entry({ reason: 'TODO \u001b]0;owned\u0007', check: 'a.b\u001b[2J' })]) },
      { today: TODAY, warn: (l) => lines.push(l) },
    );
    expect(lines.join('')).not.toMatch(/\u001b|\u0007/);
    expect(lines.join('')).toContain('a.b\\x1b[2J');
  });

  it('vapc run --strict-baseline exits 2 before any request; without --baseline it is a usage error', async () => {
    let err = '';
    const io: CliIo = { stdout: () => {}, stderr: (t) => void (err += t), env: {}, isTTY: false };
    const path = file([entry({ reason: 'tbd' })]);
    // Port 9 (discard) on loopback: nothing is sent, the baseline is refused first. A report dir of
    // the test's own: a run that cannot start marks its report dir aborted (the default is the user's).
    const reports = ['--report-dir', join(mkdtempSync(join(root, 'r-')), 'reports')];
    expect(
      await main(['run', '--base-url', 'http://127.0.0.1:9', ...reports, '--baseline', path, '--strict-baseline'], io),
    ).toBe(2);
    expect(err).toMatch(
      /^vapc: baseline .*: 1 entry breaks the rules \(--strict-baseline: .*\): .*the reason "tbd" is a placeholder.* \[E_BASELINE\]\n$/,
    );
    err = '';
    expect(await main(['run', '--base-url', 'http://127.0.0.1:9', ...reports, '--strict-baseline'], io)).toBe(2);
    expect(err).toMatch(/--strict-baseline needs --baseline FILE/);
  });
});
