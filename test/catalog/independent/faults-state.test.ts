// The independent fault server's faults of the suites that judge answers and state (schema, stateful,
// robustness): each is caught by its suite (test/helpers/independent-faults.ts).
import { describeIndependentFaults, STATE_SUITES } from '../../helpers/independent-faults.js';

describeIndependentFaults(STATE_SUITES);
