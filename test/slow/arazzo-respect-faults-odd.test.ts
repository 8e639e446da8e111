// The rest of test/e2e/arazzo-respect-faults.test.ts, second half: the odd positions the everyday
// sample leaves out (arazzo-respect-faults-even.test.ts has the even ones).
import { describeRespectFaults, inFaultSample } from '../helpers/respect-matrix.js';

describeRespectFaults((i) => !inFaultSample(i) && i % 2 === 1);
