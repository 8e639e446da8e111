import { join } from 'node:path';
import { VapcError } from '../errors.js';
import { readCheckoutFile } from '../files/checkout.js';
import type {
  NotJudgedCause,
  BaselineMark,
  BaselineSummary,
  CheckResult,
  Failure,
  Observation,
  RunReport,
  ShardField,
} from '../results/model.js';
import { clip, printable } from '../results/printable.js';
import {
  describeSchemaError,
  MAX_MERGE_BYTES,
  MAX_REPORT_BYTES,
  MAX_REPORT_DEPTH,
  MAX_REPORT_NODES,
  reportValidator,
} from './report-schema.js';
import { parseCoverage } from '../coverage/parse.js';

/**
 * report.json read back as input. A report artefact may come from another job of the pull request
 * a gate judges, so it is treated like a server's answer: size capped before it is read, nesting
 * capped and its values counted before it is parsed, `__proto__`-style keys refused, the shape and every bound checked by
 * one schema (report-schema.ts), every text made printable (no control character, so nothing in
 * it can steer a terminal or start a workflow command) and clipped, and every count recomputed
 * from the results. Anything else is one line, E_CONFIG (exit 2).
 */

type Json = Record<string, unknown>;

/** Keys that could reach an object's prototype in some consumer: refused wherever they appear. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_TEXT = 2000;
const MAX_LONG = 200_000;
/** `summary.requests` may exceed the results' own requests by discovery's few, at most this many. */
const MAX_DISCOVERY_REQUESTS = 100;

/**
 * The deepest nesting of arrays and objects in JSON text and the number of values in it (a
 * container, or a comma-separated member), strings skipped. Stops as soon as either passes its
 * limit, so a crafted file is measured without being parsed.
 */
export function jsonShape(
  text: string,
  limits = { depth: MAX_REPORT_DEPTH, nodes: MAX_REPORT_NODES },
): { depth: number; nodes: number } {
  let depth = 0;
  let deepest = 0;
  let nodes = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x2c) nodes++;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      nodes++;
      if (depth > deepest) deepest = depth;
      if (deepest > limits.depth || nodes > limits.nodes) break;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return { depth: deepest, nodes };
}

const one = (v: unknown, max = MAX_TEXT): string => clip(printable(String(v ?? '')), max);
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Any JSON value with every string and key printable (failure inputs, config values). */
function printableValue(v: unknown): unknown {
  if (typeof v === 'string') return printable(v);
  if (Array.isArray(v)) return v.map(printableValue);
  if (isObject(v))
    return Object.fromEntries(Object.entries(v).map(([k, child]) => [printable(k), printableValue(child)]));
  return v;
}

function headersOf(h: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(isObject(h) ? h : {}).map(([k, v]) => [printable(k), one(v, MAX_LONG)]));
}

function failureOf(f: Json): Failure {
  const out: Failure = { expected: one(f.expected), actual: one(f.actual) };
  if (f.input !== undefined) out.input = printableValue(f.input);
  if (typeof f.repro === 'string') out.repro = one(f.repro, MAX_LONG);
  if (typeof f.seed === 'number') out.seed = f.seed;
  if (typeof f.path === 'string') out.path = one(f.path);
  if (typeof f.recorded_at === 'string') out.recorded_at = one(f.recorded_at);
  // A failure's facts as data (kind, field): baseline signatures and SARIF locations read them.
  if (typeof f.kind === 'string') out.kind = one(f.kind);
  if (isObject(f.field)) {
    const field = f.field;
    out.field = { location: one(field.location), pointer: one(field.pointer) };
    if (typeof field.status === 'string') out.field.status = one(field.status);
  }
  if (isObject(f.request)) {
    const r = f.request;
    out.request = { method: one(r.method), url: one(r.url, MAX_LONG), headers: headersOf(r.headers) };
    if (typeof r.body === 'string') out.request.body = clip(printable(r.body, { multiline: true }), MAX_LONG);
  }
  if (isObject(f.response)) {
    const r = f.response;
    out.response = {
      status: r.status as number,
      headers: headersOf(r.headers),
      duration_ms: typeof r.duration_ms === 'number' ? r.duration_ms : 0,
    };
    if (typeof r.body === 'string') out.response.body = clip(printable(r.body, { multiline: true }), MAX_LONG);
    if (r.truncated === true) out.response.truncated = true;
  }
  return out;
}

/** A baseline mark as written; load keeps it as data, the CLI recomputes it from the baseline file. */
function markOf(b: Json): BaselineMark {
  const out: BaselineMark = {
    known: b.known === true,
    kinds: Array.isArray(b.kinds) ? b.kinds.map((k) => one(k)) : [],
  };
  if (typeof b.reason === 'string') out.reason = one(b.reason);
  if (typeof b.expires === 'string') out.expires = one(b.expires);
  if (b.expired === true) out.expired = true;
  if (Array.isArray(b.new_kinds)) out.new_kinds = b.new_kinds.map((k) => one(k));
  return out;
}

