/**
 * The server's state and judgements, outside Fastify: the store, the fixtures a client is given,
 * request validation (the project's validators plus the provider identifiers only the server
 * knows), authentication and the rate-limit bucket. Tests wrap these through `configure`.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Operation, SpecModel } from '../spec/model.js';
import { providerIdFields } from '../spec/schema.js';
import {
  validateRequest,
  type RequestParts,
  type ValidatedRequest,
  type ValidationResult,
} from '../validators/index.js';
import { ReferenceStore, newApiKey } from './store.js';
import {
  DEFAULT_CHANNELS,
  DEFAULT_RATE_LIMIT,
  DEFAULT_RATE_WINDOW_MS,
  DEFAULT_USER_ID,
  type ReferenceFixtures,
  type ReferenceInternals,
  type ReferenceServerOptions,
} from './types.js';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The bearer value of an Authorization header (scheme case-insensitive), if it has one. */
export function bearerOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['authorization'];
  if (typeof value !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value);
  return match ? match[1] : undefined;
}

function fixturesOf(store: ReferenceStore, channels: [string, string]): ReferenceFixtures {
  return {
    get api_key() {
      return store.apiKey;
    },
    user_id: store.userId,
    org_id: store.data.orgs[0]!.id,
    recipient_list_id: store.data.recipientLists[0]!.id,
    api_key_id: store.data.apiKey.id,
    channels: [channels[0], channels[1]],
  };
}

type Validate = (operationId: string, parts: RequestParts) => ValidationResult<ValidatedRequest>;

/**
 * The project's validators, then `channel` (and any top-level provider-id field the spec marks):
 * one of the two provider identifiers (4.2), a closed set the spec cannot list since the contract
 * does not name them; the server knows its own.
 */
function channelAwareValidator(spec: SpecModel, channels: readonly string[]): Validate {
  const providerFieldsOf = new Map(
    spec.operations.map((op) => [
      op.id,
      providerIdFields(op)
        .filter((f) => f.depth === 0)
        .map((f) => f.field),
    ]),
  );
  return (operationId, parts) => {
    const result = validateRequest(operationId, parts);
    if (!result.ok) return result;
    const body = result.value.body as Record<string, unknown> | undefined;
    for (const field of providerFieldsOf.get(operationId) ?? []) {
      const value = body && typeof body === 'object' ? body[field] : undefined;
      if (typeof value === 'string' && !channels.includes(value)) {
        return {
          ok: false,
          issues: [
            {
              pointer: `/${field}`,
              location: 'body',
              rule: 'enum',
              expected: [...channels],
              actual: value,
              message: `body /${field} must be one of ${channels.join(', ')}`,
            },
          ],
        };
      }
    }
    return result;
  };
}

/** True when the headers carry every credential the operation documents, as the store holds them. */
function credentialsMatch(store: ReferenceStore, op: Operation, headers: IncomingHttpHeaders): boolean {
  if (!op.requiresCredentials) return true;
  for (const credential of op.credentials) {
    if (credential === 'bearer') {
      const bearer = bearerOf(headers);
      if (bearer === undefined || !sameSecret(bearer, store.apiKey)) return false;
    } else {
      const userId = headers['x-user-id'];
      if (typeof userId !== 'string' || !sameSecret(userId, store.userId)) return false;
    }
  }
  return true;
}

/** The store, fixtures and the seams of one server, from its options. */
export function createInternals(spec: SpecModel, options: ReferenceServerOptions): ReferenceInternals {
  const channels: [string, string] = options.channels ?? [...DEFAULT_CHANNELS];
  const store = new ReferenceStore({
    spec,
    apiKey: options.apiKey ?? newApiKey(),
    userId: options.userId ?? DEFAULT_USER_ID,
    channels,
  });
  return {
    spec,
    store,
    fixtures: fixturesOf(store, channels),
    rateLimit: {
      max: options.rateLimit ?? DEFAULT_RATE_LIMIT,
      windowMs: options.rateWindowMs ?? DEFAULT_RATE_WINDOW_MS,
    },
    validateRequest: channelAwareValidator(spec, channels),
    authenticate: (op, headers) => credentialsMatch(store, op, headers),
    rateLimitKey(request) {
      const bearer = bearerOf(request.headers);
      return bearer !== undefined && sameSecret(bearer, store.apiKey) ? `key:${bearer}` : `ip:${request.ip}`;
    },
  };
}
