import { credentialHeader, type Operation, type SpecModel } from '../../spec/model.js';
import type { Credentials } from '../../checks/check.js';

/** The documented credential headers of an operation (both kinds when no operation is known). */
export function credentialHeaders(
  op: Operation | undefined,
  spec: SpecModel,
  credentials: Credentials,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const kinds = op ? op.credentials : (['bearer', 'userId'] as const);
  for (const kind of kinds) {
    const header = credentialHeader(spec, kind);
    if (kind === 'bearer' && credentials.apiKey !== undefined) headers[header] = `Bearer ${credentials.apiKey}`;
    if (kind === 'userId' && credentials.userId !== undefined) headers[header] = credentials.userId;
  }
  return headers;
}

/**
 * The documented credential headers of an operation, rebuilt only when the credentials change (a
 * rotated key, or a check setting them); the caller copies them into each request.
 */
export function documentedHeaders(
  spec: SpecModel,
  credentials: Credentials,
): (op: Operation | undefined) => Record<string, string> {
  const cache = new Map<
    Operation | undefined,
    { apiKey: string | undefined; userId: string | undefined; headers: Record<string, string> }
  >();
  return (op) => {
    const cached = cache.get(op);
    if (cached && cached.apiKey === credentials.apiKey && cached.userId === credentials.userId) return cached.headers;
    const headers = credentialHeaders(op, spec, credentials);
    cache.set(op, { apiKey: credentials.apiKey, userId: credentials.userId, headers });
    return headers;
  };
}
