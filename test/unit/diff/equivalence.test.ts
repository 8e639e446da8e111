import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { diffDocuments } from '../../../src/diff/index.js';
import { loadDocument } from '../../../src/spec/load.js';
import { packageRoot, paths } from '../../../src/paths.js';
import { base, bundle, diffAgainstBase, variant, type Doc } from '../../helpers/diff.js';

/** Every object's keys in reverse order, recursively: the same document, written differently. */
function reversedKeys(value: Doc): Doc {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .reverse()
      .map((k) => [k, reversedKeys(value[k])]),
  );
}

describe('vapc diff: equivalent specs report nothing', () => {
  it('the same bundle: no change', async () => {
    expect(await diffAgainstBase(bundle())).toEqual([]);
  });

  it('keys reordered everywhere: no change', async () => {
    expect(await diffAgainstBase(reversedKeys(bundle()))).toEqual([]);
  });

  it('a $ref replaced by the schema inline: no change', async () => {
    const head = variant((d) => {
      d.paths['/campaign'].post.responses['200'].content['application/json'].schema = structuredClone(
        d.components.schemas.Campaign,
      );
      d.paths['/campaign'].post.requestBody.content['application/json'].schema = structuredClone(
        d.components.schemas.CampaignCreate,
      );
    });
    expect(await diffAgainstBase(head)).toEqual([]);
  });

  it('the authored split spec against its bundle (split differently): no change', async () => {
    const split = (await loadDocument({ path: paths.specSource })) as unknown as Doc;
    expect(diffDocuments(await base(), split)).toEqual([]);
  });

  it('the authored spec with a path item moved into its own file: no change', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vapc-diff-split-'));
    try {
      await cp(join(packageRoot, 'spec'), dir, { recursive: true });
      const root = parseDocument(await readFile(join(dir, 'openapi.yaml'), 'utf8'));
      const item = JSON.stringify(root.getIn(['paths', '/campaign/{campaign_id}']));
      await mkdir(join(dir, 'paths'));
      await writeFile(
        join(dir, 'paths', 'campaign_campaign-id.yaml'),
        stringify(JSON.parse(item.replaceAll('"#/components/', '"../openapi.yaml#/components/'))),
      );
      root.setIn(['paths', '/campaign/{campaign_id}'], root.createNode({ $ref: 'paths/campaign_campaign-id.yaml' }));
      await writeFile(join(dir, 'openapi.yaml'), root.toString());
      const split = (await loadDocument({ path: join(dir, 'openapi.yaml') })) as unknown as Doc;
      expect(diffDocuments(await base(), split)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('order of required, enum values, parameters and security alternatives: no change', async () => {
    const head = variant((d) => {
      d.components.schemas.Call.required.reverse();
      d.components.schemas.CampaignUpdate.properties.status.enum.reverse();
      d.paths['/calls'].get.parameters.reverse();
      d.paths['/health'].get.security.reverse();
    });
    expect(await diffAgainstBase(head)).toEqual([]);
  });

  it('type [T, "null"] written as anyOf [T, null]: no change', async () => {
    const head = variant((d) => {
      d.components.schemas.Campaign.allOf[1].properties.assistant_name = {
        anyOf: [{ type: 'string' }, { type: 'null' }],
      };
    });
    expect(await diffAgainstBase(head)).toEqual([]);
  });

  it('only info.version moves: no change', async () => {
    expect(await diffAgainstBase(variant((d) => (d.info.version = '2.0.2')))).toEqual([]);
  });

  it('descriptions only: nothing breaking, nothing to warn about', async () => {
    const changes = await diffAgainstBase(
      variant((d) => (d.components.schemas.Campaign.description = 'The campaign.')),
    );
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((c) => c.level === 'info' && c.breaks.length === 0)).toBe(true);
  });
});
