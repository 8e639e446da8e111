/**
 * The shape and bounds of a report.json that `vapc report` and `vapc report merge` accept. A
 * report artefact may come from another job of the pull request being judged, so it is input, not
 * vapc's own output: every count, length, list size and enum is bounded here, written once and
 * compiled once (AJV). What a renderer needs from a report and what runner-interface.md fixes is
 * required; the additions are optional, so older and hand-written reports still load. Counts that
 * can be recomputed (summary, baseline marks) are accepted as numbers here and recomputed by
 * load.ts, never trusted.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { NOT_JUDGED_CAUSES } from '../results/model.js';
import {
  RUN_COUNTS,
  type WorkflowAction,
  type WorkflowCoverage,
  type WorkflowFileCoverage,
  type WorkflowTally,
} from '../results/workflows.js';
import type {
  BaselineMark,
  BaselineSummary,
  CheckResult,
  Failure,
  NotJudged,
  NotObservedEntry,
  Observation,
  RateLimitWindow,
  RunReport,
  RunStatus,
  RunSummary,
  ShardField,
} from '../results/model.js';

/** Bytes read from one report.json at most (a full run is under 100 KiB, a failing one a few MiB). */
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;
/** Bytes read from all the shard reports of one merge together. */
export const MAX_MERGE_BYTES = 64 * 1024 * 1024;
/** Arrays and objects nested deeper than this are refused before anything walks them. */
export const MAX_REPORT_DEPTH = 64;
/** Values (containers and members) in one report at most, counted before parsing: bounds the parsed size. */
export const MAX_REPORT_NODES = 1_000_000;
/** `--shard I/N` takes N up to 999999 (src/cli/commands/run.ts); a report cannot claim more. */
export const MAX_SHARD_COUNT = 999_999;
/** Pairs in one plan, results in one report: far above any real run, small enough to hold in memory. */
export const MAX_PLAN_SIZE = 200_000;

const VERDICTS = ['passed', 'failed', 'skipped', 'error'] as const;
const SEVERITIES = ['critical', 'major', 'minor'] as const;
const THIS_RUN = ['passed', 'failed', 'skipped', 'error', 'not-run'] as const;

/** Short structured text (ids, suites, operations, kinds, dates). */
const SHORT = { type: 'string', maxLength: 1000 } as const;
/** One line for people (messages, rules, reasons, expected/actual); the sanitizer clips them to 2000 again. */
const LINE = { type: 'string', maxLength: 100_000 } as const;
/** Repro lines and recorded bodies. */
const LONG = { type: 'string', maxLength: 1_000_000 } as const;
const COUNT = { type: 'integer', minimum: 0, maximum: 1_000_000_000 } as const;
const MS = { type: 'number', minimum: 0, maximum: 1e12 } as const;
const HEADERS = { type: 'object', maxProperties: 500, additionalProperties: LONG } as const;

const failure = {
  type: 'object',
  required: ['expected', 'actual'],
  properties: {
    expected: LINE,
    actual: LINE,
    // The shrunk input: any JSON value, bounded by the report's depth and node caps.
    input: {},
    repro: LONG,
    seed: { type: 'integer' },
    path: SHORT,
    recorded_at: LINE,
    kind: SHORT,
    field: {
      type: 'object',
      required: ['location', 'pointer'],
      properties: { location: SHORT, pointer: LINE, status: SHORT },
    },
    request: {
      type: 'object',
      required: ['method', 'url'],
      properties: { method: SHORT, url: LONG, headers: HEADERS, body: LONG },
    },
    response: {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'integer', minimum: 0, maximum: 999 },
        headers: HEADERS,
        body: LONG,
        truncated: { type: 'boolean' },
        duration_ms: MS,
      },
    },
  },
} as const;

const baselineMark = {
  type: 'object',
  required: ['known'],
  properties: {
    known: { type: 'boolean' },
    reason: LINE,
    expires: SHORT,
    expired: { type: 'boolean' },
    kinds: { type: 'array', maxItems: 1000, items: SHORT },
    new_kinds: { type: 'array', maxItems: 1000, items: SHORT },
  },
} as const;

const result = {
  type: 'object',
  required: ['id', 'suite', 'operation', 'status', 'message'],
  properties: {
    id: SHORT,
    suite: { type: 'string', pattern: '^[a-z]+$', maxLength: 64 },
    operation: SHORT,
    status: { enum: VERDICTS },
    message: LINE,
    rule: LINE,
    contract_ref: SHORT,
    severity: { enum: SEVERITIES },
    repro: LONG,
    failures: { type: 'array', maxItems: 10_000, items: failure },
    duration_ms: MS,
    requests: COUNT,
    baseline: baselineMark,
    not_judged: {
      type: 'object',
      required: ['cause'],
      properties: {
        cause: { enum: NOT_JUDGED_CAUSES },
        status: { type: 'integer', minimum: 0, maximum: 999 },
        loc: SHORT,
      },
    },
  },
} as const;

