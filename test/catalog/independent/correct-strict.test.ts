// The runner against the independent strict implementation: every check passes
// (test/helpers/independent-correct.ts says what each run proves). One implementation per file,
// so the workers share them.
import { describeCorrectImplementations } from '../../helpers/independent-correct.js';

describeCorrectImplementations(['strict']);
