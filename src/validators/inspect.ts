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

/** Returns the issues that keep `data` from being validated as JSON, or an empty array. */
export function inspectJson(data: unknown, limits: InspectLimits = DEFAULT_LIMITS): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const path: string[] = [];
  const ancestors = new Set<object>();
  let nodes = 0;
  let stop = false;

  const pointer = (): string => (path.length === 0 ? '' : `/${path.map(escape).join('/')}`);
  const report = (rule: string, message: string, extra: Partial<ValidationIssue> = {}): void => {
    const at = pointer();
    const shown = at.length > 80 ? `${at.slice(0, 40)}...${at.slice(-20)} (${path.length} levels down)` : at || '/';
    issues.push({ pointer: at, rule, message: `${shown} ${message}`, ...extra });
    if (issues.length >= limits.maxIssues) stop = true;
  };

  // Recursion is bounded by maxDepth, far below the engine's stack limit.
  const visit = (value: unknown, depth: number): void => {
    if (stop) return;
    if (++nodes > limits.maxNodes) {
      report('size', `is too large to validate: more than ${limits.maxNodes} values`, { expected: limits.maxNodes });
      stop = true;
      return;
    }
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(value)) report('json', `must be a JSON value, got ${kindOf(value)}`, { expected: 'finite number', actual: String(value) });
        return;
      case 'object':
        break;
      default:
        report('json', `must be a JSON value, got ${kindOf(value)}`, { expected: 'JSON value', actual: typeof value });
        return;
    }
    if (value === null) return;
    if (ancestors.has(value)) {
      report('cycle', 'refers back to one of its own ancestors: a cyclic value is not JSON', { actual: 'cycle' });
      return;
    }
    if (depth >= limits.maxDepth) {
      report('depth', `is nested deeper than ${limits.maxDepth} levels`, { expected: limits.maxDepth });
      stop = true;
      return;
    }
    ancestors.add(value);
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length && !stop; i++) {
        path.push(String(i));
        visit(value[i], depth + 1);
        path.pop();
      }
    } else {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        report('json', `must be a JSON value, got ${kindOf(value)}`, { expected: 'plain object', actual: kindOf(value) });
      } else {
        for (const key in value) {
          if (stop) break;
          path.push(key);
          visit((value as Record<string, unknown>)[key], depth + 1);
          path.pop();
        }
      }
    }
    ancestors.delete(value);
  };
  visit(data, 0);
  return issues;
}
