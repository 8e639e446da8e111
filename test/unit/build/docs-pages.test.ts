/**
 * The docs a newcomer reads stay true: README.md is short and starts with the two commands; every
 * relative link of README.md, docs/*.md and bench/RESULTS.md reaches a file (and an #anchor a
 * heading of it, by GitHub's slug rules), and every repository path quoted in a code span
 * (`src/...`, `test/...`, `scripts/...`) exists; no page suggests a bare `npx vapc`; docs/checks.md is what scripts/checks-doc.ts renders from
 * the registry; docs/interface.md names exactly the flags each command has.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/main.js';
import { packageRoot } from '../../../src/paths.js';
import { checksDoc, checksDocPath } from '../../../scripts/checks-doc.js';

const read = (file: string): string => readFileSync(file, 'utf8');
const docsDir = join(packageRoot, 'docs');
const pages = [
  join(packageRoot, 'README.md'),
  join(packageRoot, 'CHANGELOG.md'),
  join(packageRoot, 'bench', 'RESULTS.md'),
  ...readdirSync(docsDir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(docsDir, f)),
];

/** The text outside fenced code blocks and inline code (links there are examples, not links). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

/** The relative links of a page that lead nowhere: a missing file, or an anchor with no heading. */
function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const match of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const link = match[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: ...
    const [path = '', anchor] = link.split('#', 2);
    if (path === '') {
      if (anchor !== undefined && !headingSlugs(markdown).has(anchor)) broken.push(`${link}: no such heading`);
      continue;
    }
    const target = resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(target)) {
      broken.push(`${link}: no such file`);
      continue;
    }
    if (anchor !== undefined && target.endsWith('.md') && !headingSlugs(read(target)).has(anchor)) {
      broken.push(`${link}: no heading #${anchor} in ${relative(packageRoot, target)}`);
    } else if (anchor !== undefined && statSync(target).isDirectory()) {
      broken.push(`${link}: an anchor into a directory`);
    }
  }
  return broken;
}

/** Folders of the repository whose files the docs quote (dist/ and reports/ are outputs, not sources). */
const SOURCE_FOLDERS = ['src', 'test', 'scripts', 'suites', 'spec', 'bench', 'docs', 'packages', 'bin', '.github'];
/** Files of the repository's top level that docs quote by bare name (plus UPPER-CASE.md pages). */
const TOP_LEVEL_FILES = ['action.yml', 'redocly.yaml', 'package.json', 'package-lock.json', 'tsconfig.json'];

let mdNames: Set<string> | undefined;
/** The names of the repository's Markdown files (its top level and the source folders). */
function markdownNames(): Set<string> {
  mdNames ??= new Set(
    ['', ...SOURCE_FOLDERS].flatMap((folder) => {
      const dir = join(packageRoot, folder);
      if (!existsSync(dir)) return [];
      return (folder === '' ? readdirSync(dir) : readdirSync(dir, { recursive: true }).map(String))
        .filter((f) => f.endsWith('.md'))
        .map((f) => f.split('/').pop() as string);
    }),
  );
  return mdNames;
}

/**
 * The repository paths quoted in inline code spans (outside fences) that do not exist: a span that
 * is one path starting with a source folder (`test/e2e/package.test.ts`, `src/validators/`), or a
 * top-level file (`action.yml`), or a bare Markdown name (`interface.md`) no folder holds. Spans with placeholders (`*`, `{`, `<`, `X.Y.Z`)
 * or a generated folder (`src/generated/`) are patterns or outputs, not paths.
 */
function missingQuotedPaths(markdown: string): string[] {
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  const missing: string[] = [];
  for (const [, span = ''] of withoutFences.matchAll(/`([^`\n]+)`/g)) {
    const path = span.replace(/^\.\//, '').replace(/#.*$/, '').replace(/:\d+$/, '');
    if (/[*{}<>\s$]|X\.Y\.Z/.test(path) || path.startsWith('src/generated')) continue;
    const top = path.split('/')[0] ?? '';
    if (/^[\w.-]+\.md$/.test(path)) {
      // A page named bare (`interface.md`, `FINDINGS.md` of a folder the sentence names): it must exist somewhere.
      if (!markdownNames().has(path)) missing.push(path);
      continue;
    }
    const isPath = (SOURCE_FOLDERS.includes(top) && path.includes('/')) || TOP_LEVEL_FILES.includes(path);
    if (isPath && !existsSync(join(packageRoot, path))) missing.push(path);
  }
  return missing;
}

describe('paths quoted in code spans', () => {
  it.each(pages.map((p) => [relative(packageRoot, p), p]))('every repository path %s quotes exists', (_name, page) => {
    expect(missingQuotedPaths(read(page))).toEqual([]);
  });

  it('finds a quoted path that is gone, and leaves patterns, outputs and plain words alone', () => {
    const text = [
      '`test/nosuch.test.ts` `src/index.ts` `ARCHITECTURE.md` `GONE.md` `test/**/*.ts` `src/generated/types.ts`',
      '`--suite` `dist/docs/index.html` `vapc.yaml` `report.json` `FINDINGS.md` `runner-interface.md`',
      '```',
      '`test/fenced.ts`',
      '```',
    ].join('\n');
    expect(missingQuotedPaths(text)).toEqual(['test/nosuch.test.ts', 'GONE.md', 'runner-interface.md']);
  });
});

