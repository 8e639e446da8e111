/**
 * The judges of suites/lib/judges.ts clause by clause, beyond the kinds and fields of
 * test/checks/judges.test.ts (the mutation run of the judges showed what no test asserted): the
 * rules the contract leaves to the server (openRule) and how each judge defers to them, what a
 * failure tells a person (the operation, the status, the case, the field: the words may change,
 * these facts may not), the contract's own enum conflict (3.1), preflight answers, and the edges
 * of `locNames`, `issueField` and `errorDetailProblem`. No server: exchanges are written here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CheckContext } from '../../src/checks/check.js';
import type { InvalidCase } from '../../src/generators/index.js';
import type { Observation } from '../../src/results/model.js';
import { referenceSpec } from '../../src/server/index.js';
import { ReferenceStore } from '../../src/server/store.js';
import type { Operation, SpecModel } from '../../src/spec/model.js';
import type { ValidationIssue } from '../../src/validators/issues.js';
import {
  errorDetailProblem,
  errorDetailWording,
  issueField,
  judgeInvalid,
  judgeResponse,
  locNames,
  openRule,
  OPEN_RULES,
} from '../../suites/lib/judges.js';
import type { Judgement } from '../../suites/lib/outcomes.js';
import { judgeContext, RATE, writtenExchange, type Answer } from '../helpers/judged.js';

let spec: SpecModel;
let observations: Observation[];
let ctx: CheckContext;
const op = (id: string): Operation => spec.operation(id);

beforeAll(async () => {
  spec = await referenceSpec();
});

function freshContext(): CheckContext {
  observations = [];
  return judgeContext(spec, observations);
}

const exchange = writtenExchange;

/** The words of a failed judgement (expected, actual, summary), or the reason it judged nothing. */
function words(j: Judgement): { expected: string; actual: string; summary: string } | { unjudged: string | undefined } {
  return j.ok
    ? { unjudged: j.unjudged }
    : { expected: j.failure.expected, actual: j.failure.actual, summary: j.summary };
}
const failed = (j: Judgement) => {
  expect(j.ok, JSON.stringify(j)).toBe(false);
  return words(j) as { expected: string; actual: string; summary: string };
};
const reason = (j: Judgement): string => {
  expect(j.ok && j.unjudged !== undefined, JSON.stringify(j)).toBe(true);
  return (j as { unjudged: string }).unjudged;
};

const CASE: InvalidCase = {
  kind: 'above-maximum',
  location: 'body',
  loc: ['max_concurrency'],
  field: 'max_concurrency',
  value: 201,
  body: { max_concurrency: 201 },
  description: 'max_concurrency=201 (maximum 200)',
};
const post = (response?: Answer) => exchange('POST', '/campaign', response, JSON.stringify({ max_concurrency: 201 }));
const patch = (response?: Answer) =>
  exchange('PATCH', '/campaign/cmp_x', response, JSON.stringify({ max_concurrency: 201 }));
const detail = (...locs: unknown[][]) => ({ detail: locs.map((loc) => ({ loc, msg: 'bad', type: 'value_error' })) });

