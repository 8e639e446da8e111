/**
 * The judges (suites/lib/judges.ts) branch by branch, on exchanges written here (no server): each
 * failure's kind and field, the data baselines and SARIF read, and every answer that is not a
 * failure (a 429, a wire request that turned out valid, a success status the contract leaves open).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { CheckContext } from '../../src/checks/check.js';
import type { InvalidCase } from '../../src/generators/index.js';
import type { Observation } from '../../src/results/model.js';
import { referenceSpec } from '../../src/server/index.js';
import type { Operation, SpecModel } from '../../src/spec/model.js';
import {
  errorDetailProblem,
  errorDetailWording,
  judgeInvalid,
  judgeResponse,
  locNames,
} from '../../suites/lib/judges.js';
import type { Judgement } from '../../suites/lib/outcomes.js';
import { judgeContext, RATE, writtenExchange, type Answer } from '../helpers/judged.js';

/** Fine, and no evidence either: the answer judged nothing (issue 21, no pass without evidence). */
const NOT_JUDGED = {
  ok: true,
  unjudged: expect.any(String),
  why: expect.objectContaining({ cause: expect.any(String) }),
};

let spec: SpecModel;
let observations: Observation[];
let ctx: CheckContext;
const op = (method: string, path: string): Operation =>
  spec.operations.find((o) => o.method === method && o.path === path)!;

beforeAll(async () => {
  spec = await referenceSpec();
});

function freshContext(validate = true): CheckContext {
  observations = [];
  return judgeContext(spec, observations, validate);
}

const exchange = writtenExchange;

/** The kind and field of a failed judgement, or 'ok'. */
const facts = (j: Judgement) => (j.ok ? 'ok' : { kind: j.failure.kind, field: j.failure.field });

const CASE: InvalidCase = {
  kind: 'above-maximum',
  location: 'body',
  loc: ['max_concurrency'],
  field: 'max_concurrency',
  value: 201,
  body: { max_concurrency: 201 },
  description: 'max_concurrency=201 (maximum 200)',
};
const FIELD = { location: 'body', pointer: '/max_concurrency' };
const post = (response?: Answer) => exchange('POST', '/campaign', response, JSON.stringify({ max_concurrency: 201 }));
const detail = (loc: unknown[]) => ({ detail: [{ loc, msg: 'too large', type: 'value_error' }] });

