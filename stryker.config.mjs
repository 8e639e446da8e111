// StrykerJS: how many one-token breaks of the oracles (secrets, baseline, diff, the check toolkit
// and the judges) the tests notice. `npm run mutation` runs every module; one at a time with
// `VAPC_MUTATE=baseline npm run mutation` (a comma list of baseline, secrets, diff, checks,
// judges, reader, guard). Not part of `npm test`: it reruns the test files of a module once per mutant. Scores
// and the survivors accepted are kept in bench/RESULTS.md.
/** Each module: the files mutated and the test files that judge them (only those run). */
const MODULES = {
  baseline: { mutate: ['src/baseline/**/*.ts'], tests: ['test/unit/baseline/**/*.test.ts'] },
  secrets: {
    mutate: ['src/secrets/**/*.ts'],
    tests: [
      'test/unit/secrets/**/*.test.ts',
      'test/unit/reporters/reporters.test.ts',
      'test/unit/transport/transport.test.ts',
    ],
  },
  // cli.test.ts changes the working directory, which vitest's worker threads refuse.
  diff: {
    mutate: ['src/diff/**/*.ts'],
    tests: [
      'test/unit/diff/catalogue.test.ts',
      'test/unit/diff/schema-branches.test.ts',
      'test/unit/diff/equivalence.test.ts',
      'test/unit/diff/changelog.test.ts',
      'test/unit/diff/render.test.ts',
      'test/unit/diff/locate.test.ts',
      'test/unit/diff/source.test.ts',
      'test/unit/diff/security.test.ts',
      'test/unit/diff/compare.test.ts',
    ],
  },
  checks: {
    mutate: ['src/checks/**/*.ts'],
    tests: ['test/unit/checks/**/*.test.ts', 'test/checks/registry.test.ts', 'test/unit/runner/core.test.ts'],
  },
  judges: { mutate: ['suites/lib/judges.ts', 'suites/lib/judges/**/*.ts'], tests: ['test/checks/judges*.test.ts'] },
  // The one reader of files the checkout controls (issue 32).
  reader: { mutate: ['src/files/**/*.ts'], tests: ['test/unit/files/**/*.test.ts'] },
  // The one output guard (issues 32, 34): its modes, the secrets' forms and decoded view it redacts
  // with, and the command and autolink primitives of printable.ts it applies.
  guard: {
    mutate: ['src/secrets/guard.ts', 'src/secrets/forms.ts', 'src/results/printable.ts:59-82'],
    tests: [
      'test/unit/secrets/guard.test.ts',
      'test/unit/secrets/forms.test.ts',
      'test/unit/secrets/redactor-clauses.test.ts',
    ],
  },
};

const chosen = (process.env.VAPC_MUTATE ?? Object.keys(MODULES).join(','))
  .split(',')
  .map((m) => m.trim())
  .filter(Boolean);
const unknown = chosen.filter((m) => !(m in MODULES));
if (unknown.length > 0)
  throw new Error(`VAPC_MUTATE: unknown module ${unknown.join(', ')}; known: ${Object.keys(MODULES).join(', ')}`);

// Read by stryker.vitest.config.ts in the test-runner processes Stryker forks (they inherit it).
process.env.VAPC_MUTATION_TESTS = chosen.flatMap((m) => MODULES[m].tests).join(',');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'stryker.vitest.config.ts', related: false },
  mutate: chosen.flatMap((m) => MODULES[m].mutate),
  coverageAnalysis: 'perTest',
  // The machine is shared; one test runner at a time.
  concurrency: 1,
  timeoutMS: 60_000,
  timeoutFactor: 2,
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `reports/mutation/${chosen.join('-')}.json` },
  tempDirName: '.stryker-tmp',
  // Another module's run in its own temp dir (--tempDirName .stryker-tmp-diff) is not copied into this sandbox.
  ignorePatterns: ['/.stryker-tmp*'],
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 85, break: null },
};
