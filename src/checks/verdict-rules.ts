/**
 * The verdict's rules from the checks of a run (src/results/verdict.ts): which expect a success
 * answer, which are core, and the suites a whole plan selects. Read from the definitions, never a
 * list kept apart.
 */
import { DEFAULT_COVERAGE_FLOOR, type VerdictRules } from '../results/verdict.js';
import type { CheckDefinition } from './check.js';
import { GENERIC_PROFILE, suiteOrder, type ContractProfile } from './profile.js';

/** The rules; `profile` names the contract's suites (a whole plan runs checks of every one). */
export function verdictRules(
  checks: readonly CheckDefinition[],
  floor = DEFAULT_COVERAGE_FLOOR,
  profile: ContractProfile = GENERIC_PROFILE,
): VerdictRules {
  return {
    successChecks: new Set(checks.filter((c) => c.expects === 'success').map((c) => c.id)),
    coreChecks: new Set(checks.filter((c) => c.core).map((c) => c.id)),
    suites: suiteOrder(profile, checks),
    checkedSuites: [...new Set(checks.map((c) => c.suite))],
    floor,
  };
}
