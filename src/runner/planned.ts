import type { CheckDefinition } from '../checks/check.js';
import type { Operation } from '../spec/model.js';

/** One check applied to one operation: the unit that yields one CheckResult. */
export interface PlannedCheck {
  check: CheckDefinition;
  operation: Operation;
  /** Why it will not run (destructive without the flag, fixture missing), when it will not. */
  skip?: string;
  /** Planned under --strict-types (some checks send more cases). */
  strictTypes?: boolean;
  /** A passive check's pair whose operation another pair sends on first (see `markCovered`). */
  covered?: boolean;
  /** A pair of a burst suite (the profile's SuiteSpec.burst): it spends the rate-limit window, last. */
  burst?: boolean;
}
