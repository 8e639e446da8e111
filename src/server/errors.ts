/**
 * Error bodies of the reference server: the FastAPI-shaped validation error body (contract 2.8,
 * built in src/http, which the middleware shares) and `{detail: string}` for everything else.
 */
export {
  pointerSegments,
  validationBody,
  validationItem,
  type HttpValidationError,
  type IssueLike,
  type ValidationErrorItem,
} from '../http/validation-error.js';

/**
 * The contract's messages (section 7): 401 says the credentials are invalid (and which headers a
 * client sends: a newcomer with the key alone gets told the user id is needed too), 429 that the
 * limit was exceeded.
 */
export const UNAUTHORIZED_DETAIL =
  'Invalid authentication credentials: send both the Authorization header (Bearer <API key>) and the X-User-ID header (the id of the user the key belongs to)';
export const RATE_LIMITED_DETAIL = 'Rate limit exceeded';
