/**
 * The reference server's in-memory state. Which fields a record has is read from the spec's
 * schemas (Campaign, CampaignUpdated, CampaignCreate); only the server-managed values (ids, status,
 * timestamps, names looked up from ids, counts) are decided here. Requests reach this store only
 * after validation, so inputs already have the documented types.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { JsonSchema, SpecModel } from '../spec/model.js';
import { seed as seedData, type Json, type Seed } from './seed.js';
import { snakeCase } from '../results/names.js';

/** Property names of an object schema, through allOf (the Campaign record is an allOf). */
export function propertyNames(schema: JsonSchema): string[] {
  const out: string[] = [];
  const visit = (s: JsonSchema): void => {
    for (const sub of (s['allOf'] as JsonSchema[] | undefined) ?? []) visit(sub);
    const props = s['properties'];
    if (props && typeof props === 'object')
      for (const name of Object.keys(props)) if (!out.includes(name)) out.push(name);
  };
  visit(schema);
  return out;
}

/** `scheduleStartTime` → `schedule_start_time`: the create body's camelCase fields land in snake_case. */
export { snakeCase };

export interface StoreOptions {
  spec: SpecModel;
  apiKey: string;
  userId: string;
  channels: readonly [string, string];
  now?: () => Date;
}

export interface CallQuery {
  limit: number;
  offset: number;
  provider?: string | null;
}

interface StoredCampaign {
  record: Json;
  recipients: Json[];
}

/** A fresh API key value: clearly this server's, unguessable. */
export const newApiKey = (): string => `vapc_ref_${randomBytes(18).toString('base64url')}`;

export class ReferenceStore {
  apiKey: string;
  readonly userId: string;
  readonly channels: readonly [string, string];
  readonly data: Seed;
  readonly campaigns = new Map<string, StoredCampaign>();
  readonly invites = new Map<string, Json>();
  private readonly now: () => Date;
  /** Fields of the campaign record, of the update-shaped record, and of the create body. */
  private readonly campaignFields: string[];
  private readonly updatedFields: string[];
  private readonly createFields: string[];
  private readonly updateFields: string[];

  constructor(options: StoreOptions) {
    this.apiKey = options.apiKey;
    this.userId = options.userId;
    this.channels = options.channels;
    this.now = options.now ?? (() => new Date());
    this.data = seedData({ userId: options.userId, channels: options.channels, now: this.now() });
    this.campaignFields = propertyNames(options.spec.schema('Campaign'));
    this.updatedFields = propertyNames(options.spec.schema('CampaignUpdated'));
    this.createFields = propertyNames(options.spec.schema('CampaignCreate'));
    this.updateFields = propertyNames(options.spec.schema('CampaignUpdate'));
  }

  // ---- calls ------------------------------------------------------------------------------

  /** Calls, newest first; `provider` filters by equality; negative limit/offset count as 0. */
  listCalls(query: CallQuery): Json[] {
    const matching =
      query.provider === undefined || query.provider === null || query.provider === ''
        ? this.data.calls
        : this.data.calls.filter((c) => c['provider'] === query.provider);
    const offset = Math.max(0, query.offset);
    const limit = Math.max(0, query.limit);
    return matching.slice(offset, offset + limit);
  }

  // ---- campaigns --------------------------------------------------------------------------

  createCampaign(body: Json): Json {
    const now = this.now().toISOString();
    const input: Json = {};
    for (const field of this.createFields) {
      if (field === 'recipients' || !(field in body)) continue;
      input[snakeCase(field)] = body[field];
    }
    const id = `cmp_${randomUUID()}`;
    const record: Json = {};
    for (const field of this.campaignFields) record[field] = field in input ? input[field] : null;
    Object.assign(record, { id, status: 'draft', created_at: now, updated_at: now });
    const recipients = Array.isArray(body['recipients']) ? (body['recipients'] as Json[]) : [];
    this.campaigns.set(id, { record, recipients });
    return this.renderCampaign(id)!;
  }

