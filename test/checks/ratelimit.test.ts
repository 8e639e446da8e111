// ratelimit checks: each fails on the faults that declare it in `catches` (test/helpers/fails-on-fault.ts).
import { describeFailsOnFault } from '../helpers/fails-on-fault.js';

describeFailsOnFault('ratelimit');
