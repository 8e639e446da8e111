import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ownSources } from './helpers/source-files.js';

/**
 * No function in src/ (generated code aside) or suites/ whose body spans more than 80 lines:
 * every function declaration, method, accessor, constructor, function expression and arrow
 * function is measured from the line its body opens on to the line it closes on.
 */
const ROOT = process.cwd();
const MAX_LINES = 80;

function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** `file:line name (N lines)` for every function of the file whose body is longer than the limit. */
export function longFunctions(file: string, text: string, max = MAX_LINES): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const body = fn.body!;
      const first = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(body.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push(`${file}:${first + 1} ${nameOf(fn, source)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function size', () => {
  it('measures a function body from its opening to its closing line', () => {
    const body = Array.from({ length: 5 }, (_, i) => `  const a${i} = ${i};`).join('\n');
    const text = `function small() {\n${body}\n}\nconst arrow = () => {\n${body}\n};\nclass C { method() {\n${body}\n} }\n`;
    expect(longFunctions('x.ts', text, 7)).toEqual([]);
    expect(longFunctions('x.ts', text, 6)).toEqual([
      'x.ts:1 small (7 lines)',
      'x.ts:8 arrow (7 lines)',
      'x.ts:15 method (7 lines)',
    ]);
  });

  it(`finds no function over ${MAX_LINES} lines in src/ and suites/`, () => {
    const files = ownSources(ROOT);
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.flatMap((file) => longFunctions(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
