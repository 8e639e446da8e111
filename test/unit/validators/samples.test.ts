import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { manifest, schemaNames, validate } from '../../../src/validators/index.js';
import * as precompiled from '../../../src/generated/validators.js';
import { compileAtRuntime } from '../../../src/validators/compile.js';
import { checkSamples, loadSamples } from '../../samples/check-samples.mjs';

const samplesDir = join(import.meta.dirname, '..', '..', 'samples');

describe('hand-written samples of every component schema', () => {
  it('cover every component schema of the contract', () => {
    expect(
      loadSamples(samplesDir)
        .map((f) => f.schema)
        .sort(),
    ).toEqual([...schemaNames()].sort());
    for (const file of loadSamples(samplesDir)) {
      expect(file.valid.length, file.schema).toBeGreaterThan(0);
      expect(file.invalid.length, file.schema).toBeGreaterThan(0);
    }
  });

  it('get the verdict, pointer and rule the contract implies', () => {
    const r = checkSamples(validate, samplesDir);
    expect(r.problems).toEqual([]);
    expect(r.checked).toBeGreaterThan(100);
  });

  it('would notice a validator that accepts everything', () => {
    const r = checkSamples(() => ({ ok: true }), samplesDir);
    expect(r.problems.length).toBeGreaterThan(50);
  });
});

describe('precompiled validators agree with AJV compiled at run time from the spec', () => {
  type Fn = ((data: unknown) => boolean) & { errors?: { instancePath: string; keyword: string }[] | null };
  let runtime: Record<string, Fn>;
  beforeAll(async () => {
    runtime = (await compileAtRuntime()).validators as Record<string, Fn>;
  });

  it('compile the same set of validators', () => {
    expect(Object.keys(runtime).sort()).toEqual(Object.keys(precompiled).sort());
  });

  it('give the same verdicts and errors on arbitrary JSON and on every sample (seed 20260101)', () => {
    const samples = loadSamples(samplesDir).flatMap((f) =>
      [...f.valid, ...f.invalid].map((s) => [manifest.schemas[f.schema] as string, s.value] as const),
    );
    const names = Object.keys(runtime);
    const compare = (name: string, value: unknown): void => {
      const a = (precompiled as unknown as Record<string, Fn>)[name] as Fn;
      const b = runtime[name] as Fn;
      const va = a(value);
      const ea = (a.errors ?? []).map((e) => `${e.instancePath}:${e.keyword}`);
      const vb = b(value);
      const eb = (b.errors ?? []).map((e) => `${e.instancePath}:${e.keyword}`);
      expect(va, name).toBe(vb);
      expect(ea, name).toEqual(eb);
    };
    for (const [name, value] of samples) compare(name, value);
    fc.assert(
      fc.property(fc.constantFrom(...names), fc.jsonValue({ maxDepth: 3 }), (name, value) => compare(name, value)),
      { seed: 20260101, numRuns: 2000 },
    );
  });
});
