/**
 * The contract's error bodies as the judges read them: the `detail` of a 401 and of a 429 (section
 * 7), and whether a validation error body's `loc` names a field (section 2.8).
 */
import type { InvalidCase } from '../../../src/generators/index.js';
import { validate } from '../../../src/validators/index.js';

/**
 * What section 7 says the `detail` of a 401 and of a 429 says. The contract fixes no wording, so the
 * words are only noted: a message naming none of these (in another language, or "No.") is an
 * observation, never a failure (errorDetailWording).
 */
const DETAIL_SAYS = {
  401: {
    what: 'that the credentials are invalid',
    words:
      /invalid|credential|auth|unauthori[sz]|not allowed|denied|api[\s_-]?key|\bkeys?\b|token|bearer|user|missing|expired|incorrect|wrong|not valid|unknown|forbidden|permission|log\s?in|sign[\s-]?in|access/i,
  },
  429: {
    what: 'that the rate limit was exceeded',
    words: /rate|limit|too many|exceed|throttl|quota|slow|retry|try again|requests|capacity/i,
  },
} as const;

/**
 * Judges an error body of section 7 (401 or 429) on what the contract fixes: `{detail: string}`
 * with a message in it (not empty). Undefined when it is; else the reason, for a failure.
 */
export function errorDetailProblem(_status: 401 | 429, response: { json?: unknown; text: string }): string | undefined {
  if (!validate('ErrorDetail', response.json).ok)
    return `body ${response.text.slice(0, 120) || '(empty)'} is not {detail: string}`;
  const detail = (response.json as { detail: string }).detail;
  if (detail.trim() === '') return 'detail is an empty message';
  return undefined;
}

/**
 * The observation for a `detail` whose words say nothing recognisable of what section 7 says it
 * says (the wording is free: another language is fine), or undefined. Only for a body that passed
 * errorDetailProblem.
 */
export function errorDetailWording(status: 401 | 429, response: { json?: unknown }): string | undefined {
  const detail = (response.json as { detail?: unknown } | undefined)?.detail;
  if (typeof detail !== 'string') return undefined;
  const says = DETAIL_SAYS[status];
  if (says.words.test(detail)) return undefined;
  return `the ${status}'s detail ${JSON.stringify(detail.slice(0, 120))} names none of the words that would say ${says.what} (the contract fixes no wording: noted, not judged)`;
}

/** Does a validation error body locate the fault at `loc` (with or without the `body`/`query` prefix)? */
export function locNames(detail: unknown, kase: Pick<InvalidCase, 'loc' | 'location'>): boolean {
  if (!Array.isArray(detail)) return false;
  const want = kase.loc.map(String);
  const named = want.filter((p) => !/^\d+$/.test(p));
  const field = named[named.length - 1];
  return detail.some((item) => {
    const loc = Array.isArray((item as { loc?: unknown })?.loc)
      ? ((item as { loc: unknown[] }).loc.map(String) as string[])
      : [];
    const rest = loc[0] === kase.location ? loc.slice(1) : loc;
    if (rest.length >= want.length && want.every((p, i) => rest[i] === p)) return true;
    // An item may name a nested member as one dotted path ("speech_settings.style"): 2.8 only
    // asks for strings and integers.
    return field !== undefined && loc.some((item) => item === field || item.split('.').includes(field));
  });
}
