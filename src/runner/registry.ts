import { VapcError } from '../errors.js';
import { SUITES } from '../results/model.js';
import type { CheckDefinition } from './check.js';
import { checks as registry } from '../../suites/index.js';

/**
 * Checks the registry a run uses: every check has an id `suite.name` of a known suite, a rule and
 * a contract reference, and no id appears twice.
 */
export function validateRegistry(checks: readonly CheckDefinition[]): CheckDefinition[] {
  const seen = new Set<string>();
  for (const check of checks) {
    if (!check || typeof check.id !== 'string' || typeof check.run !== 'function' || typeof check.appliesTo !== 'function') {
      throw new VapcError('E_TOOL_FAILED', `the check registry holds an entry that is not a check definition`);
    }
    if (!(SUITES as readonly string[]).includes(check.suite) || !check.id.startsWith(`${check.suite}.`)) {
      throw new VapcError('E_TOOL_FAILED', `check ${check.id}: its id must be "<suite>.<name>" with a known suite`);
    }
    if (seen.has(check.id)) throw new VapcError('E_TOOL_FAILED', `check id ${check.id} is registered twice`);
    seen.add(check.id);
  }
  return [...checks];
}

/** The suites' registry (suites/index.ts), checked once more. */
export async function loadRegistry(): Promise<CheckDefinition[]> {
  return validateRegistry(registry);
}
