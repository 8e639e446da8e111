/**
 * One handler per operationId of the contract. Each receives the validated (coerced) request and
 * returns a status and a body; the server refuses to start when the spec names an operation that
 * has no handler here, so a spec change cannot go unserved silently.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Operation } from '../spec/model.js';
import type { ValidatedRequest } from '../validators/index.js';
import type { Json } from './seed.js';
import type { ReferenceStore } from './store.js';

export interface OperationContext {
  value: ValidatedRequest;
  store: ReferenceStore;
  op: Operation;
  headers: IncomingHttpHeaders;
}

/** `raw` is an already serialised JSON body (GET /calls joins pre-serialised calls). */
export type OperationResult = { status: number; body?: unknown; raw?: string };

export type OperationHandler = (ctx: OperationContext) => OperationResult;

const notFound = (what: string): OperationResult => ({ status: 404, body: { detail: `${what} not found` } });

const startedAt = Date.now();

/**
 * Pages of GET /calls, serialised once per (limit, offset, provider): the seeded calls never change,
 * so a page is a ready string. Bounded: the cache is emptied when it holds 256 pages.
 */
const pages = new WeakMap<ReferenceStore, Map<string, string>>();
function callsPage(store: ReferenceStore, limit: number, offset: number, provider: string | null): string {
  let cache = pages.get(store);
  if (!cache) pages.set(store, (cache = new Map()));
  const key = `${limit}\u0000${offset}\u0000${provider ?? ''}`;
  let text = cache.get(key);
  if (text === undefined) {
    if (cache.size >= 256) cache.clear();
    text = JSON.stringify(store.listCalls({ limit, offset, provider }));
    cache.set(key, text);
  }
  return text;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const body = (ctx: OperationContext): Json =>
  ctx.value.body && typeof ctx.value.body === 'object' ? (ctx.value.body as Json) : {};

export const handlers: Record<string, OperationHandler> = {
  listCalls(ctx) {
    const q = ctx.value.query;
    const limit = typeof q['limit'] === 'number' ? q['limit'] : 50;
    const offset = typeof q['offset'] === 'number' ? q['offset'] : 0;
    const provider = typeof q['provider'] === 'string' ? q['provider'] : null;
    return { status: 200, raw: callsPage(ctx.store, limit, offset, provider) };
  },

  createCampaign: (ctx) => ({ status: 201, body: ctx.store.createCampaign(body(ctx)) }),

  getCampaign(ctx) {
    const detail = ctx.store.getCampaign(str(ctx.value.path['campaign_id']));
    return detail ? { status: 200, body: detail } : notFound('Campaign');
  },

  updateCampaign(ctx) {
    const updated = ctx.store.updateCampaign(str(ctx.value.path['campaign_id']), body(ctx));
    return updated ? { status: 200, body: updated } : notFound('Campaign');
  },

  addRecipient(ctx) {
    const added = ctx.store.addRecipient(str(ctx.value.path['recipient_list_id']), body(ctx));
    return added ? { status: 201, body: added } : notFound('Recipient list');
  },

  createInvite(ctx) {
    const invite = ctx.store.createInvite(str(ctx.value.path['org_id']), body(ctx));
    return invite ? { status: 201, body: invite } : notFound('Organization');
  },

  getCurrentUser: (ctx) => ({ status: 200, body: ctx.store.currentUser() }),

  listAssistants: (ctx) => ({ status: 200, body: ctx.store.data.assistants }),

  regenerateApiKey(ctx) {
    const result = ctx.store.regenerateKey(str(ctx.value.path['key_id']));
    return result ? { status: 200, body: result } : notFound('API key');
  },

  getHealth() {
    const memory = process.memoryUsage();
    return {
      status: 200,
      body: {
        status: 'ok',
        server: 'vapc reference server',
        multi_user: true,
        users: { active: 1 },
        resource_usage: {
          heap_used_percent: Math.round((memory.heapUsed / memory.heapTotal) * 100),
          rss_bytes: memory.rss,
        },
        uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
      },
    };
  },

  preflightUserCredential: () => ({ status: 204 }),
  preflightChatLogs: () => ({ status: 204 }),
  preflightChatSessions: () => ({ status: 204 }),

  getProtected(ctx) {
    const userId = str(ctx.headers['x-user-id']);
    return { status: 200, body: { message: `Hello, ${userId}! You reached a protected endpoint.`, user_id: userId } };
  },
};
