/**
 * ranges.string-edges: every free string the contract has (body fields, nested ones included, path
 * and query parameters) at its edges, and the body's arrays and objects empty and nested one level
 * deeper, on every seed (src/generators/strings.ts; docs/string-edges.md). Judged by the existing
 * rules: a value the contract allows never gets a 5xx or no answer; accepted, the answer is what
 * the contract documents; refused with 422, the body is the validation error body (noted as
 * stricter than the contract); any other answer the contract leaves open is noted. A value past a
 * stated maxLength (or below a minLength) is answered 422 naming the field.
 *
 * Edges are grouped to keep the request budget: one request per edge sets every body string at
 * once (another every path and query string), the five character classes go in one mixed value,
 * and only a 5xx is followed by one request per field, then per class, to say which field and
 * which characters the server broke on. A 422 naming some fields is followed by the same edge
 * without them, so a stricter field does not hide the others. Over operations a covering design,
 * not the cross product (stringGroups): the update of a created record gets one body edge and one
 * container probe, a path id read elsewhere gets its edges there.
 */
import { defineCheck, type CheckContext } from '../src/checks/check.js';
import type { Operation, SpecModel } from '../src/spec/model.js';
import type { Exchange } from '../src/transport/types.js';
import {
  MIXED_WITHOUT_NUL,
  TEST_DATA_PREFIX,
  TEXT_CLASSES,
  containerTargets,
  deeper,
  describeStringEdge,
  getPointer,
  groupEdges,
  lengthEdges,
  setPointer,
  stringAllowed,
  stringTargets,
  type ContainerTarget,
  type InvalidCase,
  type StringEdge,
  type StringTarget,
} from '../src/generators/index.js';
import {
  Findings,
  judgeAllowed,
  judgeInvalid,
  label,
  locNames,
  pairedSample,
  recordCost,
  request,
  sharedPathForRecord,
  skipped,
  validCreateRefused,
  type Judgement,
  noRecord,
} from './lib.js';
import { withControl } from './lib/control.js';
import { pointerOf } from '../src/results/model.js';
import { FIXTURES } from './fixtures.js';

type Where = 'body' | 'where';
type Parts = NonNullable<Parameters<typeof request>[2]>;

/** The probes of a check run: grouped edges of allowed values, and single-field refusals. */
interface Group {
  where: Where;
  edge: StringEdge;
  targets: StringTarget[];
}

const placeOf = (t: StringTarget): Where => (t.location === 'body' ? 'body' : 'where');

/** The value a target gets for an edge: the longest allowed in place of the long one, cut to a stated maxLength; a name keeps the test-data prefix on text edges. */
function valueFor(target: StringTarget, edge: StringEdge): string {
  if (edge.label === 'long' && target.maxLength !== undefined) return lengthEdges(target)[0]!.value;
  let value = edge.value;
  if (
    target.location === 'body' &&
    target.name === 'name' &&
    value.trim() !== '' &&
    edge.label !== 'long' &&
    edge.label !== 'longest'
  )
    value = `${TEST_DATA_PREFIX} ${value}`;
  // Within a stated maxLength: as much of the value as it allows.
  return target.maxLength !== undefined && edge.label !== 'past-longest'
    ? [...value].slice(0, target.maxLength).join('')
    : value;
}

/**
 * The covering design over operations (fixed, so every seed sends the same): the update of a record
 * the create makes (PATCH /campaign/{id}) has the create's body fields, which the create is sent
 * every edge of, so it gets one body edge (the mixed value: five character classes in one) and one
 * container probe (empty containers); a path parameter that a read of the same path also has
 * (campaign_id) is sent its edges there only. Not seen: a fault in the update's own handling of an
 * empty, blank or very long string, or of nested objects.
 */
const updatesCreated = (spec: SpecModel, op: Operation): boolean => Boolean(op.requestBody) && recordCost(op, spec) > 0;
const pathReadElsewhere = (spec: SpecModel, op: Operation): boolean =>
  op.method !== 'GET' && spec.operations.some((o) => o !== op && o.method === 'GET' && o.path === op.path);
const UPDATE_BODY_EDGE = 'mixed';
const UPDATE_CONTAINERS = 'empty containers';