function resultOf(r: Json): CheckResult {
  const out: CheckResult = {
    id: one(r.id),
    suite: r.suite as CheckResult['suite'],
    operation: one(r.operation),
    status: r.status as CheckResult['status'],
    message: one(r.message),
    rule: one(r.rule ?? ''),
    contract_ref: one(r.contract_ref ?? ''),
    severity: (r.severity as CheckResult['severity'] | undefined) ?? 'major',
    duration_ms: typeof r.duration_ms === 'number' ? r.duration_ms : 0,
    requests: typeof r.requests === 'number' ? r.requests : 0,
  };
  if (typeof r.repro === 'string') out.repro = one(r.repro, MAX_LONG);
  if (Array.isArray(r.failures)) out.failures = (r.failures as Json[]).map(failureOf);
  if (isObject(r.baseline)) out.baseline = markOf(r.baseline);
  if (isObject(r.not_judged)) {
    const n = r.not_judged;
    out.not_judged = {
      cause: n.cause as NotJudgedCause,
      ...(typeof n.status === 'number' ? { status: n.status } : {}),
      ...(typeof n.loc === 'string' ? { loc: one(n.loc) } : {}),
    };
  }
  return out;
}

function baselineOf(b: Json): BaselineSummary {
  const notObserved = (b.not_observed as Json[]).map((e) => ({
    check: one(e.check),
    operation: one(e.operation),
    kind: one(e.kind),
    reason: one(e.reason),
    ...(typeof e.expires === 'string' ? { expires: one(e.expires) } : {}),
    this_run: e.this_run as BaselineSummary['not_observed'][number]['this_run'],
  }));
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  return {
    file: one(b.file),
    entries: n(b.entries),
    known: n(b.known),
    new_failures: n(b.new_failures),
    expired: n(b.expired),
    not_observed: notObserved,
  };
}

/**
 * The path of the first `__proto__`, `constructor` or `prototype` key, if any. A failure's
 * `input` is a generated request body, where such a key is a test case the runner sent, so it is
 * kept there as data (copied as an own property, never assigned).
 */
function forbiddenKey(value: unknown, path: string, inInput = false): string | undefined {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = forbiddenKey(value[i], `${path}/${i}`, inInput);
      if (hit) return hit;
    }
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (!inInput && FORBIDDEN_KEYS.has(key)) return `${path}/${key}`;
      const hit = forbiddenKey(
        child,
        `${path}/${key}`,
        inInput || (key === 'input' && /^\/results\/\d+\/failures\/\d+$/.test(path)),
      );
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Parses JSON with its nesting capped and `__proto__`-style keys refused. */
function parseJson(text: string, source: string): unknown {
  const shape = jsonShape(text);
  if (shape.depth > MAX_REPORT_DEPTH)
    throw new VapcError('E_CONFIG', `${source} is not a vapc report: nested deeper than ${MAX_REPORT_DEPTH} levels`);
  if (shape.nodes > MAX_REPORT_NODES)
    throw new VapcError('E_CONFIG', `${source} is not a vapc report: it holds more than ${MAX_REPORT_NODES} values`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new VapcError(
      'E_CONFIG',
      `${source} is not valid JSON (${one(e instanceof Error ? e.message : String(e), 200)})`,
    );
  }
  const hit = forbiddenKey(data, '');
  if (hit)
    throw new VapcError(
      'E_CONFIG',
      `${source} is not a vapc report: key ${one(hit, 200)} is refused (__proto__, constructor and prototype keys could reach a prototype)`,
    );
  return data;
}

/**
 * Parses report.json text into a RunReport (see the module comment). Requires the documented
 * shape of runner-interface.md (target, seed, summary, results[] with id, suite, operation,
 * status, message); fills the additions with neutral defaults when an older or hand-written file
 * lacks them. The summary's verdict counts are recomputed from the results, its requests are the
 * results' own plus at most a few discovery requests. Per-result baseline marks are kept as data
 * only: `vapc report` recomputes them from a baseline file (src/cli/commands/report.ts).
 * Throws VapcError E_CONFIG with one line that says what is wrong.
 */
