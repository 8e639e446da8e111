// `vapc export arazzo` (issue 36): the stateful scenarios of a passing run as an Arazzo 1.0.1
// document that lints clean with Redocly's and Spectral's Arazzo rules and that `redocly respect`
// runs to a pass against the reference server it was verified on; a run where a scenario fails
// writes nothing.
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startReferenceServer } from '../../src/server/index.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { checksOf } from '../../suites/index.js';
import { profile } from '../../suites/profile.js';
import { startIndependent as startFaulty } from '../helpers/independent-faults.js';
import {
  exportFromEmbedded,
  inputsFor,
  redoclyLint,
  respect,
  scratch,
  spectralArazzo,
  type Exported,
} from '../helpers/arazzo-tools.js';
import { withLoopbackServer } from '../helpers/loopback-runs.js';

interface Doc {
  arazzo: string;
  sourceDescriptions: Array<{ url: string; type: string }>;
  workflows: Array<{
    workflowId: string;
    steps: Array<{ stepId: string; operationId: string; successCriteria: unknown[] }>;
  }>;
}

let spec: SpecModel;
let work: Awaited<ReturnType<typeof scratch>>;
let exported: Exported;
let doc: Doc;

beforeAll(async () => {
  spec = await loadSpec();
  work = await scratch();
  exported = await exportFromEmbedded(work.dir, 1);
  doc = parse(readFileSync(exported.file, 'utf8')) as Doc;
});
afterAll(() => work.done());

describe('vapc export arazzo: the verified stateful scenarios', () => {
  it('writes one workflow per scenario check that sent and passed, steps by operationId, every step with criteria', () => {
    expect(exported.status, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/arazzo: 8 workflow\(s\), \d+ step\(s\), \d+ success criteria, each seen to hold/);
    expect(doc.arazzo).toBe('1.0.1');
    expect(doc.sourceDescriptions).toEqual([expect.objectContaining({ type: 'openapi' })]);
    const scenarioChecks = checksOf(profile.suites.filter((s) => s.scenarios).map((s) => s.name)).map((c) =>
      c.id.replace(/^[a-z]+\./, ''),
    );
    // update-record-shape sends nothing of its own when others' updates cover it: its judgement is in their criteria.
    expect(doc.workflows.map((w) => w.workflowId).sort()).toEqual(
      scenarioChecks.filter((id) => id !== 'update-record-shape').sort(),
    );
    const ids = new Set(spec.operations.map((o) => o.id));
    for (const w of doc.workflows)
      for (const s of w.steps) {
        expect(ids.has(s.operationId), s.operationId).toBe(true);
        expect(s.successCriteria.length, `${w.workflowId}/${s.stepId}`).toBeGreaterThan(0);
      }
    // Later steps read earlier steps' outputs: the created record's id is wired, not copied.
    expect(readFileSync(exported.file, 'utf8')).toMatch(/\$steps\.createCampaign\.outputs\.id/);
  });

  it('never writes a credential of the run: the api key and user id are inputs without a value', () => {
    const text = readFileSync(exported.file, 'utf8');
    expect(text).toContain('$inputs.api_key');
    expect(text).not.toMatch(/sk_[A-Za-z0-9_]{12,}/);
  });

  it('lints clean with every Redocly rule (extends: all) and every rule of Spectral spectral:arazzo', async () => {
    expect(await redoclyLint(exported.file, work.dir)).toEqual([]);
    expect(await spectralArazzo(exported.file)).toEqual([]);
  });

  it('the linters can fail: a step with an unknown operationId and a repeated stepId are found by both', async () => {
    const broken = structuredClone(doc);
    broken.workflows[0]!.steps[0]!.operationId = 'noSuchOperation';
    broken.workflows[0]!.steps.push({ ...broken.workflows[0]!.steps[0]! });
    const file = join(work.dir, 'broken.arazzo.yaml');
    await writeFile(file, stringify(broken));
    expect((await redoclyLint(file, work.dir)).length).toBeGreaterThan(0);
    expect((await spectralArazzo(file)).length).toBeGreaterThan(0);
  });

  it('redocly respect runs it to a pass against a fresh reference server', async () => {
    const server = await startReferenceServer({ host: '127.0.0.1', port: 0, spec, rateLimit: 1_000_000 });
    try {
      const run = await respect(exported.file, server.url, await inputsFor(server, spec), work.dir);
      expect(run.failed).toEqual([]);
      expect(run.status).toBe(0);
      expect(run.checks).toBeGreaterThan(200);
    } finally {
      await server.close();
    }
  });

  it('a target where a scenario fails gets no document (exit 1): only a run that passed is exported', async () => {
    await withLoopbackServer(startFaulty, { fault: 'st-patch-returns-old' }, async (s) => {
      let stderr = '';
      const out = join(work.dir, 'not-written.arazzo.yaml');
      const { exportArazzoCommand } = await import('../../src/cli/commands/export.js');
      const status = await exportArazzoCommand(
        { baseUrl: s.url, apiKey: s.fixtures.api_key, userId: s.fixtures.user_id, seed: '1', out, config: false },
        { stdout: () => undefined, stderr: (t) => (stderr += t), env: {}, isTTY: false },
      );
      expect(status, stderr).toBe(1);
      expect(stderr).toMatch(/did not pass; nothing was written/);
      expect(existsSync(out)).toBe(false);
    });
  });
});
