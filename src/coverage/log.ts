/**
 * The exchange log coverage is computed from: per exchange a check sent, the check, the plan
 * pair it ran in (the n-th check × operation of the run), the operation, the status and the cells
 * it touched. Fed by two taps of the runner (its `onExchange` and `onCheckDone`); discovery
 * requests (no check) are left out, so every shard and an unsharded run log the same exchanges
 * for the pairs they share. Keeps no request value, only cell keys.
 */
import type { Universe } from './universe.js';
import { operationMatcher, touchedCells, type CoverageCredentials, type ExchangeFacts, type Touch } from './touch.js';

/**
 * Tags of exchanges no check judges: src/runner/discovery.ts's read-only requests, and the record
 * the suites create once per run for whichever check needs it first (suites/lib/requests.ts).
 * Both happen once per shard, so they are left out of coverage.
 */
export const SETUP_TAGS: ReadonlySet<string> = new Set(['discovery', 'setup']);

export interface ExchangeRecord {
  /** Index of the result (check × operation) the exchange was sent in, in the run's result order. */
  pair: number;
  check: string;
  operation: string;
  status?: number;
  /** The documented status key the answer fell under; absent with a status: undocumented. */
  documented?: string;
  cells: string[];
  /** Sent by another check and judged by `check` passively (its judgeExchange): not a request of its own. */
  passive?: true;
}

export class ExchangeLog {
  readonly records: ExchangeRecord[] = [];
  private pair = 0;
  private readonly match;
  /** What an exchange touched, by the credentials it was read with: a passive judge reads it again. */
  private readonly touches = new WeakMap<ExchangeFacts, { credentials: string; touch: Touch | undefined }>();

  /** `credentials` reads the run's credentials as they stand (a rotated key included). */
  constructor(
    readonly universe: Universe,
    private readonly credentials?: () => CoverageCredentials | undefined,
  ) {
    this.match = operationMatcher(universe);
  }

  /** The runner's onExchange: one exchange as sent, with the id of the check that sent it. */
  exchange(exchange: ExchangeFacts, checkId: string | undefined, passive = false): void {
    if (checkId === undefined || SETUP_TAGS.has(checkId)) return;
    const touch = this.touchOf(exchange);
    if (!touch) return;
    const record: ExchangeRecord = { pair: this.pair, check: checkId, operation: touch.operation, cells: touch.cells };
    if (passive) record.passive = true;
    if (touch.status !== undefined) record.status = touch.status;
    if (touch.documented !== undefined) record.documented = touch.documented;
    this.records.push(record);
  }

  private touchOf(exchange: ExchangeFacts): Touch | undefined {
    const credentials = this.credentials?.();
    const key = [credentials?.apiKey, credentials?.userId].map((v) => (v === undefined ? '-' : `+${v}`)).join('\u0000');
    const known = this.touches.get(exchange);
    if (known?.credentials === key) return known.touch;
    const touch = touchedCells(this.universe, exchange, credentials, this.match);
    this.touches.set(exchange, { credentials: key, touch });
    return touch;
  }

  /** The runner's onCheckDone: the next exchanges belong to the next result. */
  checkDone(): void {
    this.pair++;
  }

  /** The two taps as RunEvents-shaped handlers. */
  get events(): { onCheckDone: () => void } {
    return { onCheckDone: () => this.checkDone() };
  }
}
