import { VapcError } from '../errors.js';
import { SUITES } from '../results/model.js';
import type { CheckDefinition } from './check.js';

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

/** Loads the suites' registry (suites/index.ts, compiled beside src/ in dist/). */
export async function loadRegistry(): Promise<CheckDefinition[]> {
  const specifier = '../../suites/index.js';
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (error) {
    throw new VapcError('E_TOOL_FAILED', `cannot load the check registry (suites/index): ${error instanceof Error ? error.message : String(error)}`);
  }
  const candidate = mod['checks'] ?? mod['allChecks'] ?? mod['registry'] ?? mod['default'];
  const list = Array.isArray(candidate)
    ? candidate
    : candidate && typeof candidate === 'object' && Array.isArray((candidate as { checks?: unknown }).checks)
      ? (candidate as { checks: unknown[] }).checks
      : candidate && typeof (candidate as { all?: unknown }).all === 'function'
        ? ((candidate as { all: () => unknown[] }).all())
        : undefined;
  if (!list) throw new VapcError('E_TOOL_FAILED', 'suites/index exports no check list (expected `checks`)');
  return validateRegistry(list as CheckDefinition[]);
}
