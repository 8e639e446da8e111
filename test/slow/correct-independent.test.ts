// The slow tier's runs against the four independent correct implementations that
// test/catalog/independent/correct-{strict,lenient,fastapi-like,express-like}.test.ts run every day:
// the other two seed × destructive pairs and 25 property runs per check (test/helpers/independent-correct.ts).
import { describeCorrectImplementations } from '../helpers/independent-correct.js';

describeCorrectImplementations(['strict', 'lenient', 'fastapi-like', 'express-like'], 'slow');
