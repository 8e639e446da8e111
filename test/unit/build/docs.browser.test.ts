import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs } from '../../../src/build/redocly.js';
import { paths } from '../../../src/paths.js';
import { CHROMIUM_SETUP_MS, launchChromium } from '../../helpers/chromium.js';

interface BundledOperation {
  operationId: string;
  summary: string;
  tags: string[];
  method: string;
  path: string;
  'x-unspecified'?: string[];
  'x-contract-conflict'?: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of the bundled spec (dist/openapi.json), which is what the docs page renders. */
function bundledOperations(): BundledOperation[] {
  const document = JSON.parse(readFileSync(paths.bundledJson, 'utf8')) as {
    paths: Record<string, Record<string, Omit<BundledOperation, 'method' | 'path'>>>;
  };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })),
  );
}

/** Redoc 3 addresses a tag as its lower-case, dash-joined name and an operation as <tag>/<operationid>. */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

let browser: Browser;
let page: Page;
let docsUrl: string;
const leaked: string[] = [];
const refused: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(paths.docsHtml) || !existsSync(paths.bundledJson)) {
    throw new Error('dist/docs/index.html or dist/openapi.json is missing: run `npm run build` first');
  }
  browser = await launchChromium();
  page = await browser.newPage();
  // Anything that is not the file itself (or data: it embeds) is recorded and refused.
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
    leaked.push(url);
    return route.abort();
  });
  page.on('console', (message) => {
    if (/Refused to|Content Security Policy/i.test(message.text())) refused.push(message.text());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  docsUrl = pathToFileURL(paths.docsHtml).href;
  await page.goto(docsUrl, { waitUntil: 'load' });
  await page.waitForSelector('#redoc [id^="section/"]');
}, CHROMIUM_SETUP_MS);

afterAll(async () => {
  await browser?.close();
});

describe('docs page in headless Chromium, offline', () => {
  const operations = bundledOperations();

  it('the bundled spec has the 14 operations of the contract', () => {
    expect(operations).toHaveLength(14);
  });

  it.each(operations.map((o) => [o.operationId, o] as const))(
    'renders %s with its summary, method and path',
    async (_id, operation) => {
      const anchor = `${slug(operation.tags[0] ?? '')}/${operation.operationId.toLowerCase()}`;
      await page.goto(`${docsUrl}#/${anchor}`);
      const section = await page.waitForSelector(`[id="${anchor}"]`, { timeout: 15_000 });
      const text = await section.innerText();
      expect(text).toContain(operation.summary);
      expect(text).toContain(operation.method);
      expect(text).toContain(operation.path);
      // The gaps and conflicts of the contract are visible (Redoc showExtensions, prefix x- dropped).
      if (operation['x-unspecified']) expect(text).toMatch(/unspecified:/);
      if (operation['x-contract-conflict'])
        expect(text).toContain(`contract-conflict: ${operation['x-contract-conflict']}`);
    },
  );

  it('fetched nothing from elsewhere and the browser refused nothing', () => {
    expect(leaked).toEqual([]);
    expect(refused).toEqual([]);
  });

  it('raised no script error', () => {
    expect(pageErrors).toEqual([]);
  });
});

describe('docs page rebuilt into a temp dir', () => {
  it('buildDocs() writes a page that renders without network', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'vapc-docs-'));
    try {
      const built = await buildDocs(paths.specSource, join(dir, 'index.html'));
      const fresh = await browser.newPage();
      const requests: string[] = [];
      await fresh.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
        requests.push(url);
        return route.abort();
      });
      await fresh.goto(`${pathToFileURL(built.htmlPath).href}#/health/gethealth`, { waitUntil: 'load' });
      await fresh.waitForSelector('[id="health/gethealth"]', { timeout: 15_000 });
      await fresh.close();
      expect(requests).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
