// vapc proxy --target URL (docs/proxy.md): forwards byte for byte between loopback clients and
// loopback targets (port 0), judges each exchange after its answer went back, reports when stopped.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyFlags } from '../../src/cli/commands/proxy.js';
import { packageRoot } from '../../src/paths.js';
import type { RunReport } from '../../src/results/model.js';
import { startReferenceServer } from '../../src/server/index.js';
import { startFaultyServer } from '../catalog/faults/index.js';
import { ANSWER_HEADERS, cli, startProxyCommand, tempDir, type InProcessProxy } from '../helpers/traffic.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

const sha = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');
const reportOf = (dir: string): RunReport => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));

interface Seen {
  method: string;
  url: string;
  headers: string[];
  body: string;
}

/** A target that records what reached it and answers what `answer` says (any bytes, any headers). */
async function target(
  answer: (req: IncomingMessage, body: Buffer) => { status: number; headers: string[]; chunks: Buffer[] },
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      seen.push({ method: req.method!, url: req.url!, headers: req.rawHeaders, body: sha(body) });
      const a = answer(req, body);
      res.sendDate = false;
      res.writeHead(a.status, a.headers);
      // Each chunk in its own write, a tick apart: a streamed answer.
      let i = 0;
      const next = () => (i < a.chunks.length ? res.write(a.chunks[i++], () => setImmediate(next)) : res.end());
      next();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** `vapc proxy` in-process on a free port (test/helpers/traffic.ts), stopped after each test. */
async function proxy(flags: ProxyFlags): Promise<InProcessProxy> {
  const p = await startProxyCommand(flags);
  closers.push(() => p.stop().catch(() => undefined));
  return p;
}

describe('vapc proxy: forwards byte for byte', () => {
  it('requests and answers arrive unaltered: bodies (gzip, binary, streamed), status, headers and their order', async () => {
    const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));
    const zipped = gzipSync(JSON.stringify({ status: 'ok', pad: 'x'.repeat(5000) }));
    const t = await target((req) =>
      req.url === '/health'
        ? {
            status: 200,
            headers: ['Content-Encoding', 'gzip', 'X-Odd', 'a', 'x-odd', 'b', ...Object.entries(ANSWER_HEADERS).flat()],
            chunks: [zipped.subarray(0, 100), zipped.subarray(100)],
          }
        : {
            status: 207,
            headers: ['Content-Type', 'application/octet-stream', 'Set-Cookie', 's=1', 'Set-Cookie', 't=2'],
            chunks: [binary.subarray(0, 1000), binary.subarray(1000)],
          },
    );
    const p = await proxy({ target: t.url });
    const sent = Buffer.from('{"name":"α β","bytes":"\u0000\u00ff"}');
    const direct = await request(`${t.url}/blob?a=1&a=2`, {
      method: 'POST',
      body: sent,
      headers: { 'content-type': 'application/json', 'X-Case': 'Kept' },
    });
    const directBody = Buffer.from(await direct.body.arrayBuffer());
    const through = await request(`${p.url}/blob?a=1&a=2`, {
      method: 'POST',
      body: sent,
      headers: { 'content-type': 'application/json', 'X-Case': 'Kept' },
    });
    const throughBody = Buffer.from(await through.body.arrayBuffer());
    expect(through.statusCode).toBe(207);
    expect(sha(throughBody)).toBe(sha(directBody));
    expect(sha(throughBody)).toBe(sha(binary));
    expect(through.headers['set-cookie']).toEqual(['s=1', 't=2']);
    // What reached the target: the same method, path, query, body and headers (Host the target's own).
    const [a, b] = t.seen;
    expect(b!.method).toBe(a!.method);
    expect(b!.url).toBe(a!.url);
    expect(b!.body).toBe(a!.body);
    expect(b!.body).toBe(sha(sent));
    const endToEnd = (raw: string[]) =>
      raw.filter((_, i) => i % 2 === 0).filter((n) => !/^(host|connection)$/i.test(n));
    expect(endToEnd(b!.headers)).toEqual(endToEnd(a!.headers));
    // A gzip answer goes back still gzip, byte for byte; the judges read it decoded.
    const zippedThrough = await request(`${p.url}/health`, {
      headers: { authorization: 'Bearer k', 'x-user-id': 'u' },
    });
    const raw = Buffer.from(await zippedThrough.body.arrayBuffer());
    expect(zippedThrough.headers['content-encoding']).toBe('gzip');
    expect(sha(raw)).toBe(sha(zipped));
    expect(zippedThrough.headers['x-odd']).toEqual(['a', 'b']);
    expect(zippedThrough.headers['date']).toBeUndefined();
    const code = await p.stop();
    expect(p.out()).toMatch(/2 exchange\(s\) forwarded/);
    expect(code, p.out()).toBe(0);
  });

  it('a finding never alters the answer: a faulty body goes back as it came, and the proxy exits 1 with the finding', async () => {
    const server = await startFaultyServer('call-duration-string', { rateLimit: 1e6, rateWindowMs: 60_000 });
    closers.push(() => server.close());
    const reportDir = join(tempDir(), 'r');
    const record = join(tempDir(), 'traffic.ndjson');
    const p = await proxy({ target: server.url, reportDir, record });
    const headers = { authorization: `Bearer ${server.fixtures.api_key}`, 'x-user-id': server.fixtures.user_id };
    const direct = await request(`${server.url}/calls?limit=3`, { headers });
    const directText = await direct.body.text();
    const through = await request(`${p.url}/calls?limit=3`, { headers });
    const throughText = await through.body.text();
    expect(through.statusCode).toBe(direct.statusCode);
    expect(throughText).toBe(directText);
    expect(throughText).toMatch(/"duration_seconds":"/);
    expect(await p.stop()).toBe(1);
    expect(p.out()).toMatch(/schema\.response-conforms/);
    // No credential of the traffic in any output: the streams, every report file, the recording.
    const outputs = [p.out(), p.err(), readFileSync(record, 'utf8')];
    for (const f of readdirSync(reportDir)) outputs.push(readFileSync(join(reportDir, f), 'utf8'));
    expect(outputs).toHaveLength(7);
    for (const text of outputs) {
      expect(text).not.toContain(server.fixtures.api_key);
      expect(text).not.toContain(server.fixtures.user_id);
    }
  });

  it('a target that does not answer: the client gets a 502 from the proxy, judged as a server fault', async () => {
    const p = await proxy({ target: 'http://127.0.0.1:9' });
    const r = await request(`${p.url}/health`);
    expect(r.statusCode).toBe(502);
    expect(await r.body.text()).toMatch(/vapc proxy: the target did not answer/);
    expect(await p.stop()).toBe(1);
  });
});

