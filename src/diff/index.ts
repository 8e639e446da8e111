/**
 * `vapc diff` core: compares two loaded, dereferenced OpenAPI 3.1 documents and returns the
 * classified changes. Pure: no file system, console or process. The rule table is rules.ts.
 */
import { compareParameters, compareRequestBody, compareResponses, operationsOf, type OperationRef } from './compare.js';
import { RULES, type Bump, type Level } from './rules.js';
import { compareDocs } from './schema.js';
import { compareSecurity, compareServers } from './security.js';
import { canonical, ChangeSink, isObject, type Change, type DiffSummary, type JsonObject } from './types.js';

export { RULES, type Bump, type Level, type Party, type RuleId, type RuleDefinition } from './rules.js';
export type { Change, DiffSummary } from './types.js';

const LEVEL_ORDER: Record<Level, number> = { breaking: 0, warning: 1, info: 2 };

function compareOperation(
  base: JsonObject,
  head: JsonObject,
  b: OperationRef,
  h: OperationRef,
  sink: ChangeSink,
): void {
  const op = h.label;
  const before = sink.changes.length;
  if (b.op['deprecated'] !== true && h.op['deprecated'] === true)
    sink.emit('operation-deprecated', op, `${h.ptr}/deprecated`, 'the operation is deprecated');
  if (b.op['operationId'] !== h.op['operationId']) {
    sink.emit(
      'operation-id-changed',
      op,
      `${h.ptr}/operationId`,
      `operationId changed from ${String(b.op['operationId'])} to ${String(h.op['operationId'])}`,
    );
  }
  compareDocs(b.op, h.op, h.ptr, sink, op, 'the operation');
  compareParameters(b, h, sink);
  compareRequestBody(b, h, sink);
  compareResponses(b, h, sink);
  const schemes = (doc: JsonObject) =>
    isObject(doc['components']) && isObject(doc['components']['securitySchemes'])
      ? doc['components']['securitySchemes']
      : {};
  compareSecurity(
    { requirement: b.op['security'] ?? base['security'], schemes: schemes(base), ptr: `${b.ptr}/security` },
    { requirement: h.op['security'] ?? head['security'], schemes: schemes(head), ptr: `${h.ptr}/security` },
    sink,
    op,
  );
  const loose = { unordered: true, skip: new Set(['schema']) };
  if (sink.changes.length === before && canonical(b.op, loose) !== canonical(h.op, loose)) {
    sink.emit(
      'unclassified-change',
      op,
      h.ptr,
      'the operation changed in a way no rule classifies (an extension, tags, ...)',
    );
  }
}

/** Root-level members other than paths, components and servers: info (without its version), tags, security, ... */
function compareRoot(base: JsonObject, head: JsonObject, sink: ChangeSink): void {
  const info = (doc: JsonObject) => (isObject(doc['info']) ? doc['info'] : {});
  compareDocs(info(base), info(head), '/info', sink, '', 'the API');
  const rest = (doc: JsonObject) => {
    const { paths: _p, components: _c, servers: _s, security: _sec, info: i, ...others } = doc;
    const {
      version: _v,
      description: _d,
      summary: _su,
      title: _t,
      'x-unspecified': _x,
      ...infoRest
    } = isObject(i) ? i : {};
    return { ...others, info: infoRest };
  };
  if (canonical(rest(base), { unordered: true }) !== canonical(rest(head), { unordered: true }))
    sink.emit('unclassified-change', '', '', 'a document-level member changed (tags, extensions, ...)');
}

/** Every change from BASE to HEAD, breaking first, then by operation and pointer. */
export function diffDocuments(base: JsonObject, head: JsonObject): Change[] {
  const sink = new ChangeSink();
  const before = operationsOf(base);
  const after = operationsOf(head);
  for (const [key, b] of before) {
    const h = after.get(key);
    if (h) compareOperation(base, head, b, h, sink);
    else sink.emit('operation-removed', b.label, b.ptr, `${b.label} was removed`);
  }
  for (const [key, h] of after)
    if (!before.has(key)) sink.emit('operation-added', h.label, h.ptr, `${h.label} was added`);
  compareServers(base['servers'], head['servers'], sink);
  compareRoot(base, head, sink);
  const seen = new Set<string>();
  return sink.changes
    .filter((c) => {
      const k = `${c.id}\u0000${c.operation}\u0000${c.pointer}\u0000${c.message}`;
      return seen.has(k) ? false : (seen.add(k), true);
    })
    .sort(
      (x, y) =>
        LEVEL_ORDER[x.level] - LEVEL_ORDER[y.level] ||
        x.operation.localeCompare(y.operation) ||
        x.pointer.localeCompare(y.pointer),
    );
}

export function summarizeChanges(changes: readonly Change[]): DiffSummary {
  const summary: DiffSummary = { breaking: 0, warning: 0, info: 0 };
  for (const c of changes) summary[c.level]++;
  return summary;
}

/** The smallest version bump the changes need: major for any breaking change, minor for additions and warnings, patch for documentation. */
export function requiredBump(changes: readonly Change[]): Bump | 'none' {
  const bumps = new Set(changes.map((c) => RULES[c.id].bump));
  return bumps.has('major') ? 'major' : bumps.has('minor') ? 'minor' : bumps.has('patch') ? 'patch' : 'none';
}

/** Operations whose behaviour the changes touch (documentation-only changes do not count); `all` when a document-wide change touches every operation. */
export function touchedOperations(changes: readonly Change[]): { operations: Set<string>; all: boolean } {
  const behavioural = changes.filter((c) => RULES[c.id].bump !== 'patch');
  return {
    operations: new Set(behavioural.map((c) => c.operation).filter(Boolean)),
    all: behavioural.some((c) => c.operation === ''),
  };
}
