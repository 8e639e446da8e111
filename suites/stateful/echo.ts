/**
 * The stateful suite's echo judges: does a record carry what was sent (timestamps as instants,
 * camelCase create names in their snake_case record fields), and which sent fields no record kept.
 */
import type { CheckContext } from '../../src/checks/check.js';
import { FAILURE_KINDS as KIND } from '../../src/results/model.js';
import type { JsonSchema, Operation } from '../../src/spec/model.js';
import type { Exchange } from '../../src/transport/types.js';
import { propertiesOf, unspecifiedOf } from '../../src/generators/index.js';
import { snakeCase } from '../../src/results/names.js';
import { fail, label, type Judgement } from '../lib.js';

/** The record field a sent field lands in: its own name, or its snake_case spelling (camelCase create names). */
const recordField = (name: string, props: Record<string, unknown>): string | undefined =>
  name in props ? name : snakeCase(name) in props ? snakeCase(name) : undefined;

/** Does `got` carry what was sent as `sent`? Timestamps compare as instants, objects as supersets. */
function carries(sent: unknown, got: unknown, schema: JsonSchema | undefined): boolean {
  if (sent === got) return true;
  if (
    schema &&
    unspecifiedOf(schema).some((u) => /timestamp/i.test(u)) &&
    typeof sent === 'string' &&
    typeof got === 'string'
  ) {
    const a = Date.parse(sent);
    const b = Date.parse(got);
    if (!Number.isNaN(a) && a === b) return true;
    // The format is not shown: a server may drop the zone or change separators; compare the
    // wall-clock digits (YYYYMMDDhhmmss) when one side carries no zone.
    const digits = (t: string) => t.replace(/\D/g, '').slice(0, 14);
    const zoned = (t: string) => /(Z|[+-]\d\d:?\d\d)$/i.test(t.trim());
    return (!zoned(sent) || !zoned(got)) && digits(sent).length === 14 && digits(sent) === digits(got);
  }
  if (sent && got && typeof sent === 'object' && typeof got === 'object' && !Array.isArray(sent)) {
    return Object.entries(sent as Record<string, unknown>).every(([k, v]) =>
      carries(v, (got as Record<string, unknown>)[k], undefined),
    );
  }
  if (Array.isArray(sent) && Array.isArray(got))
    return sent.length === got.length && sent.every((v, i) => carries(v, got[i], undefined));
  return false;
}

/**
 * Compares a record with the body sent: every sent field the record documents (camelCase create
 * names mapped to their snake_case record fields) must come back equal when it comes back at all;
 * absent or null is allowed (no record field is required) and observed.
 */
export function echoJudge(
  ctx: CheckContext,
  op: Operation,
  exchange: Exchange,
  sent: Record<string, unknown>,
  record: unknown,
  recordSchema: JsonSchema | undefined,
  what: string,
): Judgement[] {
  const props = recordSchema ? propertiesOf(recordSchema) : {};
  const out: Judgement[] = [];
  const absent: string[] = [];
  const rec = (record && typeof record === 'object' ? record : {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(sent)) {
    const field = recordField(name, props);
    if (!field) continue;
    const got = rec[field];
    if (got === undefined || got === null) {
      absent.push(field);
      continue;
    }
    if (!carries(value, got, props[field])) {
      out.push(
        fail(
          ctx,
          exchange,
          `${field} as sent (${name === field ? name : `${name} on create`}): ${JSON.stringify(ctx.redact(value))}`,
          `${field}: ${JSON.stringify(ctx.redact(got))}`,
          `${what}: ${field} is ${JSON.stringify(ctx.redact(got))}, sent ${JSON.stringify(ctx.redact(value))}`,
          sent,
          {
            kind: KIND.mismatch,
            field: { location: 'response', pointer: `/${field}`, status: String(exchange.response?.status ?? '') },
          },
        ),
      );
    }
  }
  if (absent.length)
    ctx.observe({
      operation: label(op),
      message: `${what}: ${absent.join(', ')} absent or null in the record (allowed: no record field is marked required)`,
    });
  return out;
}

/** Fields sent (non-null) that every given record lacks (absent or null), mapped to record names. */
export function sentButLost(
  sent: Record<string, unknown>,
  records: unknown[],
  recordSchema: JsonSchema | undefined,
): Array<{ sent: string; field: string }> {
  const props = recordSchema ? propertiesOf(recordSchema) : {};
  const out: Array<{ sent: string; field: string }> = [];
  for (const [name, value] of Object.entries(sent)) {
    if (value === null || value === undefined) continue;
    const field = recordField(name, props);
    if (!field) continue;
    const missing = records.every((r) => {
      const v = r && typeof r === 'object' ? (r as Record<string, unknown>)[field] : undefined;
      return v === undefined || v === null;
    });
    if (missing) out.push({ sent: name, field });
  }
  return out;
}