describe('judgeInvalid', () => {
  beforeAll(() => {
    ctx = freshContext();
  });

  it('no answer: a no-response failure', () => {
    // The one start locates a no-response on the field under test, as every check's (issue 31).
    expect(facts(judgeInvalid(ctx, op('POST', '/campaign'), post(), CASE))).toEqual({
      kind: 'no-response',
      field: FIELD,
    });
  });

  it('a 429 is a budget event, never judged', () => {
    expect(
      judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 429, json: { detail: 'slow down' } }), CASE),
    ).toEqual(NOT_JUDGED);
  });

  it('accepted, and still invalid as sent: accepted-invalid on the field', () => {
    const j = judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 201, json: {} }), CASE);
    expect(facts(j)).toEqual({ kind: 'accepted-invalid', field: FIELD });
    expect(j.ok ? '' : j.failure.actual).toBe('accepted with 201');
  });

  it('accepted, and valid as it went over the wire (a client layer fixed it): not a failure', () => {
    const valid = exchange(
      'POST',
      '/campaign',
      { status: 201, json: {} },
      JSON.stringify({ name: 'n', assistant_id: 'a', recipient_list_id: 'r' }),
    );
    expect(ctx.validateWire(op('POST', '/campaign'), valid)).toMatchObject({ available: true, valid: true });
    expect(judgeInvalid(ctx, op('POST', '/campaign'), valid, CASE)).toEqual(NOT_JUDGED);
  });

  it('accepted when the wire request cannot be re-validated: an observation, not a failure', () => {
    const blind = freshContext(false);
    expect(judgeInvalid(blind, op('POST', '/campaign'), post({ status: 201, json: {} }), CASE)).toEqual(NOT_JUDGED);
    expect(observations.map((o) => o.message)).toEqual([
      expect.stringContaining('could not re-validate the wire request'),
    ]);
    ctx = freshContext();
  });

  it('stillInvalid decides for constraints the spec cannot state', () => {
    const j = (still: boolean) =>
      judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 200, json: {} }), CASE, { stillInvalid: () => still });
    expect(j(false)).toEqual(NOT_JUDGED);
    expect(facts(j(true))).toEqual({ kind: 'accepted-invalid', field: FIELD });
  });

  it('another refusal than 422: a status failure', () => {
    const j = judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 400, json: { detail: 'bad' } }), CASE);
    expect(facts(j)).toEqual({ kind: 'status', field: FIELD });
    expect(j.ok ? '' : j.failure.actual).toBe('status 400');
  });

  it('a 422 without the validation error body: validation-body (not JSON, or the wrong shape)', () => {
    expect(facts(judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 422, text: 'nope' }), CASE))).toEqual({
      kind: 'validation-body',
      field: FIELD,
    });
    const wrong = judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 422, json: { errors: [] } }), CASE);
    expect(facts(wrong)).toEqual({ kind: 'validation-body', field: FIELD });
    expect(wrong.ok ? '' : wrong.failure.actual).not.toBe('the body is not JSON');
  });

  it('a 422 whose loc names another field: loc; naming it (with or without the location): fine', () => {
    expect(
      facts(judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 422, json: detail(['body', 'name']) }), CASE)),
    ).toEqual({ kind: 'loc', field: FIELD });
    expect(
      judgeInvalid(
        ctx,
        op('POST', '/campaign'),
        post({ status: 422, json: detail(['body', 'max_concurrency']) }),
        CASE,
      ),
    ).toEqual({ ok: true });
    expect(
      judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 422, json: detail(['max_concurrency']) }), CASE),
    ).toEqual({ ok: true });
    expect(
      judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 422, json: detail(['body', 'name']) }), CASE, {
        checkLoc: false,
      }),
    ).toEqual({ ok: true });
  });

  it('the field pointer escapes what a JSON Pointer must, and keeps array indices', () => {
    const nested: InvalidCase = { ...CASE, loc: ['speech_settings', 'a/b~c', 0], field: 'speech_settings.a/b~c' };
    expect(facts(judgeInvalid(ctx, op('POST', '/campaign'), post({ status: 500, json: {} }), nested))).toEqual({
      kind: 'status',
      field: { location: 'body', pointer: '/speech_settings/a~1b~0c/0' },
    });
  });
});

describe('locNames', () => {
  const kase = { location: 'body' as const, loc: ['speech_settings', 'style'] };
  it('names the field with the location, without it, or as one dotted path', () => {
    expect(locNames([{ loc: ['body', 'speech_settings', 'style'] }], kase)).toBe(true);
    expect(locNames([{ loc: ['speech_settings', 'style'] }], kase)).toBe(true);
    expect(locNames([{ loc: ['body', 'speech_settings.style'] }], kase)).toBe(true);
    expect(locNames([{ loc: ['body', 'style'] }], kase)).toBe(true);
  });
  it('does not name it: another field, no loc, not a list', () => {
    expect(locNames([{ loc: ['body', 'speech_settings', 'voice'] }], kase)).toBe(false);
    expect(locNames([{ msg: 'x' }], kase)).toBe(false);
    expect(locNames({ loc: ['body', 'speech_settings', 'style'] }, kase)).toBe(false);
    expect(locNames([{ loc: ['body', 'speech_settings'] }], { location: 'body', loc: ['speech_settings', 0] })).toBe(
      true,
    );
  });
});

describe('errorDetailProblem', () => {
  it('a 401 or 429 body {detail} that says what section 7 says: no problem', () => {
    expect(
      errorDetailProblem(401, { json: { detail: 'Invalid authentication credentials' }, text: '' }),
    ).toBeUndefined();
    expect(errorDetailProblem(429, { json: { detail: 'Rate limit exceeded' }, text: '' })).toBeUndefined();
  });
  it('not {detail: string}, or an empty message: the reason; the wording is only observed (the contract fixes none)', () => {
    expect(errorDetailProblem(401, { json: { error: 'x' }, text: '{"error":"x"}' })).toBe(
      'body {"error":"x"} is not {detail: string}',
    );
    expect(errorDetailProblem(401, { json: undefined, text: '' })).toBe('body (empty) is not {detail: string}');
    expect(errorDetailProblem(401, { json: { detail: ' ' }, text: '' })).toBe('detail is an empty message');
    expect(errorDetailProblem(429, { json: { detail: '' }, text: '' })).toBe('detail is an empty message');
    // Any other words pass: "No." and a message in another language alike; the words are noted.
    expect(errorDetailProblem(401, { json: { detail: 'No.' }, text: '' })).toBeUndefined();
    expect(errorDetailProblem(401, { json: { detail: 'Identifiants refusés' }, text: '' })).toBeUndefined();
    expect(errorDetailWording(401, { json: { detail: 'No.' } })).toContain(
      'names none of the words that would say that the credentials are invalid',
    );
    expect(errorDetailWording(429, { json: { detail: 'No.' } })).toContain('that the rate limit was exceeded');
    // Each status has its own words: a 429 sentence does not explain a 401.
    expect(errorDetailWording(401, { json: { detail: 'Too many, slow down' } })).toBeDefined();
    expect(errorDetailWording(401, { json: { detail: 'Invalid API key' } })).toBeUndefined();
  });
});

