/**
 * The install numbers of the docs (package counts, megabytes) are measured, not typed:
 * scripts/docs-counts.mjs measures them from the lockfile, `npm pack --dry-run` and node_modules,
 * and each sits between markers on its page. A page whose number differs fails here; `npm run
 * docs:counts` rewrites it. A marker never starts a line: Markdown would take the line for HTML.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/paths.js';
import { measure, PAGES, rewrite, stated } from '../../../scripts/docs-counts.mjs';

let counts: Record<string, string>;
beforeAll(() => {
  counts = measure();
}, 60_000);

describe('the measurements', () => {
  it('count the toolkit as a consumer installs it, and the validators package', () => {
    // The toolkit and its runtime dependencies, never the build tools (several hundred packages).
    expect(Number(counts['toolkit-packages'])).toBeGreaterThan(10);
    expect(Number(counts['toolkit-packages'])).toBeLessThan(Number(counts['checkout-packages']) / 2);
    expect(Number(counts['validators-mb'])).toBeLessThan(3);
    expect(Number(counts['toolkit-mb'])).toBeGreaterThan(Number(counts['validators-mb']));
  });

  it('replace only what sits between markers, and refuse an unknown name', () => {
    expect(rewrite('a <!-- count:toolkit-packages -->1<!-- /count --> b', { 'toolkit-packages': '78' })).toBe(
      'a <!-- count:toolkit-packages -->78<!-- /count --> b',
    );
    expect(() => rewrite('<!-- count:nope -->1<!-- /count -->', {})).toThrow(/unknown count nope/);
  });
});

describe.each(PAGES)('%s', (page) => {
  const text = readFileSync(join(packageRoot, page), 'utf8');

  it('states the measured numbers (npm run docs:counts rewrites them)', () => {
    expect(stated(text).length).toBeGreaterThan(0);
    expect(rewrite(text, counts)).toBe(text);
  });

  it('starts no line with a marker', () => {
    expect(text.split('\n').filter((l) => l.startsWith('<!-- count:'))).toEqual([]);
  });
});
