import { beforeAll, describe, expect, it } from 'vitest';
import { neutralizeCommands, printable } from '../../../src/results/printable.js';
import type { CheckResult, RunReport } from '../../../src/results/model.js';
import { createCheckContext } from '../../../src/runner/context.js';
import { MAX_LEARNED, PIECE_ENTROPY_BITS, Secrets, entropyBits, isDistinctive } from '../../../src/secrets/index.js';
import { recordResponse } from '../../../src/secrets/record.js';
import { sanitizeReport } from '../../../src/secrets/report.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';
import type { Exchange, HttpRequest, Transport } from '../../../src/transport/types.js';

const KEY = 'sk_live_7f3a9c2e5b814d06a1e8';

describe('printable: server text is data, never control', () => {
  it('shows ESC, BEL, C1, bidi overrides and line breaks as visible escapes', () => {
    expect(printable('a\x1b[2Jb\x07c\u009bd\u202ee\nf\rg\th')).toBe('a\\x1b[2Jb\\x07c\\x9bd\\u202ee\\nf\\rg\\th');
  });
  it('keeps line breaks and tabs in multi-line text (bodies), escaping the rest', () => {
    expect(printable('{\n\t"a": "\x1b]0;t\x07"\n}', { multiline: true })).toBe('{\n\t"a": "\\x1b]0;t\\x07"\n}');
  });
  it('changes nothing the second time, and nothing in plain text (no false positive)', () => {
    const once = printable('x\x1by\n');
    expect(printable(once)).toBe(once);
    expect(printable('GET /calls?limit=5 → 200 “ok” ü')).toBe('GET /calls?limit=5 → 200 “ok” ü');
  });
  it('no line vapc did not author can start a workflow command', () => {
    expect(neutralizeCommands('ok\n::error::x\n  ::add-mask::y\nz ##[error]w')).toBe(
      'ok\n[::]error::x\n  [::]add-mask::y\nz #\\x23[error]w',
    );
  });
});

describe('Secrets: a policy the server cannot teach', () => {
  it('replaces the credentials with their placeholders, in one pass, longest first', () => {
    const s = new Secrets({ apiKeys: [KEY], userIds: ['user_4c1e8a2f'] });
    expect(s.text(`k=${KEY} u=user_4c1e8a2f q=${encodeURIComponent(KEY)}`)).toBe(
      'k=$VAPC_API_KEY u=$VAPC_USER_ID q=$VAPC_API_KEY',
    );
  });

  it('hides every 8-character piece of a credential, wherever a cut or an echo left it', () => {
    const s = new Secrets({ apiKeys: [KEY] });
    const half = KEY.slice(5, 19);
    const out = s.evidence(`echoed ${half}… and ${KEY.slice(-9)}`);
    for (let i = 0; i + 8 <= KEY.length; i++) expect(out).not.toContain(KEY.slice(i, i + 8));
    expect(out).toContain('echoed $VAPC_API_KEY');
  });

  it('never rewrites ids vapc sends: pieces of a low-entropy user id are not hunted, its whole value still is', () => {
    for (const userId of ['user_ref_001', 'user_123']) {
      const s = new Secrets({ apiKeys: [KEY], userIds: [userId] });
      const repro = `curl -X POST 'http://127.0.0.1:1/campaign' -d '{"assistant_id":"asst_ref_001","phone_number_id":"pn_ref_001"}'`;
      expect(s.evidence(repro)).toBe(repro);
      expect(s.evidence(`hello ${userId}!`)).toBe('hello $VAPC_USER_ID!');
      // The API key is still hidden piece by piece.
      expect(s.evidence(`echo ${KEY.slice(3, 14)}`)).not.toContain(KEY.slice(3, 11));
    }
    expect(entropyBits('user_ref_001')).toBeLessThan(PIECE_ENTROPY_BITS);
    expect(entropyBits(KEY)).toBeGreaterThan(PIECE_ENTROPY_BITS);
  });

  it('learns only distinctive values: never a plain word, a short value or a placeholder', () => {
    for (const word of [
      'failed',
      'passed',
      'string',
      'password',
      'Invalid',
      'REDACTED',
      '$VAPC_API_KEY',
      'a b c d e f',
    ])
      expect(isDistinctive(word), word).toBe(false);
    for (const token of ['tok_abc12345', 'inv_9f8e7d6c', 'AbCdEfGhIj']) expect(isDistinctive(token), token).toBe(true);
    const s = new Secrets();
    expect(s.learn('failed')).toBe(false);
    expect(s.text('the check failed')).toBe('the check failed');
  });

  it(`learns at most ${MAX_LEARNED} values, so a bomb of tokens costs no more than a few`, () => {
    const s = new Secrets();
    let learned = 0;
    for (let i = 0; i < 30_000; i++) if (s.learn(`tk${i.toString(36)}Q9x${i}`)) learned++;
    expect(learned).toBe(MAX_LEARNED);
    expect(s.known()).toHaveLength(MAX_LEARNED);
  });

  it('redacts before it cuts, and a cut leaves no start of a secret or of a secret field', () => {
    const s = new Secrets({ apiKeys: [KEY] });
    const body = `{"detail":"${'.'.repeat(4080)}${KEY}"}`;
    const cut = s.clip(body, 4096);
    expect(cut.cut).toBe(true);
    expect(cut.text).not.toContain(KEY.slice(0, 8));
    const open = new Secrets().clip(`{"a":"${'x'.repeat(100)}","token":"tok_abcdefghijkl"}`, 120);
    expect(open.text.endsWith('"token":"[redacted]')).toBe(true);
  });

  it('hides a secret-named field where it stands without learning it', () => {
    const s = new Secrets();
    const rec = recordResponse(
      s,
      { status: 401, headers: {}, text: '{"detail":"no","token":"tok_Zz998877"}', truncated: false },
      1,
    );
    expect(rec.body).toBe('{"detail":"no","token":"[redacted]"}');
    expect(s.known()).toEqual([]);
  });
});

