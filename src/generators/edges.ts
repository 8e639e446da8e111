/**
 * The edges of every number the contract has: each numeric query, path and body parameter (nested
 * fields included) is read from the spec with its stated bounds, and given the values where
 * implementations classically break, whether or not the spec bounds it: a negative number, zero,
 * the type's limits (2^31, past int32; 2^53 and -2^53, the ends of exact doubles; 2^53+1, exact
 * only as text) and a numeric-looking string. Each edge says whether the contract allows the
 * number it spells, so a check judges it by the existing rules: allowed, it must not get a 5xx
 * (accepted, or refused with the validation error body where the contract is silent); outside a
 * stated bound, 422 naming the field.
 */
import type { JsonSchema, Operation } from '../spec/model.js';
import { nonNull, operationTargets, toPointer, typesOf } from './schema.js';

export interface NumericTarget {
  location: 'query' | 'path' | 'body';
  /** The parameter or member name. */
  name: string;
  /** The faulty member as a validation error names it after the location: `['offset']`, `['recipients', 0, 'x']`. */
  loc: Array<string | number>;
  /** JSON Pointer into the body (array items at index 0); body targets only. */
  pointer?: string;
  type: 'integer' | 'number';
  minimum?: number;
  maximum?: number;
}

export type EdgeLabel = 'negative' | 'zero' | '2^31' | '2^53' | '2^53+1' | '-2^53' | 'numeric string';

export interface NumericEdge {
  label: EdgeLabel;
  /** The value as written on the wire: digits of a number (query text, JSON number literal), or the text of a string. */
  literal: string;
  /** In a body, sent as a JSON string ("-1") rather than a number. */
  quoted: boolean;
  /** The number the literal spells (`Number(literal)`; 2^53+1 reads as 2^53 in a double). */
  spelled: number;
  /** The spelled number is an integer (when the target is one) within the stated bounds. */
  withinBounds: boolean;
}

/**
 * The type limits tried on every number, as literals: 2^53+1 is written out, since a double (and
 * so JSON.stringify) cannot hold it. A literal of a target type `number` is the same text.
 */
export const TYPE_EDGES: ReadonlyArray<{ label: EdgeLabel; literal: string }> = [
  { label: 'negative', literal: '-1' },
  { label: 'zero', literal: '0' },
  { label: '2^31', literal: String(2 ** 31) },
  { label: '2^53', literal: String(2 ** 53) },
  { label: '2^53+1', literal: (2n ** 53n + 1n).toString() },
  { label: '-2^53', literal: String(-(2 ** 53)) },
];

/** The numeric-looking query text that is no integer literal: exponent notation (Number() reads it, int() does not). */
export const QUERY_NUMERIC_STRING = '1e1';

function numericType(schema: JsonSchema): 'integer' | 'number' | undefined {
  const types = typesOf(nonNull(schema));
  if (types.includes('string')) return undefined;
  if (types.includes('integer')) return 'integer';
  return types.includes('number') ? 'number' : undefined;
}

function targetOf(
  location: NumericTarget['location'],
  name: string,
  loc: Array<string | number>,
  schema: JsonSchema,
): NumericTarget | undefined {
  const type = numericType(schema);
  if (!type) return undefined;
  const s = nonNull(schema);
  const target: NumericTarget = { location, name, loc, type };
  if (location === 'body') target.pointer = toPointer(loc);
  if (typeof s['minimum'] === 'number') target.minimum = s['minimum'];
  if (typeof s['maximum'] === 'number') target.maximum = s['maximum'];
  return target;
}

/** Every numeric query and path parameter and body field (nested ones included) of an operation, from its schemas. */
export function numericTargets(op: Operation): NumericTarget[] {
  return operationTargets(op, targetOf);
}

/** Whether the contract allows `value` for the target: its type (an integer for an integer) and its stated bounds. */
export function withinBounds(target: Pick<NumericTarget, 'type' | 'minimum' | 'maximum'>, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (target.type === 'integer' && !Number.isInteger(value)) return false;
  return (
    (target.minimum === undefined || value >= target.minimum) &&
    (target.maximum === undefined || value <= target.maximum)
  );
}

const edgeOf = (target: NumericTarget, label: EdgeLabel, literal: string, quoted: boolean): NumericEdge => {
  const spelled = Number(literal);
  return { label, literal, quoted, spelled, withinBounds: withinBounds(target, spelled) };
};

/**
 * The numeric-looking string of a target. In a body: the text of a number as a JSON string, the
 * first one past a stated bound ("201" for 1..200: a server that coerces strings must still check
 * the range) or -1 ("-1") when none is stated. In a query, where every value is text: exponent
 * notation.
 */
function numericString(target: NumericTarget): NumericEdge {
  if (target.location !== 'body') return edgeOf(target, 'numeric string', QUERY_NUMERIC_STRING, false);
  const step = target.type === 'integer' ? 1 : 0.001;
  const past =
    target.maximum !== undefined ? target.maximum + step : target.minimum !== undefined ? target.minimum - step : -1;
  return edgeOf(target, 'numeric string', String(past), true);
}

/** Every edge of a target: the type limits, then its numeric-looking string. */
export function numericEdges(target: NumericTarget): NumericEdge[] {
  return [...TYPE_EDGES.map((e) => edgeOf(target, e.label, e.literal, false)), numericString(target)];
}

/**
 * The type-limit numbers outside a stated bound on one side (below the minimum, above the maximum),
 * exactly representable ones only: what the range checks add to min-1 and max+1.
 */
export function typeLimitsOutside(
  bound: Pick<NumericTarget, 'minimum' | 'maximum'>,
  side: 'below-minimum' | 'above-maximum',
): number[] {
  const exact = TYPE_EDGES.filter((e) => BigInt(Number(e.literal)).toString() === e.literal).map((e) =>
    Number(e.literal),
  );
  if (side === 'below-minimum') return bound.minimum === undefined ? [] : exact.filter((n) => n < bound.minimum!);
  return bound.maximum === undefined ? [] : exact.filter((n) => n > bound.maximum!);
}

/** One line for people: `offset=-1 (negative)`, `short_term_summaries_limit="-1" (numeric string)`. */
export function describeEdge(target: NumericTarget, edge: NumericEdge): string {
  const where = target.loc.join('.');
  const value = edge.quoted ? JSON.stringify(edge.literal) : edge.literal;
  const range =
    target.minimum !== undefined || target.maximum !== undefined
      ? `the contract allows ${target.minimum ?? '-inf'}..${target.maximum ?? 'inf'}`
      : 'the contract states no bound';
  return `${where}=${value} (${edge.label}; ${range})`;
}
