/**
 * Lenient but correct servers, the faults about what a server accepts (test/helpers/lenient.ts):
 * every check passes. The faults about answers run in lenient.test.ts.
 */
import { describeLenientServers, LENIENT_ANSWERS } from '../helpers/lenient.js';

describeLenientServers((name) => !LENIENT_ANSWERS.includes(name));