describe('vapc proxy: stops, records and reports', () => {
  for (const name of ['traffic.ndjson', 'traffic.har']) {
    it(`--exit-after N stops by itself; --record ${name.split('.')[1]} is read back by vapc drift with the same verdicts`, async () => {
      const server = await startReferenceServer({ host: '127.0.0.1', port: 0, rateLimit: 1e6, rateWindowMs: 60_000 });
      closers.push(() => server.close());
      const dir = tempDir();
      const record = join(dir, name);
      const reportDir = join(dir, 'proxy');
      const p = await proxy({ target: server.url, exitAfter: '4', record, reportDir });
      const headers = { authorization: `Bearer ${server.fixtures.api_key}`, 'x-user-id': server.fixtures.user_id };
      for (const path of ['/health', '/calls?limit=2', '/users/me', '/assistants'])
        await (await request(`${p.url}${path}`, { headers })).body.text();
      expect(await p.done).toBe(0);
      expect(p.out()).toMatch(/stopping \(--exit-after 4\)/);
      const recorded = readFileSync(record, 'utf8');
      expect(recorded).not.toContain(server.fixtures.api_key);
      expect(recorded).toContain('$VAPC_API_KEY');
      const again = await cli(['drift', record, '--report-dir', join(dir, 'drift')]);
      expect(again.code).toBe(0);
      const statuses = (r: RunReport) => r.results.map((x) => `${x.id} ${x.operation} ${x.status}`);
      expect(statuses(reportOf(join(dir, 'drift')))).toEqual(statuses(reportOf(reportDir)));
      expect(reportOf(reportDir).traffic).toMatchObject({ source: 'proxy', exchanges: 4, on_contract: 4 });
    });
  }

  it('refuses bad usage before it listens: no target, a bad --listen, a bad --exit-after (exit 2)', async () => {
    expect((await cli(['proxy'])).err).toMatch(/no target: give --target URL/);
    expect((await cli(['proxy', '--target', 'http://127.0.0.1:1', '--listen', 'nowhere'])).err).toMatch(
      /--listen takes HOST:PORT/,
    );
    const r = await cli(['proxy', '--target', 'http://127.0.0.1:1', '--exit-after', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--exit-after takes a positive number/);
  });

  it('on SIGTERM (a real process) it writes the reports and exits with the verdict', async () => {
    const server = await startReferenceServer({ host: '127.0.0.1', port: 0, rateLimit: 1e6, rateWindowMs: 60_000 });
    closers.push(() => server.close());
    const reportDir = join(tempDir(), 'r');
    const child = spawn(
      process.execPath,
      [
        join(packageRoot, 'bin', 'vapc.js'),
        'proxy',
        '--target',
        server.url,
        '--listen',
        '127.0.0.1:0',
        '--report-dir',
        reportDir,
      ],
      {
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('close', (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
    });
    const r = await request(`${url}/health`);
    expect(r.statusCode).toBe(200);
    await r.body.text();
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toMatch(/stopping \(SIGTERM\): 1 exchange\(s\) forwarded/);
    expect(existsSync(join(reportDir, 'report.json'))).toBe(true);
  });
});
