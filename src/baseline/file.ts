import { Document, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { VapcError } from '../errors.js';
import { clip, excerpt, printable } from '../results/printable.js';

/**
 * The baseline file: known findings, each a signature (check, operation, kind) with a human
 * reason and an optional expiry date. YAML, entries sorted by signature and keys in a fixed order,
 * so that a rewrite of an unchanged baseline is byte-identical and its diffs review well.
 *
 * ```yaml
 * version: 1
 * findings:
 *   # cause: accepted-invalid body /max_concurrency @ /campaign (1 finding)
 *   - check: ranges.max-concurrency-above-maximum
 *     operation: POST /campaign
 *     kind: status:2xx
 *     reason: TODO tracked in API-123, fixed in the next release
 *     expires: 2027-03-31
 *     cause: accepted-invalid body /max_concurrency @ /campaign
 * ```
 *
 * Entries are grouped by their cause (src/results/causes.ts), so a reviewer sees one cause with the
 * checks it touched; the cause is shown, never matched (a file without causes reads as before).
 */
export interface BaselineEntry {
  check: string;
  operation: string;
  kind: string;
  reason: string;
  /** YYYY-MM-DD: the last day the entry counts as known; after it the finding fails again. */
  expires?: string;
  /** The cause the finding belonged to when it was written (`Cause.key`): for reviewers, not part of the signature. */
  cause?: string;
}

export interface Baseline {
  version: 1;
  findings: BaselineEntry[];
}

export const BASELINE_VERSION = 1;
/** The reason --write-baseline gives new entries: a reviewer replaces it. */
export const TODO_REASON = 'TODO: say why this finding is accepted (and add expires: YYYY-MM-DD)';

const ENTRY_KEYS = ['check', 'operation', 'kind', 'reason', 'expires', 'cause'] as const;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A valid calendar date written YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

/** The signature of an entry or finding, one string: `check operation kind`. */
export const signatureOf = (e: Pick<BaselineEntry, 'check' | 'operation' | 'kind'>): string =>
  `${e.check}\u0000${e.operation}\u0000${e.kind}`;

/** Entries by cause (those without one last), then by check, operation and kind. */
export function compareEntries(a: BaselineEntry, b: BaselineEntry): number {
  const key = (e: BaselineEntry) => [e.cause === undefined ? '1' : '0', e.cause ?? '', e.check, e.operation, e.kind];
  const [ka, kb] = [key(a), key(b)];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
  return 0;
}

/** The file's text: entries grouped by cause (a comment opens each group) and sorted, fixed key order, a header saying what it is. */
export function serializeBaseline(findings: readonly BaselineEntry[]): string {
  const sorted = [...findings].sort(compareEntries);
  const entries = sorted.map((e) => {
    const out: Record<string, string> = { check: e.check, operation: e.operation, kind: e.kind, reason: e.reason };
    if (e.expires !== undefined) out['expires'] = e.expires;
    if (e.cause !== undefined) out['cause'] = e.cause;
    return out;
  });
  const doc = new Document({ version: BASELINE_VERSION, findings: entries });
  const items = (doc.get('findings', true) as { items: Node[] }).items;
  sorted.forEach((e, i) => {
    if (e.cause === undefined || sorted[i - 1]?.cause === e.cause) return;
    const group = sorted.filter((x) => x.cause === e.cause);
    const checks = new Set(group.map((x) => x.check)).size;
    const size = `${group.length} finding${group.length === 1 ? '' : 's'}${checks > 1 ? ` in ${checks} checks` : ''}`;
    items[i]!.commentBefore = ` cause: ${printable(e.cause)} (${size})`;
  });
  const header =
    '# vapc baseline: known findings that `vapc run --baseline FILE` reports apart and does not fail on.\n' +
    '# One entry per (check, operation, kind). Give each a reason; an entry past its `expires` date\n' +
    '# (YYYY-MM-DD) fails again. Written by --write-baseline; see docs/baseline.md.\n';
  return header + doc.toString({ lineWidth: 0 });
}

/** Parses and checks a baseline file's text; any problem is E_BASELINE naming the file and line. */
export function parseBaseline(text: string, file: string): Baseline {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const fail = (message: string, node?: Node | null, offset?: number): never => {
    const at = offset ?? node?.range?.[0];
    const line = at !== undefined ? `:${lines.linePos(at).line}` : '';
    throw new VapcError('E_BASELINE', `baseline ${file}${line}: ${message}`);
  };
  // A YAML warning (an unknown tag) refuses the file like an error: both quoted only as a short excerpt.
  const first = doc.errors[0] ?? doc.warnings[0];
  if (first)
    fail(
      `${doc.errors.length > 0 ? 'not valid YAML' : 'refused (a YAML warning)'}: ${clip(printable(first.message.split('\n')[0]!), 120)}`,
      undefined,
      first.pos[0],
    );
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === '')))
    return { version: 1, findings: [] };
  if (!isMap(root)) return fail('expected a mapping with version: 1 and findings: [...]', root);
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (key !== 'version' && key !== 'findings')
      fail(`unknown key ${excerpt(key)} (expected version, findings)`, pair.key as Node);
  }
  const version = root.get('version', true) as Node | undefined;
  if (version !== undefined && !(isScalar(version) && Number(version.value) === BASELINE_VERSION))
    fail(`version must be ${BASELINE_VERSION}`, version);
  const list = root.get('findings', true);
  if (list === undefined || (isScalar(list) && list.value === null)) return { version: 1, findings: [] };
  if (!isSeq(list)) return fail('findings must be a list', list as Node);
  const seen = new Map<string, number>();
  const findings = list.items.map((item, i) => {
    const entry = parseEntry(item as Node, i, fail);
    const sig = signatureOf(entry);
    if (seen.has(sig))
      fail(`finding ${i + 1} repeats finding ${seen.get(sig)! + 1} (same check, operation and kind)`, item as Node);
    seen.set(sig, i);
    return entry;
  });
  return { version: 1, findings };
}

type Fail = (message: string, node?: Node | null) => never;

function parseEntry(item: Node, index: number, fail: Fail): BaselineEntry {
  const n = `finding ${index + 1}`;
  if (!isMap(item)) return fail(`${n}: expected a mapping with check, operation, kind, reason`, item);
  const out: Record<string, string> = {};
  for (const pair of item.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    if (!(ENTRY_KEYS as readonly string[]).includes(key))
      fail(`${n}: unknown key ${excerpt(key)} (expected ${ENTRY_KEYS.join(', ')})`, pair.key as Node);
    const value = pair.value as Node | null;
    if (
      !isScalar(value) ||
      value.value === null ||
      typeof value.value === 'object' ||
      String(value.value).trim() === ''
    ) {
      fail(`${n}: ${key} must be a non-empty text`, value ?? (pair.key as Node));
    }
    out[key] = String((value as { value: unknown }).value);
  }
  for (const key of ['check', 'operation', 'kind', 'reason'])
    if (out[key] === undefined) fail(`${n}: missing ${key}`, item);
  if (out['expires'] !== undefined && !isIsoDate(out['expires']))
    fail(`${n}: expires must be a date YYYY-MM-DD, got ${excerpt(out['expires'])}`, item.get('expires', true) as Node);
  const entry: BaselineEntry = {
    check: out['check']!,
    operation: out['operation']!,
    kind: out['kind']!,
    reason: out['reason']!,
  };
  if (out['cause'] !== undefined) entry.cause = out['cause'];
  if (out['expires'] !== undefined) entry.expires = out['expires'];
  return entry;
}
