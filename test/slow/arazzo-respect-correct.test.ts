// The rest of test/e2e/arazzo-respect-correct.test.ts: `redocly respect` passes the exported
// scenarios on every correct independent server the everyday sample leaves out.
import { CORRECT_SAMPLE, CORRECT_SERVERS, describeRespectCorrect } from '../helpers/respect-matrix.js';

describeRespectCorrect(CORRECT_SERVERS.filter((name) => !CORRECT_SAMPLE.includes(name)));
