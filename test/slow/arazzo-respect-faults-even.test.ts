// The rest of test/e2e/arazzo-respect-faults.test.ts, first half: `redocly respect` on the exported
// scenarios fails every stateful fault vapc kills that the everyday sample leaves out, a test per
// fault (the even positions here, the odd ones in arazzo-respect-faults-odd.test.ts, so two workers
// share the 33 respect runs).
import { describeRespectFaults, inFaultSample } from '../helpers/respect-matrix.js';

describeRespectFaults((i) => !inFaultSample(i) && i % 2 === 0);
