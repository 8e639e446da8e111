import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The slow tier runs on its own (vitest.slow.config.ts, `npm run test:slow`; CI runs both).
    exclude: ['test/slow/**', '**/node_modules/**'],
    // Once per run: chromium installed once for the browser tests, vapc serve's default port held,
    // and a check that no test wrote into reports/ or left a file in the checkout.
    globalSetup: ['./test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Four workers on the 2-core machines CI runs on: most files wait on loopback servers,
    // rate-limit windows, child processes and a browser rather than on the CPU (measured on an idle
    // 2-core machine, vitest's duration: 2 workers 147 s, 3 workers 133 s, 4 workers 120 s).
    maxWorkers: 4,
    // One module graph per worker instead of one per test file: importing src/ (Fastify, AJV's
    // precompiled validators, undici, fast-check) again for each of 60 files cost 45 s of CPU
    // (205 s -> 147 s with 2 workers). Safe because no test mocks modules, stubs globals or sets
    // process.env, and test helpers register no hooks at import time; test/isolation.test.ts
    // fails when one starts to.
    isolate: false,
    // The summary line (files, tests, duration) must reach CI logs.
    reporters: ['default', './test/helpers/plain-summary-reporter.ts'],
  },
});
