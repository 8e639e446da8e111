/**
 * The coverage flags of `vapc run` and `vapc report merge` through the CLI: the one-line summary,
 * `--min-coverage` (exit 1 with the cells missing), `--fail-on-unseen-status`, `--sarif-coverage`
 * notes on spec lines, the planned coverage of `--dry-run`, a bad value as a usage error, and the
 * gate on merged shards. One small suite (cors) keeps each run to a few requests.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import type { RunReport } from '../../src/results/model.js';

async function vapc(argv: string[]) {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    env: { NO_COLOR: '1' },
    isTTY: false,
  };
  const code = await main(argv, io);
  return { code, out, err };
}

const dir = () => mkdtempSync(join(tmpdir(), 'vapc-coverage-cli-'));
const SMALL = ['run', '--embedded', '--seed', '1', '--suite', 'cors', '--runs', '1', '--quiet'];

describe('vapc run coverage flags', () => {
  it('prints the coverage line, fails --min-coverage and --fail-on-unseen-status with what is missing, and writes SARIF notes on spec lines', async () => {
    const reports = dir();
    const { code, out, err } = await vapc([
      ...SMALL,
      '--report-dir',
      reports,
      '--min-coverage',
      '90',
      '--sarif-coverage',
      '--fail-on-unseen-status',
    ]);
    expect(out).toMatch(/^coverage: \d+\/\d+ cells judged \(\d+%\), \d+ documented status(es)? never seen/m);
    expect(code).toBe(1);
    expect(err).toMatch(/below --min-coverage 90; \d+ cell\(s\) not judged:/);
    expect(err).toContain('POST /orgs/{org_id}/invites · status · 2XX · not-sent (spec/openapi.yaml:');
    expect(err).toMatch(/documented status\(es\) never observed \(--fail-on-unseen-status\):\n {2}\S+ \//);
    const report = JSON.parse(readFileSync(join(reports, 'report.json'), 'utf8')) as RunReport;
    const notes = (
      JSON.parse(readFileSync(join(reports, 'report.sarif'), 'utf8')) as {
        runs: Array<{
          results: Array<{
            level: string;
            ruleId: string;
            locations: Array<{ physicalLocation?: { region: { startLine: number } } }>;
          }>;
        }>;
      }
    ).runs[0]!.results.filter((r) => r.ruleId === 'coverage.not-judged');
    expect(notes.length).toBe(report.coverage!.summary.sent + report.coverage!.summary.not_sent);
    expect(notes.every((n) => n.level === 'note' && n.locations[0]!.physicalLocation!.region.startLine > 0)).toBe(true);
    // Unseen statuses are observations unless asked: the same run passes a gate it meets.
    expect(await vapc([...SMALL, '--report-dir', dir(), '--min-coverage', '1'])).toMatchObject({ code: 0 });
  }, 60_000);

  it('refuses a bad --min-coverage before any request', async () => {
    const bad = await vapc([...SMALL, '--report-dir', dir(), '--min-coverage', 'most']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--min-coverage takes a percentage from 0 to 100');
  }, 60_000);

  it('prints the planned coverage on --dry-run', async () => {
    const { code, out } = await vapc(['run', '--embedded', '--seed', '1', '--suite', 'ranges', '--dry-run']);
    expect(code).toBe(0);
    expect(out).toMatch(/^planned coverage: \d+\/\d+ cells the plan is expected to judge/m);
    expect(out).toMatch(/by dimension: status \d+\/\d+, .*keyword \d+\/\d+/);
  }, 60_000);

  it('gates merged shards on --min-coverage', async () => {
    const shards = [dir(), dir()];
    for (const [i, d] of shards.entries()) await vapc([...SMALL, '--shard', `${i + 1}/2`, '--report-dir', d]);
    const merged = await vapc(['report', 'merge', ...shards, '--report-dir', dir(), '--quiet', '--min-coverage', '95']);
    expect(merged.out).toMatch(/^coverage: \d+\/\d+ cells judged/m);
    expect(merged.code).toBe(1);
    expect(merged.err).toContain('below --min-coverage 95');
  }, 60_000);
});
