// `vapc export arazzo` through the CLI's entry (issue 36): its options come from vapc run's settings
// table, and bad input gets one line and exit 2, never a stack trace or a file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import { scratch } from '../helpers/arazzo-tools.js';

function io(): CliIo & { out: string; err: string } {
  const o = {
    out: '',
    err: '',
    env: {},
    isTTY: false,
    stdout: (t: string) => void (o.out += t),
    stderr: (t: string) => void (o.err += t),
  };
  return o;
}

let work: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  work = await scratch();
});
afterAll(() => work.done());

describe('vapc export arazzo (CLI)', () => {
  it('--help lists --out and the run settings it reads, from the settings table', async () => {
    const o = io();
    await main(['export', 'arazzo', '--help'], o);
    const help = o.out + o.err;
    for (const flag of [
      '--out',
      '--base-url',
      '--embedded',
      '--api-key',
      '--seed',
      '--include-destructive',
      '--config',
    ])
      expect(help).toContain(flag);
    expect(help).toContain('VAPC_BASE_URL');
    expect(help).not.toContain('--report-dir');
  });

  it('without a target: one line, exit 2, nothing written', async () => {
    const o = io();
    const out = join(work.dir, 'none.arazzo.yaml');
    expect(await main(['export', 'arazzo', '--no-config', '--out', out], o)).toBe(2);
    expect(o.err.trim().split('\n')).toHaveLength(1);
    expect(o.err).toMatch(/base-url|embedded/);
    expect(o.err).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  it('a seed that is not a number: one line, exit 2', async () => {
    const o = io();
    expect(await main(['export', 'arazzo', '--embedded', '--no-config', '--seed', 'abc'], o)).toBe(2);
    expect(o.err.trim().split('\n')).toHaveLength(1);
    expect(o.err).toMatch(/seed/);
  });

  it('with --embedded and no --out, the document goes to standard output and the summary to standard error', async () => {
    const o = io();
    expect(await main(['export', 'arazzo', '--embedded', '--no-config', '--seed', '3'], o)).toBe(0);
    expect(o.out).toMatch(/^arazzo: "1\.0\.1"/m);
    expect(o.err).toMatch(/arazzo: \d+ workflow\(s\)/);
    expect(o.out).not.toMatch(/workflow\(s\)/);
  });
});
