/**
 * The guard in front of AJV: a value must be JSON (what JSON.parse could have produced), acyclic and
 * of bounded depth and size before a schema is applied to it. Bad input yields issues, never throws,
 * and the walk is bounded: it stops at `maxDepth` levels and `maxNodes` values.
 */
import type { ValidationIssue } from './issues.js';

export interface InspectLimits {
  /** Deepest nesting accepted (root = 0). Deeper input yields one issue with rule `depth`. */
  maxDepth: number;
  /** Most values (objects, arrays and scalars) walked. More yields one issue with rule `size`. */
  maxNodes: number;
  /** Most issues reported by one call. */
  maxIssues: number;
}

export const DEFAULT_LIMITS: InspectLimits = { maxDepth: 512, maxNodes: 2_000_000, maxIssues: 100 };

function escape(key: string): string {
  return key.includes('~') || key.includes('/') ? key.replace(/~/g, '~0').replace(/\//g, '~1') : key;
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'bigint') return 'a BigInt';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  const name = (value as object).constructor?.name;
  return name ? `a ${name} object` : 'an object with a foreign prototype';
}

/** The JSON Pointer of the value at `depth` along `path`. */
function pointerAt(path: string[], depth: number): string {
  let out = '';
  for (let i = 0; i < depth; i++) out += `/${escape(path[i] as string)}`;
  return out;
}

/** A pointer as a message shows it: a long one cut in the middle, with its depth. */
function shownPointer(at: string, depth: number): string {
  return at.length > 80 ? `${at.slice(0, 40)}...${at.slice(-20)} (${depth} levels down)` : at || '/';
}

/**
 * At the depth bound (`objects[d]`: the object at depth d on the way down): a value met twice is a
 * cycle, reported where it first repeats; otherwise the value is just deep.
 */
function depthIssue(
  objects: object[],
  depth: number,
  maxDepth: number,
): { depth: number; rule: string; message: string; extra: Partial<ValidationIssue> } {
  const seen = new Set<object>();
  for (let d = 0; d <= depth; d++) {
    const o = objects[d] as object;
    if (seen.has(o))
      return {
        depth: d,
        rule: 'cycle',
        message: 'refers back to one of its own ancestors: a cyclic value is not JSON',
        extra: { actual: 'cycle' },
      };
    seen.add(o);
  }
  return { depth, rule: 'depth', message: `is nested deeper than ${maxDepth} levels`, extra: { expected: maxDepth } };
}

/** Returns the issues that keep `data` from being validated as JSON, or an empty array. */
export function inspectJson(data: unknown, limits: InspectLimits = DEFAULT_LIMITS): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // path[d] is the key that leads to the value at depth d + 1; objects[d] the object at depth d.
  const path: string[] = [];
  const objects: object[] = [];
  let nodes = 0;
  let stop = false;

  const report = (depth: number, rule: string, message: string, extra: Partial<ValidationIssue> = {}): void => {
    const at = pointerAt(path, depth);
    issues.push({ pointer: at, rule, message: `${shownPointer(at, depth)} ${message}`, ...extra });
    if (issues.length >= limits.maxIssues) stop = true;
  };

  // Recursion is bounded by maxDepth, far below the engine's stack limit. Without a set of
  // ancestors on the fast path: a cycle always runs into the depth bound, where it is told apart.
  const visit = (value: unknown, depth: number): void => {
    if (++nodes > limits.maxNodes) {
      if (!stop)
        report(depth, 'size', `is too large to validate: more than ${limits.maxNodes} values`, {
          expected: limits.maxNodes,
        });
      stop = true;
      return;
    }
    const type = typeof value;
    if (type === 'string' || type === 'boolean') return;
    if (type === 'number') {
      if (!Number.isFinite(value))
        report(depth, 'json', `must be a JSON value, got ${kindOf(value)}`, {
          expected: 'finite number',
          actual: String(value),
        });
      return;
    }
    if (type !== 'object') {
      report(depth, 'json', `must be a JSON value, got ${kindOf(value)}`, { expected: 'JSON value', actual: type });
      return;
    }
    if (value === null) return;
    if (depth >= limits.maxDepth) {
      objects[depth] = value as object;
      const deep = depthIssue(objects, depth, limits.maxDepth);
      report(deep.depth, deep.rule, deep.message, deep.extra);
      stop = true;
      return;
    }
    objects[depth] = value as object;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        path[depth] = String(i);
        visit(value[i], depth + 1);
        if (stop) return;
      }
      return;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      report(depth, 'json', `must be a JSON value, got ${kindOf(value)}`, {
        expected: 'plain object',
        actual: kindOf(value),
      });
      return;
    }
    // for...in is several times faster than Object.keys here; a plain object inherits no
    // enumerable keys from Object.prototype, so both see the same own keys.
    for (const key in value as object) {
      path[depth] = key;
      visit((value as Record<string, unknown>)[key], depth + 1);
      if (stop) return;
    }
  };
  visit(data, 0);
  return issues;
}
