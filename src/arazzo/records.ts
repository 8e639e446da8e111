/**
 * What the export knows of the records a recorded scenario made and changed: for each record (by
 * id), the value each of its fields should now show and where that value came from (what a step
 * sent, or what a step's answer said). A later answer carrying the record is then held to those
 * values, the contract's promises of sections 2.2 and 4.2-4.4 as the stateful checks judge them:
 * a record carries what was sent (camelCase create names in their snake_case fields), keeps what a
 * partial update was not sent, and a read shows the last server-managed value answered as set.
 */
import { snakeCase } from '../results/names.js';
import { asRecord, type JsonSchema, type Operation, type SpecModel } from '../spec/model.js';
import { nonNull, propertiesOf, unspecifiedOf } from '../spec/schema.js';

/** Where an expected value came from: a step's request body or its answer's body, at a pointer. */
export interface Source {
  kind: 'sent' | 'answered';
  step: string;
  pointer: string;
}

export interface Expectation {
  value: unknown;
  source: Source;
  /** The field's timestamp format is not shown: compared as an instant, only against what was sent. */
  timestamp: boolean;
  /** Server-managed (readOnly): held only on a read, after a write answered it as set. */
  managed: boolean;
}

/** One record of the scenario: the step that created it and what its fields should show, by record pointer. */
export interface RecordState {
  id: string;
  creator: string;
  fields: Map<string, Expectation>;
}

/** The documented success schema of an operation (its first 2xx with a body schema). */
export function successSchemaOf(op: Operation): JsonSchema | undefined {
  return op.responses.find((r) => /^2/.test(r.status) && r.schema)?.schema;
}

/** Leaf scalars of a JSON value by pointer (objects walked; arrays and empty objects give none). */
export function leaves(value: unknown, pointer = ''): Array<[string, unknown]> {
  if (value === null || typeof value !== 'object') return pointer === '' ? [] : [[pointer, value]];
  if (Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    leaves(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`),
  );
}

/** The record in an answer: the body when its id is `id`, else the member object that carries it (`campaign`). */
export function recordAt(json: unknown, id: string): { pointer: string; record: Record<string, unknown> } | undefined {
  const body = asRecord(json);
  if (body['id'] !== undefined && String(body['id']) === id) return { pointer: '', record: body };
  for (const [key, value] of Object.entries(body)) {
    const member = asRecord(value);
    if (member['id'] !== undefined && String(member['id']) === id) return { pointer: `/${key}`, record: member };
  }
  return undefined;
}

/** The properties of the record schema found at `pointer` of an operation's success schema. */
export function recordProperties(op: Operation, pointer: string): Record<string, JsonSchema> {
  const schema = successSchemaOf(op);
  if (!schema) return {};
  if (pointer === '') return propertiesOf(schema);
  const member = propertiesOf(schema)[pointer.slice(1)];
  return member ? propertiesOf(member) : {};
}

/** The record field a sent top-level field lands in: its own name or its snake_case spelling, when the record documents it. */
export function recordFieldOf(name: string, props: Record<string, JsonSchema>): string | undefined {
  if (name in props) return name;
  return snakeCase(name) in props ? snakeCase(name) : undefined;
}

const isTimestamp = (schema: JsonSchema | undefined): boolean =>
  schema !== undefined && unspecifiedOf(nonNull(schema)).some((u) => /timestamp/i.test(u));
const isManaged = (schema: JsonSchema | undefined): boolean =>
  schema !== undefined && nonNull(schema)['readOnly'] === true;

/** Fields some operation's request body documents (snake_case): the ones a client writes, so a record keeps them. */
export function writableFields(spec: SpecModel): Set<string> {
  const out = new Set<string>();
  for (const op of spec.operations)
    for (const name of Object.keys(propertiesOf(op.requestBody?.schema ?? {}))) out.add(snakeCase(name));
  return out;
}

/**
 * The expectations a write step adds to a record: each documented field it sent (by leaf), and for a
 * server-managed field only when the answer shows it as sent.
 */
export function afterWrite(
  state: RecordState,
  step: string,
  sent: unknown,
  answer: { pointer: string; record: Record<string, unknown> } | undefined,
  props: Record<string, JsonSchema>,
): void {
  for (const [name, value] of Object.entries(asRecord(sent))) {
    const field = recordFieldOf(name, props);
    if (!field || value === null) continue;
    const schema = props[field];
    const managed = isManaged(schema);
    for (const [leaf, v] of leaves({ [field]: value })) {
      const sentPointer = `/${name}${leaf.slice(field.length + 1)}`;
      if (!managed) {
        state.fields.set(leaf, {
          value: v,
          source: { kind: 'sent', step, pointer: sentPointer },
          timestamp: isTimestamp(schema),
          managed,
        });
        continue;
      }
      const shown = answer ? leaves({ [field]: answer.record[field] }).find(([p]) => p === leaf)?.[1] : undefined;
      if (answer && shown !== v) state.fields.delete(leaf);
      else if (answer)
        state.fields.set(leaf, {
          value: v,
          source: { kind: 'answered', step, pointer: `${answer.pointer}${leaf}` },
          timestamp: false,
          managed,
        });
    }
  }
}

/** The expectations a created record starts with: the writable, client-owned fields its creation answer shows (not null). */
export function fromCreation(
  state: RecordState,
  step: string,
  answer: Record<string, unknown>,
  props: Record<string, JsonSchema>,
  writable: Set<string>,
  secret: (pointer: string) => boolean,
): void {
  for (const [field, value] of Object.entries(answer)) {
    const schema = props[field];
    if (!schema || !writable.has(field) || isManaged(schema) || isTimestamp(schema) || value === null) continue;
    for (const [leaf, v] of leaves({ [field]: value })) {
      if (!secret(leaf))
        state.fields.set(leaf, {
          value: v,
          source: { kind: 'answered', step, pointer: leaf },
          timestamp: false,
          managed: false,
        });
    }
  }
}

/** A regex for an instant sent in UTC, as a server may write it back: the same wall clock, `T` or a blank, any zero fraction, `Z` or `+00:00`. */
export function instantPattern(sent: unknown): string | undefined {
  if (typeof sent !== 'string') return undefined;
  const m = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.0+)?(?:Z|[+-]00:?00)$/i.exec(sent.trim());
  return m ? `^${m[1]}[T ]${m[2]}(\\.0+)?(Z|[+-]00:?00)?$` : undefined;
}
