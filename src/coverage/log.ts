/**
 * The exchange log coverage is computed from: per exchange a check sent, the check, the plan
 * pair it ran in (the n-th check × operation of the run), the operation, the status and the cells
 * it touched. Fed by two taps of the runner (its `onExchange` and `onCheckDone`); discovery
 * requests (no check) are left out, so every shard and an unsharded run log the same exchanges
 * for the pairs they share. Keeps no request value, only cell keys (and, in memory only, the ids
 * the server handed out: HandedOutIds).
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
  /**
   * Answered with an undocumented status while its path named an id the run never got from the
   * server (`HandedOutIds`): a request outside what the contract documents, never gated.
   */
  unknownId?: true;
  /**
   * Its answer was judged on the check's property (a pass or a failure, not a 429 or an open
   * rule): only such answers make a cell judged. A passive record is judged by construction.
   */
  judged?: true;
}

/** How deep an answer is walked for `id` members, and how many nodes at most: a hostile answer costs little. */
const ID_DEPTH = 4;
const ID_NODES = 5_000;

/**
 * The ids the run knows exist: every string (or number) leaf of the run's fixtures (configured or
 * discovered), and the `id` members of success answers (a created record, a listed one), whoever
 * sent them, discovery and setup included. Members named otherwise (`recipient_list_id`, `name`)
 * are left out: a server may echo them from the request, so they prove nothing. A path value
 * outside both is an id the runner made up (a placeholder, a string edge, a generated id).
 */
export class HandedOutIds {
  private readonly ids = new Set<string>();

  constructor(private readonly fixtures?: () => unknown) {}

  /** Reads the `id` members of a 2xx JSON answer. */
  learn(exchange: ExchangeFacts): void {
    const res = exchange.response;
    if (!res || res.status < 200 || res.status > 299 || res.json === null || typeof res.json !== 'object') return;
    let level: unknown[] = [res.json];
    let nodes = 0;
    for (let depth = 0; depth < ID_DEPTH && level.length > 0 && nodes < ID_NODES; depth++) {
      const next: unknown[] = [];
      for (const v of level) {
        if (++nodes > ID_NODES) break;
        if (Array.isArray(v)) next.push(...v.slice(0, ID_NODES));
        else if (v !== null && typeof v === 'object') {
          const record = v as Record<string, unknown>;
          if (typeof record['id'] === 'string' || typeof record['id'] === 'number') this.ids.add(String(record['id']));
          next.push(...Object.values(record).filter((x) => x !== null && typeof x === 'object'));
        }
      }
      level = next;
    }
  }

  /** Whether every value was handed out by the server or is one of the run's fixtures. */
  knows(values: readonly string[]): boolean {
    const unknown = values.filter((v) => !this.ids.has(v));
    if (unknown.length === 0) return true;
    const fixtures = new Set<string>();
    const walk = (v: unknown, depth: number): void => {
      if (typeof v === 'string' || typeof v === 'number') fixtures.add(String(v));
      else if (v !== null && typeof v === 'object' && depth < ID_DEPTH)
        for (const x of Object.values(v as Record<string, unknown>)) walk(x, depth + 1);
    };
    walk(this.fixtures?.(), 0);
    return unknown.every((v) => fixtures.has(v));
  }
}

export class ExchangeLog {
  readonly records: ExchangeRecord[] = [];
  private pair = 0;
  private readonly match;
  /** What an exchange touched, by the credentials it was read with: a passive judge reads it again. */
  private readonly touches = new WeakMap<ExchangeFacts, { credentials: string; touch: Touch | undefined }>();
  /** The sender's record of each exchange, for `judged`. */
  private readonly bySender = new WeakMap<ExchangeFacts, ExchangeRecord>();

  private readonly handedOut: HandedOutIds;

  /**
   * `credentials` reads the run's credentials as they stand (a rotated key included); `fixtures`
   * the run's fixtures as they stand (configured and discovered ids: see HandedOutIds).
   */
  constructor(
    readonly universe: Universe,
    private readonly credentials?: () => CoverageCredentials | undefined,
    fixtures?: () => unknown,
  ) {
    this.match = operationMatcher(universe);
    this.handedOut = new HandedOutIds(fixtures);
  }

  /**
   * The runner's onExchange: one exchange as sent, with the id of the check that sent it. `pair`:
   * the result it belongs to, when the caller knows it (recorded traffic judges every pair at once);
   * by default the next result done.
   */
  exchange(exchange: ExchangeFacts, checkId: string | undefined, passive = false, pair = this.pair): void {
    const touch = checkId === undefined || SETUP_TAGS.has(checkId) ? undefined : this.touchOf(exchange);
    if (touch && checkId !== undefined) {
      const record: ExchangeRecord = {
        pair,
        check: checkId,
        operation: touch.operation,
        cells: touch.cells,
      };
      if (passive) {
        record.passive = true;
        record.judged = true;
      } else this.bySender.set(exchange, record);
      if (touch.status !== undefined) record.status = touch.status;
      if (touch.documented !== undefined) record.documented = touch.documented;
      else if (touch.status !== undefined && !this.handedOut.knows(touch.pathValues)) record.unknownId = true;
      this.records.push(record);
    }
    if (!passive) this.handedOut.learn(exchange); // a passive judge reads an exchange already learnt from
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

  /** The one verdict path's note: the check `checkId` judged its own exchange's answer. */
  judged(exchange: ExchangeFacts, checkId: string | undefined): void {
    const record = this.bySender.get(exchange);
    if (record && record.check === checkId) record.judged = true;
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