describe('judgeResponse', () => {
  const get = (response?: Answer) => exchange('GET', '/protected', response);
  beforeAll(() => {
    ctx = freshContext();
  });

  it('a documented answer: fine; a 429: not judged', () => {
    expect(
      judgeResponse(ctx, op('GET', '/protected'), get({ status: 200, json: { user_id: 'u', message: 'hi u' } })),
    ).toEqual({ ok: true });
    expect(judgeResponse(ctx, op('GET', '/protected'), get({ status: 429, json: {} }))).toEqual(NOT_JUDGED);
  });

  it('no answer: no-response', () => {
    expect(facts(judgeResponse(ctx, op('GET', '/protected'), get()))).toEqual({
      kind: 'no-response',
      field: undefined,
    });
  });

  it('a status the operation does not document: undocumented-status', () => {
    const j = judgeResponse(ctx, op('GET', '/protected'), get({ status: 404, json: { detail: 'x' } }));
    expect(facts(j)).toEqual({ kind: 'undocumented-status', field: undefined });
    expect(j.ok ? '' : j.failure.actual).toBe('status 404');
  });

  it('a success status the contract leaves open: an observation, not a failure', () => {
    expect(judgeResponse(ctx, op('GET', '/calls'), exchange('GET', '/calls', { status: 203, json: [] }))).toEqual({
      ok: true,
    });
    expect(observations.map((o) => o.message)).toContainEqual(
      expect.stringContaining('a success status the contract leaves open'),
    );
    expect(
      facts(judgeResponse(ctx, op('GET', '/calls'), exchange('GET', '/calls', { status: 500, json: {} }))),
    ).toEqual({ kind: 'status', field: undefined }); // a 5xx is a status failure in every check (the one start)
  });

  it('another content type: content-type on the header; a +json type is JSON', () => {
    const html = get({ status: 200, text: '<p>hi</p>', headers: { 'content-type': 'text/html', ...RATE } });
    expect(facts(judgeResponse(ctx, op('GET', '/protected'), html))).toEqual({
      kind: 'content-type',
      field: { location: 'response-header', pointer: '/content-type', status: '200' },
    });
    const vendor = get({
      status: 200,
      json: { user_id: 'u', message: 'hi u' },
      headers: { 'content-type': 'application/vnd.api+json; charset=utf-8', ...RATE },
    });
    expect(judgeResponse(ctx, op('GET', '/protected'), vendor)).toEqual({ ok: true });
  });

  it('a body that is not JSON: invalid-json', () => {
    const bad = get({ status: 200, text: '{"user_id": ', jsonError: 'Unexpected end of JSON input' });
    const j = judgeResponse(ctx, op('GET', '/protected'), bad);
    expect(facts(j)).toEqual({ kind: 'invalid-json', field: { location: 'response', pointer: '', status: '200' } });
    expect(j.ok ? '' : j.failure.actual).toBe('Unexpected end of JSON input');
  });

  it('a body against its schema: schema on the property', () => {
    const j = judgeResponse(ctx, op('GET', '/protected'), get({ status: 200, json: { user_id: 5, message: 'hi' } }));
    expect(facts(j)).toEqual({ kind: 'schema', field: { location: 'response', pointer: '/user_id', status: '200' } });
  });

  it('a missing required header: schema on the header, its name lower-cased', () => {
    const { 'x-ratelimit-reset': _reset, ...rest } = RATE;
    const j = judgeResponse(
      ctx,
      op('GET', '/protected'),
      get({
        status: 200,
        json: { user_id: 'u', message: 'hi u' },
        headers: { 'content-type': 'application/json', ...rest },
      }),
    );
    expect(facts(j)).toEqual({
      kind: 'schema',
      field: { location: 'response-header', pointer: '/x-ratelimit-reset', status: '200' },
    });
  });
});
