/**
 * The generic code names none of this contract's fixtures: the keys, their kinds and the body
 * fields filled from them are declared once, in the profile (suites/fixtures.ts), and reach the
 * config parser, discovery and the generators as data. Searched: the string and template literals
 * and the identifiers (a property read such as `fixtures.channels` too) of src/config,
 * src/generators, src/runner, src/coverage and src/results, through the TypeScript parser, so
 * comments, which may give an example, are not searched. Not searched: src/server (the reference
 * server is this contract's implementation and seeds these ids), src/cli (the composition root that
 * passes the profile in), src/arazzo (names the provider ids' inputs of an exported workflow).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../suites/fixtures.js';
import { checks } from '../suites/index.js';
import { ownSources } from './helpers/source-files.js';

const ROOT = process.cwd();
const GENERIC = ['src/config/', 'src/generators/', 'src/runner/', 'src/coverage/', 'src/results/'];
const KEYS = [
  'recipient_list_id',
  'phone_numbers',
  'channels',
  'assistant_id',
  'phone_number_id',
  'api_key_id',
  'org_id',
];

/** Each key of `keys` the code of `text` names: in a literal (as a word), or as an identifier. */
function keysNamed(text: string, keys: readonly string[]): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.ES2022, false);
  const found = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) {
      if (keys.includes(node.text)) found.add(node.text);
    } else if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateLiteralToken(node)
    ) {
      for (const key of keys) if (new RegExp(`\\b${key}\\b`).test(node.text)) found.add(key);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...found];
}

describe("the generic code names none of this contract's fixtures", () => {
  it('searches for every key the profile declares', () => {
    expect([...KEYS].sort()).toEqual(FIXTURES.map((f) => f.key).sort());
  });

  it("every fixture a check needs is one the profile declares (a check's `needs` is not type-checked against them)", () => {
    const declared: string[] = FIXTURES.map((f) => f.key);
    const needed = checks.flatMap((c) => c.needs ?? []);
    expect(needed.length).toBeGreaterThan(0);
    expect(needed.filter((key) => !declared.includes(key))).toEqual([]);
  });

  it('no literal or identifier of src/config, src/generators, src/runner, src/coverage or src/results is one', () => {
    const files = ownSources().filter((f) => GENERIC.some((dir) => f.startsWith(dir)));
    expect(files.length).toBeGreaterThan(40);
    const named = files.flatMap((f) =>
      keysNamed(readFileSync(join(ROOT, f), 'utf8'), KEYS).map((key) => `${f}: ${key}`),
    );
    expect(named).toEqual([]);
  });

  it('finds a key in a literal, a template, a property read or a type, and not in a comment (it can fail)', () => {
    const planted = [
      "const a = 'org_id';",
      'const b = `fixtures.${x} and channels`;',
      'const c = fixtures.phone_numbers;',
      'interface D { assistant_id?: string }',
      "const e = { 'api_key_id': 1 };",
    ].join('\n');
    expect(keysNamed(planted, KEYS).sort()).toEqual(
      ['api_key_id', 'assistant_id', 'channels', 'org_id', 'phone_numbers'].sort(),
    );
    expect(keysNamed('// org_id\n/** `channels` */\nconst default_org_id = "phone_number_ids";', KEYS)).toEqual([]);
  });
});
