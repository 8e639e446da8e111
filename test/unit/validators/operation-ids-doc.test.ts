// docs/validators.md lists every operationId of the contract, in the spec's order, with its method
// and path: the table between the operation-ids markers is compared with one made from the bundled
// spec (dist/openapi.json) and with the generated OperationId union's manifest. On a mismatch the
// failure shows the table to paste.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { manifest } from '../../../src/generated/manifest.js';
import { operationIds } from '../../../src/index.js';
import { packageRoot, paths } from '../../../src/paths.js';

function tableFromSpec(): string {
  const spec = JSON.parse(readFileSync(paths.bundledJson, 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  const rows = ['| operationId | method | path |', '| --- | --- | --- |'];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op && typeof op === 'object' && typeof op.operationId === 'string')
        rows.push(`| \`${op.operationId}\` | ${method.toUpperCase()} | \`${path}\` |`);
    }
  }
  return rows.join('\n');
}

function tableInDocs(): string {
  const page = readFileSync(join(packageRoot, 'docs', 'validators.md'), 'utf8');
  const found = /<!-- operation-ids:start -->\n([\s\S]*?)\n<!-- operation-ids:end -->/.exec(page);
  return found?.[1] ?? '';
}

describe('docs/validators.md lists the operation ids', () => {
  it('is the table made from the bundled spec', () => {
    expect(tableInDocs()).toBe(tableFromSpec());
  });

  it('names exactly the ids operationIds() returns and the manifest (hence the OperationId type) holds', () => {
    const listed = [...tableInDocs().matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual(operationIds());
    expect(listed).toEqual(Object.keys(manifest.operations));
    expect(listed.length).toBeGreaterThan(10);
  });
});
