// The slow tier (`npm run test:slow`, test/slow/README.md): the packaging and install checks and the
// rest of the `redocly respect` matrices, which spawn npm, tsc and respect processes and would take
// the everyday suite past its 150 s. CI (.ci/run) runs both tiers on every change. The settings are
// the everyday suite's (vitest.config.ts) but for which files run.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/slow/**/*.test.ts'], exclude: ['**/node_modules/**'] },
});
