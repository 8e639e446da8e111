import type { Exchange, HttpRequest, Transport, WireRequest } from './types.js';

/** A transport that records every wire request (and exchange) of another one: for tests and replays. */
export interface RecordingTransport extends Transport {
  readonly exchanges: Exchange[];
  /** The wire requests in order, as `METHOD url` + headers + body. */
  wire(): WireRequest[];
}

export function createRecordingTransport(inner: Transport): RecordingTransport {
  const exchanges: Exchange[] = [];
  return {
    baseUrl: inner.baseUrl,
    exchanges,
    wire: () => exchanges.map((e) => e.request),
    async send(request: HttpRequest): Promise<Exchange> {
      const exchange = await inner.send(request);
      exchanges.push(exchange);
      return exchange;
    },
    close: () => inner.close(),
  };
}