/** The grouped probes of an operation: per place (body; path and query), per edge, the targets that allow it. */
export function stringGroups(op: Operation, spec?: SpecModel): Group[] {
  const targets = stringTargets(op, FIXTURES);
  const out: Group[] = [];
  for (const where of ['body', 'where'] as const) {
    const mine = targets.filter((t) => placeOf(t) === where);
    if (
      !mine.length ||
      (spec && where === 'where' && pathReadElsewhere(spec, op) && mine.every((t) => t.location === 'path'))
    )
      continue;
    for (const edge of groupEdges(where)) {
      if (spec && where === 'body' && updatesCreated(spec, op) && edge.label !== UPDATE_BODY_EDGE) continue;
      const allowed = mine.filter((t) => stringAllowed(t, valueFor(t, edge)));
      if (allowed.length) out.push({ where, edge, targets: allowed });
    }
  }
  return out;
}

/** The single-field probes of values a stated length refuses: one past maxLength, empty below minLength. */
export function refusedProbes(op: Operation): Array<{ target: StringTarget; edge: StringEdge }> {
  const out: Array<{ target: StringTarget; edge: StringEdge }> = [];
  for (const target of stringTargets(op, FIXTURES)) {
    if (target.maxLength !== undefined) out.push({ target, edge: lengthEdges(target)[1]! });
    if (target.minLength !== undefined && target.minLength > 0)
      out.push({ target, edge: { label: 'empty', value: '' } });
  }
  return out;
}

/** The container probes of a body: every top-most array and open object empty (one request), open objects one level deeper (another); the update of a created record gets the first only. */
export function containerProbes(
  op: Operation,
  spec?: SpecModel,
): Array<{ label: 'empty containers' | 'deeper objects'; targets: ContainerTarget[] }> {
  const all = containerTargets(op);
  // An object with documented members stays whole: whether they may be left out is not shown, and a
  // server echoing them as null would then break the record's shape for what the client chose.
  const empty = all.filter((t) => t.emptyAllowed && (t.kind === 'array' || t.open));
  // The top-most only: emptying a parent already empties what it holds.
  const topMost = empty.filter((t) => !empty.some((o) => o !== t && t.pointer.startsWith(`${o.pointer}/`)));
  const probes = [
    { label: 'empty containers' as const, targets: topMost },
    { label: 'deeper objects' as const, targets: all.filter((t) => t.kind === 'object' && t.open) },
  ];
  return probes.filter(
    (p) => p.targets.length > 0 && !(spec && updatesCreated(spec, op) && p.label !== UPDATE_CONTAINERS),
  );
}

const planned = (op: Operation, spec: SpecModel): number =>
  stringGroups(op, spec).length + refusedProbes(op).length + containerProbes(op, spec).length;

/** For --dry-run: the edges sent per place. */
function listing(op: Operation, spec: SpecModel): string[] {
  const lines: string[] = [];
  for (const where of ['body', 'where'] as const) {
    const groups = stringGroups(op, spec).filter((g) => g.where === where);
    if (!groups.length) continue;
    const fields = [
      ...new Set(
        groups.flatMap((g) =>
          g.targets.map((t) => `${t.location === 'body' ? '' : `${t.location} `}${t.loc.join('.')}`),
        ),
      ),
    ];
    lines.push(
      `${where === 'body' ? 'body' : 'path/query'} ${fields.join(', ')}: ${groups.map((g) => g.edge.label).join(' ')} (one request per edge)`,
    );
  }
  for (const p of refusedProbes(op))
    lines.push(`${p.target.location} ${p.target.loc.join('.')}: ${p.edge.label} (refused: 422 naming it)`);
  for (const p of containerProbes(op, spec))
    lines.push(`body ${p.label}: ${p.targets.map((t) => t.loc.join('.')).join(', ')}`);
  return lines;
}

/** The request parts with every target of `targets` given the edge, the rest valid. */
function partsFor(
  targets: StringTarget[],
  edge: StringEdge,
  path: Record<string, string>,
  base: Record<string, unknown> | undefined,
): Parts {
  const parts: Parts = { pathValues: { ...path } };
  let body = base;
  const query: Array<[string, string]> = [];
  for (const t of targets) {
    const value = valueFor(t, edge);
    if (t.location === 'query') query.push([t.name, value]);
    else if (t.location === 'path') parts.pathValues![t.name] = value;
    else body = setPointer(body ?? {}, t.pointer!, value);
  }
  if (query.length) parts.query = query;
  if (body) parts.json = body;
  return parts;
}

interface Run {
  ctx: CheckContext;
  op: Operation;
  path: Record<string, string>;
  base: Record<string, unknown> | undefined;
  findings: Findings;
  /** What was refused with 422 though the contract allows it, or answered with a status it leaves open. */
  noted: string[];
}

