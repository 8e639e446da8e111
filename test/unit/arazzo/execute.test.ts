/**
 * The request a workflow step sends (src/arazzo/execute.ts buildRequest): its path, query, header
 * and cookie parameters, the payload with whole and embedded runtime expressions and its
 * replacements, respect's x-security as the documented credential headers; an expression that
 * reaches no value is an error, never `undefined` sent.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRequest, resolveValue } from '../../../src/arazzo/execute.js';
import { ExpressionError } from '../../../src/arazzo/expressions.js';
import { readWorkflows } from '../../../src/arazzo/read.js';
import type { CheckContext } from '../../../src/checks/check.js';
import { loadSpec } from '../../../src/spec/load.js';
import type { SpecModel } from '../../../src/spec/model.js';

let spec: SpecModel;
beforeAll(async () => {
  spec = await loadSpec();
});

const DOC = `arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions: [{name: contract, url: ./openapi.yaml, type: openapi}]
workflows:
  - workflowId: w
    inputs:
      type: object
      properties: {name: {type: string}, key: {type: string}, n: {type: integer}}
    steps:
      - stepId: create
        operationId: createCampaign
      - stepId: patch
        operationPath: '{$sourceDescriptions.contract.url}#/paths/~1campaign~1{campaign_id}/patch'
        x-security:
          - {schemeName: BearerAuth, values: {token: $inputs.key}}
        parameters:
          - {name: campaign_id, in: path, value: $steps.create.outputs.id}
          - {name: X-Trace, in: header, value: 'trace-{$inputs.n}'}
          - {name: session, in: cookie, value: abc}
          - {name: verbose, in: query, value: $inputs.n}
        requestBody:
          contentType: application/json
          payload: {name: 'vapc {$inputs.name}', max_concurrency: 1, speech_settings: {voice: $inputs.name}}
          replacements:
            - {target: /max_concurrency, value: $inputs.n}
`;

describe('buildRequest', () => {
  const scope = () => ({
    inputs: { name: 'spring', key: 'k-123', n: 7 },
    steps: { create: { outputs: { id: 'c/1' } } },
    workflows: {},
  });
  const ctx = () => ({ spec }) as unknown as CheckContext;

  it('fills the path (encoded), query, header, cookie and body, the replacements applied, the credential from x-security', () => {
    const { workflows } = readWorkflows(DOC, spec, 'test');
    const step = workflows[0]!.steps[1]!;
    expect(step.operation.id).toBe('updateCampaign');
    const request = buildRequest(ctx(), step, scope());
    expect(request.method).toBe('PATCH');
    expect(request.path).toBe('/campaign/c%2F1');
    expect(request.query).toEqual([['verbose', '7']]);
    const bearer = spec.securitySchemes.find((s) => s.credential === 'bearer')!.header;
    expect(request.headers).toEqual({ [bearer]: 'Bearer k-123', 'X-Trace': 'trace-7', Cookie: 'session=abc' });
    expect(request.json).toEqual({ name: 'vapc spring', max_concurrency: 7, speech_settings: { voice: 'spring' } });
  });

  it('an expression that reaches no value is an error (the step is not sent)', () => {
    const { workflows } = readWorkflows(DOC, spec, 'test');
    const s = scope();
    s.steps = {} as typeof s.steps;
    expect(() => buildRequest(ctx(), workflows[0]!.steps[1]!, s)).toThrow(ExpressionError);
  });

  it('resolveValue: a whole expression keeps its type, an embedded one becomes text, other strings stay', () => {
    const s = scope();
    expect(resolveValue({ a: '$inputs.n', b: 'n={$inputs.n}', c: 'plain $ sign', d: ['$inputs.name'] }, s)).toEqual({
      a: 7,
      b: 'n=7',
      c: 'plain $ sign',
      d: ['spring'],
    });
  });
});
