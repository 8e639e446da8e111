/**
 * ranges.numeric-edges: every number the contract has, bounded or not (query, path, body, nested),
 * at its edges; allowed values never get a 5xx, values outside a stated bound get 422 naming them.
 */
import { defineCheck, type CheckContext } from '../../src/checks/check.js';
import { pointerOf } from '../../src/results/model.js';
import type { Operation } from '../../src/spec/model.js';
import {
  describeEdge,
  numericEdges,
  numericTargets,
  setPointer,
  type InvalidCase,
  type NumericEdge,
  type NumericTarget,
} from '../../src/generators/index.js';
import { validate } from '../../src/validators/index.js';
import { withControl } from '../lib/control.js';
import type { Refusal } from '../lib/learned.js';
import type { Exchange } from '../../src/transport/types.js';
import {
  Findings,
  RATE_LIMITED,
  isSuccess,
  judgeAllowed,
  judgeInvalid,
  judgeResponse,
  label,
  locNames,
  recordCost,
  request,
  baseBody,
  validCreateRefused,
  type Judgement,
  noRecord,
} from '../lib.js';
import { controlled, fullSet, pathFor } from './targets.js';

/** A probe of one numeric edge: where it goes, what it sends, how it is judged. */
interface EdgeProbe {
  target: NumericTarget;
  edge: NumericEdge;
  /** Judged as a value the contract allows (no 5xx) or as one it refuses (422 naming the field). */
  allowed: boolean;
}

/**
 * The edges this check sends on an operation: every edge of every numeric parameter and field,
 * except numbers outside a stated body bound (the below-minimum/above-maximum checks of that field
 * send them). A numeric string the contract allows is judged as allowed unless strict types is on.
 */
export function edgeProbes(op: Operation, strictTypes = false): EdgeProbe[] {
  const out: EdgeProbe[] = [];
  for (const target of numericTargets(op)) {
    for (const edge of numericEdges(target)) {
      if (target.location === 'body' && !edge.quoted && !edge.withinBounds) continue;
      out.push({ target, edge, allowed: edge.withinBounds && !(edge.quoted && strictTypes) });
    }
  }
  return out;
}

/**
 * The requests of an operation, each the probes it carries. On an operation on a record's path
 * (the update) only the numeric strings go in the body: the number edges of the same fields go to
 * the create (fullSet), a covering design fixed for every seed; the strings stay on both, since
 * coercion is the code most often written twice. The query and path edges of one label go together
 * when the contract allows them all (`limit=-1&offset=-1`), sent again one by one only when the
 * answer is not a plain success (a 5xx names no parameter, a 422 may have stopped at the first).
 */
export function edgeRequests(op: Operation, strictTypes = false): EdgeProbe[][] {
  const full = fullSet(op);
  const out: EdgeProbe[][] = [];
  const byLabel = new Map<string, EdgeProbe[]>();
  for (const probe of edgeProbes(op, strictTypes)) {
    if (probe.target.location === 'body' && !full && !probe.edge.quoted) continue;
    if (probe.target.location === 'body' || !probe.allowed) {
      out.push([probe]);
      continue;
    }
    const group = byLabel.get(probe.edge.label);
    if (group) group.push(probe);
    else {
      byLabel.set(probe.edge.label, [probe]);
      out.push(byLabel.get(probe.edge.label)!);
    }
  }
  return out;
}

/** For --dry-run: the edges sent per parameter or field, `query offset: -1 0 2147483648 ...`. */
function edgeListing(op: Operation): string[] {
  const byTarget = new Map<string, string[]>();
  for (const { target, edge } of edgeRequests(op).flat()) {
    const key = `${target.location} ${target.loc.join('.')}`;
    byTarget.set(key, [...(byTarget.get(key) ?? []), edge.quoted ? JSON.stringify(edge.literal) : edge.literal]);
  }
  const together = edgeRequests(op).filter((r) => r.length > 1).length;
  return [
    ...[...byTarget].map(([key, literals]) => `${key}: ${literals.join(' ')}`),
    ...(together ? [`query and path edges of one kind in one request (${together} requests)`] : []),
  ];
}

const EDGE_MARK = 'vapc-numeric-edge-literal';

/** The request parts of a probe: the literal in its query, path or body place, the rest valid. */
function edgeParts(
  probe: EdgeProbe,
  path: Record<string, string>,
  base: Record<string, unknown> | undefined,
): { parts: Parameters<typeof request>[2]; kase: InvalidCase } {
  const { target, edge } = probe;
  const parts: Parameters<typeof request>[2] = { pathValues: path };
  const exact = String(edge.spelled) === edge.literal;
  // The input a failure shows: the number, or its text when it is a string or no double holds it.
  const value = edge.quoted || !exact ? edge.literal : edge.spelled;
  const kase: InvalidCase = {
    kind: 'numeric-edge',
    location: target.location,
    loc: target.loc,
    field: target.name,
    value,
    description: describeEdge(target, edge),
  };
  if (target.location === 'query') parts.query = kase.query = [[target.name, edge.literal]];
  if (target.location === 'path') parts.pathValues = { ...path, [target.name]: edge.literal };
  if (target.location !== 'body') {
    if (base) parts.json = base;
    return { parts, kase };
  }
  if (edge.quoted || exact) {
    parts.json = kase.body = setPointer(base ?? {}, target.pointer!, edge.quoted ? edge.literal : edge.spelled);
  } else {
    // 2^53+1 cannot go through a double: the JSON text carries its digits.
    parts.rawBody = kase.rawBody = JSON.stringify(setPointer(base ?? {}, target.pointer!, EDGE_MARK)).replace(
      JSON.stringify(EDGE_MARK),
      edge.literal,
    );
    parts.headers = { 'content-type': 'application/json' };
  }
  return { parts, kase };
}

