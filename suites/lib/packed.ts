/**
 * Invalid cases sent together and narrowed by the answer (issue 25: fixed examples packed into as
 * few requests as attribution allows). Each case breaks one constraint of its own field; a server
 * that reports every fault (pydantic, AJV with allErrors) answers one 422 naming them all, so one
 * request judges every field. A case counts as judged only when the 422 names its field in loc: a
 * server that stops at the first fault names one, and the rest are sent again without it, so no
 * fault masks another. Whatever else comes back (accepted, another status, a 422 naming none of the
 * cases, a body that is not the validation error body) says nothing of which case was at fault, so
 * the cases still open are then sent one at a time and judged exactly as a single case is: a failure
 * names its own field and request.
 */
import type { Exchange } from '../../src/transport/types.js';
import type { CheckContext } from '../../src/checks/check.js';
import type { InvalidCase } from '../../src/generators/index.js';
import { validate } from '../../src/validators/index.js';
import { Findings, OK, RATE_LIMITED, type Judgement } from './outcomes.js';
import { locNames } from './judges.js';

export interface PackedProbe {
  /** Sends the cases in one request. */
  together(cases: readonly InvalidCase[]): Promise<Exchange>;
  /** Sends one case alone and judges it (the check's single-case judge). */
  alone(kase: InvalidCase): Promise<Judgement>;
}

/** Does an item of `detail` locate exactly this case (its loc, or a member under it, after an optional location)? */
function locatesExactly(detail: unknown[], kase: InvalidCase): boolean {
  const want = kase.loc.map(String);
  return detail.some((item) => {
    const loc = (item as { loc?: unknown })?.loc;
    if (!Array.isArray(loc)) return false;
    const parts = loc.map(String);
    const rest = parts[0] === kase.location ? parts.slice(1) : parts;
    return rest.length >= want.length && want.every((p, i) => rest[i] === p);
  });
}

/**
 * The cases a 422's detail names. `locNames` also takes a field's bare name anywhere in an item (a
 * dotted "speech_settings.style"); in a pack that is trusted only for a name no other case shares.
 */
export function namedCases(detail: unknown, cases: readonly InvalidCase[]): InvalidCase[] {
  if (!Array.isArray(detail)) return [];
  const names = cases.map((c) => c.field);
  const unique = (c: InvalidCase) => names.filter((n) => n === c.field).length === 1;
  return cases.filter((c) => locNames(detail, c) && (unique(c) || locatesExactly(detail, c)));
}

/** The 422 validation error body's detail, or undefined when the answer is anything else. */
function validationDetail(exchange: Exchange): unknown[] | undefined {
  const res = exchange.response;
  if (!res || res.status !== 422 || !validate('HTTPValidationError', res.json).ok) return undefined;
  return (res.json as { detail: unknown[] }).detail;
}

/**
 * Sends `cases` packed, dropping the ones each 422 names, until none is left or the answer names
 * none of them; those left are sent one at a time. Adds one judgement per case to `findings`.
 * Returns the requests sent.
 */
export async function probePacked(
  ctx: Pick<CheckContext, 'noteJudged'>,
  findings: Findings,
  cases: readonly InvalidCase[],
  probe: PackedProbe,
): Promise<number> {
  let open = [...cases];
  let sent = 0;
  while (open.length > 1) {
    const exchange = await probe.together(open);
    sent++;
    if (exchange.response?.status === 429) {
      findings.add(RATE_LIMITED);
      return sent;
    }
    const detail = validationDetail(exchange);
    const named = detail ? namedCases(detail, open) : [];
    if (!named.length) break;
    ctx.noteJudged?.(exchange);
    for (let i = 0; i < named.length; i++) findings.add(OK);
    open = open.filter((c) => !named.includes(c));
  }
  for (const kase of open) {
    findings.add(await probe.alone(kase));
    sent++;
  }
  return sent;
}
