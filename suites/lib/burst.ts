/**
 * The burst's sender: ratelimit.burst-429 spends a whole window, which at a production limit
 * (1000 a minute) is ~1000 requests; one at a time over a real network that alone takes tens of
 * seconds, and every round trip risks the window ending mid-burst. So while the last answer read
 * advertises more than 2 × BURST_CONCURRENCY requests remaining, the next BURST_CONCURRENCY
 * requests are sent together; near the edge (and when Remaining is unknown) they go one at a time,
 * so the request that meets the limit, the answer before it and the 429 are observed exactly as
 * in a sequential burst.
 *
 * Answers are handed out one by one. Within a concurrent batch the server may take the requests
 * in any order, so the batch is handed out in the server's own order as its Remaining values tell
 * it (highest first; ties and unreadable values keep the send order): a server whose count goes
 * down is never seen going up because two requests crossed on the wire.
 */
import type { Exchange } from '../../src/transport/types.js';

/** Requests in flight at once during a burst: the transport's connections (8 by default). */
export const BURST_CONCURRENCY = 8;

/**
 * `next()` returns the burst's next answer, sending a batch of `concurrency` requests when the
 * last answer handed out left room for it. At most `concurrency - 1` requests are sent beyond the
 * last answer the caller reads.
 */
export function burstSender(
  send: () => Promise<Exchange>,
  remainingOf: (exchange: Exchange) => number | undefined,
  concurrency: number = BURST_CONCURRENCY,
): () => Promise<Exchange> {
  const ready: Exchange[] = [];
  let lastRemaining: number | undefined;
  return async () => {
    if (ready.length === 0) {
      const size = lastRemaining !== undefined && lastRemaining > 2 * concurrency ? concurrency : 1;
      const batch = await Promise.all(Array.from({ length: size }, () => send()));
      const key = (e: Exchange) =>
        e.response && e.response.status !== 429
          ? (remainingOf(e) ?? Number.NEGATIVE_INFINITY)
          : Number.NEGATIVE_INFINITY;
      ready.push(
        ...batch
          .map((e, i) => ({ e, i }))
          .sort((a, b) => key(b.e) - key(a.e) || a.i - b.i)
          .map((x) => x.e),
      );
    }
    const next = ready.shift()!;
    lastRemaining = next.response ? remainingOf(next) : undefined;
    return next;
  };
}
