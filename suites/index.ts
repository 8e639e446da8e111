/**
 * The one explicit registry of conformance checks, in run order (suites in the runner's order,
 * the rate-limit burst last). `buildRegistry` refuses duplicate ids, ids that do not read
 * `suite.name`, a suite that does not match the id, and definitions missing a rule or contract
 * reference, so a malformed check fails at import, not in a report (`src/checks/registry.ts`).
 */
import type { Suite } from '../src/results/model.js';
import type { CheckDefinition } from '../src/checks/check.js';
import { buildRegistry } from '../src/checks/registry.js';
import { SUITE_NAMES } from './profile.js';
import { VapcError } from '../src/errors.js';
import { authChecks } from './auth.js';
import { validationChecks } from './validation.js';
import { rangesChecks } from './ranges.js';
import { stringsChecks } from './strings.js';
import { schemaChecks } from './schema.js';
import { statefulChecks } from './stateful.js';
import { promisesChecks } from './promises.js';
import { corsChecks } from './cors.js';
import { robustnessChecks } from './robustness.js';
import { ratelimitChecks } from './ratelimit.js';

/** Every check, in run order. */
export const checks: readonly CheckDefinition[] = buildRegistry(
  [
    ...authChecks,
    ...validationChecks,
    ...rangesChecks,
    ...stringsChecks,
    ...schemaChecks,
    ...statefulChecks,
    ...promisesChecks,
    ...corsChecks,
    ...robustnessChecks,
    ...ratelimitChecks,
  ],
  SUITE_NAMES,
);

/** The checks of some suites, in run order. */
export function checksOf(suites: readonly Suite[]): CheckDefinition[] {
  const wanted = new Set(suites);
  return checks.filter((c) => wanted.has(c.suite));
}

/** The check with this id; a clear error for an unknown one. */
export function checkById(id: string): CheckDefinition {
  const found = checks.find((c) => c.id === id);
  if (!found) throw new VapcError('E_USAGE', `unknown check "${id}"; known: ${checks.map((c) => c.id).join(', ')}`);
  return found;
}

export {
  authChecks,
  validationChecks,
  rangesChecks,
  stringsChecks,
  promisesChecks,
  schemaChecks,
  statefulChecks,
  corsChecks,
  robustnessChecks,
  ratelimitChecks,
};