/** Judges the answer to an allowed edge (the one judgeAllowed of both edge suites); a 422 naming it is noted as stricter. */
function judgeEdge(run: EdgeRun, exchange: Exchange, kase: InvalidCase, noteRefusal: boolean): Judgement {
  const judged = judgeAllowed(run.ctx, run.op, exchange, {
    what: kase.description,
    fields: [kase],
    field: { location: kase.location, pointer: pointerOf(kase.loc) },
    input: kase.value,
  });
  if (noteRefusal && judged.ok && judged.unjudged === undefined && exchange.response?.status === 422)
    run.refused.push(kase.description);
  return judged;
}

export const numericEdgesCheck = defineCheck({
  id: 'ranges.numeric-edges',
  suite: 'ranges',
  rule: 'Every numeric parameter and field at its edges (-1, 0, 2^31, 2^53, 2^53+1, -2^53 and a numeric-looking string; on the update only the numeric strings, the create takes the numbers), bounded or not, never gets a 5xx: a value the contract allows is accepted or refused with the validation error body, one outside a stated bound is answered 422 naming it',
  contractRef: '4.1, 4.2, 4.4, 8, 2.8, 7',
  severity: 'critical',
  expects: 'success',
  appliesTo: (op) => numericTargets(op).length > 0,
  plannedRequests: (op, _runs, spec, options) => edgeRequests(op, options?.strictTypes).length + recordCost(op, spec),
  plannedCases: (op) => edgeListing(op),
  async run(ctx, op) {
    const found = await pathFor(ctx, op, 37);
    const { values: path, record } = found;
    if (!path) return noRecord(op, found);
    const validRefused = await validCreateRefused(ctx, op);
    const base = op.requestBody
      ? baseBody(
          ctx,
          op,
          37,
          numericTargets(op)
            .filter((t) => t.location === 'body')
            .map((t) => String(t.loc[0])),
          record,
        )
      : undefined;
    const run: EdgeRun = {
      ctx,
      op,
      path,
      base,
      findings: new Findings(),
      refused: [],
      ...(validRefused === undefined ? {} : { validRefused }),
    };
    const requests = edgeRequests(op, ctx.strictTypes);
    for (const probes of requests) {
      if (probes.length === 1 || !(await probeTogether(run, probes)))
        for (const probe of probes) await probeAlone(run, probe);
    }
    if (run.refused.length) {
      ctx.observe({
        operation: label(op),
        message: `refused with 422 numbers the contract allows (stricter where it is silent): ${run.refused.join('; ')}`,
      });
    }
    return run.findings.outcome(`${requests.flat().length} numeric edges answered as the contract allows`);
  },
});

interface EdgeRun {
  ctx: CheckContext;
  op: Operation;
  path: Record<string, string>;
  base: Record<string, unknown> | undefined;
  findings: Findings;
  refused: string[];
  validRefused?: Refusal;
}

async function probeAlone(run: EdgeRun, probe: EdgeProbe): Promise<void> {
  const { ctx, op } = run;
  const { parts, kase } = edgeParts(probe, run.path, run.base);
  const exchange = await ctx.send(request(op, ctx, parts));
  // A refused numeric string is a framework's choice (coercion or not), not worth noting.
  if (probe.allowed) {
    run.findings.add(judgeEdge(run, exchange, kase, probe.edge.label !== 'numeric string'));
    return;
  }
  const judged = judgeInvalid(
    ctx,
    op,
    exchange,
    kase,
    run.validRefused === undefined ? {} : { validRefused: run.validRefused },
  );
  run.findings.add(await withControl(ctx, op, exchange, judged, controlled(ctx, op, run.path, run.base, kase)));
}

/**
 * Allowed query and path edges in one request: a plain success judges them all, and so does a 422
 * naming every one of them (true); anything else judges nothing here (false), and the caller sends
 * them one by one.
 */
async function probeTogether(run: EdgeRun, probes: EdgeProbe[]): Promise<boolean> {
  const { ctx, op } = run;
  const each = probes.map((p) => edgeParts(p, run.path, run.base));
  const parts: Parameters<typeof request>[2] = {
    ...each[0]!.parts,
    pathValues: Object.assign({}, ...each.map((e) => e.parts?.pathValues)),
  };
  const query = each.flatMap((e) => e.parts?.query ?? []);
  if (query.length) parts.query = query;
  const exchange = await ctx.send(request(op, ctx, parts));
  const status = exchange.response?.status ?? 0;
  if (status === 429) {
    run.findings.add(RATE_LIMITED);
    return true;
  }
  const detail = (exchange.response?.json as { detail?: unknown } | undefined)?.detail;
  if (
    status === 422 &&
    validate('HTTPValidationError', exchange.response?.json).ok &&
    each.every((e) => locNames(detail, e.kase))
  ) {
    // Refused naming every one of them: what each alone would show (stricter where the contract is silent).
    probes.forEach((p, i) =>
      run.findings.add(judgeEdge(run, exchange, each[i]!.kase, p.edge.label !== 'numeric string')),
    );
    return true;
  }
  if (!isSuccess(status)) return false;
  const judged = judgeResponse(ctx, op, exchange, {
    what: `${each.map((e) => e.kase.description).join(' and ')} on ${label(op)}`,
  });
  for (const _ of probes) run.findings.add(judged);
  return true;
}