const notObserved = {
  type: 'object',
  required: ['check', 'operation', 'kind', 'reason', 'this_run'],
  properties: {
    check: SHORT,
    operation: SHORT,
    kind: SHORT,
    reason: LINE,
    expires: SHORT,
    this_run: { enum: THIS_RUN },
  },
} as const;

const baselineSummary = {
  type: 'object',
  required: ['file', 'not_observed'],
  properties: {
    file: SHORT,
    entries: COUNT,
    known: COUNT,
    new_failures: COUNT,
    expired: COUNT,
    not_observed: { type: 'array', maxItems: 100_000, items: notObserved },
    pruned: COUNT,
  },
} as const;

const shard = {
  type: 'object',
  required: ['index', 'count', 'plan_size', 'positions'],
  properties: {
    index: { type: 'integer', minimum: 1, maximum: MAX_SHARD_COUNT },
    count: { type: 'integer', minimum: 1, maximum: MAX_SHARD_COUNT },
    plan_size: { type: 'integer', minimum: 0, maximum: MAX_PLAN_SIZE },
    positions: {
      type: 'array',
      maxItems: MAX_PLAN_SIZE,
      items: { type: 'integer', minimum: 0, maximum: MAX_PLAN_SIZE },
    },
  },
} as const;

const focus = {
  type: 'object',
  required: ['changed_since', 'operations', 'total_operations'],
  properties: {
    changed_since: SHORT,
    total_operations: COUNT,
    operations: {
      type: 'array',
      maxItems: 10_000,
      items: {
        type: 'object',
        required: ['operation', 'reasons'],
        properties: { operation: SHORT, reasons: { type: 'array', maxItems: 1000, items: SHORT } },
      },
    },
  },
} as const;

/** The coverage block (src/results/coverage.ts); src/coverage/parse.ts checks the rest of its shape. */
const coverage = {
  type: 'object',
  properties: {
    summary: { type: 'object', maxProperties: 50 },
    cells: {
      type: 'array',
      maxItems: 100_000,
      items: {
        type: 'object',
        properties: {
          operation: SHORT,
          dimension: SHORT,
          item: SHORT,
          state: SHORT,
          checks: { type: 'array', maxItems: 1000, items: SHORT },
          requests: COUNT,
          spec_file: SHORT,
          reason: LINE,
        },
      },
    },
    undocumented_statuses: { type: 'array', maxItems: 10_000 },
  },
} as const;

/** report.json's `workflows` (`vapc run --arazzo`): per file and workflow, what ran and was judged. */
const workflowAction = {
  type: 'object',
  required: ['step', 'on', 'name', 'type', 'taken'],
  properties: {
    step: SHORT,
    on: { enum: ['success', 'failure'] },
    name: SHORT,
    type: { enum: ['end', 'goto', 'retry'] },
    taken: COUNT,
  },
} as const;
/** Count members, each one a COUNT. */
const countsOf = <K extends string>(names: readonly K[]) =>
  Object.fromEntries(names.map((n) => [n, COUNT])) as Record<K, typeof COUNT>;
const workflowTally = {
  type: 'object',
  required: ['id', 'check', 'steps', ...RUN_COUNTS, 'actions'],
  properties: {
    id: SHORT,
    check: SHORT,
    steps: COUNT,
    ...countsOf(RUN_COUNTS),
    actions: { type: 'array', maxItems: 10_000, items: workflowAction },
  },
} as const;
const workflowFile = {
  type: 'object',
  required: ['file', 'workflows'],
  properties: { file: SHORT, workflows: { type: 'array', maxItems: 10_000, items: workflowTally } },
} as const;
const SUMMARY_COUNTS = ['files', 'workflows', ...RUN_COUNTS, 'actions_taken'] as const;
const workflows = {
  type: 'object',
  required: ['summary', 'files'],
  properties: {
    summary: { type: 'object', required: SUMMARY_COUNTS, properties: countsOf(SUMMARY_COUNTS) },
    files: { type: 'array', maxItems: 1000, items: workflowFile },
  },
} as const;

