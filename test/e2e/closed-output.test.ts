/**
 * A reader that stops reading (`vapc run | head -3`, a CI step that closed its pipe) must not cost
 * the run its reports or its exit status, nor print a stack trace (docs/running.md "Output"). Real
 * child processes of the built binary, for the failure is the process's own pipe; each case closes
 * the pipe where the reader would, and the run is narrowed to one suite with a fixed seed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { failSafeWriter } from '../../src/cli/io.js';
import { packageRoot } from '../../src/paths.js';
import { FIXTURES } from '../helpers/reports.js';

const STACK = /\n\s+at .+:\d+:\d+|Unhandled 'error'|EPIPE/;
const dir = mkdtempSync(join(tmpdir(), 'vapc-closed-output-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Ended {
  status: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

type Closing = 'after-first-chunk' | 'at-once' | 'open';

/**
 * Starts `vapc ...argv`, closing our end of its stdout and stderr as told: 'after-first-chunk' is
 * `| head -1`, 'at-once' a reader that is gone before vapc writes anything.
 */
function start(argv: string[], close: { stdout: Closing; stderr: Closing }) {
  const child = spawn(process.execPath, [join(packageRoot, 'bin', 'vapc.js'), ...argv], {
    cwd: packageRoot,
    env: { ...process.env, NO_COLOR: '1', GITHUB_ACTIONS: '' },
  });
  const got = { stdout: '', stderr: '' };
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = child[name];
    if (close[name] === 'at-once') stream.destroy();
    stream.on('data', (chunk: Buffer) => {
      got[name] += chunk.toString();
      if (close[name] === 'after-first-chunk') stream.destroy();
    });
  }
  const ended = new Promise<Ended>((resolve) =>
    child.on('exit', (status, signal) => resolve({ status, signal, out: got.stdout, err: got.stderr })),
  );
  return { child, ended };
}

const vapc = (argv: string[], close: { stdout: Closing; stderr: Closing }) => start(argv, close).ended;

/** A loopback port free a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface Report {
  run: { status: string };
  summary: { passed: number; failed: number; skipped: number; errors: number };
  results: unknown[];
}

describe('vapc with a reader that closed its pipe', () => {
  it('run: stops writing to a closed stdout, writes its reports and exits with the status it earned', async () => {
    const run = await vapc(['run', '--embedded', '--suite', 'cors', '--seed', '1', '--report-dir', join(dir, 'cors')], {
      stdout: 'after-first-chunk',
      stderr: 'open',
    });
    expect(run.err).not.toMatch(STACK);
    expect(run.err).toBe('');
    expect(run.signal).toBeNull();
    // The reference server passes the cors suite: the status a reader that read on would have seen.
    expect(run.status).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'cors', 'report.json'), 'utf8')) as Report;
    expect(report.run.status).toBe('complete');
    expect(report.results.length).toBeGreaterThan(0);
    const { passed, failed, skipped, errors } = report.summary;
    expect(passed + failed + skipped + errors).toBe(report.results.length);
    expect(failed).toBe(0);
    for (const file of ['junit.xml', 'report.html', 'report.sarif'])
      expect(existsSync(join(dir, 'cors', file))).toBe(true);
  });

  it('report: renders its files and exits with the status of the report when neither stream is read', async () => {
    for (const [fixture, status] of [
      ['passing-run', 0],
      ['failing-run', 1],
    ] as const) {
      const at = mkdtempSync(join(dir, `${fixture}-`));
      copyFileSync(join(FIXTURES, `${fixture}.json`), join(at, 'report.json'));
      // stderr stays open for the failing run, where a stack trace would show (and exit 1 as well).
      const close = { stdout: 'at-once', stderr: status === 0 ? 'at-once' : 'open' } as const;
      const shown = await vapc(['report', at], close);
      expect(shown.err).toBe('');
      expect(shown.signal).toBeNull();
      expect(shown.status).toBe(status);
      for (const file of ['junit.xml', 'report.html']) expect(existsSync(join(at, file))).toBe(true);
    }
  });

  it('a usage error with stderr closed still exits 2, the one word left to say it', async () => {
    // Its own report dir: a run that cannot start marks its report dir aborted (by default the checkout's reports/latest).
    const usage = await vapc(['run', '--embedded', '--suite', 'nope', '--report-dir', join(dir, 'usage')], {
      stdout: 'open',
      stderr: 'at-once',
    });
    expect(usage.signal).toBeNull();
    expect(usage.status).toBe(2);
    expect(usage.out).toBe('');
  });

  it('serve: keeps serving when its startup lines found no reader, and stops with 0 on SIGTERM', async () => {
    const port = await freePort();
    const { child, ended } = start(['serve', '--port', String(port)], { stdout: 'at-once', stderr: 'open' });
    children.push(child);
    // Its line for people on stderr follows the two startup lines the closed stdout refused.
    await new Promise((resolve) => child.stderr.once('data', resolve));
    const answer = await fetch(`http://127.0.0.1:${port}/`);
    expect(answer.status).toBe(404);
    child.kill('SIGTERM');
    const served = await ended;
    expect(served.err).not.toMatch(STACK);
    expect(served.signal).toBeNull();
    expect(served.status).toBe(0);
  });
});

describe('failSafeWriter', () => {
  /** A stream whose every write fails with `code`, as a closed pipe or a full disk does. */
  const failing = (code: string) =>
    new Writable({
      write: (_chunk, _encoding, done) => done(Object.assign(new Error(`write ${code}`), { code })),
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('drops what follows a closed reader without a word and without throwing', async () => {
    const told: string[] = [];
    const write = failSafeWriter(failing('EPIPE'), 'stdout', (t) => told.push(t));
    write('one\n');
    await settle();
    write('two\n');
    await settle();
    expect(told).toEqual([]);
  });

  it('says once, on the other stream, that output is lost for any other reason', async () => {
    const told: string[] = [];
    const write = failSafeWriter(failing('ENOSPC'), 'stdout', (t) => told.push(t));
    write('one\n');
    write('two\n');
    await settle();
    write('three\n');
    await settle();
    expect(told).toEqual(['vapc: cannot write to stdout (ENOSPC); the rest of its output is dropped\n']);
  });

  it('passes text through unchanged while the stream works', () => {
    const stream = new PassThrough();
    const write = failSafeWriter(stream, 'stdout', () => {});
    write('a');
    write('b\n');
    expect(String(stream.read())).toBe('ab\n');
  });
});
