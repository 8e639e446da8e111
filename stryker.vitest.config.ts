// The vitest configuration Stryker runs (stryker.config.mjs): only the test files of the modules
// being mutated, named in VAPC_MUTATION_TESTS by stryker.config.mjs.
import { defineConfig } from 'vitest/config';

const files = (process.env['VAPC_MUTATION_TESTS'] ?? '').split(',').filter((f) => f !== '');

export default defineConfig({
  test: {
    include: files.length > 0 ? files : ['test/unit/baseline/**/*.test.ts'],
    testTimeout: 60_000,
    // As in vitest.config.ts (test/isolation.test.ts keeps it safe): one module graph per worker,
    // so a mutant's run does not import src/ again for each test file.
    isolate: false,
    hookTimeout: 120_000,
  },
});
