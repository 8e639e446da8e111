/**
 * src/secrets/report.ts clause by clause: each part of a result, failure, observation, config and
 * report as sanitising leaves it (redacted where a server could have shaped it, escaped, capped),
 * what stays vapc's own (ids and rules lose only a credential), and what `vapc report` learns back
 * from a report. Secrets hold `+ / = & " < '` and non-ASCII, so every escaped form differs.
 */
import { describe, expect, it } from 'vitest';
import type { CheckResult, Failure, Observation, RunReport } from '../../../src/results/model.js';
import type { RunConfig } from '../../../src/results/run-config.js';
import { REDACTED, Secrets } from '../../../src/secrets/index.js';
import { MAX_RECORDED_BODY } from '../../../src/secrets/record.js';
import {
  learnFromReport,
  sanitizeConfig,
  sanitizeLine,
  sanitizeObservation,
  sanitizeReport,
  sanitizeResult,
} from '../../../src/secrets/report.js';

const KEY = 'sk+Q9/x7=Zr&2"Lm<4é';
const TOK = "tok'Ab+Cd/Ef=Gh";
const fresh = () => new Secrets({ apiKeys: [KEY], learned: [TOK] });
const base = {
  id: 'auth.x',
  suite: 'auth',
  operation: 'GET /x',
  status: 'failed',
  message: 'm',
  rule: 'r',
  contract_ref: '7',
  severity: 'major',
  duration_ms: 1,
  requests: 1,
} as CheckResult;
const withFailure = (f: Partial<Failure>): Failure =>
  sanitizeResult({ ...base, failures: [{ expected: 'e', actual: 'a', ...f } as Failure] }, fresh()).failures![0]!;

describe('a failure, part by part', () => {
  it('expected and actual: redacted, one line, at most 2000 characters; absent ones become empty', () => {
    const f = withFailure({ expected: `want ${TOK}\nnext`, actual: 'x'.repeat(2500) });
    expect(f.expected).toBe(`want ${REDACTED}\\nnext`);
    expect(f.actual).toBe(`${'x'.repeat(1999)}…`);
    const bare = withFailure({ expected: undefined as unknown as string, actual: undefined as unknown as string });
    expect([bare.expected, bare.actual]).toEqual(['', '']);
  });

  it('the request: method and URL escaped, headers redacted, the body kept multi-line; no body stays no body', () => {
    const f = withFailure({
      request: {
        method: 'GE\x1bT',
        url: `http://h/x?t=${encodeURIComponent(TOK)}\n`,
        headers: {
          'x-a\x07': `${KEY}`,
          'Set-Cookie': 'sid=1',
          'x-set-cookie': 'kept',
          'set-cookie-x': 'kept',
          n: 5 as unknown as string,
        },
        body: `{"k":"${KEY}"}\n\x1b`,
      },
    });
    expect(f.request).toEqual({
      method: 'GE\\x1bT',
      url: 'http://h/x?t=[redacted]\\n',
      headers: {
        'x-a\\x07': '$VAPC_API_KEY',
        'Set-Cookie': REDACTED,
        'x-set-cookie': 'kept',
        'set-cookie-x': 'kept',
        n: '5',
      },
      body: '{"k":"$VAPC_API_KEY"}\n\\x1b',
    });
    expect(
      withFailure({
        request: { method: 'GET', url: 'http://h', headers: undefined as unknown as Record<string, string> },
      }).request,
    ).toEqual({ method: 'GET', url: 'http://h', headers: {} });
  });

  it('the response: status and duration kept, headers redacted, the body redacted then cut at 4 KiB and marked', () => {
    const f = withFailure({
      response: {
        status: 201,
        duration_ms: 9,
        headers: { 'set-cookie': 'a', 'x-t': TOK },
        body: `${TOK}\r\n${'y'.repeat(MAX_RECORDED_BODY)}`,
      },
    });
    expect(f.response!.status).toBe(201);
    expect(f.response!.duration_ms).toBe(9);
    expect(f.response!.headers).toEqual({ 'set-cookie': REDACTED, 'x-t': REDACTED });
    expect(f.response!.body).toHaveLength(MAX_RECORDED_BODY);
    expect(f.response!.body!.startsWith(`${REDACTED}\r\n`)).toBe(true);
    expect(f.response!.truncated).toBe(true);
    const short = withFailure({ response: { status: 200, duration_ms: 1, headers: {}, body: 'ok' } });
    expect(short.response).toEqual({ status: 200, duration_ms: 1, headers: {}, body: 'ok' });
    const none = withFailure({ response: { status: 204, duration_ms: 1, headers: {}, truncated: true } });
    expect(none.response).toEqual({ status: 204, duration_ms: 1, headers: {}, truncated: true });
  });

  it('the input: secret-named values hidden, strings redacted and escaped, keys redacted too', () => {
    const f = withFailure({
      input: { [TOK]: 1, api_key: 'plain', list: [`a ${KEY}`, 'b\x1b', 3, null], nested: { note: 'n' } },
    });
    expect(f.input).toEqual({
      [REDACTED]: 1,
      api_key: REDACTED,
      list: ['a $VAPC_API_KEY', 'b\\x1b', 3, null],
      nested: { note: 'n' },
    });
    expect(withFailure({ input: 0 }).input).toBe(0);
    expect('input' in withFailure({})).toBe(false);
  });

  it("the repro line may be long (200 000 characters), the path and kind are escaped, the field's pointer redacted", () => {
    const f = withFailure({
      repro: `curl ${'z'.repeat(5000)} ${KEY}`,
      path: `0:1\x1b${TOK}`,
      kind: 'schema\x1b',
      field: { location: 'body\n', pointer: `/a/${TOK}`, status: '200' },
    });
    expect(f.repro).toBe(`curl ${'z'.repeat(5000)} $VAPC_API_KEY`);
    expect(f.path).toBe(`0:1\\x1b${REDACTED}`);
    expect(f.kind).toBe('schema\\x1b');
    expect(f.field).toEqual({ location: 'body\\n', pointer: `/a/${REDACTED}`, status: '200' });
    expect(withFailure({ repro: 'r'.repeat(200_001) }).repro).toHaveLength(200_000);
    expect(
      withFailure({ field: { location: undefined, pointer: undefined } as unknown as Failure['field'] }).field,
    ).toEqual({ location: '', pointer: '' });
    // A report from disk may hold a field that is not an object: left as it is.
    expect(withFailure({ field: 'body' as unknown as Failure['field'] }).field).toBe('body');
    const bare = withFailure({});
    for (const key of ['repro', 'path', 'kind', 'field', 'request', 'response']) expect(key in bare, key).toBe(false);
  });
});

