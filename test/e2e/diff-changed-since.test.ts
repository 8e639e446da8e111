import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/commands/run.js';
import type { CliIo } from '../../src/cli/main.js';
import { checks } from '../../suites/index.js';
import { operationLabel, planChecks } from '../../src/runner/run.js';
import { loadSpec } from '../../src/spec/load.js';
import { startReferenceServer, type ReferenceServer } from '../../src/server/index.js';
import { startFaultyServer } from '../catalog/faults/index.js';
import { variant } from '../helpers/diff.js';

function capture(): CliIo & { out: () => string } {
  let out = '';
  return { stdout: (t) => void (out += t), stderr: (t) => void (out += t), env: {}, isTTY: false, out: () => out };
}

let dir: string;
let widerBase: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vapc-focus-'));
  // BASE allowed max_concurrency up to 300; the current spec says 200: POST /campaign changed.
  widerBase = join(dir, 'base.json');
  await writeFile(
    widerBase,
    JSON.stringify(variant((d) => (d.components.schemas.CampaignCreate.properties.max_concurrency.maximum = 300))),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function focusedRun(server: ReferenceServer, name: string): Promise<{ code: number; report: any; out: string }> {
  const io = capture();
  const reportDir = join(dir, name);
  const flags = {
    baseUrl: server.url,
    apiKey: server.fixtures.api_key,
    userId: server.fixtures.user_id,
    seed: '5',
    runs: '2',
    suite: 'ranges',
    reportDir,
    changedSince: widerBase,
  };
  const code = await runCommand(flags, io);
  return { code, report: JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')), out: io.out() };
}

describe('vapc run --changed-since', () => {
  it('the ranges suite normally covers more operations than POST /campaign (so the focus is what drops them)', async () => {
    const spec = await loadSpec();
    const plan = planChecks(checks, { spec, fixtures: {} }, { suites: ['ranges'] });
    expect(new Set(plan.map((p) => operationLabel(p.operation))).size).toBeGreaterThan(1);
  });

  it('runs only the changed operation and the smoke set, records why in report.json, and passes the reference server', async () => {
    const server = await startReferenceServer({ host: '127.0.0.1', port: 0 });
    try {
      const { code, report, out } = await focusedRun(server, 'pass');
      expect(code).toBe(0);
      expect(out).toMatch(/changed since .*base\.json: 1 changed operation\(s\) \+ \d+ smoke/);
      expect(out).toMatch(/POST \/campaign: request-max-decreased/);
      expect(report.focus.operations).toContainEqual({
        operation: 'POST /campaign',
        reasons: ['request-max-decreased'],
      });
      const selected = new Set(report.focus.operations.map((o: { operation: string }) => o.operation));
      expect(report.results.length).toBeGreaterThan(0);
      for (const r of report.results) expect(selected.has(r.operation)).toBe(true);
      expect(report.results.map((r: { operation: string }) => r.operation)).not.toContain(
        'PATCH /campaign/{campaign_id}',
      );
    } finally {
      await server.close();
    }
  });

  it('still fails on a fault in the changed operation', async () => {
    const server = await startFaultyServer('range-max-concurrency-above-max');
    try {
      const { code, report } = await focusedRun(server, 'fault');
      expect(code).toBe(1);
      const failed = report.results.filter((r: { status: string }) => r.status === 'failed');
      expect(failed.map((r: { operation: string }) => r.operation)).toContain('POST /campaign');
    } finally {
      await server.close();
    }
  });

  it('a BASE that cannot be read is a usage error (exit 2 through the CLI)', async () => {
    const server = await startReferenceServer({ host: '127.0.0.1', port: 0 });
    try {
      await expect(
        runCommand({ baseUrl: server.url, changedSince: 'no-such-rev-xyz', reportDir: join(dir, 'bad') }, capture()),
      ).rejects.toMatchObject({ code: 'E_USAGE' });
    } finally {
      await server.close();
    }
  });
});