/**
 * Judges the answer to allowed values with the one judge of allowed values (judgeAllowed): a 422
 * naming a varied value judged it (noted as stricter), another refusal judged nothing (noted). With
 * `refused`, the answer was a validation error body: the caller sends the edge again without the
 * targets it named. `targets` all path ids: any 4xx is an honest answer to that id (judged).
 */
function judgeEdgeAnswer(
  run: Run,
  exchange: Exchange,
  what: string,
  targets: ReadonlyArray<Pick<InvalidCase, 'loc' | 'location'>> = [],
): { judgement: Judgement; refused?: StringTarget[] } {
  const { ctx, op } = run;
  const pathOnly = targets.length > 0 && targets.every((t) => t.location === 'path');
  const judgement = judgeAllowed(ctx, op, exchange, {
    what,
    fields: targets,
    pathOnly,
    ...(targets.some((t) => t.location === 'path') ? { placeholder: true } : {}),
  });
  const status = exchange.response?.status ?? 0;
  if (judgement.ok && status >= 400 && status < 500 && status !== 429) run.noted.push(`${what}: ${status}`);
  return status === 422 && judgement.ok ? { judgement, refused: [] } : { judgement };
}

const sendAlone = (run: Run, target: StringTarget, edge: StringEdge): Promise<Exchange> =>
  run.ctx.send(request(run.op, run.ctx, partsFor([target], edge, run.path, run.base)));
const broke = (exchange: Exchange): boolean => (exchange.response?.status ?? 500) >= 500;

/**
 * After a 5xx on a group: one request per target, to name the field the server breaks on, then for
 * the mixed value one per character class, to name the class. The narrowest failure is reported;
 * the group's own when no narrower request fails.
 */
async function attribute(run: Run, group: Group, whole: Judgement): Promise<Judgement> {
  for (const target of group.targets.slice(0, 12)) {
    const exchange = group.targets.length > 1 ? await sendAlone(run, target, group.edge) : undefined;
    if (exchange && !broke(exchange)) continue;
    if (group.edge.label === 'mixed' || group.edge.label === 'mixed without nul') {
      for (const cls of TEXT_CLASSES) {
        const narrow = await sendAlone(run, target, cls);
        if (broke(narrow))
          return judgeEdgeAnswer(run, narrow, describeStringEdge([target], { ...cls, value: valueFor(target, cls) }), [
            target,
          ]).judgement;
      }
    }
    return exchange
      ? judgeEdgeAnswer(
          run,
          exchange,
          describeStringEdge([target], { ...group.edge, value: valueFor(target, group.edge) }),
          [target],
        ).judgement
      : whole;
  }
  return whole;
}

/**
 * One edge on a group of targets, sent together. A 5xx is narrowed down (attribute). A 422 naming
 * some targets is followed by the same edge without them (twice at most), and for the mixed value,
 * by the refused ones again without its NUL, so a fair refusal of one character hides nothing else.
 */
async function probeGroup(run: Run, group: Group): Promise<void> {
  let targets = group.targets;
  const refusedAll: StringTarget[] = [];
  for (let round = 0; round < 3 && targets.length; round++) {
    const exchange = await run.ctx.send(request(run.op, run.ctx, partsFor(targets, group.edge, run.path, run.base)));
    const { judgement, refused } = judgeEdgeAnswer(run, exchange, describeStringEdge(targets, group.edge), targets);
    if (!judgement.ok && (exchange.response?.status ?? 0) >= 500) {
      run.findings.add(await attribute(run, { ...group, targets }, judgement));
      return;
    }
    run.findings.add(judgement);
    if (!refused) break;
    const detail = (exchange.response?.json as { detail?: unknown } | undefined)?.detail;
    const named = targets.filter((t) => locNames(detail, t));
    if (!named.length) break;
    refusedAll.push(...named);
    targets = targets.filter((t) => !named.includes(t));
  }
  if (group.edge.label === 'mixed' && refusedAll.length)
    await probeGroup(run, { ...group, edge: MIXED_WITHOUT_NUL, targets: refusedAll });
}

