// `vapc run --arazzo FILE` (issue 36 point 2): a workflow written by hand from the contract alone
// (test/fixtures/arazzo/campaign-lifecycle.arazzo.yaml) runs on the reference server with no failure
// on seeds 1-5 and its steps judged, its free inputs varied by the seed; and the document `vapc export
// arazzo` writes, run by vapc itself, kills every stateful fault of both catalogues that redocly
// respect fails on it (test/helpers/respect-matrix.ts STATEFUL_FAULTS, the list respect's tests split: the independent
// catalogue's judged stateful faults and the reference catalogue's faults its stateful checks catch).
import { describe, expect, it } from 'vitest';
import { startFaultyServer } from '../catalog/faults/index.js';
import { exportedOnce } from '../helpers/arazzo-tools.js';
import { runWorkflows } from '../helpers/arazzo-runs.js';
import { STATEFUL_FAULTS } from '../helpers/respect-matrix.js';
import { failedOf, loopbackServers, withLoopbackServer, type LoopbackServer } from '../helpers/loopback-runs.js';
import { packageRoot } from '../../src/paths.js';
import { startReferenceServer } from '../../src/server/index.js';
import { renderHtml } from '../../src/reporters/html.js';
import { lintWorkflowText, readWorkflowFile } from '../../src/cli/run/workflows.js';
import { mergeShardReports } from '../../src/reporters/merge.js';
import { reportValidator } from '../../src/reporters/report-schema.js';
import { workflowsLine } from '../../src/results/workflows.js';

const HAND_WRITTEN = 'test/fixtures/arazzo/campaign-lifecycle.arazzo.yaml';

const { spec, dir } = exportedOnce();
const reference = loopbackServers(startReferenceServer);

describe('a workflow written by hand from the contract runs under --arazzo on the reference server', () => {
  for (const seed of [1, 2, 3, 4, 5])
    it(`seed ${seed}: no failure, every workflow judged, the free inputs generated`, async () => {
      const server = await reference();
      const { report } = await runWorkflows(server, spec(), HAND_WRITTEN, packageRoot, seed);
      expect(failedOf(report.results)).toEqual([]);
      const own = report.results.filter((r) => r.suite === 'workflows');
      expect(own.map((r) => [r.id, r.status])).toEqual([
        ['workflows.recipients-and-calls', 'passed'],
        ['workflows.campaign-lifecycle', 'passed'],
      ]);
      const w = report.workflows!;
      expect(w.summary.steps_judged).toBeGreaterThan(0);
      expect(w.summary.criteria_failed).toBe(0);
      expect(w.summary.criteria_held).toBe(w.summary.criteria_evaluated);
      expect(own[1]!.message).toMatch(/inputs campaign_name, concurrency, new_concurrency generated/);
    });

  it('the seed chooses the free inputs: the same seed sends the same bodies, another seed others', async () => {
    const bodies = async (seed: number) => {
      const server = await reference();
      const sent: string[] = [];
      const onExchange = (e: { request: { method: string; body?: string } }, id: string | undefined) => {
        if (id?.startsWith('workflows.') && e.request.method !== 'GET') sent.push(e.request.body ?? '');
      };
      await runWorkflows(server, spec(), HAND_WRITTEN, packageRoot, seed, { onExchange });
      return sent;
    };
    const three = await bodies(3);
    expect(three.length).toBeGreaterThan(6);
    expect(await bodies(3)).toEqual(three);
    expect(await bodies(4)).not.toEqual(three);
  });
});

describe('the hand-written workflow as the CLI reads it', () => {
  it("lints clean with Redocly's Arazzo rules (the check every --arazzo file goes through)", async () => {
    const { text } = readWorkflowFile(HAND_WRITTEN, packageRoot, spec());
    await expect(lintWorkflowText(HAND_WRITTEN, text)).resolves.toBeUndefined();
  });
});

