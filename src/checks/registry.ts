import { VapcError } from '../errors.js';
import type { CheckDefinition } from './check.js';

/** A check id: `suite.name`, lower-case words joined by '-'. */
export const CHECK_ID = /^([a-z]+)\.([a-z0-9]+(?:-[a-z0-9]+)*)$/;
const SEVERITIES = new Set(['critical', 'major', 'minor']);

/**
 * The one validator of a check registry: unique well-formed ids (`suite.name`), a suite of the
 * contract's (one of `suites`, the profile's suite names, when given) that
 * matches the id, a rule, a contract reference, a known severity, and `appliesTo`/`run`. Returns the
 * list frozen; a malformed registry is the tool's fault (E_TOOL_FAILED), never a server's.
 */
export function buildRegistry(
  checks: readonly CheckDefinition[],
  suites?: readonly string[],
): readonly CheckDefinition[] {
  const seen = new Set<string>();
  for (const check of checks) {
    const match = CHECK_ID.exec(check.id ?? '');
    if (!match)
      throw new VapcError(
        'E_TOOL_FAILED',
        `check id "${check.id}" is malformed: ids read suite.name (lower-case words joined by '-')`,
      );
    if (suites && !suites.includes(match[1]!))
      throw new VapcError('E_TOOL_FAILED', `check id "${check.id}" names an unknown suite "${match[1]}"`);
    if (match[1] !== check.suite)
      throw new VapcError('E_TOOL_FAILED', `check "${check.id}" is registered in suite "${check.suite}"`);
    if (seen.has(check.id)) throw new VapcError('E_TOOL_FAILED', `duplicate check id "${check.id}"`);
    if (!check.rule?.trim() || !check.contractRef?.trim())
      throw new VapcError('E_TOOL_FAILED', `check "${check.id}" lacks a rule or a contract reference`);
    if (!SEVERITIES.has(check.severity))
      throw new VapcError('E_TOOL_FAILED', `check "${check.id}" has an unknown severity "${String(check.severity)}"`);
    if (typeof check.appliesTo !== 'function' || typeof check.run !== 'function')
      throw new VapcError('E_TOOL_FAILED', `check "${check.id}" lacks appliesTo or run`);
    seen.add(check.id);
  }
  return Object.freeze([...checks]);
}
