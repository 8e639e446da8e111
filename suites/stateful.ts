/**
 * stateful: a campaign created with every documented field comes back as sent (the camelCase
 * schedule times in the snake_case fields), GET returns it under `campaign` with `counts` and
 * `calls`, PATCH changes persist and the update-shaped record comes back, the update's status
 * values are accepted; a recipient can be added; with --include-destructive an invite is created
 * and the API key regenerated (then used) (sections 2.2, 3.1, 4.2-4.6, 4.9).
 */
import type { CheckDefinition } from '../src/checks/check.js';
import { createEchoes, getReturnsCreated } from './stateful/create.js';
import { updatePersists, updateRecordShape } from './stateful/update.js';
import { updateStatusValues } from './stateful/status.js';
import { addRecipient, createInvite, regenerateKey } from './stateful/recipients-invites-keys.js';

// The suite in parts under stateful/: the echo judges (echo.ts), the records the checks create
// (records.ts), create and read (create.ts), update (update.ts), the status values (status.ts), and
// recipients, invites and key regeneration (recipients-invites-keys.ts).
export {
  addRecipient,
  createEchoes,
  createInvite,
  getReturnsCreated,
  regenerateKey,
  updatePersists,
  updateRecordShape,
  updateStatusValues,
};

export const statefulChecks: CheckDefinition[] = [
  createEchoes,
  getReturnsCreated,
  updatePersists,
  updateRecordShape,
  updateStatusValues,
  addRecipient,
  createInvite,
  regenerateKey,
];
