// The runner against the independent strict and lenient implementations: every check passes
// (test/helpers/independent-correct.ts says what each run proves).
import { describeCorrectImplementations } from '../../helpers/independent-correct.js';

describeCorrectImplementations(['strict', 'lenient']);
