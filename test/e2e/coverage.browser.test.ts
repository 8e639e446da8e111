/**
 * The coverage section of report.html in headless Chromium: the summary line and the per-dimension
 * table agree with report.json, every operation has its table with one row per cell coloured by
 * state, every cell not judged shows its spec line and reason, text from the report stays text,
 * and the page asks for nothing outside the file (opened offline). A screenshot goes to
 * the temporary folder vapc-test-screenshots/ as the test's artefact (never into the checkout's reports/).
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/reporters/index.js';
import { loadSpec } from '../../src/spec/load.js';
import {
  buildUniverse,
  computeCoverage,
  ExchangeLog,
  coverageLine,
  coverageByDimension,
} from '../../src/coverage/index.js';
import type { RunReport } from '../../src/results/model.js';
import { CHROMIUM_SETUP_MS, launchChromium, SCREENSHOTS } from '../helpers/chromium.js';
import { fixture } from '../helpers/reports.js';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';
let browser: Browser;

/** The passing fixture with a coverage block over the real spec: a few exchanges judged, one sent only, one failed. */
async function reportWithCoverage(): Promise<RunReport> {
  const spec = await loadSpec();
  const universe = buildUniverse(spec);
  const log = new ExchangeLog(universe, () => ({ apiKey: 'k', userId: 'u' }));
  const send = (method: string, path: string, status: number, checkId: string, body?: unknown) => {
    const exchange = {
      request: {
        method,
        url: `http://127.0.0.1:1${path}`,
        headers: { authorization: 'Bearer k', 'x-user-id': 'u' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      },
      response: { status },
    };
    log.exchange(exchange, checkId);
    // Each answer judged by its check (the one verdict path's note), as in a run.
    log.judged(exchange, checkId);
    log.checkDone();
  };
  send('GET', '/calls?limit=-1', 422, 'ranges.a');
  send('POST', '/campaign', 201, 'schema.b', { name: 'x', max_concurrency: 200 });
  send('GET', '/users/me', 200, 'auth.c');
  send('GET', '/calls', 418, 'robustness.d');
  const results = [
    { id: 'ranges.a', status: 'passed' as const, suite: 'ranges' as const },
    { id: 'schema.b', status: 'failed' as const, suite: 'schema' as const },
    { id: 'auth.c', status: 'skipped' as const, suite: 'auth' as const },
    { id: 'robustness.d', status: 'passed' as const, suite: 'robustness' as const },
  ];
  const plan = spec.operations.map((op) => ({ suite: 'ranges', operation: `${op.method} ${op.path}` }));
  const coverage = computeCoverage({ universe, records: log.records, results, plan });
  const notSent = coverage.cells.find((c) => c.state === 'not-sent')!;
  notSent.reason = `${notSent.reason} ${HOSTILE}`;
  return { ...fixture('passing-run'), coverage };
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await launchChromium();
}, CHROMIUM_SETUP_MS);
afterAll(async () => {
  await browser?.close();
});

describe('report.html coverage section in headless Chromium', () => {
  it('shows the coverage of report.json per dimension and per operation, offline, with every uncovered cell on its spec line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vapc-coverage-html-'));
    const written = await writeReports(await reportWithCoverage(), dir);
    const report = JSON.parse(readFileSync(written.json, 'utf8')) as RunReport;
    const coverage = report.coverage!;
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, offline: true });
    const page = await context.newPage();
    const outside: string[] = [];
    const problems: string[] = [];
    const self = pathToFileURL(written.html).href;
    await page.route('**/*', (route) => {
      if (route.request().url() === self) return route.continue();
      outside.push(route.request().url());
      return route.abort();
    });
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      await page.goto(self);
      const section = page.locator('#coverage');
      expect(await section.locator('#coverage-line').textContent()).toBe(coverageLine(coverage));
      for (const d of coverageByDimension(coverage)) {
        const cells = await section
          .locator(`#coverage-dimensions tr[data-dimension="${d.dimension}"] td`)
          .allTextContents();
        expect(cells).toEqual([d.dimension, String(d.judged), String(d.sent), String(d.cells)]);
      }
      const operations = [...new Set(coverage.cells.map((c) => c.operation))];
      expect(await section.locator('details.cov-op').count()).toBe(operations.length);
      expect(await section.locator('tr[data-state]').count()).toBe(coverage.cells.length);
      for (const state of ['judged-pass', 'judged-fail', 'sent', 'not-sent'] as const) {
        expect(await section.locator(`tr[data-state="${state}"]`).count()).toBe(
          coverage.cells.filter((c) => c.state === state).length,
        );
      }
      // Green, red, amber, grey at a glance: each state has its own background.
      const colours = (await page.evaluate(
        `['judged-pass', 'judged-fail', 'sent', 'not-sent'].map((s) => getComputedStyle(document.querySelector('#coverage tr[data-state="' + s + '"]')).backgroundColor)`,
      )) as string[];
      expect(new Set(colours).size).toBe(4);
      const uncovered = coverage.cells.filter((c) => c.state === 'not-sent' || c.state === 'sent');
      const lines = await section
        .locator('tr[data-state="not-sent"] code.spec-line, tr[data-state="sent"] code.spec-line')
        .allTextContents();
      expect(lines).toEqual(uncovered.map((c) => `${c.spec_file}:${c.spec_line}`));
      expect(lines.every((l) => /^spec\/\S+\.yaml:\d+$/.test(l))).toBe(true);
      expect(await section.textContent()).toContain(HOSTILE);
      expect(await page.evaluate('window.__pwned')).toBeUndefined();
      expect(await section.locator('#coverage-undocumented').textContent()).toContain('GET /calls 418');
      expect(await section.locator('#coverage-map tbody tr').count()).toBe(operations.length);
      await section.locator('h2').evaluate((el) => el.scrollIntoView());
      await page.screenshot({ path: join(SCREENSHOTS, 'report-coverage.png') });
      // Cells are inside closed <details> per operation: opening one shows its rows.
      const first = section.locator('details.cov-op').first();
      await first.locator('summary').click();
      expect(await first.locator('tr[data-state]').first().isVisible()).toBe(true);
      expect(outside).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
