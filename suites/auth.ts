/**
 * auth: every credential the contract requires, tried missing, empty, malformed and wrong, gets
 * 401 with {detail: string}; health answers without credentials; the operations documented with
 * the bearer only work with the bearer only; GET /protected echoes the user id (sections 4.12, 5, 7).
 * Every case of a check goes to one operation (GET /users/me) and one case of each check to every
 * other operation, fixed across seeds (`coveringPick`): docs/checks.md says what that leaves out.
 */
import type { CheckDefinition } from '../src/checks/check.js';
import {
  emptyCredentials,
  malformedBearerCheck,
  missingCredentials,
  wrongCredentials,
} from './auth/bad-credentials.js';
import { bearerOnly, healthOpen, protectedEchoesUserId } from './auth/served.js';

// The suite in parts under auth/: what the checks share (probes.ts), the refusals of bad
// credentials (bad-credentials.ts) and the requests that must be served (served.ts).
export {
  bearerOnly,
  emptyCredentials,
  healthOpen,
  malformedBearerCheck,
  missingCredentials,
  protectedEchoesUserId,
  wrongCredentials,
};

export const authChecks: CheckDefinition[] = [
  missingCredentials,
  emptyCredentials,
  malformedBearerCheck,
  wrongCredentials,
  healthOpen,
  bearerOnly,
  protectedEchoesUserId,
];
