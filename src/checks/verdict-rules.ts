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
    // The suite of a team's workflows (SuiteSpec.workflows) has checks only when files are given
    // (`--arazzo`): a run without them still runs the whole plan.
    suites: suiteOrder(profile, checks).filter(
      (name) => checks.some((c) => c.suite === name) || !profile.suites.some((s) => s.name === name && s.workflows),
    ),
    checkedSuites: [...new Set(checks.map((c) => c.suite))],
    floor,
  };
}
