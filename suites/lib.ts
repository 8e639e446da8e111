/**
 * Shared helpers of the suites, re-exported so a suite imports them from one place. The generic
 * toolkit (outcomes and Findings, checkProperty) lives in src/checks/ and is public through
 * `voice-agent-contract/runner`; this contract's parts are under suites/lib/: property helpers
 * (generation options, seeded samples), request helpers (requests from fixtures, created records),
 * spec queries, and the contract's judges.
 */
export {
  fail,
  Findings,
  isSuccess,
  OK,
  RATE_LIMITED,
  skipped,
  statusText,
  unjudged,
  type Judgement,
} from '../src/checks/outcomes.js';
export { checkProperty, genOptions, sampleBody, type PropertyOptions } from './lib/property.js';
export {
  baseBody,
  createWith,
  missingPathParams,
  noRecord,
  ownPathForRecord,
  pairedSample,
  pathValues,
  preflightHeaders,
  recordCost,
  request,
  sharedPathForRecord,
  uniqueNames,
  validCreateRefused,
  type RecordPath,
} from './lib/requests.js';
export {
  boundOf,
  enumConflicts,
  isCredentialedRead,
  label,
  successResponse,
  successSchema,
} from './lib/spec-queries.js';
export {
  errorDetailProblem,
  errorDetailWording,
  judgeAllowed,
  judgeInvalid,
  judgeResponse,
  locNames,
  OPEN_RULES,
  openRule,
  type AllowedProbe,
  type InvalidJudgeOptions,
  type ResponseJudgeOptions,
} from './lib/judges.js';