  /** The full campaign record with its looked-up and counted fields. */
  renderCampaign(id: string): Json | undefined {
    const stored = this.campaigns.get(id);
    if (!stored) return undefined;
    const record: Json = { ...stored.record };
    const assistant = this.data.assistants.find((a) => a['id'] === record['assistant_id']);
    const phone = this.data.phoneNumbers.find((p) => p.id === record['phone_number_id']);
    const list = this.data.recipientLists.find((l) => l.id === record['recipient_list_id']);
    record['assistant_name'] = assistant ? assistant['name'] : null;
    record['caller_id_number'] = phone ? phone.number : null;
    record['recipient_list_name'] = list ? list.name : null;
    record['recipient_list_row_count'] = list ? list.recipients.length : null;
    record['counts'] = this.counts(stored);
    return record;
  }

  private counts(stored: StoredCampaign): Json {
    const list = this.data.recipientLists.find((l) => l.id === stored.record['recipient_list_id']);
    const recipients = stored.recipients.length + (list ? list.recipients.length : 0);
    return { recipients, calls_total: 0, calls_completed: 0, calls_failed: 0, calls_pending: recipients };
  }

  getCampaign(id: string): Json | undefined {
    const campaign = this.renderCampaign(id);
    if (!campaign) return undefined;
    return { campaign, counts: campaign['counts'], calls: [] };
  }

  /** Applies the update and returns the update-shaped record (the six omitted fields left out). */
  updateCampaign(id: string, body: Json): Json | undefined {
    const stored = this.campaigns.get(id);
    if (!stored) return undefined;
    for (const field of this.updateFields) {
      if (!(field in body)) continue;
      if (field === 'recipients') stored.recipients = body[field] as Json[];
      else if (this.campaignFields.includes(field)) stored.record[field] = body[field];
    }
    stored.record['updated_at'] = this.now().toISOString();
    return this.updatedShape(this.renderCampaign(id)!);
  }

  updatedShape(record: Json): Json {
    const out: Json = {};
    for (const field of this.updatedFields) out[field] = field in record ? record[field] : null;
    return out;
  }

  // ---- recipient lists, invites, users, keys ------------------------------------------------

  addRecipient(listId: string, body: Json): Json | undefined {
    const list = this.data.recipientLists.find((l) => l.id === listId);
    if (!list) return undefined;
    const recipient: Json = {
      id: `rcp_${randomUUID()}`,
      phone_number: body['phone_number'] ?? null,
      metadata: body['metadata'] ?? {},
    };
    list.recipients.push(recipient);
    return {
      ...recipient,
      recipient_list_id: list.id,
      created_at: this.now().toISOString(),
      row_count: list.recipients.length,
    };
  }

  createInvite(orgId: string, body: Json): Json | undefined {
    if (!this.data.orgs.some((o) => o.id === orgId)) return undefined;
    const expires = new Date(this.now().getTime() + 7 * 24 * 3600 * 1000);
    const invite: Json = {
      id: `inv_${randomUUID()}`,
      email: body['email'] ?? null,
      role: body['role'] ?? 'developer',
      expires_at: expires.toISOString(),
      token: `inv_tok_${randomBytes(18).toString('base64url')}`,
    };
    this.invites.set(invite['id'] as string, { ...invite, org_id: orgId });
    return invite;
  }

  currentUser(): Json {
    return {
      user: { ...this.data.user },
      orgs: this.data.orgs.map((o) => ({ ...o })),
      default_org_id: this.data.user['default_org_id'],
    };
  }

  /** Rotates the key: the returned key is the only one accepted from now on. */
  regenerateKey(keyId: string): Json | undefined {
    if (keyId !== this.data.apiKey.id) return undefined;
    this.apiKey = newApiKey();
    return { key: this.apiKey, id: this.data.apiKey.id, name: this.data.apiKey.name, upgraded: false };
  }
}
