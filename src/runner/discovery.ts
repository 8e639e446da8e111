import type { Fixtures } from './check.js';
import type { RunContext } from './context.js';
import type { Exchange } from '../transport/types.js';
import type { Operation } from '../spec/model.js';

export interface DiscoveryResult {
  /** Discovered fixtures merged under the configured ones (config wins). */
  fixtures: Fixtures;
  /** Where each fixture came from. */
  sources: Partial<Record<keyof Fixtures, 'config' | 'discovered'>>;
  /** One line per discovery request: what it answered. */
  notes: string[];
  exchanges: Exchange[];
  /** True when no discovery request got any HTTP response (refused, reset, timed out). */
  unreachable: boolean;
  /** The first transport error, when unreachable. */
  error?: string;
}

/** The read-only operations discovery sends, by operationId (GET, no side effects). */
export const DISCOVERY_OPERATIONS = ['listAssistants', 'getCurrentUser', 'listCalls'] as const;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * Finds the ids checks need from the read-only operations: GET /assistants (assistant_id,
 * phone_number_id), GET /users/me (org_id), GET /calls (channels from the calls' providers,
 * phone_number_id as a fallback). Fixtures given in the config win over discovered ones.
 */
export async function discoverFixtures(ctx: RunContext, configured: Fixtures = {}): Promise<DiscoveryResult> {
  const found: Fixtures = {};
  const notes: string[] = [];
  const exchanges: Exchange[] = [];
  let answered = 0;
  let firstError: string | undefined;

  const get = async (opId: string, query?: Array<[string, string]>): Promise<unknown> => {
    let op: Operation;
    try {
      op = ctx.spec.operation(opId);
    } catch {
      return undefined;
    }
    const request = { method: op.method, path: op.path, operation: op, checkId: 'discovery', ...(query ? { query } : {}) };
    const exchange = await ctx.send(request);
    exchanges.push(exchange);
    if (!exchange.response) {
      firstError ??= `${op.method} ${op.path}: ${exchange.error?.message ?? 'no response'}`;
      notes.push(`${op.method} ${op.path}: no response (${exchange.error?.message ?? 'unknown error'})`);
      return undefined;
    }
    answered++;
    const { status, json } = exchange.response;
    if (status < 200 || status > 299) {
      notes.push(`${op.method} ${op.path}: answered ${status}; nothing discovered from it`);
      return undefined;
    }
    if (json === undefined) {
      notes.push(`${op.method} ${op.path}: answered ${status} without a JSON body`);
      return undefined;
    }
    notes.push(`${op.method} ${op.path}: answered ${status}`);
    return json;
  };

  const assistants = await get('listAssistants');
  if (Array.isArray(assistants)) {
    const withPhone = assistants.map(rec).find((a) => str(a['id']) && str(a['phone_number_id']));
    const first = withPhone ?? assistants.map(rec).find((a) => str(a['id']));
    if (first) {
      found.assistant_id = str(first['id'])!;
      const phone = str(first['phone_number_id']);
      if (phone) found.phone_number_id = phone;
    }
  }

  const me = rec(await get('getCurrentUser'));
  const org = str(me['default_org_id']) ?? str(rec(me['user'])['default_org_id']) ?? (Array.isArray(me['orgs']) ? str(rec(me['orgs'][0])['id']) : undefined);
  if (org) found.org_id = org;

  const calls = await get('listCalls', [['limit', '50']]);
  if (Array.isArray(calls)) {
    const providers: string[] = [];
    for (const call of calls.map(rec)) {
      const provider = str(call['provider']);
      if (provider && !providers.includes(provider)) providers.push(provider);
      if (!found.phone_number_id && str(call['phone_number_id'])) found.phone_number_id = str(call['phone_number_id'])!;
      if (!found.assistant_id && str(call['assistant_id'])) found.assistant_id = str(call['assistant_id'])!;
    }
    if (providers.length > 0) found.channels = providers.slice(0, 2);
  }

  const fixtures: Fixtures = {};
  const sources: DiscoveryResult['sources'] = {};
  const keys: Array<keyof Fixtures> = ['org_id', 'recipient_list_id', 'api_key_id', 'assistant_id', 'phone_number_id', 'channels'];
  for (const key of keys) {
    const fromConfig = configured[key];
    const fromApi = found[key];
    if (fromConfig !== undefined && !(Array.isArray(fromConfig) && fromConfig.length === 0)) {
      (fixtures as Record<string, unknown>)[key] = fromConfig;
      sources[key] = 'config';
    } else if (fromApi !== undefined) {
      (fixtures as Record<string, unknown>)[key] = fromApi;
      sources[key] = 'discovered';
    }
  }
  const result: DiscoveryResult = { fixtures, sources, notes, exchanges, unreachable: exchanges.length > 0 && answered === 0 };
  if (result.unreachable && firstError) result.error = firstError;
  return result;
}
