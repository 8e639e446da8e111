// The runner against the independent implementations that imitate real stacks (FastAPI, Express):
// every check passes (test/helpers/independent-correct.ts says what each run proves).
import { describeCorrectImplementations } from '../../helpers/independent-correct.js';

describeCorrectImplementations(['fastapi-like', 'express-like']);
