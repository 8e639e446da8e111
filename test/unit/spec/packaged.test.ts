import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocument, loadSpec } from '../../../src/spec/load.js';
import type { OpenAPIDocument } from '../../../src/spec/model.js';
import { packagedSpecText, readPackagedDocument } from '../../../src/spec/packaged.js';

const doc = { openapi: '3.1.0', info: { title: 't', version: '1.0.0' }, paths: {} } as OpenAPIDocument;

describe('the packaged spec (validated by the build, read by runs)', () => {
  let dir: string;
  let specFile: string;
  let artefact: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vapc-packaged-'));
    specFile = join(dir, 'spec', 'openapi.yaml');
    await mkdir(join(dir, 'spec', 'components'), { recursive: true });
    await writeFile(specFile, 'openapi: 3.1.0\n');
    await writeFile(join(dir, 'spec', 'components', 'a.yaml'), 'type: string\n');
    artefact = join(dir, 'packaged.json');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is read while the spec folder is the one the build validated', async () => {
    await writeFile(artefact, packagedSpecText(doc, specFile));
    expect(readPackagedDocument(artefact, specFile)).toEqual(doc);
  });

  it('is ignored once any file of the spec folder changed since the build', async () => {
    await writeFile(artefact, packagedSpecText(doc, specFile));
    await writeFile(join(dir, 'spec', 'components', 'a.yaml'), 'type: integer\n');
    expect(readPackagedDocument(artefact, specFile)).toBeUndefined();
  });

  it('is ignored when missing or unreadable', async () => {
    expect(readPackagedDocument(join(dir, 'absent.json'), specFile)).toBeUndefined();
    await writeFile(artefact, '{"format": 1, "spec_hash": ');
    expect(readPackagedDocument(artefact, specFile)).toBeUndefined();
  });

  it('is the very document the meta-validating load returns (the build wrote it from that load)', async () => {
    const packaged = readPackagedDocument();
    expect(packaged).toBeDefined();
    expect(packaged).toEqual(JSON.parse(JSON.stringify(await loadDocument())));
    expect((await loadSpec()).operations.length).toBeGreaterThan(10);
  });

  it('never stands in for a spec named by path: that one is validated', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'openapi: 3.1.0\ninfo: {title: t}\npaths: {}\n');
    await expect(loadSpec({ path: bad })).rejects.toMatchObject({ code: 'E_SPEC_INVALID' });
  });
});
