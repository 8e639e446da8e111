// npm run bench -- diff: `vapc diff` on two versions of this spec, end to end (a fresh process:
// load, validate and dereference both, compare, print JSON), target under 2 s; and the comparison
// alone on two loaded documents. Needs `npm run build` (npm run bench runs it).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { diffDocuments } from '../src/diff/index.js';
import { packageRoot, paths } from '../src/paths.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A second version of the spec: a few changes of each kind, made to a copy of the bundle. */
function nextVersion(): Record<string, any> {
  const d = JSON.parse(readFileSync(paths.bundledJson, 'utf8'));
  d.info.version = '3.0.0';
  d.components.schemas.CampaignCreate.properties.max_concurrency.maximum = 100;
  delete d.components.schemas.Campaign.allOf[1].properties.assistant_name;
  d.components.schemas.CampaignUpdated.properties.status.enum.push('archived');
  d.paths['/calls'].get.parameters.push({ name: 'since', in: 'query', required: true, schema: { type: 'string' } });
  delete d.paths['/protected'];
  return d;
}

const dir = mkdtempSync(join(tmpdir(), 'vapc-bench-diff-'));
try {
  const head = join(dir, 'next.json');
  writeFileSync(head, JSON.stringify(nextVersion(), null, 2));
  const cases: Array<[string, string[]]> = [
    ['bundle 2.0.1 -> edited 3.0.0', ['diff', paths.bundledJson, head, '--format', 'json']],
    ['git HEAD:spec/ -> split spec/ (working tree)', ['diff', 'HEAD', 'spec/openapi.yaml', '--format', 'json']],
  ];
  for (const [name, args] of cases) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const run = spawnSync(process.execPath, [join(packageRoot, 'bin', 'vapc.js'), ...args], {
        cwd: packageRoot,
        encoding: 'utf8',
      });
      times.push(performance.now() - t);
      if (run.status === 2) throw new Error(`vapc diff failed: ${run.stderr}`);
    }
    const ms = median(times);
    console.log(
      `vapc diff, ${name}: median ${ms.toFixed(0)} ms of 5 runs (target < 2000 ms: ${ms < 2000 ? 'met' : 'NOT met'})`,
    );
  }
  const a = await SwaggerParser.dereference(JSON.parse(readFileSync(paths.bundledJson, 'utf8')));
  const b = await SwaggerParser.dereference(nextVersion() as never);
  const runs: number[] = [];
  let changes = 0;
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    changes = diffDocuments(a as never, b as never).length;
    runs.push(performance.now() - t);
  }
  console.log(`comparison alone (two loaded documents, ${changes} changes): median ${median(runs).toFixed(1)} ms`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
