import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Vitest's default is one worker per core less one: a single worker on the 2-core machines CI
    // runs on, so every file waited for the one before it. Most files wait on loopback servers,
    // rate-limit windows and a browser rather than the CPU, so two workers halve the wall time.
    maxWorkers: 2,
    // The summary line (files, tests, duration) must reach CI logs.
    reporters: ['default', './test/helpers/plain-summary-reporter.ts'],
  },
});
