/**
 * Findings as data: a baseline signature and a SARIF location are read from a failure's `kind`
 * and `field`, never from its wording. A run against faulty servers, then the same report with
 * every `expected`, `actual` and `message` rewritten to "x": the signatures and the locations do
 * not move. A report written before `kind` existed is still read, through its prose (legacy).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingsOf } from '../../../src/baseline/apply.js';
import { signatureOf } from '../../../src/baseline/file.js';
import { kindsOfResult } from '../../../src/baseline/kind.js';
import { buildSarif } from '../../../src/reporters/sarif.js';
import type { CheckResult, RunReport } from '../../../src/results/model.js';
import { specLocator } from '../../../src/spec/source.js';
import { runIds, startTarget, type Target } from '../../helpers/checks.js';

const RUNS: ReadonlyArray<readonly [fault: string, check: string]> = [
  ['range-max-concurrency-above-max', 'ranges.max-concurrency-above-maximum'],
  ['call-duration-string', 'schema.response-conforms'],
  ['error-422-wrong-shape', 'validation.wrong-type'],
];

const reportOf = (results: CheckResult[]): RunReport =>
  ({
    tool: { name: 'voice-agent-contract', version: '0.0.0' },
    spec_version: '2.0.1',
    target: 'http://127.0.0.1:1',
    seed: 7,
    summary: { passed: 0, failed: 0, skipped: 0, errors: 0, requests: 0, duration_ms: 0, observations: 0 },
    results,
    observations: [],
    config: {},
  }) as unknown as RunReport;

/** Every wording a person reads, replaced by "x". */
function reworded(results: CheckResult[]): CheckResult[] {
  return results.map((r) => ({
    ...r,
    message: 'x',
    failures: r.failures?.map((f) => ({ ...f, expected: 'x', actual: 'x' })),
  }));
}

/** What a consumer reads from a report: baseline signatures, and each SARIF result's locations. */
function readings(results: CheckResult[]) {
  const locator = specLocator();
  const sarif = buildSarif(reportOf(results), { locator });
  return {
    signatures: findingsOf({ results }).map(signatureOf).sort(),
    locations: sarif.runs[0]!.results!.map((r) => ({
      rule: r.ruleId,
      at: r.locations!.map((l) => `${l.physicalLocation?.artifactLocation?.uri}:${l.physicalLocation?.region?.startLine}`),
      fingerprint: r.partialFingerprints,
    })),
  };
}

describe('findings as data', () => {
  let results: CheckResult[] = [];
  const targets: Target[] = [];

  beforeAll(async () => {
    const runs = await Promise.all(
      RUNS.map(async ([fault, check]) => {
        const target = await startTarget({ fault });
        targets.push(target);
        return (await runIds(target, [check], { runs: 3 })).results;
      }),
    );
    results = runs.flat();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(targets.map((t) => t.close()));
  });

  it('every failure of the shipped judges carries a kind, and the field it is about where it has one', () => {
    const failed = results.filter((r) => r.status === 'failed');
    expect(new Set(failed.map((r) => r.id))).toEqual(new Set(RUNS.map(([, check]) => check)));
    const failures = failed.flatMap((r) => r.failures ?? []);
    expect(failures.every((f) => typeof f.kind === 'string')).toBe(true);
    const byCheck = (id: string) => failed.filter((r) => r.id === id).flatMap((r) => r.failures ?? []);
    expect(byCheck('ranges.max-concurrency-above-maximum').map((f) => [f.kind, f.field])).toContainEqual([
      'accepted-invalid',
      { location: 'body', pointer: '/max_concurrency' },
    ]);
    expect(byCheck('schema.response-conforms').map((f) => [f.kind, f.field?.location, f.field?.pointer])).toContainEqual([
      'schema',
      'response',
      '/0/duration_seconds',
    ]);
    expect(byCheck('validation.wrong-type').every((f) => f.kind === 'validation-body' && f.field !== undefined)).toBe(true);
  });

  it('renaming every message leaves the baseline signatures and the SARIF locations unchanged', () => {
    const before = readings(results);
    // Not trivially equal: signatures name fields, and some results sit on a field's line.
    expect(before.signatures.some((s) => s.includes('schema response /*/duration_seconds'))).toBe(true);
    expect(before.signatures.some((s) => s.endsWith('status:2xx'))).toBe(true);
    expect(before.locations.length).toBeGreaterThan(2);
    const after = readings(reworded(results));
    expect(after).toEqual(before);
  });

  it('a signature moves when the kind or the field does (it is read from them)', () => {
    const one = results.find((r) => r.id === 'schema.response-conforms' && r.status === 'failed')!;
    const f = one.failures![0]!;
    const moved = (change: object) => kindsOfResult({ ...one, failures: [{ ...f, ...change }] });
    expect(moved({})).toEqual(['schema response /*/duration_seconds']);
    expect(moved({ field: { ...f.field!, pointer: '/0/to_number' } })).toEqual(['schema response /*/to_number']);
    expect(moved({ kind: 'content-type', field: undefined })).toEqual(['content-type']);
  });

  it('reads a report written before kind and field existed through its wording (legacy)', () => {
    const legacy = results.map((r) => ({ ...r, failures: r.failures?.map(({ kind: _k, field: _f, ...rest }) => rest) }));
    const now = readings(results);
    const old = readings(legacy);
    // The status findings keep their old signature; a schema issue is read as the old wording put it.
    const statusNow = now.signatures.filter((s) => /status:\dxx$/.test(s));
    expect(statusNow.length).toBeGreaterThan(0);
    for (const s of statusNow) expect(old.signatures).toContain(s);
    expect(old.signatures.some((s) => s.endsWith('body /*/duration_seconds must be integer or null'))).toBe(true);
    // SARIF finds the same lines from the old wording.
    expect(old.locations.map((l) => l.at)).toEqual(now.locations.map((l) => l.at));
    // And the old wording is really read: renamed, the legacy report loses its field locations.
    const oldRenamed = readings(reworded(legacy));
    expect(oldRenamed.signatures).not.toEqual(old.signatures);
  });
});
