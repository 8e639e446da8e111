// The independent fault server's correct variations that `npm test` leaves to the slow tier (the odd
// positions; test/helpers/independent-variants.ts): each passes with zero failures and zero errors.
import { describeVariants } from '../helpers/independent-variants.js';

describeVariants('slow');
