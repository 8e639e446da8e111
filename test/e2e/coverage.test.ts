/**
 * Coverage of real runs against the reference server on loopback:
 * - a fault planted where the default plan does not look (invites answer 500; the operation is
 *   destructive, so not exercised by default) leaves the run green, and the coverage block names
 *   the cells it lives in as not judged, with the reason and the spec line;
 * - every fault of the catalogue lives in a cell the default run judges: each check its `catches`
 *   names judged at least one cell (one run of every suite but the burst, the burst alone, and the
 *   stateful suite with destructive checks enabled, as the faults only those catch need);
 * - three shards merged give the same coverage block as one unsharded run;
 * - --fail-on-undocumented-status passes the reference server (its 404 and 400 answer ids the run
 *   made up) and fails one answering 203 or 418 to ordinary documented requests.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../../src/runner/conformance.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { operationIdOf, startReferenceServer } from '../../src/server/index.js';
import { mergeShardReports } from '../../src/reporters/merge.js';
import { mergeCoverage, coverageGate } from '../../src/coverage/index.js';
import { REASONS } from '../../src/coverage/compute.js';
import { coverageHtml } from '../../src/reporters/coverage-html.js';
import type { Coverage } from '../../src/results/coverage.js';
import type { RunReport } from '../../src/results/model.js';
import { checkOf, faults } from '../catalog/faults/index.js';
import { runnerOptions, SMALL_LIMIT, withLoopbackServer, failedOf } from '../helpers/loopback-runs.js';

let spec: SpecModel;
let planted: RunReport;
let burst: RunReport;
let destructive: RunReport;

/** The reference server on a free port (its own default is 4010, vapc serve's). */
const startReference = (options: { rateLimit?: number; rateWindowMs?: number }) =>
  startReferenceServer({ host: '127.0.0.1', port: 0, ...options });

/** The reference server with invites answering 500: a fault in a cell the default plan does not judge. */
const startPlanted = (options: { rateLimit?: number; rateWindowMs?: number }) =>
  startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    ...options,
    configure(app) {
      app.addHook('preHandler', async (request, reply) => {
        if (operationIdOf(request) === 'createInvite') await reply.code(500).send({ detail: 'planted fault' });
      });
    },
  });

beforeAll(async () => {
  spec = await loadSpec();
  planted = (await withLoopbackServer(startPlanted, {}, (server) => runConformance(runnerOptions(server, spec))))
    .report;
  // The faults only destructive checks catch (key regeneration, invites) are judged when they are enabled.
  destructive = (
    await withLoopbackServer(startReference, {}, (server) =>
      runConformance(runnerOptions(server, spec, { suites: ['stateful'], includeDestructive: true })),
    )
  ).report;
  burst = (
    await withLoopbackServer(startReference, SMALL_LIMIT, (server) =>
      runConformance(runnerOptions(server, spec, { suites: ['ratelimit'] })),
    )
  ).report;
}, 120_000);

const cellsOf = (coverage: Coverage | undefined, operation: string) =>
  (coverage?.cells ?? []).filter((c) => c.operation === operation);

describe('coverage of a default run', () => {
  it('names the cell of a fault the default plan does not judge, with its reason and spec line, while the run stays green', () => {
    expect(failedOf(planted.results)).toEqual([]);
    const invites = cellsOf(planted.coverage, 'POST /orgs/{org_id}/invites');
    const success = invites.find((c) => c.dimension === 'status' && c.item === '2XX');
    expect(success).toMatchObject({
      state: 'not-sent',
      requests: 0,
      reason: REASONS.destructive,
      spec_file: 'spec/openapi.yaml',
    });
    expect(success!.spec_line).toBeGreaterThan(0);
    expect(invites.every((c) => c.state === 'not-sent')).toBe(true);
    const gate = coverageGate(planted.coverage, { minCoverage: 100 });
    expect(gate.failed).toBe(true);
    expect(gate.lines.join('\n')).toContain(
      'POST /orgs/{org_id}/invites · status · 2XX · not-sent (spec/openapi.yaml:',
    );
  });

  it('judges, for every fault of the catalogue, a cell with each check that catches it', () => {
    const coverage = mergeCoverage([planted.coverage, burst.coverage, destructive.coverage])!;
    const judgedBy = new Set(
      coverage.cells.filter((c) => c.state === 'judged-pass' || c.state === 'judged-fail').flatMap((c) => c.checks),
    );
    const unjudged = faults.flatMap((f) =>
      f.catches
        .map(checkOf)
        .filter((id) => !judgedBy.has(id))
        .map((id) => `${f.name}: ${id}`),
    );
    expect(unjudged).toEqual([]);
    expect(faults.filter((f) => f.catches.length > 0).length).toBeGreaterThan(20);
  });

  it('counts every cell once in the summary, and no check sent a status the spec leaves undocumented', () => {
    const s = planted.coverage!.summary;
    expect(s.judged + s.sent + s.not_sent).toBe(s.cells);
    expect(s.judged).toBeGreaterThan(s.cells / 2);
    expect(burst.coverage!.cells.some((c) => c.item === '429' && c.state === 'judged-pass')).toBe(true);
  });
});

