/** Outcomes of the suites' probes: one judgement per probe, gathered into a check outcome. */
import type { Failure, NotJudged } from '../results/model.js';
import type { CheckContext, CheckOutcome, FailureDetails, Judgement } from './check.js';
import type { Exchange } from '../transport/types.js';
import { passWithEvidence } from './evidence.js';

/**
 * A verdict of one probe: fine, a failure to report, or fine because nothing was judged
 * (`unjudged` says why: a 429, a rule the contract leaves to the server, a valid body refused for
 * another reason). A check with only unjudged probes is skipped, never passed.
 */
export type { Judgement };
export const OK: Judgement = { ok: true };
/** A probe that judged nothing: why in words, and as data (the cause the verdict and coverage read). */
export const unjudged = (reason: string, why: NotJudged): Judgement => ({ ok: true, unjudged: reason, why });

/** The facts of a failure as data: its kind and the field it is about (see FAILURE_KINDS). */
export type Facts = Pick<FailureDetails, 'kind' | 'field'>;

/**
 * A failure of one probe: the words (what the contract expects, what came, one line for the
 * headline) and its facts as data (`kind` always, `field` when it is about one part).
 */
export function fail(
  ctx: CheckContext,
  exchange: Exchange,
  expected: string,
  actual: string,
  summary: string,
  input: unknown,
  facts: Facts,
): Judgement {
  const details: FailureDetails = { expected, actual, ...facts };
  if (input !== undefined) details.input = input;
  return { ok: false, failure: ctx.failure(exchange, details), summary };
}

/** Collects judgements into a check outcome; one failure never stops the others being gathered. */
export class Findings {
  readonly failures: Failure[] = [];
  readonly summaries: string[] = [];
  /** Why probes judged nothing (see `unjudged`). */
  readonly unjudged: string[] = [];
  /** The same, as data. */
  readonly why: NotJudged[] = [];
  probes = 0;
  judged = 0;
  add(j: Judgement): boolean {
    this.probes++;
    if (!j.ok) {
      this.failures.push(j.failure);
      this.summaries.push(j.summary);
      this.judged++;
    } else if (j.unjudged !== undefined) {
      this.unjudged.push(j.unjudged);
      this.why.push(j.why);
    } else this.judged++;
    return j.ok;
  }
  /**
   * Failed with the failures; else passed when a probe was judged, skipped with the reasons when none was.
   * The headline counts the failures the result records (those saying the same thing once, at most
   * RECORDED_FAILURES, as the runner keeps them), so "(and N more)" is N more in report.json.
   */
  outcome(passedMessage: string): CheckOutcome {
    if (this.failures.length === 0) return passWithEvidence(this, passedMessage);
    const distinct = distinctFailures(this.failures);
    const recorded = recordedFailures(this.failures);
    const more =
      recorded.length > 1
        ? ` (and ${recorded.length - 1} more${distinct.length > recorded.length ? `; ${distinct.length} found, ${recorded.length} recorded` : ''})`
        : '';
    return { status: 'failed', message: `${this.summaries[0]}${more}`, failures: recorded };
  }
}

/** The most failures one result records (the runner's cap, src/runner/run.ts `dedupeFailures`). */
export const RECORDED_FAILURES = 20;

/** What a failure is as data: its kind, field and the status answered; undefined without a kind (a custom check's, an old report's). */
const findingKey = (f: Failure): string | undefined =>
  typeof f.kind === 'string'
    ? [f.kind, f.field?.location, f.field?.pointer, f.field?.status, f.response?.status].join('\u0000')
    : undefined;
const fullKey = (f: Failure): string => `${findingKey(f) ?? ''}\u0001${f.expected}\u0000${f.actual}`;

/** Failures without repeats: one of those with the same data and the same words. */
export function distinctFailures(failures: readonly Failure[]): Failure[] {
  const seen = new Set<string>();
  return failures.filter((f) => {
    const key = fullKey(f);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The failures a result records, in their order, at most `max`: first one of each finding (kind,
 * field, status), then other wordings of them. Which findings are kept is read from data only, so
 * rewording a message never changes what a baseline signature or a SARIF location sees.
 */
export function recordedFailures(failures: readonly Failure[], max = RECORDED_FAILURES): Failure[] {
  const distinct = distinctFailures(failures);
  const kept = new Set<Failure>();
  const findings = new Set<string>();
  for (const f of distinct) {
    const key = findingKey(f);
    if (kept.size >= max) break;
    if (key !== undefined && !findings.has(key)) {
      findings.add(key);
      kept.add(f);
    }
  }
  for (const f of distinct) {
    if (kept.size >= max) break;
    kept.add(f);
  }
  return distinct.filter((f) => kept.has(f));
}

/** A 429 is a budget event: nothing is judged on it (never a pass, never a failure). */
export const RATE_LIMITED = unjudged('rate limited (429)', { cause: 'rate-limited', status: 429 });

/**
 * A body the transport cut at its size cap (1 MiB, the runner's own limit, not the contract's: a page
 * of `GET /calls?limit=1000` may well be larger) cannot be judged: what is missing is the runner's doing.
 */
export const BODY_CUT = unjudged("the body passed the runner's size cap and was cut: its content is not judged", {
  cause: 'runner',
});

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** The status and the start of the body of an answer, or why there was none: the `actual` of a failure. */
export function statusText(exchange: Exchange): string {
  if (!exchange.response) return `no response (${exchange.error?.code ?? 'error'}: ${exchange.error?.message ?? ''})`;
  const body =
    exchange.response.text.length > 160 ? `${exchange.response.text.slice(0, 157)}...` : exchange.response.text;
  return `${exchange.response.status} ${body}`;
}

/** A check × operation that judged nothing: why in words, and as data. */
export const skipped = (message: string, notJudged: NotJudged): CheckOutcome => ({
  status: 'skipped',
  message,
  notJudged,
});