describe('openRule: the answers the contract leaves to the server', () => {
  beforeAll(() => {
    ctx = freshContext();
  });

  it('lists one rule per status, each with its words', () => {
    expect(OPEN_RULES.map((r) => r.status)).toEqual([404, 409, 403, 422]);
    for (const r of OPEN_RULES) expect(r.rule.length).toBeGreaterThan(20);
  });

  it('a 409 and a 403: an observation quoting the server, and a judgement that judged nothing', () => {
    observations.length = 0;
    const j = openRule(ctx, op('updateCampaign'), patch({ status: 409, text: 'campaign is completed' }));
    expect(reason(j!)).toBe(
      'PATCH /campaign/{campaign_id} answered 409 (campaign is completed), a rule the contract leaves to the server',
    );
    expect(observations).toEqual([
      {
        id: 'observation',
        operation: 'PATCH /campaign/{campaign_id}',
        message: `answered 409 (campaign is completed): ${OPEN_RULES[1].rule}, a rule the contract leaves to the server; not judged`,
      },
    ]);
    expect(reason(openRule(ctx, op('updateCampaign'), patch({ status: 403, text: '' }))!)).toContain(
      'answered 403 ((no body))',
    );
  });

  it('quotes at most 160 characters of the body in the observation and 100 in the reason', () => {
    observations.length = 0;
    const long = `${'a'.repeat(100)}${'b'.repeat(60)}${'c'.repeat(40)}`;
    const j = openRule(ctx, op('updateCampaign'), patch({ status: 409, text: long }));
    expect(reason(j!)).toContain(`(${'a'.repeat(100)})`);
    expect(observations[0]!.message).toContain(`(${'a'.repeat(100)}${'b'.repeat(60)})`);
  });

  it("a 404 is the server's lookup only when the path holds an invented id", () => {
    expect(
      openRule(ctx, op('getCampaign'), exchange('GET', '/campaign/x', { status: 404, text: 'no' })),
    ).toBeUndefined();
    expect(
      openRule(ctx, op('getCampaign'), exchange('GET', '/campaign/x', { status: 404, text: 'no' }), {
        placeholder: false,
      }),
    ).toBeUndefined();
    expect(
      reason(
        openRule(ctx, op('getCampaign'), exchange('GET', '/campaign/x', { status: 404, text: 'no' }), {
          placeholder: true,
        })!,
      ),
    ).toContain('answered 404');
  });

  it("a 422 is the server's own rule only on a valid request, and only when it names none of the fields under test", () => {
    const refused = patch({ status: 422, json: detail(['body', 'name']) });
    expect(openRule(ctx, op('updateCampaign'), refused)).toBeUndefined();
    expect(openRule(ctx, op('updateCampaign'), refused, { valid: false })).toBeUndefined();
    expect(reason(openRule(ctx, op('updateCampaign'), refused, { valid: true })!)).toContain('answered 422');
    const fields = [
      { location: 'body' as const, loc: ['max_concurrency'] },
      { location: 'body' as const, loc: ['name'] },
    ];
    expect(openRule(ctx, op('updateCampaign'), refused, { valid: true, fields })).toBeUndefined();
    expect(openRule(ctx, op('updateCampaign'), refused, { valid: true, fields: fields.slice(0, 1) })).toBeDefined();
    // A 422 without a JSON body names no field.
    expect(
      openRule(ctx, op('updateCampaign'), patch({ status: 422, text: 'nope' }), { valid: true, fields }),
    ).toBeDefined();
  });

  it('judges as usual: no answer, a status no rule names, and any answer to a preflight', () => {
    expect(openRule(ctx, op('updateCampaign'), patch())).toBeUndefined();
    expect(openRule(ctx, op('updateCampaign'), patch({ status: 500, text: 'x' }))).toBeUndefined();
    expect(
      openRule(ctx, op('updateCampaign'), patch({ status: 200, text: 'x' }), { valid: true, placeholder: true }),
    ).toBeUndefined();
    const preflight = exchange('OPTIONS', '/logs/chat-sessions', { status: 409, text: 'x' });
    expect(openRule(ctx, op('preflightChatSessions'), preflight)).toBeUndefined();
    expect(
      openRule(
        ctx,
        op('preflightChatSessions'),
        { ...preflight, response: { ...preflight.response!, status: 404 } },
        { placeholder: true },
      ),
    ).toBeUndefined();
  });
});