/**
 * The reference server answering undocumented statuses to ordinary documented requests: 203 for
 * the 200 of a valid list call (GET /calls documents 200 alone), 418 to a read of a campaign it created.
 */
const startUndocumented = (options: { rateLimit?: number; rateWindowMs?: number }) =>
  startReferenceServer({
    host: '127.0.0.1',
    port: 0,
    ...options,
    configure(app) {
      app.addHook('onSend', async (request, reply, payload) => {
        const id = operationIdOf(request);
        if (reply.statusCode === 200 && id === 'listCalls') reply.code(203);
        if (reply.statusCode === 200 && id === 'getCampaign') reply.code(418);
        return payload;
      });
    },
  });

describe('--fail-on-undocumented-status', () => {
  it('passes the reference server: its undocumented answers are all to ids the run made up (404, 400)', () => {
    const undocumented = planted.coverage!.undocumented_statuses ?? [];
    expect(undocumented.map((u) => u.status)).toContain(404);
    expect(undocumented.every((u) => u.unknown_id_requests === u.requests)).toBe(true);
    expect(coverageGate(planted.coverage, { failOnUndocumentedStatus: true })).toEqual({ failed: false, lines: [] });
    // report.html says why each of them does not count.
    const html = coverageHtml(planted.coverage, (v) => String(v));
    const listed = /<p id="coverage-undocumented">(.*)<\/p>/.exec(html)![1]!;
    expect(listed.split('</code> (').slice(1)).toHaveLength(undocumented.length);
    for (const part of listed.split('</code> (').slice(1)) expect(part).toMatch(/^\d+; only to ids the run made up\)/);
  });

  it('report.html marks a status the contract leaves open, and a status counted in part', () => {
    const base = { operation: 'PATCH /campaign/{campaign_id}', checks: ['x'] };
    const html = coverageHtml(
      {
        ...planted.coverage!,
        undocumented_statuses: [
          { ...base, status: 409, requests: 2, left_open: '409 for a conflict' },
          { ...base, status: 404, requests: 3, unknown_id_requests: 1 },
          { ...base, status: 418, requests: 1 },
        ],
      },
      (v) => String(v),
    );
    expect(html).toContain(
      '<code>PATCH /campaign/{campaign_id} 409</code> (2; left open by the contract: 409 for a conflict), ' +
        '<code>PATCH /campaign/{campaign_id} 404</code> (3; 1 to ids the run made up), ' +
        '<code>PATCH /campaign/{campaign_id} 418</code> (1).',
    );
  });

  it('fails a server answering an undocumented status to a documented request, on a list or a created record', async () => {
    const { report } = await withLoopbackServer(startUndocumented, {}, (server) =>
      runConformance(runnerOptions(server, spec, { suites: ['schema', 'stateful'] })),
    );
    const gate = coverageGate(report.coverage, { failOnUndocumentedStatus: true });
    expect(gate.failed).toBe(true);
    const text = gate.lines.join('\n');
    expect(text).toMatch(/^  GET \/calls answered 203 \(\d+ request\(s\); /m);
    expect(text).toMatch(/^  GET \/campaign\/\{campaign_id\} answered 418 \(\d+ request\(s\); /m);
  }, 60_000);
});

describe('coverage across shards', () => {
  it('merges three shards into the coverage block of one unsharded run', async () => {
    const run = (shard?: { index: number; count: number }) =>
      withLoopbackServer(
        startReference,
        {},
        async (server) =>
          (
            await runConformance(
              runnerOptions(server, spec, { suites: ['validation', 'ranges'], runs: 2, ...(shard ? { shard } : {}) }),
            )
          ).report,
      );
    const whole = await run();
    const shards = [];
    for (const index of [1, 2, 3]) shards.push({ source: `shard ${index}`, report: await run({ index, count: 3 }) });
    const merged = mergeShardReports(shards);
    expect(merged.coverage).toEqual(whole.coverage);
    expect(shards.every((s) => s.report.coverage!.summary.judged < whole.coverage!.summary.judged)).toBe(true);
  }, 120_000);
});
