import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import {
  changelogHtml,
  changelogSections,
  readChangelogEntries,
  renderChangelogHtml,
  taggedVersions,
} from '../../../src/build/changelog.js';
import type { JsonObject } from '../../../src/diff/types.js';
import { packageRoot } from '../../../src/paths.js';
import { DOCS_CSP, externalResources } from '../../../src/build/redocly.js';
import { paths } from '../../../src/paths.js';
import { base, dereference, variant } from '../../helpers/diff.js';

describe('changelog page (npm run build)', () => {
  it('dist/docs/changelog.html lists 2.0.1 from spec/changelog/, is self-contained and linked from the reference', () => {
    expect(existsSync(changelogHtml)).toBe(true);
    const html = readFileSync(changelogHtml, 'utf8');
    expect(html).toContain('<h2>2.0.1');
    expect(html).toContain('first version of the Voice-Agent Platform API');
    expect(html).toContain(`content="${DOCS_CSP}"`);
    expect(externalResources(html)).toEqual([]);
    expect(html).not.toMatch(/<script/i);
    expect(readFileSync(paths.docsHtml, 'utf8')).toMatch(/<a id="vapc-changelog-link" href="changelog\.html"/);
  });

  it('lists the classified changes between versions, newest first, in integrator language', async () => {
    const v210 = await dereference(
      variant((d) => {
        d.info.version = '2.1.0';
        d.components.schemas.CampaignCreate.properties.priority = { type: 'integer' };
      }),
    );
    const v300 = structuredClone(v210);
    v300.info.version = '3.0.0';
    delete v300.paths['/protected'];
    const sections = changelogSections(readChangelogEntries(), [
      { version: '3.0.0', document: v300 },
      { version: '2.0.1', document: await base() },
      { version: '2.1.0', document: v210 },
    ]);
    expect(sections.map((s) => s.version)).toEqual(['3.0.0', '2.1.0', '2.0.1']);
    const html = renderChangelogHtml('Voice-Agent Platform API', sections);
    expect(html.indexOf('Changes since 2.1.0')).toBeLessThan(html.indexOf('Changes since 2.0.1'));
    expect(html).toMatch(/Breaking for clients[^]*GET \/protected<\/strong>: GET \/protected was removed/);
    expect(html).toMatch(
      /Additions[^]*POST \/campaign<\/strong>: the request body: optional property <code>priority<\/code> added/,
    );
  });

  it('a changelog entry without a version is a build error naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vapc-changelog-'));
    try {
      await writeFile(join(dir, 'x.yaml'), 'summary: no version\n');
      expect(() => readChangelogEntries(dir)).toThrow(/x\.yaml: a changelog entry needs a `version`/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads a tag as a spec version only when the spec it holds has that version, not the toolkit's release tags", async () => {
    const repo = mkdtempSync(join(tmpdir(), 'vapc-changelog-tags-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    cpSync(join(packageRoot, 'spec'), join(repo, 'spec'), { recursive: true });
    git('add', '.');
    git('commit', '-qm', 'spec 2.0.1');
    git('tag', 'v2.0.1'); // the spec's version tag
    git('tag', 'v0.1.0'); // a toolkit release at the same commit: the spec in it is 2.0.1
    const current = { info: { version: '2.0.1' } } as unknown as JsonObject;
    const versions = await taggedVersions(current, repo);
    expect(versions.map((v) => v.version)).toEqual(['2.0.1']);
    await rm(repo, { recursive: true, force: true });
  }, 60_000);
});