describe('judgeInvalid: what it defers, and what its failures say', () => {
  beforeAll(() => {
    ctx = freshContext();
  });

  it('defers to the open rules: a 409 always, a 404 only with a placeholder id', () => {
    expect(reason(judgeInvalid(ctx, op('updateCampaign'), patch({ status: 409, text: 'done' }), CASE))).toContain(
      '409',
    );
    expect(
      reason(judgeInvalid(ctx, op('updateCampaign'), patch({ status: 404, text: 'no' }), CASE, { placeholder: true })),
    ).toContain('404');
    const w = failed(judgeInvalid(ctx, op('updateCampaign'), patch({ status: 404, text: 'no' }), CASE));
    expect(w.actual).toBe('status 404');
    expect(w.summary).toBe('max_concurrency=201 (maximum 200) on PATCH /campaign/{campaign_id} answered 404, not 422');
    expect(w.expected).toContain('max_concurrency=201 (maximum 200)');
    expect(w.expected).toContain('422');
  });

  it('no answer: says which case on which operation, and what happened instead', () => {
    const w = failed(judgeInvalid(ctx, op('createCampaign'), post(), CASE));
    expect(w.summary).toBe('POST /campaign: max_concurrency=201 (maximum 200) got no response');
    expect(w.actual).toBe('no response (connection_reset: socket hang up)');
    expect(w.expected).toContain('max_concurrency=201 (maximum 200)');
  });

  it('accepted: names the case, the status and the operation', () => {
    const w = failed(judgeInvalid(ctx, op('createCampaign'), post({ status: 201, json: {} }), CASE));
    expect(w.summary).toBe('max_concurrency=201 (maximum 200) was accepted (201) on POST /campaign');
    expect(w.expected).toContain('max_concurrency=201 (maximum 200)');
    const still = failed(
      judgeInvalid(ctx, op('createCampaign'), post({ status: 200, json: {} }), CASE, { stillInvalid: () => true }),
    );
    expect(still).toEqual({
      expected: w.expected,
      actual: 'accepted with 200',
      summary: 'max_concurrency=201 (maximum 200) was accepted (200) on POST /campaign',
    });
  });

  it('accepted but valid as sent: the reason names the case', () => {
    const valid = exchange(
      'POST',
      '/campaign',
      { status: 201, json: {} },
      JSON.stringify({ name: 'n', assistant_id: 'a', recipient_list_id: 'r' }),
    );
    expect(reason(judgeInvalid(ctx, op('createCampaign'), valid, CASE))).toContain('max_concurrency=201 (maximum 200)');
    expect(
      reason(
        judgeInvalid(ctx, op('createCampaign'), post({ status: 200, json: {} }), CASE, { stillInvalid: () => false }),
      ),
    ).toContain('max_concurrency=201 (maximum 200)');
    const blind = {
      ...freshContext(),
      validateWire: () => ({ available: false, valid: false, errors: [] }),
    } as CheckContext;
    expect(reason(judgeInvalid(blind, op('createCampaign'), post({ status: 201, json: {} }), CASE))).toContain(
      'max_concurrency=201 (maximum 200)',
    );
  });

  it("a 422 that is not the validation error body: says why (not JSON, or the validator's messages, at most three)", () => {
    const notJson = failed(judgeInvalid(ctx, op('createCampaign'), post({ status: 422, text: 'nope' }), CASE));
    expect(notJson.actual).toBe('the body is not JSON');
    expect(notJson.summary).toBe(
      'the 422 body of POST /campaign is not the validation error body (the body is not JSON)',
    );
    expect(notJson.expected).toContain('{detail: [{loc, msg, type}]}');
    expect(notJson.expected).toContain('max_concurrency=201 (maximum 200)');
    const wrong = failed(judgeInvalid(ctx, op('createCampaign'), post({ status: 422, json: { errors: [] } }), CASE));
    expect(wrong.actual).toBe("/ must have required property 'detail'");
    const many = failed(
      judgeInvalid(ctx, op('createCampaign'), post({ status: 422, json: { detail: [1, 2, 3, 4, 5] } }), CASE),
    );
    expect(many.actual.split('; ')).toHaveLength(3);
  });

  it('a 422 whose loc names another field: what was asked for, and every loc the server gave', () => {
    const w = failed(
      judgeInvalid(
        ctx,
        op('createCampaign'),
        post({ status: 422, json: detail(['body', 'name'], ['query', 'x']) }),
        CASE,
      ),
    );
    expect(w).toEqual({
      expected: 'a 422 whose loc names body.max_concurrency (section 2.8)',
      actual: 'loc ["body","name"], ["query","x"]',
      summary: 'the 422 of POST /campaign for max_concurrency=201 (maximum 200) does not name max_concurrency in loc',
    });
    const nested = failed(
      judgeInvalid(ctx, op('createCampaign'), post({ status: 422, json: { detail: [] } }), {
        ...CASE,
        loc: ['retry_policy', 'max_attempts'],
      }),
    );
    expect(nested.actual).toBe('loc (none)');
    expect(nested.expected).toContain('body.retry_policy.max_attempts');
    expect(nested.summary).toContain('does not name retry_policy.max_attempts in loc');
  });

  it('a valid body refused too: a 422 not naming the field judges nothing, one naming it passes', () => {
    const other = post({ status: 422, json: detail(['body', 'name']) });
    expect(
      reason(
        judgeInvalid(ctx, op('createCampaign'), other, CASE, {
          validRefused: { reason: 'every create refused', why: { cause: 'refused', status: 422 } },
        }),
      ),
    ).toBe('a valid body is refused too (every create refused)');
    expect(
      judgeInvalid(ctx, op('createCampaign'), post({ status: 422, json: detail(['body', 'max_concurrency']) }), CASE, {
        validRefused: { reason: 'x', why: { cause: 'refused', status: 422 } },
      }),
    ).toEqual({ ok: true });
  });

  it('a case without a loc (a malformed body) passes on any validation error body, even one naming nothing', () => {
    expect(
      judgeInvalid(ctx, op('createCampaign'), post({ status: 422, json: { detail: [] } }), { ...CASE, loc: [] }),
    ).toEqual({ ok: true });
  });
});

