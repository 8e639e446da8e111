/**
 * Shared helpers of the suites, one module per concern under suites/lib/: outcomes (judgements and
 * Findings), property helpers (checkProperty, seeded samples), request helpers (requests from
 * fixtures, created records), spec queries, and the contract's judges. Re-exported here so a suite
 * imports them from one place.
 */
export { fail, Findings, isSuccess, OK, RATE_LIMITED, skipped, statusText, unjudged, type Judgement } from './lib/outcomes.js';
export { checkProperty, genOptions, sampleBody, type PropertyOptions } from './lib/property.js';
export { baseBody, createWith, missingPathParams, ownPathForRecord, pathValues, preflightHeaders, recordCost, request, sharedPathForRecord, uniqueNames, validCreateRefused } from './lib/requests.js';
export { boundOf, enumConflicts, isCredentialedRead, label, successResponse, successSchema } from './lib/spec-queries.js';
export { errorDetailProblem, judgeInvalid, judgeResponse, locNames, OPEN_RULES, openRule, type InvalidJudgeOptions, type ResponseJudgeOptions } from './lib/judges.js';
