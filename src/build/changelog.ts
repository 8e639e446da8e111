import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { diffDocuments, RULES, type Change } from '../diff/index.js';
import { loadSpecSource } from '../diff/source.js';
import type { JsonObject } from '../diff/types.js';
import { VapcError } from '../errors.js';
import { packageRoot, paths } from '../paths.js';
import { DOCS_CSP } from './redocly.js';
import { readCheckoutFile, shownName } from '../files/checkout.js';

/** One authored entry of spec/changelog/<version>.yaml. */
export interface ChangelogEntry {
  version: string;
  date?: string;
  summary?: string;
  changes?: string[];
}

/** One version on the page: its authored entry and/or the classified changes from the version before. */
export interface ChangelogSection {
  version: string;
  previous?: string;
  entry?: ChangelogEntry;
  changes?: Change[];
}

export const changelogDir = join(packageRoot, 'spec', 'changelog');
export const changelogHtml = join(paths.distDir, 'docs', 'changelog.html');

/** Reads spec/changelog/*.yaml; a file without a version is a build error naming the file. */
export function readChangelogEntries(dir: string = changelogDir): ChangelogEntry[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => {
      // A file of the checkout: read by the one reader (no link out of the folder, capped), no YAML warning printed.
      const text = readCheckoutFile(join(dir, f), {
        label: `changelog entry ${shownName(f)}`,
        maxBytes: 256 * 1024,
        code: 'E_SPEC_REFUSED',
        within: dir,
      });
      const entry = parse(text, { logLevel: 'error', prettyErrors: false }) as Partial<ChangelogEntry> | null;
      if (!entry || typeof entry.version !== 'string')
        throw new VapcError('E_SPEC_INVALID', `${join(dir, f)}: a changelog entry needs a \`version\` string`);
      return { ...entry, version: entry.version, changes: (entry.changes ?? []).map(String) };
    });
}

