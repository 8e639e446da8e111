/**
 * validation: for every operation with a body or an integer query parameter, inputs that break one
 * stated constraint at a time (a wrong JSON type for a field, a value outside an enum, malformed
 * JSON, a non-integer query value) are answered 422 with the validation error body, whose `loc`
 * names the fault (sections 2.8, 4, 7).
 *
 * Requests (issue 25): the wrong types of every field, and the non-integer values of every query
 * parameter, go in one request per pack and are narrowed by what each 422 names (suites/lib/packed.ts):
 * a field counts as judged only when a 422 names it, so one fault cannot mask another, and any
 * other answer sends the open cases one by one. Malformed JSON is a covering design (every
 * malformation on the create, one each on the record operations). Not seen any more: random wrong
 * types beyond one per field, random words and fractions beyond `xyz` and `2.5` in the query, and a
 * malformation a per-route parser takes on a record operation while it refuses the one sent there.
 */
import type { CheckDefinition } from '../src/checks/check.js';
import { wrongType } from './validation/wrong-type.js';
import { enumViolation } from './validation/closed-sets.js';
import { malformedJsonCheck } from './validation/malformed-json.js';
import { nonIntegerQueryCheck } from './validation/query.js';
import { locNamesLocation } from './validation/loc.js';

// The suite in parts under validation/: where and how cases are sent (targets.ts), then one module
// per check.
export { fieldPacks } from './validation/wrong-type.js';
export { malformationsFor } from './validation/malformed-json.js';
export { enumViolation, locNamesLocation, malformedJsonCheck, nonIntegerQueryCheck, wrongType };

export const validationChecks: CheckDefinition[] = [
  wrongType,
  enumViolation,
  malformedJsonCheck,
  nonIntegerQueryCheck,
  locNamesLocation,
];
