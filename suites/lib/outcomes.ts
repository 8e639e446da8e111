/** Outcomes of the suites' probes: one judgement per probe, gathered into a check outcome. */
import type { Failure } from '../../src/results/model.js';
import type { CheckContext, CheckOutcome, FailureDetails } from '../../src/checks/check.js';
import type { Exchange } from '../../src/transport/types.js';

/** A verdict of one probe: fine, or a failure to report. */
export type Judgement = { ok: true } | { ok: false; failure: Failure; summary: string };
export const OK: Judgement = { ok: true };

/** The facts of a failure as data: its kind and the field it is about (see FAILURE_KINDS). */
export type Facts = Pick<FailureDetails, 'kind' | 'field'>;

export function fail(ctx: CheckContext, exchange: Exchange, expected: string, actual: string, summary: string, input?: unknown, facts: Facts = {}): Judgement {
  const details: FailureDetails = { expected, actual, ...facts };
  if (input !== undefined) details.input = input;
  return { ok: false, failure: ctx.failure(exchange, details), summary };
}

/** Collects judgements into a check outcome; one failure never stops the others being gathered. */
export class Findings {
  readonly failures: Failure[] = [];
  readonly summaries: string[] = [];
  probes = 0;
  add(j: Judgement): boolean {
    this.probes++;
    if (!j.ok) {
      this.failures.push(j.failure);
      this.summaries.push(j.summary);
    }
    return j.ok;
  }
  outcome(passedMessage: string): CheckOutcome {
    if (this.failures.length === 0) return { status: 'passed', message: passedMessage };
    const unique = [...new Set(this.summaries)];
    const more = unique.length > 1 ? ` (and ${unique.length - 1} more)` : '';
    return { status: 'failed', message: `${unique[0]}${more}`, failures: this.failures };
  }
}

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** The status and the start of the body of an answer, or why there was none: the `actual` of a failure. */
export function statusText(exchange: Exchange): string {
  if (!exchange.response) return `no response (${exchange.error?.code ?? 'error'}: ${exchange.error?.message ?? ''})`;
  const body = exchange.response.text.length > 160 ? `${exchange.response.text.slice(0, 157)}...` : exchange.response.text;
  return `${exchange.response.status} ${body}`;
}

export const skipped = (message: string): CheckOutcome => ({ status: 'skipped', message });