describe("report.json's workflows in the HTML report and across shards", () => {
  it('report.html shows a row per workflow with its counts; a report without workflows has no section', async () => {
    const server = await reference();
    const { report } = await runWorkflows(server, spec(), HAND_WRITTEN, packageRoot, 1);
    expect(reportValidator()(report)).toBe(true);
    const html = renderHtml(report);
    expect(html).toContain('<section id="workflows">');
    expect(html).toContain(`<p id="workflows-line">${workflowsLine(report.workflows!)}</p>`);
    expect(workflowsLine(report.workflows!)).toMatch(
      /^workflows: 2 of 1 file, 6 runs, 21\/21 steps judged, \d+ criteria evaluated \(\d+ held, 0 failed\), 0 actions taken$/,
    );
    for (const id of ['campaign-lifecycle', 'recipients-and-calls'])
      expect(html).toMatch(
        new RegExp(
          `<tr data-check="workflows\\.${id}"><td>test/fixtures/arazzo/campaign-lifecycle\\.arazzo\\.yaml</td><td>${id}</td><td>3</td>`,
        ),
      );
    const { workflows: _w, ...without } = report;
    expect(renderHtml(without)).not.toContain('id="workflows"');
  });

  it("the merge of shard reports adds their workflows up to the whole run's", async () => {
    const run = async (shard?: { index: number; count: number }) => {
      const server = await reference();
      return (await runWorkflows(server, spec(), HAND_WRITTEN, packageRoot, 2, shard ? { shard } : {})).report;
    };
    const whole = await run();
    const shards = [];
    for (const index of [1, 2]) shards.push({ source: `shard ${index}`, report: await run({ index, count: 2 }) });
    const merged = mergeShardReports(shards);
    expect(merged.workflows).toEqual(whole.workflows);
    expect(shards.every((s) => s.report.workflows!.summary.steps_run < whole.workflows!.summary.steps_run)).toBe(true);
  });
});

/** vapc with --arazzo of the exported document against a faulty server: some workflow fails. */
async function killed(server: LoopbackServer, fault: { name: string; description: string }): Promise<void> {
  const { report } = await runWorkflows(server, spec(), 'verified.arazzo.yaml', dir(), 1);
  const failed = report.results.filter((r) => r.suite === 'workflows' && r.status === 'failed');
  expect(failed.length, `vapc --arazzo passed ${fault.name} (${fault.description})`).toBeGreaterThan(0);
}

describe('vapc --arazzo of the exported document kills every stateful fault respect fails on it', () => {
  it('passes on the reference server', async () => {
    const server = await reference();
    const { report } = await runWorkflows(server, spec(), 'verified.arazzo.yaml', dir(), 1);
    expect(failedOf(report.results)).toEqual([]);
    expect(report.results.filter((r) => r.status === 'passed')).toHaveLength(8);
  });
  it('a field the server does not store is a failure of kind criterion, located in the answer (update-not-stored)', async () => {
    const report = await withLoopbackServer(
      (o) => startFaultyServer('update-not-stored', { host: '127.0.0.1', ...o }),
      {},
      async (s) => (await runWorkflows(s, spec(), 'verified.arazzo.yaml', dir(), 1)).report,
    );
    const failures = report.results.filter((r) => r.suite === 'workflows').flatMap((r) => r.failures ?? []);
    expect(failures.some((f) => f.kind === 'criterion' && f.field?.location === 'response')).toBe(true);
    expect(report.workflows!.summary.criteria_failed).toBeGreaterThan(0);
  });
  it('the catalogues have the 36 faults', () => {
    expect(STATEFUL_FAULTS.length).toBe(36);
  });
  // The one list respect's tests split (test/helpers/respect-matrix.ts): every fault here, in npm test.
  describe.concurrent('each fault of both catalogues', () => {
    for (const f of STATEFUL_FAULTS)
      it(f.name, { timeout: 60_000 }, () => withLoopbackServer(f.start, {}, (s) => killed(s, f)));
  });
});
