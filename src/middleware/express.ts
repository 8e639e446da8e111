/**
 * The Express adapter: the Node adapter's connect-style middleware (Express 4 and 5, and connect
 * or polka alike). Mount it before the routes, and before `express.json()`: it reads the JSON body
 * of an operation itself, so a malformed one gets the contract's 422 rather than body-parser's
 * 400, and leaves `req.body` parsed (and marked read) for what follows. A body that a parser
 * mounted earlier already read is taken as it is.
 */
import { ContractEngine } from './core.js';
import { nodeMiddleware, type NodeMiddleware } from './node.js';
import type { ContractMiddlewareOptions } from './types.js';

/** `app.use(expressContract({ responses: 'test' }))`. */
export function expressContract(options?: ContractMiddlewareOptions): NodeMiddleware {
  return nodeMiddleware(new ContractEngine(options));
}