describe('locNames at its edges', () => {
  it('any item may name the field, not only the first; an item that is not an object is skipped', () => {
    const kase = { location: 'body' as const, loc: ['name'] };
    expect(locNames([{ loc: ['body', 'other'] }, { loc: ['body', 'name'] }], kase)).toBe(true);
    expect(locNames([null, 'x', { loc: ['body', 'name'] }], kase)).toBe(true);
    expect(locNames([null], kase)).toBe(false);
  });

  it('a loc of indices only (a body that is a list) is named by its exact path, with or without the location', () => {
    const kase = { location: 'body' as const, loc: [0, 1] as unknown as string[] };
    expect(locNames([{ loc: ['body', 0, 1] }], kase)).toBe(true);
    expect(locNames([{ loc: [0, 1] }], kase)).toBe(true);
    expect(locNames([{ loc: [0, 1, 'name'] }], kase)).toBe(true);
    expect(locNames([{ loc: ['body', 0] }], kase)).toBe(false);
    expect(locNames([{ loc: ['body', 1, 0] }], kase)).toBe(false);
    expect(locNames([{ loc: ['query', 0, 1] }], kase)).toBe(false);
    expect(
      locNames([{ loc: ['body', 'body', 0, 1] }], { location: 'body', loc: ['body', 0, 1] as unknown as string[] }),
    ).toBe(true);
  });

  it('an index of several digits is an index; a name with digits is a name', () => {
    expect(
      locNames([{ loc: ['body', 'items'] }], { location: 'body', loc: ['items', 12] as unknown as string[] }),
    ).toBe(true);
    expect(locNames([{ loc: ['body', 'settings.voice2'] }], { location: 'body', loc: ['voice2'] })).toBe(true);
    expect(locNames([{ loc: ['body', 'settings.2fa'] }], { location: 'body', loc: ['2fa'] })).toBe(true);
  });
});

