/**
 * Success criteria of Arazzo 1.0.1 ("Criterion Object"): a `simple` condition (runtime expressions
 * and literals joined by `== != < <= > >=`, `!`, `&&`, `||` and parentheses), a `regex` tested on
 * the value of `context`, and a `jsonpath` query (RFC 9535, the `jsonpath-rfc9535` engine) that must
 * select something from `[context]`: the context wrapped in an array, as Redocly respect does, so
 * `$[?@.id]` filters the body itself. Embedded `{$...}` expressions in a JSONPath are replaced by
 * their JSON values first, as respect does.
 */
import { query } from 'jsonpath-rfc9535';
import { criterionType, type Criterion } from './document.js';
import { evaluate, EXPRESSION, ExpressionError, interpolate, type ExpressionScope } from './expressions.js';

/** The verdict of one criterion: held or not, and why not in words (an expression that reached no value, a value that differed). */
export interface CriterionVerdict {
  held: boolean;
  /** Why it did not hold, for people: the values compared, or the expression that could not be read. */
  why?: string;
}

type Token = { kind: 'op'; text: string } | { kind: 'value'; text: string; value: () => unknown };

const OPERATORS = ['==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')'];

/** A criterion's tokens: operators, literals (numbers, quoted strings, true, false, null) and runtime expressions. */
function tokenize(condition: string, scope: ExpressionScope): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < condition.length) {
    const rest = condition.slice(i);
    const blank = /^\s+/.exec(rest);
    if (blank) {
      i += blank[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    const expr = rest.startsWith('$') ? EXPRESSION.exec(rest) : null;
    const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true\b|false\b|null\b|'[^']*'|"[^"]*")/.exec(rest);
    if (expr && expr.index === 0) {
      const text = expr[0];
      tokens.push({ kind: 'value', text, value: () => evaluate(text, scope) });
      i += text.length;
    } else if (literal) {
      const text = literal[0];
      const value = /^['"]/.test(text) ? text.slice(1, -1) : JSON.parse(text);
      tokens.push({ kind: 'value', text, value: () => value });
      i += text.length;
    } else if (op) {
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    } else {
      throw new ExpressionError(`cannot read the condition at "${rest.slice(0, 20)}"`);
    }
  }
  return tokens;
}

/** Two values compared as a condition compares them: numbers (and numeric strings beside a number) by value, the rest as JSON. */
function compare(op: string, a: unknown, b: unknown): boolean {
  const numeric = (v: unknown) =>
    typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  const bothNumbers = (typeof a === 'number' || typeof b === 'number') && !isNaN(numeric(a)) && !isNaN(numeric(b));
  const x = bothNumbers ? numeric(a) : a;
  const y = bothNumbers ? numeric(b) : b;
  if (op === '==' || op === '!=') {
    const same = bothNumbers ? x === y : JSON.stringify(a) === JSON.stringify(b);
    return op === '==' ? same : !same;
  }
  if (!((typeof x === 'number' && typeof y === 'number') || (typeof x === 'string' && typeof y === 'string')))
    return false;
  if (op === '<') return x < y;
  if (op === '<=') return x <= y;
  if (op === '>') return x > y;
  return x >= y;
}

/** A small recursive-descent reading of the tokens: `||` of `&&` of `!`-prefixed comparisons or parenthesised groups. */
class Condition {
  private at = 0;
  /** The comparisons that decided the result, for the message of a criterion that did not hold. */
  readonly seen: string[] = [];
  constructor(private readonly tokens: Token[]) {}

  read(): unknown {
    const value = this.or();
    if (this.at < this.tokens.length) throw new ExpressionError(`unexpected "${this.tokens[this.at]!.text}"`);
    return value;
  }

  private next(text: string): boolean {
    const t = this.tokens[this.at];
    if (t?.kind === 'op' && t.text === text) {
      this.at++;
      return true;
    }
    return false;
  }

  private or(): unknown {
    let left = this.and();
    while (this.next('||')) left = Boolean(this.and()) || Boolean(left);
    return left;
  }

  private and(): unknown {
    let left = this.unary();
    while (this.next('&&')) left = Boolean(this.unary()) && Boolean(left);
    return left;
  }

  private unary(): unknown {
    if (this.next('!')) return !this.unary();
    return this.comparison();
  }

  private comparison(): unknown {
    const left = this.operand();
    const t = this.tokens[this.at];
    if (t?.kind !== 'op' || !['==', '!=', '<', '<=', '>', '>='].includes(t.text)) return left;
    this.at++;
    const right = this.operand();
    const held = compare(t.text, left, right);
    if (!held) this.seen.push(`${JSON.stringify(left)} ${t.text} ${JSON.stringify(right)} is false`);
    return held;
  }

  private operand(): unknown {
    if (this.next('(')) {
      const inner = this.or();
      if (!this.next(')')) throw new ExpressionError('a "(" is not closed');
      return inner;
    }
    const t = this.tokens[this.at++];
    if (!t || t.kind !== 'value') throw new ExpressionError(`expected a value${t ? ` at "${t.text}"` : ' at the end'}`);
    return t.value();
  }
}

function simple(condition: string, scope: ExpressionScope): CriterionVerdict {
  const reading = new Condition(tokenize(condition, scope));
  const held = Boolean(reading.read());
  return held ? { held } : { held, why: reading.seen.join('; ') || 'the condition is false' };
}

function regex(criterion: Criterion, scope: ExpressionScope): CriterionVerdict {
  const value = evaluate(criterion.context!, scope);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const m = /^\/(.*)\/([a-z]*)$/s.exec(criterion.condition);
  const pattern = m ? new RegExp(m[1]!, m[2]!.replace(/[gy]/g, '')) : new RegExp(criterion.condition);
  const held = pattern.test(text ?? '');
  return held ? { held } : { held, why: `${JSON.stringify(text)} does not match ${criterion.condition}` };
}

function jsonpath(criterion: Criterion, scope: ExpressionScope): CriterionVerdict {
  const value = evaluate(criterion.context!, scope);
  const path = criterion.condition.includes('{$') ? interpolate(criterion.condition, scope) : criterion.condition;
  const held = query([value] as Parameters<typeof query>[0], path).length > 0;
  return held ? { held } : { held, why: `${criterion.condition} selects nothing from ${criterion.context}` };
}

/** Judges one criterion in a scope; an expression that cannot be read makes it not hold (with the reason). */
export function judgeCriterion(criterion: Criterion, scope: ExpressionScope): CriterionVerdict {
  try {
    const type = criterionType(criterion);
    if (type === 'regex') return regex(criterion, scope);
    if (type === 'jsonpath') return jsonpath(criterion, scope);
    return simple(criterion.condition, scope);
  } catch (error) {
    return { held: false, why: error instanceof Error ? error.message : String(error) };
  }
}