/** report.json as `vapc report` reads it (see the module comment). */
export const REPORT_SCHEMA = {
  type: 'object',
  required: ['target', 'seed', 'summary', 'results'],
  properties: {
    tool: { type: 'object', properties: { name: SHORT, version: SHORT } },
    spec_version: SHORT,
    target: LINE,
    seed: { type: 'integer' },
    started_at: SHORT,
    summary: {
      type: 'object',
      properties: {
        passed: COUNT,
        failed: COUNT,
        skipped: COUNT,
        errors: COUNT,
        requests: COUNT,
        duration_ms: MS,
        observations: COUNT,
        new_failures: COUNT,
        known: COUNT,
        rate_limited: COUNT,
      },
    },
    // The verdict and its evidence are recomputed from the results and coverage (load.ts), never trusted.
    verdict: SHORT,
    evidence: { type: 'object', maxProperties: 50 },
    results: { type: 'array', maxItems: MAX_PLAN_SIZE, items: result },
    observations: {
      type: 'array',
      maxItems: 100_000,
      items: {
        type: 'object',
        required: ['id', 'message'],
        properties: { id: SHORT, operation: SHORT, message: LINE },
      },
    },
    config: { type: 'object', maxProperties: 1000 },
    baseline: baselineSummary,
    focus,
    shard,
    coverage,
    budget: {
      type: 'object',
      properties: {
        requests: COUNT,
        planned: COUNT,
        left_out: {
          type: 'array',
          maxItems: 100_000,
          items: { type: 'object', properties: { id: SHORT, operation: SHORT, requests: COUNT } },
        },
      },
    },
    workflows,
    traffic: {
      type: 'object',
      properties: {
        source: { enum: ['drift', 'proxy'] },
        exchanges: COUNT,
        on_contract: COUNT,
        judged: COUNT,
        unanswered: COUNT,
        operations: {
          type: 'array',
          maxItems: 10_000,
          items: { type: 'object', properties: { operation: SHORT, exchanges: COUNT } },
        },
      },
    },
    rate_limit: {
      type: 'object',
      required: ['reset_at'],
      properties: { reset_at: SHORT, limit: { type: 'integer' }, remaining: { type: 'integer' } },
    },
    run: {
      type: 'object',
      required: ['status'],
      properties: { status: { enum: ['complete', 'aborted'] }, reason: LINE },
    },
    error_code: SHORT,
  },
} as const;

let compiled: ValidateFunction | undefined;

/** The compiled validator (compiled on first use, once per process). */
export function reportValidator(): ValidateFunction {
  compiled ??= new Ajv({ allErrors: false, strict: true }).compile(REPORT_SCHEMA);
  return compiled;
}

/** A JSON pointer as a reader writes the path: `/results/0/status` → `results[0].status`. */
function pathOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
    .join('');
}

/** The first schema error, in words: `results[3].status must be one of passed, failed, skipped, error`. */
export function describeSchemaError(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'the top level' : pathOf(error.instancePath);
  if (error.keyword === 'enum')
    return `${where} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  if (error.keyword === 'required')
    return `${where === 'the top level' ? '' : `${where}.`}${(error.params as { missingProperty: string }).missingProperty} is missing`;
  return `${where} ${error.message ?? 'is not valid'}`;
}

/*
 * The schema's members and the report types cannot drift: each object of the schema lists exactly
 * the members of its type (an aborted run's report adds `error_code`), and requires only members
 * its type requires (older reports may lack the later additions); the build fails otherwise.
 * Bounds are the schema's own.
 */
type Members<S> = S extends { properties: infer P } ? keyof P : never;
type RequiredIn<S> = S extends { required: readonly (infer R)[] } ? R : never;
type RequiredOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** `true` when the schema lists exactly the members of `T` and requires none that `T` leaves optional. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Fits<S, T> =
  Same<Members<S>, keyof T> extends true ? ([RequiredIn<S>] extends [RequiredOf<T>] ? true : false) : false;
type Schema = typeof REPORT_SCHEMA;
/** Each is `true` only while its schema object fits its type (see above). */
export const REPORT_MEMBERS_MATCH: {
  report: Fits<Schema, RunReport & { error_code?: string }>;
  summary: Fits<Schema['properties']['summary'], RunSummary>;
  result: Fits<typeof result, CheckResult>;
  failure: Fits<typeof failure, Failure>;
  field: Fits<typeof failure.properties.field, NonNullable<Failure['field']>>;
  request: Fits<typeof failure.properties.request, NonNullable<Failure['request']>>;
  response: Fits<typeof failure.properties.response, NonNullable<Failure['response']>>;
  baselineMark: Fits<typeof baselineMark, BaselineMark>;
  notJudged: Fits<typeof result.properties.not_judged, NotJudged>;
  baseline: Fits<typeof baselineSummary, BaselineSummary>;
  notObserved: Fits<typeof notObserved, NotObservedEntry>;
  shard: Fits<typeof shard, ShardField>;
  observation: Fits<Schema['properties']['observations']['items'], Observation>;
  run: Fits<Schema['properties']['run'], RunStatus>;
  rateLimit: Fits<Schema['properties']['rate_limit'], RateLimitWindow>;
  workflows: Fits<typeof workflows, WorkflowCoverage>;
  workflowSummary: Fits<typeof workflows.properties.summary, WorkflowCoverage['summary']>;
  workflowFile: Fits<typeof workflowFile, WorkflowFileCoverage>;
  workflowTally: Fits<typeof workflowTally, WorkflowTally>;
  workflowAction: Fits<typeof workflowAction, WorkflowAction>;
} = {
  report: true,
  summary: true,
  result: true,
  failure: true,
  field: true,
  request: true,
  response: true,
  baselineMark: true,
  notJudged: true,
  baseline: true,
  notObserved: true,
  shard: true,
  observation: true,
  run: true,
  rateLimit: true,
  workflows: true,
  workflowSummary: true,
  workflowFile: true,
  workflowTally: true,
  workflowAction: true,
};
