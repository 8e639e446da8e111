/**
 * ratelimit (runs last): the rate-limit headers are present and integers, Remaining never above
 * Limit and decreasing within a window, Reset plausible (seconds until the reset or an epoch, both
 * faithful readings of the contract), and a burst past the advertised limit gets 429 with {detail}
 * and the headers, no sooner than advertised (sections 7, 8).
 */
import type { CheckDefinition } from '../src/checks/check.js';
import { headersPresent, remainingDecreases, resetPlausible } from './ratelimit/headers.js';
import { burst429 } from './ratelimit/burst.js';
import { resetHonoured } from './ratelimit/reset.js';

// The suite in parts: reading the headers (ratelimit/reading.ts), the header checks
// (ratelimit/headers.ts), the burst (ratelimit/burst.ts) and the wait for its reset (ratelimit/reset.ts).
export { loopRepro, probeOperation, rateHeaders, unreadable, type RateHeaders } from './ratelimit/reading.js';
export { plausibleReset } from './ratelimit/headers.js';
export { burstRequests, MAX_BURST } from './ratelimit/burst.js';
export { nearLimit, RESET_WAIT_CAP_MS, ROUNDING_MS } from './ratelimit/reset.js';
export { burst429, headersPresent, remainingDecreases, resetHonoured, resetPlausible };

/** Registry order: the burst after the header checks, since it spends the window; then the wait for its reset. */
export const ratelimitChecks: CheckDefinition[] = [
  headersPresent,
  remainingDecreases,
  resetPlausible,
  burst429,
  resetHonoured,
];
