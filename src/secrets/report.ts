import type {
  CheckResult,
  Failure,
  Observation,
  RecordedRequest,
  RecordedResponse,
  RunReport,
} from '../results/model.js';
import { clip, printable } from '../results/printable.js';
import type { RunConfig } from '../results/run-config.js';
import { REDACTED, Secrets, isPlaceholder, valuesAt, type SecretsOptions } from './index.js';
import { MAX_RECORDED_BODY, redactValue } from './record.js';

/**
 * The one step between evidence and every output: each text a server could have shaped (messages,
 * expected/actual, requests, responses, repro lines, observations, the target and config values)
 * is redacted with the run's secrets, its control characters made visible, and its length capped.
 * Structured fields (ids, suites, operations, statuses, rules, severities, counts, seeds) are
 * vapc's own and are left exactly as they are, so no server can rewrite a verdict through them.
 * Applying it twice gives the same report.
 */

/**
 * A report `sanitizeReport` returned: the only kind `writeReports` writes as it is. The brand is a
 * type, and a runtime mark no copy carries: a report spread into a new object (a baseline's marks,
 * a verdict) is a plain `RunReport` again and is made safe again before it is written.
 */
declare const SAFE: unique symbol;
export type SafeReport = RunReport & { readonly [SAFE]: true };

const madeSafe = new WeakSet<object>();

/** True for a report `sanitizeReport` returned (not a copy of one). */
export function isSafeReport(report: RunReport): report is SafeReport {
  return madeSafe.has(report);
}

const MAX_LINE = 2000;
const MAX_REPRO = 200_000;

type Text = (s: string) => string;

function line(secrets: Secrets, max = MAX_LINE): Text {
  return (s) => clip(printable(secrets.evidence(s)), max);
}

function request(r: RecordedRequest, one: Text, secrets: Secrets): RecordedRequest {
  const out: RecordedRequest = { method: printable(r.method), url: one(r.url), headers: headersOf(r.headers, one) };
  if (typeof r.body === 'string') out.body = printable(secrets.evidence(r.body), { multiline: true });
  return out;
}

function response(r: RecordedResponse, one: Text, secrets: Secrets): RecordedResponse {
  const out: RecordedResponse = { ...r, headers: headersOf(r.headers, one) };
  if (typeof r.body === 'string') {
    const body = secrets.clip(r.body, MAX_RECORDED_BODY);
    out.body = printable(body.text, { multiline: true });
    if (body.cut) out.truncated = true;
  }
  return out;
}

function headersOf(input: Record<string, string> | undefined, one: Text): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input ?? {}))
    out[printable(name)] = /^set-cookie$/i.test(name) ? REDACTED : one(String(value));
  return out;
}

function failure(f: Failure, secrets: Secrets): Failure {
  const one = line(secrets);
  const out: Failure = { ...f, expected: one(String(f.expected ?? '')), actual: one(String(f.actual ?? '')) };
  if (f.input !== undefined) out.input = printableValue(redactValue(secrets, f.input), secrets);
  if (f.request) out.request = request(f.request, one, secrets);
  if (f.response) out.response = response(f.response, one, secrets);
  if (typeof f.repro === 'string') out.repro = line(secrets, MAX_REPRO)(f.repro);
  if (typeof f.path === 'string') out.path = printable(secrets.evidence(f.path));
  if (typeof f.recorded_at === 'string') out.recorded_at = one(f.recorded_at);
  // kind, location and status are vapc's own words, but a custom check may put a credential in them (as in its id).
  const own = (s: unknown): string => printable(secrets.credentials().evidence(String(s ?? '')));
  if (typeof f.kind === 'string') out.kind = own(f.kind);
  if (f.field && typeof f.field === 'object') out.field = fieldOf(f.field, one, own);
  return out;
}

/** A failure's field: its pointer may name what a server sent (an additional property), so it is evidence. */
function fieldOf(
  field: NonNullable<Failure['field']>,
  one: Text,
  own: (s: unknown) => string,
): NonNullable<Failure['field']> {
  const out: NonNullable<Failure['field']> = {
    location: own(field.location),
    pointer: one(String(field.pointer ?? '')),
  };
  if (field.status !== undefined) out.status = own(field.status);
  return out;
}

/** A JSON value with every string escaped; with `secrets`, every key is redacted too (values already are). */
function printableValue(v: unknown, secrets?: Secrets): unknown {
  if (typeof v === 'string') return printable(v);
  if (Array.isArray(v)) return v.map((item) => printableValue(item, secrets));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(v as Record<string, unknown>))
      out[printable(secrets ? secrets.evidence(k) : k)] = printableValue(child, secrets);
    return out;
  }
  return v;
}

/**
 * One result made safe to show: evidence redacted, escaped and capped; structured fields kept as
 * they are but for a credential (a check of one's own could name one in its id or rule).
 */
