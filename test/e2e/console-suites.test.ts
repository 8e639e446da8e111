/**
 * The plain console of a real run groups each suite's results under one header. The runner does
 * the pairs in value order and moves a passive pair's own turn after the last pair on its
 * operation (ARCHITECTURE.md, "Passive checks"), so the suites interleave as the run goes; the
 * console must not print a suite's header again each time the run comes back to it. Two suites
 * whose pairs interleave (schema's passive response-conforms judges stateful's answers) keep the
 * run to a few dozen requests.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import type { RunReport } from '../../src/results/model.js';

/** The plain output's suite blocks: each header with its announced count and the check ids printed under it. */
function blocks(out: string): Array<{ suite: string; count: number; ids: string[] }> {
  const found: Array<{ suite: string; count: number; ids: string[] }> = [];
  for (const line of out.split('\n')) {
    const header = /^\[(\w+)\] (\d+) checks?$/.exec(line);
    if (header) found.push({ suite: header[1]!, count: Number(header[2]), ids: [] });
    const result = /^ {2}(?:PASS|FAIL|SKIP|ERR) {1,2}(\S+) {2}/.exec(line);
    if (result) found.at(-1)?.ids.push(result[1]!);
  }
  return found;
}

describe('the plain console of a run whose suites interleave', () => {
  it('prints each suite header once, with every result of that suite under it and no other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vapc-console-suites-'));
    let out = '';
    const io: CliIo = {
      stdout: (t) => void (out += t),
      stderr: (t) => void (out += t),
      env: { NO_COLOR: '1' },
      isTTY: false,
    };
    const argv = ['run', '--embedded', '--no-config', '--seed', '1', '--suite', 'schema,stateful', '--runs', '2'];
    expect(await main([...argv, '--report-dir', dir], io)).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as RunReport;

    const printed = blocks(out);
    expect(printed.map((b) => b.suite).sort()).toEqual(['schema', 'stateful']);
    for (const block of printed) {
      const own = report.results.filter((r) => r.suite === block.suite);
      expect(
        block.ids.every((id) => id.startsWith(`${block.suite}.`)),
        `${block.suite}: ${block.ids.join(', ')}`,
      ).toBe(true);
      expect(block.ids.sort()).toEqual(own.map((r) => r.id).sort());
      expect(block.count).toBe(own.length);
    }
    // Every result printed once, none outside a block.
    expect(printed.flatMap((b) => b.ids)).toHaveLength(report.results.length);
    expect(out.match(/^ {2}(?:PASS|FAIL|SKIP|ERR) /gm)).toHaveLength(report.results.length);
  });
});
