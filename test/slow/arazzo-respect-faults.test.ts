// The rest of test/e2e/arazzo-respect-faults.test.ts: `redocly respect` on the exported scenarios
// fails every stateful fault vapc kills that the everyday sample leaves out, a test per fault.
import { describeRespectFaults, inFaultSample } from '../helpers/respect-matrix.js';

describeRespectFaults((i) => !inFaultSample(i));