describe('judgeResponse: what it defers, and what its failures say', () => {
  const get = (response?: Answer) => exchange('GET', '/protected', response);
  beforeAll(() => {
    ctx = freshContext();
  });

  it("no answer: what was asked for, in the caller's words or the default ones", () => {
    const dflt = failed(judgeResponse(ctx, op('getProtected'), get()));
    expect(dflt).toEqual({
      expected: 'an answer to a valid request to GET /protected',
      actual: 'no response (connection_reset: socket hang up)',
      summary: 'a valid request to GET /protected got no response',
    });
    const told = failed(judgeResponse(ctx, op('getProtected'), get(), { what: 'the read after the update' }));
    expect(told.expected).toBe('an answer to the read after the update');
    expect(told.summary).toBe('GET /protected: the read after the update got no response');
  });

  it('defers to the open rules: a 409 always, a 404 only with a placeholder id', () => {
    const read = (status: number) => exchange('GET', '/campaign/cmp_x', { status, json: { detail: 'x' } });
    expect(reason(judgeResponse(ctx, op('getCampaign'), read(409)))).toContain('409');
    expect(reason(judgeResponse(ctx, op('getCampaign'), read(404), { placeholder: true }))).toContain('404');
    const w = failed(judgeResponse(ctx, op('getCampaign'), read(404)));
    expect(w).toEqual({
      expected: 'one of the documented statuses 401, 422, 429, 2XX',
      actual: 'status 404',
      summary: 'GET /campaign/{campaign_id} answered 404, which the contract does not document for it',
    });
  });

  it('a status documented exactly (200, 401) is found without a class', () => {
    expect(judgeResponse(ctx, op('listCalls'), exchange('GET', '/calls', { status: 200, json: [] }))).toEqual({
      ok: true,
    });
    expect(
      judgeResponse(ctx, op('getProtected'), get({ status: 401, json: { detail: 'Invalid credentials' } })),
    ).toEqual({ ok: true });
  });

  it('content types: parameters, case and blanks do not matter; +json only at the end, and only where JSON is documented', () => {
    const answer = (type: string) =>
      get({ status: 200, json: { user_id: 'u', message: 'hi u' }, headers: { 'content-type': type, ...RATE } });
    expect(judgeResponse(ctx, op('getProtected'), answer('Application/JSON ; charset=utf-8'))).toEqual({ ok: true });
    const w = failed(judgeResponse(ctx, op('getProtected'), answer('application/vnd.x+json-seq')));
    expect(w).toEqual({
      expected: 'content type application/json (section 4)',
      actual: 'content type application/vnd.x+json-seq',
      summary: 'GET /protected answered 200 with content type application/vnd.x+json-seq, not application/json',
    });
    const none = failed(judgeResponse(ctx, op('getProtected'), get({ status: 200, text: 'hi', headers: { ...RATE } })));
    expect(none.actual).toBe('content type (none)');
    expect(none.summary).toBe('GET /protected answered 200 with content type (none), not application/json');
    // A documented type other than JSON is matched exactly.
    const csv = {
      ...op('getProtected'),
      responses: op('getProtected').responses.map((r) => (r.status === '2XX' ? { ...r, contentType: 'text/csv' } : r)),
    };
    expect(failed(judgeResponse(ctx, csv, answer('application/vnd.x+json'))).actual).toBe(
      'content type application/vnd.x+json',
    );
  });

  it('a body that is not JSON: what the parser said, or that there was none', () => {
    const w = failed(judgeResponse(ctx, op('getProtected'), get({ status: 200, text: '' })));
    expect(w).toEqual({
      expected: 'a JSON body',
      actual: 'no JSON body',
      summary: 'GET /protected answered 200 with a body that is not JSON',
    });
  });

  it('a body against its schema: the first four issues, and the first in the summary', () => {
    const w = failed(judgeResponse(ctx, op('getProtected'), get({ status: 200, json: { user_id: 1, message: 2 } })));
    expect(w.expected).toBe('the 2XX response documented for GET /protected (its headers and body schema)');
    expect(w.actual.split('; ')).toHaveLength(2);
    expect(w.actual).toContain('/user_id');
    expect(w.actual).toContain('/message');
    expect(w.summary).toMatch(/^GET \/protected 200: body \/(user_id|message) must be/);
    const { 'x-ratelimit-reset': _r, 'x-ratelimit-limit': _l, ...rest } = RATE;
    const five = failed(
      judgeResponse(
        ctx,
        op('getProtected'),
        get({
          status: 200,
          json: { user_id: 1, message: 2 },
          headers: { 'content-type': 'application/json', ...rest, 'x-ratelimit-remaining': 'many' },
        }),
      ),
    );
    expect(five.actual.split('; ')).toHaveLength(4);
  });
});

