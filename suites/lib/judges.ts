/**
 * The contract's judges: a response to an invalid request (422 with the validation error body,
 * "accepted" confirmed on the wire form), a response against its documented schema, the detail of
 * a 401 or 429. One module each under judges/: the error bodies, the open rules, invalid requests,
 * documented responses and allowed values; this one is their one import path.
 */
export { errorDetailProblem, errorDetailWording, locNames } from './judges/error-bodies.js';
export { OPEN_RULES, openRule, type OpenRuleContext } from './judges/open-rules.js';
export { judgeInvalid, type InvalidJudgeOptions } from './judges/invalid.js';
export { judgeAllowed, type AllowedProbe } from './judges/allowed.js';
export { issueField, judgeResponse, type ResponseJudgeOptions } from './judges/response.js';
