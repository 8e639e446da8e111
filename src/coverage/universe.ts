/**
 * The universe of coverage cells, read from the spec model: per operation its documented statuses,
 * its parameters and request body fields with their constraint keywords (range, length, pattern,
 * enum, required, type) and enum values, its response schemas and documented response headers
 * per status, and its security requirements. Nothing here is typed by hand: a new field, range or
 * status in the spec is a new cell.
 */
import type { CoverageCell, CoverageDimension } from '../results/coverage.js';
import {
  operationLabel,
  credentialHeader,
  type Credential,
  type JsonSchema,
  type Operation,
  type SpecModel,
} from '../spec/model.js';
import { enumOf, fieldsOf, itemsOf, nonNull, typesOf, type JsonType } from '../spec/schema.js';
import { SpecSource, type SourcePosition } from '../spec/source.js';
import { packagedCellLines } from './lines.js';

/** The constraint keywords a cell can stand for. */
export const RANGE_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;
export const SIZE_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems'] as const;
export type ConstraintKeyword =
  (typeof RANGE_KEYWORDS)[number] | (typeof SIZE_KEYWORDS)[number] | 'pattern' | 'enum' | 'required' | 'type';

/** Where a request carries a value: a parameter location or the JSON body. */
export type ValueLocation = 'path' | 'query' | 'header' | 'cookie' | 'body';

/** A parameter or body field of an operation, with what its cells need to recognise a probe. */
export interface InputSlot {
  location: ValueLocation;
  /** The parameter name, or the body field's path (`recipients`, 0, `phone_number`; 0 = any item). */
  loc: Array<string | number>;
  /** `query limit`, `body recipients[].phone_number`. */
  label: string;
  schema: JsonSchema;
  required: boolean;
  types: JsonType[];
}

/** One cell of the universe, with the facts that decide whether an exchange touches it. */
export interface CellDef {
  key: string;
  operation: string;
  dimension: CoverageDimension;
  item: string;
  spec_line: number | null;
  spec_file?: string;
  /** For parameter, keyword and enum cells: the input it stands on. */
  slot?: InputSlot;
  keyword?: ConstraintKeyword;
  /** The keyword's bound (number), pattern (string) or enum value. */
  bound?: unknown;
  /** For status, response and header cells: the documented status key (`200`, `4XX`, `default`). */
  status?: string;
  /** For security cells: the credential. */
  credential?: Credential;
  header?: string;
  /** For header cells: the response header's name, lower-cased (an answer touches the cell only when it carries it). */
  responseHeader?: string;
}

export interface OperationUniverse {
  operation: Operation;
  label: string;
  cells: CellDef[];
  slots: InputSlot[];
  statuses: string[];
}

export interface Universe {
  operations: OperationUniverse[];
  byOperation: Map<string, OperationUniverse>;
  cells: CellDef[];
}

export const cellKey = (operation: string, dimension: CoverageDimension, item: string): string =>
  `${operation}\u0000${dimension}\u0000${item}`;

/** Finds spec lines; the default reads the authored spec/ with src/spec/source.ts (the locator report.sarif uses). */
export interface CellLocator {
  operation(op: Operation): SourcePosition | undefined;
  status(op: Operation, status: string): SourcePosition | undefined;
  slot(op: Operation, slot: InputSlot): SourcePosition | undefined;
  /** Positions found ahead, by cell key (the build's dist/cell-lines.json): read before the methods. */
  known?: ReadonlyMap<string, SourcePosition>;
}

/**
 * The authored spec's lines: the build's (src/coverage/lines.ts) when `source` is the default and
 * the spec has not changed since the build, else found in the YAML on first use.
 */
export function specCellLocator(source?: SpecSource): CellLocator {
  const known = source === undefined ? packagedCellLines() : undefined;
  source ??= new SpecSource();
  return {
    ...(known ? { known } : {}),
    operation: (op) => source.operation(op.path, op.method),
    status: (op, status) => source.responseStatus(op.path, op.method, status) ?? source.operation(op.path, op.method),
    slot: (op, slot) =>
      (slot.location === 'body'
        ? source.bodyProperty(
            op.path,
            op.method,
            slot.loc.filter((s): s is string => typeof s === 'string'),
          )
        : source.parameter(op.path, op.method, String(slot.loc[0]), slot.location)) ??
      source.operation(op.path, op.method),
  };
}

const displayLoc = (loc: ReadonlyArray<string | number>): string =>
  loc
    .map((s) => (typeof s === 'number' ? '[]' : s))
    .join('.')
    .replace(/\.\[\]/g, '[]');

function slotsOf(op: Operation): InputSlot[] {
  const slots: InputSlot[] = op.parameters.map((p) => ({
    location: p.in,
    loc: [p.name],
    label: `${p.in} ${p.name}`,
    schema: p.schema,
    required: p.required,
    types: typesOf(p.schema),
  }));
  if (op.requestBody) {
    const root = op.requestBody.schema;
    const fields = fieldsOf(root);
    for (const f of fields) {
      // The object that lists the field as required: the body, a parent field, or a parent array's items.
      const parentLoc = f.loc.slice(0, -1);
      const arrayItem = typeof parentLoc.at(-1) === 'number';
      const ownerLoc = (arrayItem ? parentLoc.slice(0, -1) : parentLoc).join('/');
      const owner = ownerLoc === '' ? root : (fields.find((g) => g.loc.join('/') === ownerLoc)?.schema ?? {});
      const holder = nonNull(arrayItem ? (itemsOf(owner) ?? {}) : owner);
      const required = Array.isArray(holder['required']) && (holder['required'] as unknown[]).includes(f.field);
      slots.push({
        location: 'body',
        loc: f.loc,
        label: `body ${displayLoc(f.loc)}`,
        schema: f.schema,
        required,
        types: typesOf(f.schema),
      });
    }
  }
  return slots;
}

