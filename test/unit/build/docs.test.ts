import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCS_CSP, externalResources, offline } from '../../../src/build/redocly.js';
import { paths } from '../../../src/paths.js';

const html = existsSync(paths.docsHtml) ? readFileSync(paths.docsHtml, 'utf8') : '';

describe('docs page: self-contained HTML', () => {
  it('exists (npm run build writes dist/docs/index.html)', () => {
    expect(html.length).toBeGreaterThan(10_000);
  });

  it('loads no script, stylesheet, font or image from http(s)', () => {
    expect(externalResources(html)).toEqual([]);
    // An independent, blunter scan of the same page.
    expect(html).not.toMatch(/<script\b[^>]*\bsrc\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b[^>]*\bhref\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@font-face[^}]*url\(\s*["']?https?:/i);
    expect(html).not.toMatch(/fonts\.(googleapis|gstatic)\.com/i);
    expect(html).not.toMatch(/cdn\.redoc(ly)?\.(ly|com)\/redoc\//i);
  });

  it('embeds Redoc inline and forbids any other fetch with a Content-Security-Policy', () => {
    expect(html).toContain('hydrate(__redoc_definition');
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${DOCS_CSP}" />`);
    expect(DOCS_CSP).toMatch(/default-src 'none'/);
    expect(DOCS_CSP).not.toMatch(/https?:|\*/);
  });

  it('asks Redoc to show x-unspecified and x-contract-conflict', () => {
    const options = /const __redoc_options = (\{.*?\});\n/s.exec(html)?.[1];
    expect(options).toBeDefined();
    const parsed = JSON.parse(options ?? '{}') as { showExtensions?: unknown };
    expect(parsed.showExtensions).toEqual(expect.arrayContaining(['x-unspecified', 'x-contract-conflict']));
  });
});

describe('externalResources(): what would be fetched', () => {
  it.each([
    [
      'a CDN module preload',
      '<link rel="modulepreload" href="https://cdn.redocly.com/redoc/v3/redoc.js" />',
      'https://cdn.redocly.com/redoc/v3/redoc.js',
    ],
    ['a script src', '<script src="https://example.org/a.js"></script>', 'https://example.org/a.js'],
    [
      'a Google Fonts stylesheet',
      '<link href="https://fonts.googleapis.com/css?family=Roboto" rel="stylesheet">',
      'https://fonts.googleapis.com/css?family=Roboto',
    ],
    ['a CSS @import', '<style>@import url("https://example.org/x.css");</style>', 'https://example.org/x.css'],
    [
      'a font-face url()',
      "<style>@font-face{src:url('https://example.org/f.woff2')}</style>",
      'https://example.org/f.woff2',
    ],
    [
      'a module import',
      '<script type="module">import { hydrate } from "https://cdn.example.org/r.js";</script>',
      'https://cdn.example.org/r.js',
    ],
    ['a protocol-relative image', '<img src="//example.org/logo.svg">', '//example.org/logo.svg'],
  ])('finds %s', (_what, page, url) => {
    expect(externalResources(page)).toContain(url);
  });

  it('ignores plain links and SVG namespaces', () => {
    expect(
      externalResources('<a href="https://redocly.com/redoc/">docs</a><svg xmlns="http://www.w3.org/2000/svg"></svg>'),
    ).toEqual([]);
  });

  it('offline() replaces the Redoc CDN logo and adds the CSP once', () => {
    const page =
      '<html><head><meta charset="utf8" /></head><body><script>src:`https://cdn.redoc.ly/redoc/logo-mini-full.svg`</script></body></html>';
    const once = offline(page);
    expect(once).not.toContain('cdn.redoc.ly');
    expect(offline(once).match(/Content-Security-Policy/g)).toHaveLength(1);
  });
});
