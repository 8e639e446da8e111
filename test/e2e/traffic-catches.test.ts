// Every finding `vapc proxy` and `vapc drift` can make, on real traffic: the runner's requests sent
// through `vapc proxy --record` to the reference server (every passive judge passes, none fails)
// and to a faulty server of the catalogue for each passive check and kind of finding (the proxy
// reports the catalogue's own catch, kind and field); then `vapc drift` on the proxy's recording
// gives the same results.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/results/model.js';
import { startReferenceServer } from '../../src/server/index.js';
import { loadSpec } from '../../src/spec/load.js';
import type { SpecModel } from '../../src/spec/model.js';
import { checks } from '../../suites/index.js';
import { catchOf, caughtBy, describeCatch, faultByName, startFaultyServer } from '../catalog/faults/index.js';
import type { LoopbackServer } from '../helpers/loopback-runs.js';
import { cli, runTraffic, startProxyCommand, tempDir } from '../helpers/traffic.js';

const LIMITS = { host: '127.0.0.1', port: 0, rateLimit: 1e6, rateWindowMs: 60_000 };
const PASSIVE = checks.filter((c) => typeof c.judgeExchange === 'function');
const suiteOf = (id: string): string => PASSIVE.find((c) => c.id === id)!.suite;
const reportOf = (dir: string): RunReport => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
const statuses = (r: RunReport) => r.results.map((x) => `${x.id} ${x.operation} ${x.status}`);

/** One fault of the catalogue for each passive check and each kind of finding it makes. */
const FAULTS = [
  'call-duration-string', // schema.response-conforms: a body field (schema)
  'ratelimit-reset-missing', // schema.response-conforms: a header (schema)
  'response-invalid-json', // schema.response-conforms: invalid-json
  'response-wrong-content-type', // schema.response-conforms: content-type
  'update-returns-full-record', // stateful.update-record-shape
  'preflight-405', // cors.preflight-answered: status
  'preflight-no-allow-origin', // cors.preflight-allow-origin
  'preflight-headers-narrow', // cors.preflight-allow-headers
  'preflight-no-allow-methods', // cors.preflight-allow-methods
  'unicode-body-500', // robustness.no-5xx-valid: status
];

interface Traffic {
  proxy: { code: number; report: RunReport; out: string };
  drift: { code: number; report: RunReport; err: string };
}

/** The runner's traffic (only `suites`) through `vapc proxy --record` to `server`; then `vapc drift` on the recording. */
async function throughProxy(server: LoopbackServer, spec: SpecModel, suites: string[]): Promise<Traffic> {
  const dir = tempDir('vapc-catches-');
  const record = join(dir, 'traffic.ndjson');
  const p = await startProxyCommand({ target: server.url, record, reportDir: join(dir, 'proxy') });
  try {
    await runTraffic({ ...server, url: p.url }, spec, { runs: 2, suites });
  } finally {
    await p.stop();
  }
  const drift = await cli(['drift', record, '--report-dir', join(dir, 'drift')]);
  return {
    proxy: { code: await p.done, report: reportOf(join(dir, 'proxy')), out: p.out() + p.err() },
    drift: { code: drift.code, report: reportOf(join(dir, 'drift')), err: drift.err },
  };
}

let spec: SpecModel;
let reference: Traffic;

beforeAll(async () => {
  spec = await loadSpec();
  const server = await startReferenceServer(LIMITS);
  try {
    reference = await throughProxy(server, spec, [...new Set(PASSIVE.map((c) => c.suite))]);
  } finally {
    await server.close();
  }
});

describe('vapc proxy and vapc drift: every passive judge on real traffic', () => {
  it("the reference server's traffic: every passive judge judges some answer and fails none, in the proxy and in drift", () => {
    for (const { code, report } of [reference.proxy, reference.drift]) {
      expect(statuses(report).filter((s) => /(failed|error)$/.test(s))).toEqual([]);
      expect(code).toBe(0);
      for (const check of PASSIVE)
        expect(
          report.results.some((r) => r.id === check.id && r.status === 'passed'),
          check.id,
        ).toBe(true);
    }
    expect(statuses(reference.drift.report)).toEqual(statuses(reference.proxy.report));
  });

  it('the faults cover every passive judge', () => {
    const caught = new Set(FAULTS.flatMap((name) => faultByName(name).catches.map((c) => catchOf(c).check)));
    for (const check of PASSIVE) expect(caught, check.id).toContain(check.id);
  });

  for (const name of FAULTS) {
    const fault = faultByName(name);
    const passive = fault.catches.filter((c) => PASSIVE.some((p) => p.id === catchOf(c).check));
    it(`${name}: the proxy reports ${passive.map(describeCatch).join(', ')}, and drift on its recording the same`, async () => {
      const server = await startFaultyServer(name, { ...LIMITS, ...fault.options, rateLimit: 1e6 });
      let traffic: Traffic;
      try {
        traffic = await throughProxy(server, spec, [...new Set(passive.map((c) => suiteOf(catchOf(c).check)))]);
      } finally {
        await server.close();
      }
      for (const { code, report } of [traffic.proxy, traffic.drift]) {
        for (const c of passive) expect(caughtBy(report.results, c), describeCatch(c)).not.toEqual([]);
        expect(code).toBe(1);
      }
      expect(statuses(traffic.drift.report)).toEqual(statuses(traffic.proxy.report));
      expect(traffic.drift.err).toBe('');
    });
  }
});
