/**
 * ranges: every numeric bound the contract states on a request body (read from `spec.bounds()`),
 * on create and on update: min-1, 0, the type limits below (-1, -2^53) and a random value below
 * rejected with 422; max+1, the type limits above (2^31, 2^53) and a random value above rejected
 * with 422; min, max and a value between accepted (sections 4.2, 4.4, 8). And every number the
 * contract has, bounded or not (query, path, body, nested), at its edges: `ranges.numeric-edges`.
 *
 * One check per bound field and side, so a result names the rule it enforces
 * (`ranges.max-concurrency-above-maximum`); `boundChecks(field)` builds the three of a field from
 * the spec's bounds at run time, and the registry test asserts every bound of the spec has them.
 */
import type { CheckDefinition } from '../src/checks/check.js';
import { boundChecks } from './ranges/bounds.js';
import { numericEdgesCheck } from './ranges/edges.js';

// The suite in parts under ranges/: where the probes go (targets.ts), the bound checks
// (bounds.ts) and the numeric edges (edges.ts).
export { boundChecks, boundsOf, edgeValues } from './ranges/bounds.js';
export { edgeProbes, edgeRequests } from './ranges/edges.js';
export { numericEdgesCheck };

/** The fields of the contract with numeric bounds (section 8); the registry test compares this with spec.bounds(). */
export const BOUNDED_FIELDS = ['max_concurrency', 'machine_detection_timeout_seconds'] as const;

export const rangesChecks: CheckDefinition[] = [...BOUNDED_FIELDS.flatMap(boundChecks), numericEdgesCheck];
