/**
 * The run's own evidence that an operation serves the credentials in use (`servedBefore`): the
 * first success answer on it to a request the wire validator calls valid, sent with the documented
 * credentials as the run holds them. The open rules read it: a 403 on an operation these
 * credentials were served is no "forbidden access" (suites/lib/judges.ts).
 */
import type { Credentials, RequestValidator } from '../../checks/check.js';
import type { Operation, SpecModel } from '../../spec/model.js';
import type { Exchange } from '../../transport/types.js';
import { credentialHeaders } from './credentials.js';

export class ServedEvidence {
  private readonly served = new Map<Operation, Exchange>();

  constructor(
    private readonly spec: SpecModel,
    private readonly credentials: Credentials,
    private readonly validateRequest: RequestValidator | undefined,
  ) {}

  /** The runner's answer listener: keeps the first valid, credentialed success answer per operation. */
  hear(exchange: Exchange, op: Operation): void {
    const status = exchange.response?.status;
    if (status === undefined || status < 200 || status > 299 || this.served.has(op) || !this.validateRequest) return;
    if (!this.carriesCredentials(exchange, op)) return;
    if (!this.validateRequest(op, exchange).valid) return;
    this.served.set(op, exchange);
  }

  get(op: Operation): Exchange | undefined {
    return this.served.get(op);
  }

  /** Did the request carry every documented credential of `op` with the run's values (none missing, none altered)? */
  private carriesCredentials(exchange: Exchange, op: Operation): boolean {
    const want = credentialHeaders(op, this.spec, this.credentials);
    if (Object.keys(want).length < op.credentials.length) return false;
    const sent = new Map(Object.entries(exchange.request.headers).map(([k, v]) => [k.toLowerCase(), v]));
    return Object.entries(want).every(([k, v]) => sent.get(k.toLowerCase()) === v);
  }
}