export function parseReport(text: string, source = 'report.json'): RunReport {
  const name = one(source, 500);
  const data = parseJson(text, name);
  const validate = reportValidator();
  if (!validate(data))
    throw new VapcError(
      'E_CONFIG',
      `${name} is not a vapc report: ${one(describeSchemaError(validate.errors![0]!), 300)}`,
    );
  const d = data as Json;
  const bad = (what: string): never => {
    throw new VapcError('E_CONFIG', `${name} is not a vapc report: ${one(what, 300)}`);
  };
  const results = (d.results as Json[]).map(resultOf);
  const observations: Observation[] = ((d.observations as Json[] | undefined) ?? []).map((o) => ({
    id: one(o.id),
    message: one(o.message),
    ...(typeof o.operation === 'string' ? { operation: one(o.operation) } : {}),
  }));
  const summary = d.summary as Json;
  const tool = isObject(d.tool) ? d.tool : {};
  const count = (v: CheckResult['status']) => results.filter((r) => r.status === v).length;
  const own = results.reduce((n, r) => n + r.requests, 0);
  const claimed = typeof summary.requests === 'number' ? summary.requests : own;
  const report: RunReport = {
    tool: { name: 'voice-agent-contract', version: one(tool.version ?? '?') },
    spec_version: one(d.spec_version ?? '?'),
    target: one(d.target),
    seed: d.seed as number,
    started_at: one(d.started_at ?? ''),
    summary: {
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      errors: count('error'),
      requests: Math.min(Math.max(claimed, own), own + MAX_DISCOVERY_REQUESTS),
      duration_ms: typeof summary.duration_ms === 'number' ? summary.duration_ms : 0,
      observations: observations.length,
      ...(typeof summary.rate_limited === 'number' ? { rate_limited: summary.rate_limited } : {}),
    },
    results,
    observations,
    config: isObject(d.config) ? (printableValue(d.config) as Json) : {},
    ...(d.coverage !== undefined
      ? { coverage: printableValue(parseCoverage(d.coverage, bad)) as RunReport['coverage'] }
      : {}),
    // report.json's `run` block (complete / aborted with its reason), kept when well formed.
    ...(isObject(d.run) && (d.run.status === 'complete' || d.run.status === 'aborted')
      ? { run: { status: d.run.status, ...(typeof d.run.reason === 'string' ? { reason: one(d.run.reason) } : {}) } }
      : {}),
  };
  if (isObject(d.baseline)) report.baseline = baselineOf(d.baseline);
  if (isObject(d.focus)) report.focus = printableValue(d.focus) as RunReport['focus'];
  // Bounded by the schema; kept (made printable) so a re-render says what the run said.
  if (isObject(d.rate_limit)) report.rate_limit = printableValue(d.rate_limit) as RunReport['rate_limit'];
  if (isObject(d.budget)) report.budget = printableValue(d.budget) as RunReport['budget'];
  if (isObject(d.traffic)) report.traffic = printableValue(d.traffic) as RunReport['traffic'];
  if (isObject(d.shard)) {
    const s = d.shard;
    if ((s.index as number) > (s.count as number))
      throw new VapcError(
        'E_CONFIG',
        `${name} is not a vapc report: shard ${s.index}/${s.count} has its index above its count`,
      );
    report.shard = { index: s.index, count: s.count, plan_size: s.plan_size, positions: s.positions } as ShardField;
  }
  return report;
}

/**
 * The text of DIR/report.json, of at most `max` bytes, through the one reader of checkout files: a
 * regular file that stays inside the working directory (a symlink in an artefact cannot make vapc
 * read /proc/self/environ or a file elsewhere). A missing, unreadable or larger file is E_CONFIG naming it.
 */
function readCapped(dir: string, max: number): string {
  const file = join(dir, 'report.json');
  return readCheckoutFile(file, {
    label: one(file, 500),
    maxBytes: max,
    capOf: max === MAX_REPORT_BYTES ? 'a report' : 'the reports together',
    code: 'E_CONFIG',
    missing: `does not exist; run \`npx --no-install vapc run --report-dir ${one(dir, 500)}\` first`,
  });
}

/** Reads DIR/report.json (at most MAX_REPORT_BYTES); a missing, unreadable, oversized or invalid file is E_CONFIG with the path. */
export async function loadReport(dir: string): Promise<RunReport> {
  return parseReport(readCapped(dir, MAX_REPORT_BYTES), join(dir, 'report.json'));
}

/**
 * Reads the reports of several directories one after another (for `vapc report merge`), each at
 * most MAX_REPORT_BYTES and all together at most MAX_MERGE_BYTES.
 */
export async function loadReports(dirs: readonly string[]): Promise<Array<{ source: string; report: RunReport }>> {
  const out: Array<{ source: string; report: RunReport }> = [];
  let left = MAX_MERGE_BYTES;
  for (const dir of dirs) {
    const text = readCapped(dir, Math.min(MAX_REPORT_BYTES, left));
    left -= Buffer.byteLength(text);
    out.push({ source: dir, report: parseReport(text, join(dir, 'report.json')) });
  }
  return out;
}
