import { RULES } from './rules.js';
import type { Change } from './types.js';

/** Why one operation is in a focused run: the rule ids of its changes, or `smoke`. */
export interface FocusedOperation {
  operation: string;
  reasons: string[];
}

/** The selection of `vapc run --changed-since BASE`, as report.json records it (field `focus`). */
export interface RunFocus {
  changed_since: string;
  /** Every operation whose checks run, in spec order, with the reasons. */
  operations: FocusedOperation[];
  /** How many operations the spec has, for "N of M" lines. */
  total_operations: number;
}

export interface FocusOperation {
  label: string;
  method: string;
  hasParameters: boolean;
  hasBody: boolean;
}

/**
 * The smoke set: GET operations without parameters or body (on this spec: health, the current user,
 * assistants, the protected example), cheap reads that prove the server, the credentials and the
 * common headers still work whatever changed.
 */
export const isSmoke = (op: FocusOperation): boolean =>
  op.method.toUpperCase() === 'GET' && !op.hasParameters && !op.hasBody;

/**
 * The operations a focused run checks: those the behavioural changes touch (documentation-only
 * changes select nothing) plus the smoke set. A document-wide behavioural change (servers)
 * selects every operation.
 */
export function selectFocus(base: string, changes: readonly Change[], operations: readonly FocusOperation[]): RunFocus {
  const behavioural = changes.filter((c) => RULES[c.id].bump !== 'patch');
  const everything = behavioural.filter((c) => c.operation === '').map((c) => c.id);
  const selected: FocusedOperation[] = [];
  for (const op of operations) {
    const reasons: string[] = [
      ...new Set([...everything, ...behavioural.filter((c) => c.operation === op.label).map((c) => c.id)]),
    ];
    if (reasons.length === 0 && isSmoke(op)) reasons.push('smoke');
    if (reasons.length > 0) selected.push({ operation: op.label, reasons });
  }
  return { changed_since: base, operations: selected, total_operations: operations.length };
}

export function renderFocus(focus: RunFocus): string {
  const changed = focus.operations.filter((o) => !o.reasons.includes('smoke')).length;
  const lines = [
    `changed since ${focus.changed_since}: ${changed} changed operation(s) + ${focus.operations.length - changed} smoke = ${focus.operations.length} of ${focus.total_operations} operations`,
  ];
  for (const o of focus.operations) lines.push(`  ${o.operation}: ${o.reasons.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
