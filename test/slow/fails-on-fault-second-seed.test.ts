// Every (check, fault) pair of the catalogue under the second seed (test/helpers/fails-on-fault.ts
// CATALOGUE_SEEDS): test/checks/<suite>.test.ts run the first in `npm test`; CI runs both.
import { CATALOGUE_SEEDS, describeFailsOnFault, FAILS_ON } from '../helpers/fails-on-fault.js';

for (const suite of new Set(FAILS_ON.map(([id]) => id.split('.')[0]!)))
  describeFailsOnFault(suite, CATALOGUE_SEEDS.slice(1));
