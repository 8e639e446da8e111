/**
 * The one explicit registry of conformance checks, in run order (suites in the runner's order,
 * the rate-limit burst last). `buildRegistry` refuses duplicate ids, ids that do not read
 * `suite.name`, a suite that does not match the id, and definitions missing a rule or contract
 * reference, so a malformed check fails at import, not in a report.
 */
import { SUITES, type Suite } from '../src/results/model.js';
import type { CheckDefinition } from '../src/runner/check.js';
import { VapcError } from '../src/errors.js';
import { authChecks } from './auth.js';
import { validationChecks } from './validation.js';
import { rangesChecks } from './ranges.js';
import { schemaChecks } from './schema.js';
import { statefulChecks } from './stateful.js';
import { corsChecks } from './cors.js';
import { robustnessChecks } from './robustness.js';
import { ratelimitChecks } from './ratelimit.js';

export const CHECK_ID = /^([a-z]+)\.([a-z0-9]+(?:-[a-z0-9]+)*)$/;
const SEVERITIES = new Set(['critical', 'major', 'minor']);

/** Validates and freezes a list of checks: unique well-formed ids, known suites, rule and contract reference present. */
export function buildRegistry(checks: readonly CheckDefinition[]): readonly CheckDefinition[] {
  const seen = new Set<string>();
  for (const check of checks) {
    const match = CHECK_ID.exec(check.id ?? '');
    if (!match) throw new VapcError('E_TOOL_FAILED', `check id "${check.id}" is malformed: ids read suite.name (lower-case words joined by '-')`);
    if (!(SUITES as readonly string[]).includes(match[1]!)) throw new VapcError('E_TOOL_FAILED', `check id "${check.id}" names an unknown suite "${match[1]}"`);
    if (match[1] !== check.suite) throw new VapcError('E_TOOL_FAILED', `check "${check.id}" is registered in suite "${check.suite}"`);
    if (seen.has(check.id)) throw new VapcError('E_TOOL_FAILED', `duplicate check id "${check.id}"`);
    if (!check.rule?.trim() || !check.contractRef?.trim()) throw new VapcError('E_TOOL_FAILED', `check "${check.id}" lacks a rule or a contract reference`);
    if (!SEVERITIES.has(check.severity)) throw new VapcError('E_TOOL_FAILED', `check "${check.id}" has an unknown severity "${String(check.severity)}"`);
    if (typeof check.appliesTo !== 'function' || typeof check.run !== 'function') throw new VapcError('E_TOOL_FAILED', `check "${check.id}" lacks appliesTo or run`);
    seen.add(check.id);
  }
  return Object.freeze([...checks]);
}

/** Every check, in run order. */
export const checks: readonly CheckDefinition[] = buildRegistry([
  ...authChecks,
  ...validationChecks,
  ...rangesChecks,
  ...schemaChecks,
  ...statefulChecks,
  ...corsChecks,
  ...robustnessChecks,
  ...ratelimitChecks,
]);

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

export { authChecks, validationChecks, rangesChecks, schemaChecks, statefulChecks, corsChecks, robustnessChecks, ratelimitChecks };
