/**
 * A secret made of the characters that change under encoding (`+ / = & " < '` and non-ASCII), as
 * the API key, the user id and two learned secrets (an invite token, a regenerated key), through
 * every output of a run: console, GitHub annotations and step summary, report.json, junit.xml,
 * report.html, report.sarif, the repro and replay lines. A server echoes each secret back in its
 * raw, URL-encoded, JSON-escaped and HTML-escaped forms; none of those forms may come out. With
 * secrets of `[A-Za-z0-9_]` only, every form equals the raw one, so a redactor that lost the other
 * forms would pass every other test.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../src/cli/main.js';
import {
  operationIdOf,
  startReferenceServer,
  type ReferenceInternals,
  type ReferenceServer,
} from '../../src/server/index.js';

const KEY = 'vk+Key/Ab=Cd&Ef"Gh<Ij\'Kl-é-ü-7421';
const USER = 'us+er/Id=Mn&Op"Qr<St\'Uv-ß-ö-5317';
const TOKEN = 'inv+Tok/en=Wx&Yz"Ab<Cd\'Ef-ñ-中文-9902';
const REGEN = 'rk+Regen/Gh=Ij&Kl"Mn<Op\'Qr-é-8813';
const SECRETS = { api_key: KEY, user_id: USER, invite_token: TOKEN, regenerated_key: REGEN };

const html = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const asciiJson = (s: string): string =>
  JSON.stringify(s)
    .slice(1, -1)
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The forms of a secret that must never be written, by name. */
function formsOf(secret: string): Record<string, string> {
  return {
    raw: secret,
    'url-encoded': encodeURIComponent(secret),
    'json-escaped': JSON.stringify(secret).slice(1, -1),
    'json-ascii-escaped': asciiJson(secret),
    'html-escaped (&#39;)': html(secret).replace(/'/g, '&#39;'),
    'html-escaped (&#x27;)': html(secret).replace(/'/g, '&#x27;'),
    'html-escaped (&#34; &apos;)': html(secret)
      .replace(/&quot;/g, '&#34;')
      .replace(/'/g, '&apos;'),
    'html-escaped json': html(JSON.stringify(secret).slice(1, -1)).replace(/'/g, '&#39;'),
  };
}

/** Every form of every secret found in a text, as `secret form`. */
function leaksIn(text: string): string[] {
  const out: string[] = [];
  for (const [name, secret] of Object.entries(SECRETS)) {
    for (const [form, value] of Object.entries(formsOf(secret))) if (text.includes(value)) out.push(`${name} ${form}`);
  }
  return out;
}

/** What the server echoes: every form of the secrets it knows, in one line. */
const echo = (secrets: string[]): string => secrets.flatMap((s) => Object.values(formsOf(s))).join(' | ');

/**
 * The reference server, made to hand out the learned secrets and to echo every form of every
 * secret it knows: in GET /protected (the user-id echo then fails and its response is recorded),
 * and, once it has handed out both learned secrets, in a 500 answering any invalid request (the
 * robustness checks then fail on it).
 */
function leaky(counts: { protected: number; echoed500: number }) {
  return async (app: FastifyInstance, internals: ReferenceInternals) => {
    const store = internals.store;
    const regenerate = store.regenerateKey.bind(store);
    let learned = 0;
    store.regenerateKey = (keyId: string) => {
      const answer = regenerate(keyId) as Record<string, unknown> | undefined;
      if (!answer) return answer;
      store.apiKey = REGEN;
      learned |= 1;
      return { ...answer, key: REGEN };
    };
    app.addHook('onSend', async (request, reply, payload) => {
      const op = operationIdOf(request);
      if (typeof payload !== 'string' || payload === '') return payload;
      if (op === 'createInvite' && reply.statusCode === 201) {
        learned |= 2;
        return JSON.stringify({ ...JSON.parse(payload), token: TOKEN });
      }
      if (op === 'getProtected' && reply.statusCode === 200) {
        counts.protected++;
        const json = JSON.parse(payload);
        return JSON.stringify({ ...json, user_id: echo([KEY, USER]), message: `hello ${echo([KEY, USER])}` });
      }
      if (learned === 3 && reply.statusCode === 422) {
        counts.echoed500++;
        reply.code(500);
        return JSON.stringify({ detail: echo([KEY, USER, TOKEN, REGEN]) });
      }
      return payload;
    });
  };
}

describe('a secret with + / = & " < \' and non-ASCII, through every output', () => {
  let server: ReferenceServer;
  let dir: string;
  let code = -1;
  let stdout = '';
  let stderr = '';
  let summary = '';
  const counts = { protected: 0, echoed500: 0 };

  beforeAll(async () => {
    server = await startReferenceServer({
      host: '127.0.0.1',
      port: 0,
      apiKey: KEY,
      userId: USER,
      rateLimit: 100_000,
      configure: leaky(counts),
    });
    dir = mkdtempSync(join(tmpdir(), 'vapc-secret-forms-'));
    const summaryFile = join(dir, 'step-summary.md');
    // The fixtures the regeneration and the recipients need (not discoverable through the API),
    // given as under CI: from the environment, not a config file of the checkout.
    const f = server.fixtures;
    const fixtures = { api_key_id: f.api_key_id, recipient_list_id: f.recipient_list_id, org_id: f.org_id };
    const io: CliIo = {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      env: {
        GITHUB_ACTIONS: 'true',
        GITHUB_STEP_SUMMARY: summaryFile,
        VAPC_API_KEY: KEY,
        VAPC_USER_ID: USER,
        VAPC_FIXTURES: JSON.stringify(fixtures),
      },
      isTTY: false,
    };
    const argv = [
      'run',
      '--base-url',
      server.url,
      '--suite',
      'auth,stateful,robustness',
      '--include-destructive',
      '--seed',
      '7',
      '--runs',
      '3',
    ];
    code = await main([...argv, '--report-dir', join(dir, 'reports')], io);
    try {
      summary = readFileSync(summaryFile, 'utf8');
    } catch {
      summary = '';
    }
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the server really echoed every secret, learned ones included, and the run failed on it', () => {
    expect(code, stderr).toBe(1);
    expect(counts.protected).toBeGreaterThan(0);
    expect(counts.echoed500).toBeGreaterThan(0);
    const report = JSON.parse(readFileSync(join(dir, 'reports', 'report.json'), 'utf8')) as {
      results: Array<{ id: string; status: string }>;
    };
    const failed = new Set(report.results.filter((r) => r.status === 'failed').map((r) => r.id));
    expect(failed).toContain('auth.protected-echoes-user-id');
    expect([...failed].some((id) => id.startsWith('robustness.'))).toBe(true);
  });

  it('no form of any secret is in any report file (report.json, junit.xml, report.html, report.sarif)', () => {
    const files = readdirSync(join(dir, 'reports'));
    expect(files).toEqual(expect.arrayContaining(['report.json', 'junit.xml', 'report.html', 'report.sarif']));
    for (const file of files) {
      const text = readFileSync(join(dir, 'reports', file), 'utf8');
      expect(leaksIn(text), file).toEqual([]);
    }
    expect(readFileSync(join(dir, 'reports', 'report.json'), 'utf8')).toContain('[redacted]');
  });

  it('no form of any secret is on the console, in the GitHub annotations or the step summary, or in a repro or replay line', () => {
    expect(stdout).toMatch(/::error/);
    expect(stdout).toMatch(/curl /);
    expect(leaksIn(stdout), 'stdout').toEqual([]);
    expect(leaksIn(stderr), 'stderr').toEqual([]);
    expect(summary.length).toBeGreaterThan(0);
    expect(leaksIn(summary), 'step summary').toEqual([]);
  });
});
