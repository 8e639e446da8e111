/**
 * The one result model of a conformance run. The runner produces it; every reporter (console,
 * JSON, JUnit, HTML, GitHub) reads only this. report.json is this object serialised, and its
 * top-level shape is fixed by shared/runner-interface.md: tool, spec_version, target, seed,
 * summary {passed, failed, skipped, requests, duration_ms}, results[] {id, suite, operation,
 * status, message, repro}. Everything else here is an addition.
 */

import type { ShardField } from './shard.js';

export type Suite = 'auth' | 'validation' | 'ranges' | 'schema' | 'stateful' | 'ratelimit' | 'cors' | 'robustness';
export const SUITES: readonly Suite[] = ['auth', 'validation', 'ranges', 'schema', 'stateful', 'cors', 'robustness', 'ratelimit'];

/**
 * passed: the server kept the rule; failed: the server broke the contract; skipped: not run (the
 * reason says why: fixture missing, destructive and not asked for, suite not selected);
 * error: the runner could not check (a tool fault, never the server's).
 */
export type Verdict = 'passed' | 'failed' | 'skipped' | 'error';
export type Severity = 'critical' | 'major' | 'minor';

/** An HTTP request as it went over the wire, secrets already replaced by placeholders. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body text as sent (JSON or deliberately malformed text), if any. */
  body?: string;
}

/** An HTTP response as received, headers lower-cased, body text truncated to a cap and redacted. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body?: string;
  truncated?: boolean;
  duration_ms: number;
}

export interface Failure {
  /** What the contract expects, in words. */
  expected: string;
  /** What the server did, in words. */
  actual: string;
  /** The shrunk minimal input, when the check generated inputs. */
  input?: unknown;
  request?: RecordedRequest;
  response?: RecordedResponse;
  /** A curl line that reproduces it, secrets as $VAPC_API_KEY / $VAPC_USER_ID placeholders. */
  repro?: string;
  /** fast-check seed and path, to replay the property alone. */
  seed?: number;
  path?: string;
}

/** Something notable the contract does not rule on: reported, never a failure. */
export interface Observation {
  id: string;
  operation?: string;
  message: string;
}

export interface CheckResult {
  /** Stable check id, `suite.name`. */
  id: string;
  suite: Suite;
  /** `METHOD /path` of the operation, or '*' for checks across operations. */
  operation: string;
  status: Verdict;
  /** One line for people: why it failed, why it was skipped, or what passed. */
  message: string;
  /** The rule the check enforces, with its contract section, e.g. "4.2: max_concurrency 1..200". */
  rule: string;
  contract_ref: string;
  severity: Severity;
  /** Repro line of the first failure (report.json's documented field). */
  repro?: string;
  failures?: Failure[];
  duration_ms: number;
  requests: number;
}

export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  errors: number;
  requests: number;
  duration_ms: number;
  observations: number;
}

export interface RunReport {
  tool: { name: 'voice-agent-contract'; version: string };
  spec_version: string;
  target: string;
  seed: number;
  started_at: string;
  summary: RunSummary;
  results: CheckResult[];
  observations: Observation[];
  /** The effective options, redacted (no secret values). */
  config: Record<string, unknown>;
  /** Set by `vapc run --shard I/N`: this report holds shard `index` of `count` (see shard.ts). */
  shard?: ShardField;
}

export function summarize(results: CheckResult[], requests: number, durationMs: number, observations: number): RunSummary {
  const count = (v: Verdict) => results.filter((r) => r.status === v).length;
  return {
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    errors: count('error'),
    requests,
    duration_ms: durationMs,
    observations,
  };
}