export function sanitizeResult(result: CheckResult, secrets: Secrets): CheckResult {
  const credentials = secrets.credentials();
  // Defensive: a result read from disk may lack a field its type promises (the schema bounds, not requires, them).
  const own = (s: string): string => (typeof s === 'string' ? credentials.evidence(s) : s);
  const out: CheckResult = {
    ...result,
    id: own(result.id),
    operation: own(result.operation),
    rule: own(result.rule),
    contract_ref: own(result.contract_ref),
    message: line(secrets)(String(result.message ?? '')),
  };
  if (typeof result.repro === 'string') out.repro = line(secrets, MAX_REPRO)(result.repro);
  if (Array.isArray(result.failures)) out.failures = result.failures.map((f) => failure(f, secrets));
  // A refusal's loc is the server's own words (the field its 422 named): made safe like a message.
  if (typeof result.not_judged?.loc === 'string')
    out.not_judged = { ...result.not_judged, loc: line(secrets, 200)(result.not_judged.loc) };
  return out;
}

export function sanitizeObservation(o: Observation, secrets: Secrets): Observation {
  const credentials = secrets.credentials();
  const out: Observation = {
    ...o,
    id: printable(credentials.evidence(String(o.id))),
    message: line(secrets)(String(o.message ?? '')),
  };
  if (typeof o.operation === 'string') out.operation = printable(credentials.evidence(o.operation));
  return out;
}

/** One line of text a server could have shaped, made safe to show: redacted, escaped and capped. */
export function sanitizeLine(text: string, secrets: Secrets): string {
  return line(secrets)(text);
}

/** Config values as the report shows them: secret-named keys hidden, strings redacted and escaped. */
export function sanitizeConfig(config: RunConfig, secrets: Secrets): RunConfig {
  return printableValue(redactValue(secrets, config), secrets) as RunConfig;
}

/**
 * The whole report made safe to write or print (see the module comment), returned as a
 * `SafeReport`: for a report read from disk, built by hand, or a run's once the baseline's marks
 * and the verdict are added (`writeReports` passes it here). A run's results are also made safe at
 * their source (each result and observation as the runner records it), for the live console.
 */
export function sanitizeReport(report: RunReport, secrets: Secrets | SecretsOptions = {}): SafeReport {
  const s = secrets instanceof Secrets ? secrets : new Secrets(secrets);
  const out: RunReport = {
    ...report,
    target: line(s)(String(report.target)),
    results: report.results.map((r) => sanitizeResult(r, s)),
    observations: (report.observations ?? []).map((o) => sanitizeObservation(o, s)),
    config: sanitizeConfig(report.config ?? {}, s),
  };
  // A report from disk may hold a credential anywhere (the tool's name, a timestamp, a coverage
  // cell): every other string and key is cleared of them too, left as it is when it holds none.
  const safe = redactStrings(out, s.credentials()) as SafeReport;
  madeSafe.add(safe);
  return safe;
}

function redactStrings(v: unknown, secrets: Secrets): unknown {
  if (typeof v === 'string') return secrets.evidence(v);
  if (Array.isArray(v)) return v.map((item) => redactStrings(item, secrets));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(v as Record<string, unknown>))
      out[secrets.evidence(k)] = redactStrings(child, secrets);
    return out;
  }
  return v;
}

/**
 * What `vapc report` may learn from a report it renders again, under the runner's own policy: the
 * credentials vapc sent (its recorded requests' values under `credentialHeaders`, the spec's
 * security-scheme headers) and the x-secret values of recorded successful responses to operations
 * documented to return them (`pointersOf(operation)`). Nothing from an error body, nothing from a
 * field's name alone.
 */
export function learnFromReport(
  report: RunReport,
  secrets: Secrets,
  pointersOf: (operation: string) => readonly string[],
  credentialHeaders: ReadonlyArray<{ header: string; bearer: boolean }>,
): void {
  const byName = new Map(credentialHeaders.map((c) => [c.header.toLowerCase(), c.bearer]));
  for (const result of report.results) {
    for (const f of result.failures ?? []) {
      for (const [name, value] of Object.entries(f.request?.headers ?? {})) {
        const bearer = byName.get(name.toLowerCase());
        const credential =
          bearer === undefined ? undefined : bearer ? /^\s*bearer\s+(\S+)\s*$/i.exec(value)?.[1] : value;
        if (credential !== undefined && !isPlaceholder(credential)) secrets.learn(credential);
      }
      const response = f.response;
      if (!response || response.status < 200 || response.status > 299 || typeof response.body !== 'string') continue;
      const pointers = pointersOf(result.operation);
      if (pointers.length === 0) continue;
      let json: unknown;
      try {
        json = JSON.parse(response.body);
      } catch {
        continue;
      }
      for (const pointer of pointers) for (const value of valuesAt(json, pointer)) secrets.learn(value);
    }
  }
}
