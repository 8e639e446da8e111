/**
 * Exchanges written by hand and a bare check context for unit tests of the judges
 * (test/checks/judges*.test.ts): no server, the run's evidence helpers, observations collected.
 */
import type { CheckContext } from '../../src/checks/check.js';
import { validateWireRequest } from '../../src/checks/wire.js';
import type { Observation } from '../../src/results/model.js';
import { evidenceOf } from '../../src/runner/context/evidence.js';
import { Secrets } from '../../src/secrets/index.js';
import type { SpecModel } from '../../src/spec/model.js';
import type { Exchange, HttpResponse } from '../../src/transport/types.js';

/** Rate-limit headers of an answer well inside its window. */
export const RATE = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '30' };

export type Answer = Partial<HttpResponse> & { status: number };

/** An exchange as the transport records it; without `response`, the connection was reset. */
export function writtenExchange(method: string, path: string, response?: Answer, body?: string): Exchange {
  const request = {
    method,
    url: `http://127.0.0.1:1${path}`,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body } : {}),
  };
  if (!response) return { request, error: { code: 'connection_reset', message: 'socket hang up' }, durationMs: 5 };
  const json = response.json;
  const text = response.text ?? (json === undefined ? '' : JSON.stringify(json));
  return {
    request,
    response: { headers: { 'content-type': 'application/json', ...RATE }, text, truncated: false, ...response },
    durationMs: 3,
  };
}

/** A context with the run's evidence helpers (wire validation unless `validate` is false); observations go to `into`. */
export function judgeContext(spec: SpecModel, into: Observation[], validate = true): CheckContext {
  const evidence = evidenceOf(new Secrets(), 7, validate ? validateWireRequest : undefined);
  return {
    spec,
    ...evidence,
    observe: (o: Observation) => into.push({ ...o, id: o.id ?? 'observation' }),
  } as unknown as CheckContext;
}
