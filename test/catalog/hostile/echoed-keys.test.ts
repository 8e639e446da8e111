/**
 * Issue 32, attack 5 and the last of attack 7: redaction after rendering. A server that echoed the
 * key as JSON `\uXXXX` escapes passed redaction, and junit.xml and report.html, which pretty-print a
 * body (parse, then stringify), decoded it after the last redaction pass: the exact key, 35 times
 * per file with `--suite auth`. A server that echoed it base64- or hex-encoded reached stdout and
 * every report. And the environment's secret values are never printed, whatever their variable is
 * called (a password in DATABASE_URL, an AWS key id).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { API_KEY, USER_ID, startAttacker, type AttackerServer } from './attackers.js';

const root = mkdtempSync(join(tmpdir(), 'vapc-echoed-keys-'));

interface Outputs {
  code: number;
  all: string;
  files: Record<string, string>;
}

async function run(server: AttackerServer, name: string): Promise<Outputs> {
  const dir = join(root, name);
  const summary = join(root, `${name}.md`);
  writeFileSync(summary, '');
  let out = '';
  const io: CliIo = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (out += t),
    env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, VAPC_API_KEY: API_KEY, VAPC_USER_ID: USER_ID },
    isTTY: false,
  };
  const argv = ['run', '--base-url', server.url, '--suite', 'auth', '--seed', '7', '--runs', '2'];
  const code = await main([...argv, '--timeout-ms', '5000', '--report-dir', dir], io);
  const files: Record<string, string> = {};
  for (const f of existsSync(dir) ? readdirSync(dir) : []) files[f] = readFileSync(join(dir, f), 'utf8');
  return { code, all: [out, readFileSync(summary, 'utf8'), ...Object.values(files)].join('\n'), files };
}

/** Every form of the key a reader could turn back into it: raw, base64 (each alignment, URL-safe), hex. */
function encodedForms(key: string): string[] {
  const forms = [key, Buffer.from(key).toString('hex'), Buffer.from(key).toString('hex').toUpperCase()];
  for (const prefix of ['', 'a', 'ab', 'user:']) {
    const b64 = Buffer.from(prefix + key).toString('base64');
    // The characters that depend on the key alone.
    const start = Math.ceil((prefix.length * 8) / 6) + 1;
    const core = b64.slice(start, start + 24);
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** Every string in a JSON value, and each string that is JSON itself parsed and stringified again (its escapes decoded). */
function decodedStrings(value: unknown): string[] {
  if (typeof value === 'string') {
    try {
      return [value, JSON.stringify(JSON.parse(value), (_k, v: unknown) => v)];
    } catch {
      return [value];
    }
  }
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(decodedStrings);
  return [];
}

describe('a server that echoes the key in another spelling', () => {
  const servers = new Map<string, AttackerServer>();
  beforeAll(async () => {
    for (const kind of ['echo-escaped', 'echo-encoded'] as const) servers.set(kind, await startAttacker(kind));
  });
  afterAll(async () => {
    for (const s of servers.values()) await s.close();
  });

  it('attack 5: the key as \\u escapes is in no file, pretty-printed or not', { timeout: 120_000 }, async () => {
    const o = await run(servers.get('echo-escaped')!, 'escaped');
    expect(o.code).toBe(1);
    expect(Object.keys(o.files)).toEqual(expect.arrayContaining(['report.json', 'junit.xml', 'report.html']));
    for (const [file, text] of Object.entries(o.files)) expect(text.includes(API_KEY), file).toBe(false);
    // Nor escaped, for a reader that decodes it: report.json keeps each body as text, which a reader parses.
    expect(decodedStrings(JSON.parse(o.files['report.json']!)).filter((t) => t.includes(API_KEY))).toEqual([]);
    expect(o.all.includes(API_KEY)).toBe(false);
    // The echo was redacted where it stood, not dropped: the placeholder is there.
    expect(o.files['junit.xml']).toContain('Invalid credentials for $VAPC_API_KEY');
  });

  it(
    'attack 7: the key in base64 (any alignment, URL-safe) or hex reaches no output',
    { timeout: 120_000 },
    async () => {
      const o = await run(servers.get('echo-encoded')!, 'encoded');
      expect(o.code).toBe(1);
      const leaked = encodedForms(API_KEY).filter((form) => o.all.includes(form));
      expect(leaked).toEqual([]);
    },
  );
});

describe("the environment's secrets are known by their value, not only their name", () => {
  it('a spec that quotes them: vapc diff prints neither the DATABASE_URL password nor the AWS key id', async () => {
    const password = 'Pw-9f8e7d6c5b4a';
    const awsKey = 'AKIAQWERTYUIOP123456';
    const token = 'Zx81Lm27Qp93Vb46Nc05Rt';
    const dir = mkdtempSync(join(root, 'diff-'));
    const param = (name: string) => ({ name, in: 'query', schema: { type: 'string' } });
    const doc = (params: object[]) => ({
      openapi: '3.1.0',
      info: { title: 't', version: '1.0.0' },
      paths: { '/a': { get: { parameters: params, responses: { '200': { description: 'ok' } } } } },
    });
    writeFileSync(join(dir, 'base.json'), JSON.stringify(doc([])));
    writeFileSync(
      join(dir, 'head.json'),
      JSON.stringify(doc([param(`db-${password}`), param(`aws-${awsKey}`), param(`t-${token}`)])),
    );
    let out = '';
    const io: CliIo = {
      stdout: (t) => void (out += t),
      stderr: (t) => void (out += t),
      env: {
        DATABASE_URL: `postgres://app:${password}@db.internal/app`,
        MY_CLOUD_ID: awsKey,
        DEPLOY_THING: token,
        HOME: '/home/runner',
      },
      isTTY: false,
    };
    for (const format of ['text', 'json', 'markdown']) {
      const code = await main(['diff', join(dir, 'base.json'), join(dir, 'head.json'), '--format', format], io);
      expect(code).toBe(0);
    }
    expect(out).toContain('parameter');
    for (const secret of [password, awsKey, token]) expect(out.includes(secret), secret).toBe(false);
  });
});
