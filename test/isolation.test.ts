import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The tests run without per-file isolation (vitest.config.ts, `isolate: false`): each worker keeps
 * one module graph for all the files it runs. That is safe only while no test leaves state behind
 * for the next file, so this test fails on the ways one could:
 * - mocked modules, stubbed globals or env, fake timers (`vi.mock`, `vi.stubGlobal`, ...);
 * - writing `process.env` (pass an `env` to the code under test instead);
 * - a helper module (imported by several test files, so evaluated once per worker) that registers
 *   a hook at import time: the second file importing it would silently run without the hook.
 */
const ROOT = process.cwd();
const HOOKS = new Set(['beforeAll', 'afterAll', 'beforeEach', 'afterEach']);
const LEAKY_VI = /\bvi\.(mock|doMock|stubGlobal|stubEnv|useFakeTimers|spyOn)\s*\(/;
const ENV_WRITE = /\bprocess\.env(\.\w+|\[[^\]]+\])\s*(=(?!=)|\+=|\?\?=|\|\|=)|\bdelete\s+process\.env\b/;

function testSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (relative(ROOT, path) === join('test', 'fixtures')) continue;
    if (statSync(path).isDirectory()) out.push(...testSources(path));
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(relative(ROOT, path));
  }
  return out;
}

/** The leaks a test source has, one line each (`file:line what`). */
export function leaks(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trimStart().startsWith('//') || line.trimStart().startsWith('*')) return;
    if (LEAKY_VI.test(line))
      found.push(`${file}:${i + 1} ${line.match(LEAKY_VI)![0].trim()} (state that outlives the file)`);
    if (ENV_WRITE.test(line)) found.push(`${file}:${i + 1} writes process.env`);
  });
  if (!/\.test\.ts$/.test(file)) {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isExpressionStatement(statement) || !ts.isCallExpression(statement.expression)) continue;
      const callee = statement.expression.expression.getText(source);
      if (HOOKS.has(callee))
        found.push(
          `${file}:${source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1} ${callee} at import time in a helper`,
        );
    }
  }
  return found;
}

describe('test isolation: no test leaves state for the next file', () => {
  it('finds each kind of leak in planted sources', () => {
    expect(leaks('x.test.ts', "vi.mock('node:fs');")).toHaveLength(1);
    expect(leaks('x.test.ts', 'vi.useFakeTimers();')).toHaveLength(1);
    expect(leaks('x.test.ts', "process.env.VAPC_API_KEY = 'k';")).toHaveLength(1);
    expect(leaks('x.test.ts', "process.env['HOME'] ??= '/';")).toHaveLength(1);
    expect(leaks('x.test.ts', 'delete process.env.CI;')).toHaveLength(1);
    expect(leaks('helpers/h.ts', 'import { afterEach } from "vitest";\nafterEach(() => {});')).toEqual([
      'helpers/h.ts:2 afterEach at import time in a helper',
    ]);
    // Reading env, comparing it, and hooks inside a function or in a test file are fine.
    expect(leaks('x.test.ts', "if (process.env.CI === 'true') {}\nafterEach(() => {});")).toEqual([]);
    expect(leaks('helpers/h.ts', 'export function f() { afterEach(() => {}); }')).toEqual([]);
  });

  it('no test file or helper has one', () => {
    // This file's planted sources are leaks on purpose.
    const files = testSources(join(ROOT, 'test')).filter((f) => f !== join('test', 'isolation.test.ts'));
    expect(files.length).toBeGreaterThan(60);
    expect(files.flatMap((f) => leaks(f, readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });
});
