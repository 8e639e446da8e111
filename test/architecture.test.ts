import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { profile } from '../suites/profile.js';
import { ownSources } from './helpers/source-files.js';

/**
 * The import map of src/ and suites/ against the layer table of ARCHITECTURE.md: every relative
 * import must point to the file's own layer or to one its row allows, and no file may reach
 * itself again through its imports (no circle, type-only imports included).
 */
const ROOT = process.cwd();

interface Layer {
  name: string;
  paths: string[];
  mayImport: Set<string>;
  /** With "everything but `x`": the layers it may still not import. */
  except: Set<string>;
}

/** Rows of the table: | `name` | `path`, `path` | `layer`, `layer` (or "everything", or "everything but `layer`") | */
function readLayers(): Layer[] {
  const text = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const layers: Layer[] = [];
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !/^`[a-z-]+`$/.test(cells[1]!)) continue;
    const ticks = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const all = cells[3]!.startsWith('everything');
    layers.push({
      name: cells[1]!.slice(1, -1),
      paths: ticks(cells[2]!),
      mayImport: new Set(all ? ['*'] : ticks(cells[3]!)),
      except: new Set(all ? ticks(cells[3]!) : []),
    });
  }
  return layers;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((m) =>
    relative(ROOT, resolve(dirname(join(ROOT, file)), (m[1] ?? m[2])!)).replace(/\.js$/, '.ts'),
  );
}

function layerOf(file: string, layers: Layer[]): Layer | undefined {
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of layers) {
    for (const p of layer.paths) {
      const match = p.endsWith('/') ? file.startsWith(p) : file === p;
      if (match && (!best || p.length > best.length)) best = { layer, length: p.length };
    }
  }
  return best?.layer;
}

const layers = readLayers();
const files = ownSources(ROOT);
const graph = new Map(
  files.map((f) => [f, importsOf(f).filter((t) => t.startsWith('src/') || t.startsWith('suites/'))]),
);

/** The imports that break the table: `file (layer) -> target (layer)`. */
function violations(edges: ReadonlyMap<string, readonly string[]>): string[] {
  const broken: string[] = [];
  for (const [file, targets] of edges) {
    const from = layerOf(file, layers);
    if (!from) continue;
    for (const target of targets) {
      const to = layerOf(target, layers);
      if (!to || to === from || (from.mayImport.has('*') && !from.except.has(to.name)) || from.mayImport.has(to.name))
        continue;
      broken.push(`${file} (${from.name}) -> ${target} (${to.name})`);
    }
  }
  return broken;
}

/** Groups of files that import each other in a circle (Tarjan's strongly connected components). */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) circles.push(scc.sort());
    }
  };
  for (const f of graph.keys()) if (!idx.has(f)) visit(f);
  return circles;
}

describe('architecture: every import points down (ARCHITECTURE.md)', () => {
  it('the table names layers, and every file of src/ and suites/ belongs to one', () => {
    expect(layers.length).toBeGreaterThan(8);
    expect(files.filter((f) => !layerOf(f, layers))).toEqual([]);
  });

  it('no import breaks the table', () => {
    expect(violations(graph)).toEqual([]);
  });

  it('no circle: no file reaches itself through its imports', () => {
    expect(circlesOf(graph)).toEqual([]);
    expect(
      circlesOf(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

  it('the check fails on planted upward imports (it can fail)', () => {
    const planted = new Map([
      ['src/runner/run.ts', ['suites/index.ts']],
      ['src/results/model.ts', ['src/spec/model.ts']],
      ['src/server/index.ts', ['src/generators/index.ts']],
      ['src/entries/runner.ts', ['src/cli/main.ts']],
    ]);
    expect(violations(planted)).toEqual([
      'src/runner/run.ts (runner) -> suites/index.ts (suites)',
      'src/results/model.ts (model) -> src/spec/model.ts (spec)',
      'src/server/index.ts (server) -> src/generators/index.ts (generators)',
      'src/entries/runner.ts (entries) -> src/cli/main.ts (cli)',
    ]);
  });

  it("no file of src/ names one of this contract's suites: the profile (suites/profile.ts) lists them, their order and the burst", () => {
    const names = profile.suites.map((s) => s.name);
    expect(names.length).toBeGreaterThan(5);
    // `schema` is also a word of OpenAPI (a parameter's schema) and `workflows` one of Arazzo (a document's
    // workflows, report.json's member of them): only the other names are searched for as such, and these
    // two as a suite wherever a suite is compared.
    const asString = new RegExp(`['"\`](${names.filter((n) => n !== 'schema' && n !== 'workflows').join('|')})['"\`]`);
    const compared = new RegExp(`suite\\)?\\s*[!=]==\\s*['"\`](${names.join('|')})['"\`]`);
    const named = files
      .filter((f) => f.startsWith('src/') && !f.startsWith('src/generated/'))
      .filter((f) => {
        const text = readFileSync(join(ROOT, f), 'utf8');
        return asString.test(text) || compared.test(text);
      });
    expect(named).toEqual([]);
    expect(profile.suites.filter((s) => s.burst).map((s) => s.name)).toEqual(['ratelimit']);
  });

  it("the runner and the check toolkit name none of this contract's operations: the profile (suites/profile.ts) does", () => {
    const ids = [
      ...readFileSync(join(ROOT, 'spec', 'openapi.yaml'), 'utf8').matchAll(/^\s+operationId:\s*(\w+)/gm),
    ].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(5);
    const generic = files.filter((f) => f.startsWith('src/runner/') || f.startsWith('src/checks/'));
    const named = generic.flatMap((f) =>
      ids
        .filter((id) => new RegExp(`['"\`]${id}['"\`]`).test(readFileSync(join(ROOT, f), 'utf8')))
        .map((id) => `${f}: ${id}`),
    );
    expect(named).toEqual([]);
    expect(ids.some((id) => readFileSync(join(ROOT, 'suites', 'profile.ts'), 'utf8').includes(`'${id}'`))).toBe(true);
  });
});