describe("the contract's own conflict (3.1) and preflights", () => {
  let record: Record<string, unknown>;
  const update = (body: unknown) => exchange('PATCH', '/campaign/cmp_x', { status: 200, json: body });
  beforeAll(() => {
    ctx = freshContext();
    const store = new ReferenceStore({
      spec,
      apiKey: 'key_judges_1234',
      userId: 'user_judges',
      channels: ['chan_a', 'chan_b'],
    });
    record = store.createCampaign({ name: 'n', assistant_id: 'asst_1', recipient_list_id: 'rl_1' });
  });

  it('a record with status "scheduled" is not failed: an observation names the field and the value', () => {
    observations.length = 0;
    expect(judgeResponse(ctx, op('updateCampaign'), update({ ...record, status: 'scheduled' }))).toEqual({ ok: true });
    expect(observations).toEqual([
      {
        id: 'contract-conflict.campaign-status-scheduled',
        operation: 'PATCH /campaign/{campaign_id}',
        message:
          'the record\'s status is "scheduled", which the record\'s list lacks while the update accepts it (contract section 3.1): not judged',
      },
    ]);
  });

  it('the rest of such a record is still judged, and the failure is about the rest', () => {
    observations.length = 0;
    const j = judgeResponse(ctx, op('updateCampaign'), update({ ...record, status: 'scheduled', name: 5 }));
    expect(j.ok ? 'ok' : j.failure.field).toEqual({ location: 'response', pointer: '/name', status: '200' });
    expect(failed(j).actual).not.toContain('scheduled');
    expect(observations.map((o) => o.id)).toEqual(['contract-conflict.campaign-status-scheduled']);
  });

  it('a status outside every list is a failure on the status, with no conflict observed', () => {
    observations.length = 0;
    const j = judgeResponse(ctx, op('updateCampaign'), update({ ...record, status: 'bogus' }));
    expect(j.ok ? 'ok' : j.failure.field).toEqual({ location: 'response', pointer: '/status', status: '200' });
    expect(observations).toEqual([]);
  });

  it('a preflight without the documented headers (and without a content type) is noted, not failed', () => {
    observations.length = 0;
    const preflight = exchange('OPTIONS', '/logs/chat-sessions', {
      status: 204,
      text: '',
      headers: { 'access-control-allow-origin': '*' },
    });
    expect(judgeResponse(ctx, op('preflightChatSessions'), preflight)).toEqual({ ok: true });
    expect(observations).toHaveLength(1);
    expect(observations[0]!.operation).toBe('OPTIONS /logs/chat-sessions');
    expect(observations[0]!.message).toMatch(
      /^the preflight answer lacks documented headers \(.*x-ratelimit-limit.*; .*\); not judged on a preflight$/i,
    );
  });

  it('on a preflight only the header issues are noted: a body issue is still a failure', () => {
    observations.length = 0;
    const asPreflight = { ...op('getProtected'), method: 'OPTIONS' } as Operation;
    const j = judgeResponse(
      ctx,
      asPreflight,
      exchange('OPTIONS', '/protected', {
        status: 200,
        json: { user_id: 1, message: 'm' },
        headers: { 'content-type': 'application/json' },
      }),
    );
    expect(j.ok ? 'ok' : j.failure.field).toEqual({ location: 'response', pointer: '/user_id', status: '200' });
    expect(failed(j).actual).not.toMatch(/x-ratelimit/i);
    expect(observations).toHaveLength(1);
    expect(observations[0]!.message).toMatch(/x-ratelimit/i);
    expect(observations[0]!.message).not.toContain('user_id');
    // Only a body issue on a preflight: failed, and nothing noted about headers.
    observations.length = 0;
    const bodyOnly = judgeResponse(
      ctx,
      asPreflight,
      exchange('OPTIONS', '/protected', { status: 200, json: { user_id: 1, message: 'm' } }),
    );
    expect(bodyOnly.ok).toBe(false);
    expect(observations).toEqual([]);
    // A preflight with every documented header: nothing noted.
    observations.length = 0;
    expect(
      judgeResponse(
        ctx,
        op('preflightChatSessions'),
        exchange('OPTIONS', '/logs/chat-sessions', { status: 204, text: '' }),
      ),
    ).toEqual({ ok: true });
    expect(observations).toEqual([]);
  });
});

describe('issueField and errorDetailProblem at their edges', () => {
  const issue = (over: Partial<ValidationIssue>): ValidationIssue =>
    ({ pointer: '/a', rule: 'type', message: 'm', location: 'body', ...over }) as ValidationIssue;

  it('only a missing required property is located on the property itself', () => {
    expect(issueField(issue({ rule: 'required', expected: 'name' }), 200)).toEqual({
      location: 'response',
      pointer: '/a/name',
      status: '200',
    });
    expect(issueField(issue({ rule: 'type', expected: 'string' }), 200)).toEqual({
      location: 'response',
      pointer: '/a',
      status: '200',
    });
    expect(issueField(issue({ rule: 'required', expected: ['name'] }), 200)).toEqual({
      location: 'response',
      pointer: '/a',
      status: '200',
    });
    expect(issueField(issue({ rule: 'required', expected: 'a/b', pointer: '' }), 201)).toEqual({
      location: 'response',
      pointer: '/a~1b',
      status: '201',
    });
    expect(
      issueField(issue({ rule: 'required', expected: 'X-RateLimit-Reset', pointer: '', location: 'header' }), 200),
    ).toEqual({ location: 'response-header', pointer: '/x-ratelimit-reset', status: '200' });
  });

  it('quotes at most 120 characters of a body or a detail', () => {
    const body = 'b'.repeat(200);
    expect(errorDetailProblem(401, { json: undefined, text: body })).toBe(
      `body ${'b'.repeat(120)} is not {detail: string}`,
    );
    expect(errorDetailWording(429, { json: { detail: 'n'.repeat(200) } })).toBe(
      `the 429's detail "${'n'.repeat(120)}" names none of the words that would say that the rate limit was exceeded (the contract fixes no wording: noted, not judged)`,
    );
  });
});