describe('sanitizeReport: evidence made safe, verdicts untouched', () => {
  const result: CheckResult = {
    id: 'auth.wrong-credentials',
    suite: 'auth',
    operation: 'GET /calls',
    status: 'failed',
    message: `answered 200 with \x1b[32mPASSED\x1b[0m and key ${KEY}`,
    rule: '7: wrong credentials are refused with 401',
    contract_ref: '7',
    severity: 'critical',
    duration_ms: 1,
    requests: 1,
    failures: [
      {
        expected: '401',
        actual: `200 failed\n::error::x`,
        response: { status: 200, headers: { 'set-cookie': 's=abc' }, body: 'a\x1bb\nc', duration_ms: 1 },
      },
    ],
  };
  const report: RunReport = {
    tool: { name: 'voice-agent-contract', version: '0' },
    spec_version: '2.0.1',
    target: 'http://127.0.0.1:1',
    seed: 1,
    started_at: '',
    summary: { passed: 0, failed: 1, skipped: 0, errors: 0, requests: 1, duration_ms: 1, observations: 0 },
    results: [result],
    observations: [],
    config: {},
  };

  it('never touches ids, statuses, rules or counts, even when a learned value equals one of them', () => {
    const s = new Secrets({ apiKeys: [KEY], learned: ['auth.wrong-credentials'] });
    const safe = sanitizeReport(report, s);
    const r = safe.results[0]!;
    expect([r.id, r.status, r.rule, r.contract_ref, r.severity, r.operation]).toEqual([
      result.id,
      'failed',
      result.rule,
      '7',
      'critical',
      'GET /calls',
    ]);
    expect(safe.summary).toEqual(report.summary);
  });

  it('escapes, redacts and caps the evidence; applying it twice changes nothing', () => {
    const s = new Secrets({ apiKeys: [KEY] });
    const safe = sanitizeReport(report, s);
    const r = safe.results[0]!;
    expect(r.message).toBe('answered 200 with \\x1b[32mPASSED\\x1b[0m and key $VAPC_API_KEY');
    expect(r.failures![0]!.actual).toBe('200 failed\\n::error::x');
    expect(r.failures![0]!.response!.body).toBe('a\\x1bb\nc');
    expect(r.failures![0]!.response!.headers['set-cookie']).toBe('[redacted]');
    expect(sanitizeReport(safe, s)).toEqual(safe);
  });
});

describe('the run learns secrets only from its own successful calls', () => {
  let spec: SpecModel;
  beforeAll(async () => {
    spec = await loadSpec();
  });

  function transport(answer: (r: HttpRequest) => { status: number; json: unknown }): Transport {
    return {
      baseUrl: 'http://fake',
      async send(request): Promise<Exchange> {
        const { status, json } = answer(request);
        const text = JSON.stringify(json);
        return {
          request: { method: request.method, url: `http://fake${request.path}`, headers: {} },
          response: { status, headers: {}, text, json, truncated: false },
          durationMs: 1,
        };
      },
      async close() {},
    };
  }

  it('learns the token of an invite it created (201), and not a token in an error body', async () => {
    const ctx = createCheckContext({
      spec,
      transport: transport((r) =>
        r.method === 'POST'
          ? { status: 201, json: { id: 'inv_1', token: 'inv_tok_Good12345' } }
          : { status: 401, json: { detail: 'no', token: 'tok_Taught98765' } },
      ),
      credentials: { apiKey: KEY, userId: 'user_4c1e8a2f' },
    });
    await ctx.send({ method: 'GET', path: '/calls' });
    expect(ctx.secrets.known()).not.toContain('tok_Taught98765');
    const ex = await ctx.send({
      method: 'POST',
      path: '/orgs/org_1/invites',
      json: { email: 'a@b.c', role: 'member' },
    });
    expect(ctx.secrets.known()).toContain('inv_tok_Good12345');
    // What checks read no longer holds it; the parsed body still does (a check may use it).
    expect(ex.response!.text).not.toContain('inv_tok_Good12345');
    expect((ex.response!.json as { token: string }).token).toBe('inv_tok_Good12345');
  });

  it('learns nothing from a successful answer to an operation without x-secret fields', async () => {
    const ctx = createCheckContext({
      spec,
      transport: transport(() => ({ status: 200, json: [{ token: 'tok_Listed12345', key: 'k_Listed12345' }] })),
    });
    await ctx.send({ method: 'GET', path: '/calls' });
    expect(ctx.secrets.known()).toEqual([]);
  });
});