describe('a result and an observation', () => {
  it('ids, operation, rule and reference lose a credential only, never a learned value; the message and repro everything', () => {
    const r = sanitizeResult(
      {
        ...base,
        id: `auth.${TOK}`,
        operation: `GET /${KEY}`,
        rule: `r ${KEY} ${TOK}`,
        contract_ref: `7 ${KEY}`,
        message: `m ${TOK} ${KEY}\n`,
        repro: `curl ${TOK}`,
      },
      fresh(),
    );
    expect([r.id, r.operation, r.rule, r.contract_ref]).toEqual([
      `auth.${TOK}`,
      'GET /$VAPC_API_KEY',
      `r $VAPC_API_KEY ${TOK}`,
      '7 $VAPC_API_KEY',
    ]);
    expect(r.message).toBe(`m ${REDACTED} $VAPC_API_KEY\\n`);
    expect(r.repro).toBe(`curl ${REDACTED}`);
    expect([r.suite, r.status, r.severity, r.duration_ms, r.requests]).toEqual(['auth', 'failed', 'major', 1, 1]);
  });

  it('a result read from disk may lack fields: missing ones stay missing, a missing message becomes empty', () => {
    const r = sanitizeResult({ suite: 'auth', status: 'passed', failures: 'no' } as unknown as CheckResult, fresh());
    expect(r).toEqual({
      suite: 'auth',
      status: 'passed',
      failures: 'no',
      id: undefined,
      operation: undefined,
      rule: undefined,
      contract_ref: undefined,
      message: '',
    });
  });

  it('an observation: id and operation lose a credential only, the message everything', () => {
    const o = sanitizeObservation(
      { id: `obs.${KEY}\x1b`, operation: `GET /${TOK}\n`, message: `said ${TOK} ${KEY}` },
      fresh(),
    );
    expect(o).toEqual({
      id: 'obs.$VAPC_API_KEY\\x1b',
      operation: `GET /${TOK}\\n`,
      message: `said ${REDACTED} $VAPC_API_KEY`,
    });
    const bare = sanitizeObservation({ id: 'x' } as Observation, fresh());
    expect(bare).toEqual({ id: 'x', message: '' });
  });

  it('sanitizeLine: redacted, one line, capped', () => {
    expect(sanitizeLine(`a ${TOK}\r\nb`, fresh())).toBe(`a ${REDACTED}\\r\\nb`);
    expect(sanitizeLine('q'.repeat(2001), fresh())).toHaveLength(2000);
  });

  it('sanitizeConfig: secret-named keys hidden, every string and key redacted and escaped', () => {
    const config = {
      api_key: 'plain-value',
      target: `http://h/${encodeURIComponent(TOK)}`,
      [KEY]: true,
      header: ['x-a: b\x1b'],
      runs: 5,
    } as unknown as RunConfig;
    expect(sanitizeConfig(config, fresh())).toEqual({
      api_key: REDACTED,
      target: `http://h/${REDACTED}`,
      $VAPC_API_KEY: true,
      header: ['x-a: b\\x1b'],
      runs: 5,
    });
  });
});