/** A container probe: the body with the targets emptied or nested deeper. */
async function probeContainers(run: Run, probe: ReturnType<typeof containerProbes>[number]): Promise<void> {
  let body: unknown = run.base ?? {};
  for (const t of probe.targets) {
    const value = probe.label === 'deeper objects' ? deeper(getPointer(body, t.pointer)) : t.kind === 'array' ? [] : {};
    body = setPointer(body, t.pointer, value);
  }
  const exchange = await run.ctx.send(request(run.op, run.ctx, { pathValues: run.path, json: body }));
  const targets = probe.targets.map((t) => ({ loc: t.loc, location: 'body' as const }));
  run.findings.add(
    judgeEdgeAnswer(run, exchange, `${probe.label} (${probe.targets.map((t) => t.loc.join('.')).join(', ')})`, targets)
      .judgement,
  );
}

export const stringEdgesCheck = defineCheck({
  id: 'ranges.string-edges',
  suite: 'ranges',
  rule: "Every free string (body, path, query; nested fields included) empty, whitespace only, non-ASCII (accents, CJK), astral (emoji), with combining marks, right-to-left, with a NUL, and 10,000 characters long (or the longest allowed), and the body's arrays and objects empty or nested one level deeper, never gets a 5xx: accepted as documented or refused with the validation error body; past a stated maxLength, 422 naming the field (the update of a created record is sent the mixed value and empty containers, its fields take the rest on the create)",
  contractRef: '2.8, 4, 7',
  severity: 'critical',
  expects: 'success',
  appliesTo: (op, spec) => planned(op, spec) > 0,
  plannedRequests: (op, _runs, spec) => planned(op, spec) + recordCost(op, spec),
  plannedCases: (op, spec) => listing(op, spec),
  async run(ctx, op) {
    const shared = op.parameters.some((p) => p.in === 'path') ? await sharedPathForRecord(ctx, op) : { values: {} };
    const found = shared.values;
    // Without a record, only the path edges can be sent (they replace every path parameter).
    const all = stringGroups(op, ctx.spec);
    const groups = all.filter((g) => found || (g.where === 'where' && everyPathParam(op, g.targets)));
    if (!groups.length) return noRecord(op, shared);
    const path = found ?? {};
    // A create learns first what the server requires of a valid body (the pairing), once per run.
    await validCreateRefused(ctx, op);
    const run: Run = { ctx, op, path, base: pairedSample(ctx, op, 41), findings: new Findings(), noted: [] };
    for (const group of groups) await probeGroup(run, group);
    if (!found && (groups.length < all.length || containerProbes(op, ctx.spec).length > 0)) {
      // Path edges alone still catch a server fault, but judge too little of the rule to pass on.
      const outcome = finish(run, '');
      if (outcome.status !== 'passed') return outcome;
      return skipped(
        `${shared.reason ?? `no record to send ${label(op)} to`}: only the ${run.findings.probes} path edges were sent (no server fault); the body edges need a record`,
        shared.why ?? { cause: 'no-record' },
      );
    }
    if (!found) return finish(run, '');
    for (const { target, edge } of refusedProbes(op)) {
      const exchange = await ctx.send(request(op, ctx, partsFor([target], edge, path, run.base)));
      const kase: InvalidCase = {
        kind: 'string-edge',
        location: target.location,
        loc: target.loc,
        field: target.name,
        value: edge.value.length > 40 ? `${edge.value.length} characters` : edge.value,
        description: describeStringEdge([target], edge),
      };
      run.findings.add(
        await withControl(ctx, op, exchange, judgeInvalid(ctx, op, exchange, kase), {
          what: kase.description,
          expected: 'a value past a stated length is answered 422 with the validation error body (sections 2.8, 7)',
          field: { location: kase.location, pointer: pointerOf(kase.loc) },
          input: kase.value,
          control: () => request(op, ctx, { pathValues: path, ...(run.base ? { json: run.base } : {}) }),
        }),
      );
    }
    for (const probe of containerProbes(op, ctx.spec)) await probeContainers(run, probe);
    return finish(run, '');
  },
});

const everyPathParam = (op: Operation, targets: StringTarget[]): boolean =>
  op.parameters
    .filter((p) => p.in === 'path')
    .every((p) => targets.some((t) => t.location === 'path' && t.name === p.name));

function finish(run: Run, note: string) {
  if (run.noted.length)
    run.ctx.observe({
      operation: label(run.op),
      message: `refused values the contract allows, with an answer it leaves open (stricter where it is silent, or an id that does not exist): ${run.noted.join('; ')}`,
    });
  return run.findings.outcome(
    `${run.findings.probes} string and container edges answered as the contract allows${note}`,
  );
}

export const stringsChecks = [stringEdgesCheck];
