import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The summary line (files, tests, duration) must reach CI logs.
    reporters: ['default', './test/helpers/plain-summary-reporter.ts'],
  },
});
