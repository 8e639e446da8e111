// The independent fault server's faults of the suites that judge single requests (auth, validation,
// ranges, cors): each is caught by its suite (test/helpers/independent-faults.ts).
import { describeIndependentFaults, REQUEST_SUITES } from '../../helpers/independent-faults.js';

describeIndependentFaults(REQUEST_SUITES);
