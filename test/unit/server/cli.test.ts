/**
 * `vapc serve` as other tools drive it (runner-interface.md): the built binary prints exactly
 * `listening http://HOST:PORT` then `fixtures {json}`, serves with the flags given, and exits 0 on
 * SIGINT/SIGTERM; bad flags and a busy port exit 2 with a message and no stack trace.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { packageRoot } from '../../../src/paths.js';
import { send } from '../../helpers/client.js';

const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Served {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts the built `vapc serve` and resolves once it printed its two lines. */
function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [join(packageRoot, 'bin', 'vapc.js'), 'serve', ...args], { cwd: packageRoot });
  children.push(child);
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`vapc serve printed no fixtures line in 20 s: ${out} ${err}`)),
      20_000,
    );
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const lines = out.split('\n').filter((l) => l !== '');
      if (lines.length >= 2) {
        clearTimeout(timer);
        resolve({ child, lines, stderr: () => err, exited });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`vapc serve exited (${code}) before it was ready: ${err}`));
    });
  });
}

function memoryIo(): CliIo & { out: string; err: string } {
  const io = { out: '', err: '', env: {}, isTTY: false } as CliIo & { out: string; err: string };
  io.stdout = (t) => void (io.out += t);
  io.stderr = (t) => void (io.err += t);
  return io;
}

describe('vapc serve', () => {
  it('prints the listening and fixtures lines, serves with the given flags and exits 0 on SIGTERM', async () => {
    const s = await serve([
      '--port',
      '0',
      '--api-key',
      'cli-key',
      '--user-id',
      'cli-user',
      '--rate-limit',
      '7',
      '--rate-window-s',
      '30',
    ]);
    expect(s.lines).toHaveLength(2);
    const [listening, fixturesLine] = s.lines as [string, string];
    expect(listening).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+$/);
    expect(fixturesLine).toMatch(/^fixtures \{.*\}$/);
    const fixtures = JSON.parse(fixturesLine.slice('fixtures '.length));
    expect(Object.keys(fixtures).sort()).toEqual([
      'api_key',
      'api_key_id',
      'channels',
      'org_id',
      'recipient_list_id',
      'user_id',
    ]);
    expect(fixtures).toMatchObject({ api_key: 'cli-key', user_id: 'cli-user' });
    expect(fixtures.channels).toHaveLength(2);

    const url = listening.slice('listening '.length);
    const r = await send(url, '/calls?limit=2', {
      headers: { authorization: 'Bearer cli-key', 'x-user-id': 'cli-user' },
    });
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(2);
    expect(r.headers['x-ratelimit-limit']).toBe('7');
    expect(Number(r.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(30);
    const list = await send(url, `/recipient-lists/${fixtures.recipient_list_id}/recipients`, {
      method: 'POST',
      headers: { authorization: 'Bearer cli-key', 'x-user-id': 'cli-user' },
      json: { phone_number: '+15550100' },
    });
    expect(list.status).toBe(201);

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    // stderr, for people: the one line naming the headers a client sends (placeholders, no values).
    expect(s.stderr()).toMatch(
      /^vapc serve: send Authorization: Bearer <api_key> and X-User-ID: <user_id> \(values in the fixtures line\); GET \/health needs neither.*; without them: 401\n$/,
    );
    expect(s.stderr()).not.toContain('cli-key');
  });

  it('exits 0 on SIGINT too, and prints nothing more than its two lines', async () => {
    const s = await serve(['--port', '0']);
    let more = '';
    s.child.stdout.on('data', (d: Buffer) => (more += d.toString()));
    await send(s.lines[0]!.slice('listening '.length), '/health');
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(0);
    expect(more).toBe('');
  });

  it('refuses bad flags with exit status 2 and a message, no stack trace', async () => {
    for (const args of [
      ['--port', 'abc'],
      ['--port', '70000'],
      ['--rate-limit', '0'],
      ['--rate-limit', '1.5'],
      ['--rate-window-s', '-1'],
      ['--api-key', ''],
      ['--nope'],
    ]) {
      const io = memoryIo();
      const code = await main(['serve', ...args], io);
      expect(code, args.join(' ')).toBe(2);
      expect(io.err, args.join(' ')).toMatch(/error|invalid|unknown/i);
      expect(io.err).not.toMatch(/\n\s+at /);
      expect(io.out).toBe('');
    }
  });

  it('reports a busy port with exit status 2', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const io = memoryIo();
      const code = await main(['serve', '--port', String(port)], io);
      expect(code).toBe(2);
      expect(io.err).toContain('already in use');
      expect(io.err).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });
});

describe('vapc serve: an oversized body', () => {
  /** POSTs `mib` MiB of JSON with Node's fetch (undici): the status it read, or the error it met. */
  const post = async (url: string, path: string, fixtures: { api_key: string; user_id: string }, mib: number) => {
    try {
      const r = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${fixtures.api_key}`,
          'x-user-id': fixtures.user_id,
        },
        body: JSON.stringify({ name: 'x'.repeat(mib * 1024 * 1024) }),
      });
      return `${r.status} ${((await r.json()) as { detail: string }).detail}`;
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause;
      return `error ${cause?.code ?? (e as Error).message}`;
    }
  };

  it("is answered 413, and Node's fetch reads that answer (not EPIPE): the server drains the body before closing", async () => {
    const s = await serve(['--port', '0']);
    const url = s.lines[0]!.slice('listening '.length);
    const fixtures = JSON.parse(s.lines[1]!.slice('fixtures '.length)) as {
      api_key: string;
      user_id: string;
      recipient_list_id: string;
    };
    const answers: string[] = [];
    for (const path of ['/campaign', `/recipient-lists/${fixtures.recipient_list_id}/recipients`])
      for (const mib of [4, 16]) answers.push(`${path} ${mib} MiB: ${await post(url, path, fixtures, mib)}`);
    expect(answers.filter((a) => !a.endsWith(': 413 Request body larger than 1048576 bytes'))).toEqual([]);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  }, 120_000);
});
