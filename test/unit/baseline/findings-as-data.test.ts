/**
 * Findings as data: a baseline signature and a SARIF location are read from a failure's `kind`
 * and `field`, never from its wording. A run against faulty servers, then the same report with
 * every `expected`, `actual` and `message` rewritten to "x": the signatures and the locations do
 * not move. Then the wording is renamed at its source: the same checks run again with every text
 * a check or judge writes replaced by "x" before the context records the failure (so no step
 * after it, the runner's or a reporter's, can read the original prose): the same again. A report
 * written before `kind` existed is still read, through its prose (legacy), and only the legacy
 * reader and the two consumers of its answers import it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingsOf } from '../../../src/baseline/apply.js';
import type { CheckDefinition, CheckContext } from '../../../src/checks/check.js';
import { validateWireRequest } from '../../../src/checks/wire.js';
import { runConformance } from '../../../src/runner/conformance.js';
import { referenceSpec } from '../../../src/server/index.js';
import { checkById } from '../../../suites/index.js';
import { profile } from '../../../suites/profile.js';
import { signatureOf } from '../../../src/baseline/file.js';
import { kindsOfResult } from '../../../src/baseline/kind.js';
import { buildSarif } from '../../../src/reporters/sarif.js';
import type { CheckResult, RunReport } from '../../../src/results/model.js';
import { specLocator } from '../../../src/spec/source.js';
import type { Operation } from '../../../src/spec/model.js';
import type { Exchange } from '../../../src/transport/types.js';
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
      at: r.locations!.map(
        (l) => `${l.physicalLocation?.artifactLocation?.uri}:${l.physicalLocation?.region?.startLine}`,
      ),
      fingerprint: r.partialFingerprints,
    })),
  };
}

/**
 * The check with its wording renamed at the source: every `expected`/`actual` it (or a judge it
 * calls) hands the context is "x" before the failure is recorded, and its outcome's message is "x".
 */
function renamedAtSource(check: CheckDefinition): CheckDefinition {
  const renamedContext = (ctx: CheckContext): CheckContext =>
    Object.create(ctx, {
      failure: {
        value: (exchange: Parameters<CheckContext['failure']>[0], details: Parameters<CheckContext['failure']>[1]) =>
          ctx.failure(exchange, { ...details, expected: 'x', actual: 'x' }),
      },
    });
  const { judgeExchange } = check;
  return {
    ...check,
    async run(ctx: CheckContext, op) {
      const outcome = await check.run(renamedContext(ctx), op);
      return { ...outcome, message: 'x' };
    },
    // A passive check judges other checks' answers with the runner's context: renamed there too.
    ...(judgeExchange
      ? {
          judgeExchange: (ctx: CheckContext, op: Operation, exchange: Exchange) => {
            const judged = judgeExchange(renamedContext(ctx), op, exchange);
            return judged && !judged.ok ? { ...judged, summary: 'x' } : judged;
          },
        }
      : {}),
  };
}

/** A run of the checks, each renamed at its source, against a target (as runIds runs them). */
async function runRenamed(target: Target, ids: string[]): Promise<CheckResult[]> {
  const checks = ids.map((id) => renamedAtSource(checkById(id)));
  const f = target.server.fixtures;
  const { report } = await runConformance({
    baseUrl: target.server.url,
    checks,
    profile,
    suites: [...new Set(checks.map((c) => c.suite))],
    spec: await referenceSpec(),
    seed: 7,
    runs: 3,
    credentials: { apiKey: f.api_key, userId: f.user_id },
    fixtures: {
      org_id: f.org_id,
      recipient_list_id: f.recipient_list_id,
      api_key_id: f.api_key_id,
      channels: [...f.channels],
    },
    validateRequest: validateWireRequest,
  });
  return report.results;
}

describe('findings as data', () => {
  let results: CheckResult[] = [];
  let renamed: CheckResult[] = [];
  const targets: Target[] = [];

  beforeAll(async () => {
    const runs = await Promise.all(
      RUNS.map(async ([fault, check]) => {
        const target = await startTarget({ fault });
        targets.push(target);
        // The same checks twice on one target, the second time with every failure text renamed at its source.
        return [(await runIds(target, [check], { runs: 3 })).results, await runRenamed(target, [check])] as const;
      }),
    );
    results = runs.flatMap(([plain]) => plain);
    renamed = runs.flatMap(([, r]) => r);
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
    expect(
      byCheck('schema.response-conforms').map((f) => [f.kind, f.field?.location, f.field?.pointer]),
    ).toContainEqual(['schema', 'response', '/0/duration_seconds']);
    expect(byCheck('validation.wrong-type').every((f) => f.kind === 'validation-body' && f.field !== undefined)).toBe(
      true,
    );
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

  it('renaming every failure text at its source, before the failure is recorded, leaves them unchanged too', () => {
    const failures = renamed.flatMap((r) => r.failures ?? []);
    // The texts really were renamed: no original wording is left in the run.
    expect(failures.length).toBeGreaterThan(2);
    expect(failures.filter((f) => f.expected !== 'x' || f.actual !== 'x').map((f) => [f.expected, f.actual])).toEqual(
      [],
    );
    const failed = renamed.filter((r) => r.status === 'failed');
    expect(failed.length).toBeGreaterThan(2);
    // A passive check's result names whose request it judged, after its own (renamed) words.
    expect(
      failed
        .filter((r) => r.message.replace(/ \(judged on the answer to a request of [^)]*\)$/, '') !== 'x')
        .map((r) => `${r.id} ${r.message}`),
    ).toEqual([]);
    expect(readings(renamed)).toEqual(readings(results));
  });

  it('only the legacy reader reads failure prose: nothing but baseline kinds and SARIF fields imports it', () => {
    const root = join(import.meta.dirname, '../../..');
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory()
          ? e.name === 'generated'
            ? []
            : files(join(dir, e.name))
          : e.name.endsWith('.ts')
            ? [join(dir, e.name)]
            : [],
      );
    const importers = [...files('src'), ...files('suites')].filter((f) =>
      /from '[./]+(?:results\/)?legacy\.js'/.test(readFileSync(join(root, f), 'utf8')),
    );
    expect(importers.map((f) => relative(root, join(root, f))).sort()).toEqual([
      'src/baseline/kind.ts',
      'src/reporters/sarif.ts',
    ]);
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
    const legacy = results.map((r) => ({
      ...r,
      failures: r.failures?.map(({ kind: _k, field: _f, ...rest }) => rest),
    }));
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
