// The independent fault server's judged faults that `npm test` leaves to the slow tier (the odd
// positions of each of test/catalog/independent/faults-{requests,state,ratelimit}.test.ts's lists):
// each caught by its suite (test/helpers/independent-faults.ts). CI runs both halves.
import {
  describeIndependentFaults,
  RATELIMIT_SUITES,
  REQUEST_SUITES,
  STATE_SUITES,
} from '../helpers/independent-faults.js';

for (const suites of [REQUEST_SUITES, STATE_SUITES, RATELIMIT_SUITES]) describeIndependentFaults(suites, 'slow');