describe('sanitizeReport', () => {
  const report = {
    tool: { name: `vapc ${KEY}`, version: TOK },
    target: `http://h/${KEY}\n`,
    seed: 1,
    coverage: { [KEY]: 1 },
    results: [{ ...base, message: TOK }],
  } as unknown as RunReport;

  it('from a Secrets or from the options that make one; observations and config default to empty', () => {
    for (const secrets of [fresh(), { apiKeys: [KEY], learned: [TOK] }]) {
      const out = sanitizeReport(report, secrets);
      expect(out.target).toBe('http://h/$VAPC_API_KEY\\n');
      expect(out.results[0]!.message).toBe(REDACTED);
      expect(out.observations).toEqual([]);
      expect(out.config).toEqual({});
      expect(out.seed).toBe(1);
    }
    expect(sanitizeReport(report).target).toBe(`http://h/${KEY}\\n`);
  });

  it('every other string and key loses a credential, and keeps a learned value (a server cannot rewrite them)', () => {
    const out = sanitizeReport(
      { ...report, observations: [{ id: 'o', message: TOK }], config: { note: TOK } as unknown as RunConfig },
      fresh(),
    );
    expect(out.tool).toEqual({ name: 'vapc $VAPC_API_KEY', version: TOK });
    expect((out as unknown as { coverage: unknown }).coverage).toEqual({ $VAPC_API_KEY: 1 });
    expect(out.observations).toEqual([{ id: 'o', message: REDACTED }]);
    expect(out.config).toEqual({ note: REDACTED });
  });
});

describe('learnFromReport', () => {
  const failure = (status: number, headers: Record<string, string>, body: unknown = '{}'): Failure =>
    ({
      expected: 'e',
      actual: 'a',
      request: { method: 'POST', url: 'http://h', headers },
      response: { status, headers: {}, body, duration_ms: 1 },
    }) as Failure;
  const learn = (failures: Failure[], operation = 'POST /orgs/{org_id}/invites') => {
    const s = new Secrets();
    const report = {
      results: [
        { id: 'a', operation, failures },
        { id: 'b', operation },
      ],
    } as unknown as RunReport;
    learnFromReport(report, s, (op) => (op === 'POST /orgs/{org_id}/invites' ? ['/token', '/list/*/secret'] : []), [
      { header: 'Authorization', bearer: true },
      { header: 'X-User-ID', bearer: false },
    ]);
    return s.known().sort();
  };

  it('a bearer credential only after the scheme word (any case, any blanks), the other headers as sent, names in any case', () => {
    expect(learn([failure(500, { authorization: '  BEARER   key+Sent/123=  ' })])).toEqual(['key+Sent/123=']);
    expect(learn([failure(500, { AUTHORIZATION: 'key+Sent/123=' })])).toEqual([]);
    expect(learn([failure(500, { authorization: 'Bearer a b c d e f' })])).toEqual([]);
    expect(learn([failure(500, { authorization: 'NotBearer key+Sent/123=' })])).toEqual([]);
    expect(learn([failure(500, { authorization: 'Bearer key+Sent/123= key+Other/456=' })])).toEqual([]);
    expect(learn([failure(500, { 'x-user-id': 'usr+Sent/456' })])).toEqual(['usr+Sent/456']);
    expect(learn([failure(500, { 'x-other': 'usr+Other/789' })])).toEqual([]);
    expect(learn([failure(500, { 'x-user-id': '$VAPC_USER_ID', authorization: 'Bearer $VAPC_API_KEY' })])).toEqual([]);
  });

  it('x-secret values of 2xx answers at each pointer, including every item of a list', () => {
    const body = JSON.stringify({ token: "tok'One+2/3=", list: [{ secret: 'sec&Two<3>' }, { secret: 'sec"Three/4' }] });
    expect(learn([failure(200, {}, body)])).toEqual(["tok'One+2/3=", 'sec"Three/4', 'sec&Two<3>'].sort());
    expect(learn([failure(299, {}, body)])).toHaveLength(3);
  });

  it('nothing from a non-2xx answer, a body that is not JSON or not text, or an operation without x-secret fields', () => {
    const body = JSON.stringify({ token: "tok'One+2/3=" });
    for (const status of [199, 300, 422]) expect(learn([failure(status, {}, body)]), String(status)).toEqual([]);
    expect(learn([failure(200, {}, 'not json')])).toEqual([]);
    expect(learn([failure(200, {}, { token: "tok'One+2/3=" })])).toEqual([]);
    expect(learn([failure(200, {}, body)], 'GET /calls')).toEqual([]);
    // A failure whose body does not parse does not stop the next one being read.
    expect(learn([failure(200, {}, 'not json'), failure(201, {}, body)])).toEqual(["tok'One+2/3="]);
    expect(learn([{ expected: 'e', actual: 'a' } as Failure, failure(201, {}, body)])).toEqual(["tok'One+2/3="]);
  });
});
