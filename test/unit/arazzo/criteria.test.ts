// The success criteria and runtime expressions the exporter keeps only when they hold on the
// recorded exchange (src/arazzo/criteria.ts, expressions.ts): each kind holds where it should and
// fails where it should, with a reason; an expression that reaches nothing never holds.
import { describe, expect, it } from 'vitest';
import { judgeCriterion } from '../../../src/arazzo/criteria.js';
import { evaluate, ExpressionError, type ExpressionScope } from '../../../src/arazzo/expressions.js';

const scope: ExpressionScope = {
  inputs: { api_key: 'k1', org_id: 'org_1' },
  steps: { createCampaign: { outputs: { id: 'c1', sent_name: 'first' } } },
  workflows: {},
  current: {
    url: 'http://127.0.0.1/campaign/c1',
    method: 'GET',
    request: { headers: { 'x-user-id': 'u1' }, query: {}, path: { campaign_id: 'c1' }, body: { name: 'first' } },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: {
        campaign: { id: 'c1', name: 'first', created_at: '2030-01-01T13:00:00Z', tags: ['a'] },
        counts: { total: 2 },
      },
    },
  },
};

describe('evaluate', () => {
  it('reads the request, the answer by JSON pointer, inputs and earlier steps’ outputs', () => {
    expect(evaluate('$statusCode', scope)).toBe(200);
    expect(evaluate('$response.body#/campaign/tags/0', scope)).toBe('a');
    expect(evaluate('$request.path.campaign_id', scope)).toBe('c1');
    expect(evaluate('$inputs.org_id', scope)).toBe('org_1');
    expect(evaluate('$steps.createCampaign.outputs.id', scope)).toBe('c1');
  });

  it('refuses a pointer that reaches nothing, rather than taking undefined for a value', () => {
    expect(() => evaluate('$response.body#/campaign/missing', scope)).toThrow(ExpressionError);
    expect(() => evaluate('$steps.nope.outputs.id', scope)).toThrow(ExpressionError);
  });
});

describe('judgeCriterion', () => {
  const held = (c: Parameters<typeof judgeCriterion>[0]) => judgeCriterion(c, scope).held;

  it('simple: comparisons, && and || across expressions and literals', () => {
    expect(held({ condition: '$statusCode == 200 || $statusCode == 201' })).toBe(true);
    expect(held({ condition: '$statusCode >= 200 && $statusCode < 300' })).toBe(true);
    expect(held({ condition: '$response.body#/campaign/id == $steps.createCampaign.outputs.id' })).toBe(true);
    expect(held({ condition: '$response.body#/campaign/name != $steps.createCampaign.outputs.sent_name' })).toBe(false);
    expect(held({ condition: '$response.body#/counts/total == 3' })).toBe(false);
  });

  it('regex on a context, jsonpath selecting from the wrapped context', () => {
    expect(held({ context: '$response.body#/campaign/created_at', type: 'regex', condition: '^2030-01-01T13' })).toBe(
      true,
    );
    expect(held({ context: '$response.body#/campaign/created_at', type: 'regex', condition: '^2031' })).toBe(false);
    expect(held({ context: '$response.body', type: 'jsonpath', condition: '$[?@.counts.total == 2]' })).toBe(true);
    expect(held({ context: '$response.body', type: 'jsonpath', condition: '$[?@.counts.total == 3]' })).toBe(false);
  });

  it('an expression that reaches nothing does not hold, and says why', () => {
    const verdict = judgeCriterion({ condition: '$response.body#/nothing == 1' }, scope);
    expect(verdict.held).toBe(false);
    expect(verdict.why).toMatch(/nothing/);
  });
});