/** A query, path or header value arrives as text: a wrong type can be sent only to a parameter that is not a string. */
function typeProbeable(slot: InputSlot): boolean {
  if (slot.types.length === 0) return false;
  return slot.location === 'body' || !slot.types.includes('string');
}

/** The keyword cells of one slot: each bound, length, pattern, enum, required and type the spec states. */
function keywordsOf(slot: InputSlot): Array<{ keyword: ConstraintKeyword; bound?: unknown }> {
  const s = nonNull(slot.schema);
  const out: Array<{ keyword: ConstraintKeyword; bound?: unknown }> = [];
  for (const k of [...RANGE_KEYWORDS, ...SIZE_KEYWORDS])
    if (typeof s[k] === 'number') out.push({ keyword: k, bound: s[k] });
  if (typeof s['pattern'] === 'string') out.push({ keyword: 'pattern', bound: s['pattern'] });
  if (enumOf(slot.schema)) out.push({ keyword: 'enum' });
  // A path parameter cannot be left out: the request would not reach the operation.
  if (slot.required && slot.location !== 'path') out.push({ keyword: 'required' });
  if (typeProbeable(slot)) out.push({ keyword: 'type' });
  return out;
}

/** `= "sms"`, `= null`: an enum value as the item shows it. */
export const enumItem = (slot: InputSlot, value: unknown): string => `${slot.label} = ${JSON.stringify(value)}`;

/**
 * Defines a cell's `spec_line` and `spec_file` as read on first use: the spec's YAML is parsed
 * (src/spec/source.ts) only when a report reads a line, so a dry run and a run's start parse none.
 */
function lazyPosition(cell: CellDef, where: () => SourcePosition | undefined): CellDef {
  return Object.defineProperties(cell, {
    spec_line: { enumerable: true, configurable: true, get: () => where()?.line ?? null },
    spec_file: { enumerable: true, configurable: true, get: () => where()?.file },
  });
}

/** `find` called once, on first use. */
function once<T>(find: () => T): () => T {
  let found: { value: T } | undefined;
  return () => (found ??= { value: find() }).value;
}

function operationCells(op: Operation, locator: CellLocator | undefined): OperationUniverse {
  const label = operationLabel(op);
  const cells: CellDef[] = [];
  const add = (
    dimension: CoverageDimension,
    item: string,
    where: () => SourcePosition | undefined,
    extra: Partial<CellDef> = {},
  ) => {
    const key = cellKey(label, dimension, item);
    const known = locator?.known?.get(key);
    const cell: CellDef = { key, operation: label, dimension, item, spec_line: null, ...extra };
    cells.push(
      known ? Object.assign(cell, { spec_line: known.line, spec_file: known.file }) : lazyPosition(cell, where),
    );
  };
  for (const r of op.responses) {
    const where = once(() => locator?.status(op, r.status));
    add('status', r.status, where, { status: r.status });
    if (r.schema) add('response', `${r.status} body`, where, { status: r.status });
    for (const h of r.headers)
      add('header', `${r.status} ${h.name}`, where, { status: r.status, responseHeader: h.name.toLowerCase() });
  }
  const slots = slotsOf(op);
  for (const slot of slots) {
    const where = once(() => locator?.slot(op, slot));
    add('parameter', slot.label, where, { slot });
    for (const k of keywordsOf(slot))
      add('keyword', `${slot.label} ${k.keyword}`, where, { slot, keyword: k.keyword, bound: k.bound });
    for (const value of enumOf(slot.schema) ?? []) add('enum', enumItem(slot, value), where, { slot, bound: value });
  }
  for (const credential of op.credentials) {
    const header = credentialHeader({ securitySchemes: op.security.flat() }, credential);
    const scheme = op.security.flat().find((s) => s.credential === credential);
    add(
      'security',
      `${scheme?.name ?? credential} (${header})`,
      once(() => locator?.operation(op)),
      { credential, header },
    );
  }
  return { operation: op, label, cells, slots, statuses: op.responses.map((r) => r.status) };
}

/** The cells of the spec, in spec order (operation by operation); `locator: null` skips spec lines (tests). */
export function buildUniverse(
  spec: Pick<SpecModel, 'operations'>,
  locator: CellLocator | null = specCellLocator(),
): Universe {
  const operations = spec.operations.map((op) => operationCells(op, locator ?? undefined));
  return {
    operations,
    byOperation: new Map(operations.map((o) => [o.label, o])),
    cells: operations.flatMap((o) => o.cells),
  };
}

/** A cell without its matching facts: what report.json shows before the run's state is known. */
export function blankCell(def: CellDef): CoverageCell {
  const cell: CoverageCell = {
    operation: def.operation,
    dimension: def.dimension,
    item: def.item,
    state: 'not-sent',
    checks: [],
    requests: 0,
    spec_line: def.spec_line,
  };
  if (def.spec_file !== undefined) cell.spec_file = def.spec_file;
  return cell;
}
