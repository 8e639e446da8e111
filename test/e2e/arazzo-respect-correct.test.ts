// `redocly respect` runs the exported scenarios (issue 36) to a pass against correct independent
// implementations of the test catalogue, each with its own credentials and the fixtures discovery
// finds on it, as a team would pass them: the criteria hold for what the contract promises, not for
// one server's choices. The everyday sample (the strict server and the pairing one); the other eight
// are test/slow/arazzo-respect-correct.test.ts (test/helpers/respect-matrix.ts).
import { CORRECT_SAMPLE, describeRespectCorrect } from '../helpers/respect-matrix.js';

describeRespectCorrect(CORRECT_SAMPLE);
