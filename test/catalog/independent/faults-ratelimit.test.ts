// The independent fault server's rate-limit faults: each is caught by the ratelimit suite
// (test/helpers/independent-faults.ts). A file of their own: they wait on windows one after another.
import { describeIndependentFaults, RATELIMIT_SUITES } from '../../helpers/independent-faults.js';

describeIndependentFaults(RATELIMIT_SUITES);