const semver = (v: string): number[] => /(\d+)\.(\d+)\.(\d+)/.exec(v)?.slice(1).map(Number) ?? [0, 0, 0];
export const compareVersions = (a: string, b: string): number => {
  const [x, y] = [semver(a), semver(b)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
};

/** Versions with a document (from git tags), oldest first, each diffed against the one before; merged with the authored entries; newest first. */
export function changelogSections(
  entries: readonly ChangelogEntry[],
  versions: ReadonlyArray<{ version: string; document: JsonObject }>,
): ChangelogSection[] {
  const byVersion = new Map<string, ChangelogSection>();
  for (const e of entries) byVersion.set(e.version, { version: e.version, entry: e });
  const ordered = [...versions].sort((a, b) => compareVersions(a.version, b.version));
  ordered.forEach((v, i) => {
    const section = byVersion.get(v.version) ?? { version: v.version };
    const before = ordered[i - 1];
    if (before) {
      section.previous = before.version;
      section.changes = diffDocuments(before.document, v.document);
    }
    byVersion.set(v.version, section);
  });
  return [...byVersion.values()].sort((a, b) => compareVersions(b.version, a.version));
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Inline `code` spans of the entries and messages, escaped first. */
const prose = (s: string): string => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

const GROUPS = [
  { title: 'Breaking for clients: update your integration', test: (c: Change) => c.level === 'breaking' },
  {
    title: 'Implementations must change',
    test: (c: Change) => c.level === 'warning' && c.breaks.includes('implementations'),
  },
  { title: 'Worth checking', test: (c: Change) => c.level === 'warning' && !c.breaks.includes('implementations') },
  { title: 'Additions', test: (c: Change) => c.level === 'info' && RULES[c.id].bump === 'minor' },
  { title: 'Documentation', test: (c: Change) => c.level === 'info' && RULES[c.id].bump === 'patch' },
];

function renderChanges(changes: readonly Change[]): string {
  if (changes.length === 0) return '<p>No change to the contract.</p>';
  return GROUPS.map((g) => {
    const list = changes.filter(g.test);
    if (list.length === 0) return '';
    const items = list.map(
      (c) =>
        `<li><strong>${esc(c.operation || 'Whole API')}</strong>: ${prose(c.message)}. <span class="why">${esc(RULES[c.id].summary)}</span></li>`,
    );
    return `<h3>${esc(g.title)}</h3><ul>${items.join('')}</ul>`;
  }).join('');
}

function renderSection(s: ChangelogSection): string {
  const date = s.entry?.date ? ` <span class="date">${esc(String(s.entry.date))}</span>` : '';
  const parts = [`<section id="v${esc(s.version)}"><h2>${esc(s.version)}${date}</h2>`];
  if (s.entry?.summary) parts.push(`<p>${prose(s.entry.summary)}</p>`);
  if (s.entry?.changes?.length) parts.push(`<ul>${s.entry.changes.map((c) => `<li>${prose(c)}</li>`).join('')}</ul>`);
  if (s.changes) parts.push(`<h3 class="since">Changes since ${esc(s.previous ?? '')}</h3>${renderChanges(s.changes)}`);
  parts.push('</section>');
  return parts.join('\n');
}

/** The self-contained page: inline style, no script, the same no-fetch CSP as the reference. */
export function renderChangelogHtml(title: string, sections: readonly ChangelogSection[]): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8" />
<meta http-equiv="Content-Security-Policy" content="${DOCS_CSP}" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<title>${esc(title)}: changelog</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
h2{border-bottom:1px solid #ddd;padding-bottom:.2rem}.date{font-size:.8em;color:#666;font-weight:normal}
.why{color:#555;font-size:.9em}code{background:#f3f3f3;padding:0 .2em;border-radius:3px}</style>
</head><body>
<p><a href="index.html">← API reference</a></p>
<h1>${esc(title)}: changelog</h1>
${sections.length === 0 ? '<p>No version recorded yet.</p>' : sections.map(renderSection).join('\n')}
</body></html>
`;
}

/** Git tags that name a version (v2.1.0, spec-v2.1.0, 2.1.0), as [tag, version]. */
function versionTags(repo: string): Array<[string, string]> {
  const run = spawnSync('git', ['tag', '--list'], { cwd: repo, encoding: 'utf8' });
  if (run.status !== 0) return [];
  return run.stdout
    .split('\n')
    .map((t) => t.trim())
    .flatMap((t): Array<[string, string]> => {
      const m = /^(?:spec-)?v?(\d+\.\d+\.\d+)$/.exec(t);
      return m ? [[t, m[1]!]] : [];
    });
}

/** The tree a tag points to (undefined when git cannot say). */
function treeOf(tag: string, repo: string): string | undefined {
  const run = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${tag}^{tree}`], { cwd: repo, encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() || undefined : undefined;
}

/** The bundled spec of a revision (undefined when it has none that loads). */
async function specAt(revision: string, repo: string): Promise<JsonObject | undefined> {
  const source = await loadSpecSource(revision, repo).catch(() => undefined);
  if (!source) return undefined;
  const document = source.document;
  source.dispose();
  return document;
}

/**
 * Loads the spec of each version tag and of the working tree (when its version is new), for
 * changelogSections. A tag counts only when the spec it holds has the version it names: the
 * toolkit's own release tags (v0.1.0: docs/releasing.md) share the `v` form, and hold spec 2.0.1.
 */
export async function taggedVersions(
  current: JsonObject,
  repo: string = packageRoot,
): Promise<Array<{ version: string; document: JsonObject }>> {
  const out: Array<{ version: string; document: JsonObject }> = [];
  // Tags of one tree (a spec version and a toolkit release at the same commit) hold one spec: loaded once.
  const byTree = new Map<string, JsonObject | undefined>();
  for (const [tag, version] of versionTags(repo)) {
    const tree = treeOf(tag, repo) ?? tag;
    if (!byTree.has(tree)) byTree.set(tree, await specAt(tag, repo));
    const document = byTree.get(tree);
    if (document && String((document['info'] as JsonObject | undefined)?.['version']) === version)
      out.push({ version, document });
  }
  const version = String((current['info'] as JsonObject | undefined)?.['version'] ?? '');
  if (out.length > 0 && !out.some((v) => v.version === version)) out.push({ version, document: current });
  return out;
}

/** Writes dist/docs/changelog.html from spec/changelog/ and the version tags; returns its size. */
export async function buildChangelog(
  current: JsonObject,
  output: string = changelogHtml,
): Promise<{ htmlPath: string; bytes: number; versions: number }> {
  const sections = changelogSections(readChangelogEntries(), await taggedVersions(current));
  const title = String((current['info'] as JsonObject | undefined)?.['title'] ?? 'API');
  const html = renderChangelogHtml(title, sections);
  await writeFile(output, html);
  return { htmlPath: output, bytes: Buffer.byteLength(html), versions: sections.length };
}

/** A link from the reference page to the changelog, placed before Redoc's root element. */
export function linkChangelog(indexHtml: string): string {
  if (indexHtml.includes('id="vapc-changelog-link"')) return indexHtml;
  const link =
    '<a id="vapc-changelog-link" href="changelog.html" style="position:fixed;top:.5rem;right:1rem;z-index:1000;background:#fff;padding:.2rem .6rem;border:1px solid #ccc;border-radius:4px;font:14px system-ui,sans-serif">Changelog</a>';
  return indexHtml.replace(/<body([^>]*)>/i, (m) => `${m}\n${link}`);
}