describe('no page suggests a bare `npx vapc`', () => {
  it.each(pages.map((p) => [relative(packageRoot, p), p]))(
    '%s runs the local binary (`npx --no-install vapc`)',
    (_name, page) => {
      // A bare `npx vapc` where the package is not installed fetches whatever the registry calls vapc.
      expect(
        read(page)
          .split('\n')
          .filter((line) => /\bnpx\s+vapc\b/.test(line)),
      ).toEqual([]);
    },
  );
});

describe('README.md', () => {
  const readme = read(join(packageRoot, 'README.md'));

  it('is at most 150 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(150);
  });

  it('opens with the two commands', () => {
    const head = readme.split('\n').slice(0, 10).join('\n');
    expect(head).toContain('npm ci && npm start');
    expect(head).toContain('npm test');
  });

  it('links every page of docs/', () => {
    const linked = [...prose(readme).matchAll(/\]\(docs\/([^)#]+)/g)].map((m) => m[1]);
    const unlinked = readdirSync(docsDir).filter((f) => f.endsWith('.md') && !linked.includes(f));
    expect(unlinked).toEqual([]);
  });
});

describe('links between the pages', () => {
  it.each(pages.map((p) => [relative(packageRoot, p), p]))('every relative link of %s resolves', (_name, page) => {
    expect(brokenLinks(page, read(page))).toEqual([]);
  });

  it('finds a missing file, a missing heading and skips links inside code', () => {
    const page = join(docsDir, 'example.md');
    const text = [
      '# Title',
      '## `vapc run`',
      '## Same',
      '## Same',
      '[ok](running.md) [ok](#vapc-run) [ok](#same-1) [ok](../README.md) [web](https://example.org/x)',
      '[gone](nosuch.md) [bad anchor](running.md#nosuch) [bad](#same-2)',
      '`[code](nosuch.md)`',
      '```',
      '[fenced](nosuch.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(page, text)).toEqual([
      'nosuch.md: no such file',
      'running.md#nosuch: no heading #nosuch in docs/running.md',
      '#same-2: no such heading',
    ]);
  });
});

describe('docs/checks.md', () => {
  it('is what scripts/checks-doc.ts renders from the registry (run `npm run docs:checks`)', async () => {
    expect(read(checksDocPath)).toBe(await checksDoc());
  });
});

describe('docs/interface.md', () => {
  const sections = new Map<string, string[]>([
    ['## `vapc run`', ['run']],
    ['## `vapc serve`', ['serve']],
    ['## `vapc report`', ['report']],
    ['## `vapc drift`, `vapc proxy`', ['drift', 'proxy']],
    ['## `vapc diff`', ['diff']],
    ['## `vapc export arazzo`', ['export']],
    ['## `vapc lint`, `vapc build`, `vapc docs`', ['lint', 'build', 'docs']],
  ]);
  const text = read(join(docsDir, 'interface.md'));
  const section = (heading: string): string => {
    const start = text.indexOf(`\n${heading}\n`);
    expect(start, heading).toBeGreaterThanOrEqual(0);
    const end = text.indexOf('\n## ', start + 1);
    return text.slice(start, end < 0 ? undefined : end);
  };

  async function commands(): Promise<readonly Command[]> {
    const io = { stdout: () => {}, stderr: () => {}, env: {}, isTTY: false };
    return (await buildProgram({ io, exit: () => {} })).commands;
  }

  it.each([...sections])('%s names every flag of the command, and no other', async (heading, names) => {
    const all = await commands();
    // A command's own flags and its subcommands' (`vapc report merge`).
    const flags = new Set(
      all
        .filter((c) => names.includes(c.name()))
        .flatMap((c) => [c, ...c.commands].flatMap((x) => x.options.map((o) => o.long!))),
    );
    expect(flags.size, heading).toBeGreaterThan(0);
    const body = section(heading);
    const documented = new Set([...body.matchAll(/`(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
    expect(
      [...flags].filter((f) => !documented.has(f)),
      `flags of ${names.join('/')} missing from ${heading}`,
    ).toEqual([]);
    expect(
      [...documented].filter((f) => !flags.has(f)),
      `flags in ${heading} that ${names.join('/')} does not have`,
    ).toEqual([]);
  });

  it('has a section for every command', async () => {
    const covered = [...sections.values()].flat();
    expect((await commands()).map((c) => c.name()).filter((n) => !covered.includes(n))).toEqual([]);
  });
});
