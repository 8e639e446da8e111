import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInFolder, readSpecFiles } from '../../../src/spec/files.js';
import { loadDocument } from '../../../src/spec/load.js';

let dir: string;
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};
const refusal = async (promise: Promise<unknown>): Promise<{ code: string; message: string }> => {
  const error = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as { code: string; message: string } | undefined;
  if (!error) throw new Error('expected a refusal');
  return error;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vapc-spec-files-'));
  mkdirSync(join(dir, 'sub'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('spec files: the caps, each a one-line E_SPEC_REFUSED', () => {
  it('reads a root and the files its $refs name, inside the folder', async () => {
    file('sub/part.yaml', 'type: string\n');
    const root = file('ok.yaml', "a:\n  $ref: 'sub/part.yaml'\nb:\n  $ref: '#/a'\n");
    const read = await readSpecFiles(root);
    expect([...read.files.keys()].sort()).toEqual([root, join(dir, 'sub', 'part.yaml')].sort());
  });

  it('refuses a file over the size cap without naming its contents', async () => {
    const root = file('big.yaml', `x: ${'y'.repeat(200)}\n`);
    const e = await refusal(readSpecFiles(root, { limits: { maxFileBytes: 100 } }));
    expect(e.code).toBe('E_SPEC_REFUSED');
    expect(e.message).toMatch(/more than the 100 a spec file may have/);
    expect(e.message).not.toContain('yyy');
  });

  it('refuses nesting and node counts past their caps', async () => {
    expect(
      (await refusal(readSpecFiles(file('deep.json', '[[[[[1]]]]]'), { limits: { maxDepth: 3 } }))).message,
    ).toMatch(/nested deeper than 3/);
    expect(
      (await refusal(readSpecFiles(file('wide.json', '[1,2,3,4,5,6]'), { limits: { maxNodes: 5 } }))).message,
    ).toMatch(/more than 5 nodes/);
  });

  it('refuses YAML past the token cap before building it, and past the alias cap', async () => {
    expect(
      (
        await refusal(
          readSpecFiles(file('tokens.yaml', 'a: [1, 2, 3, 4, 5, 6, 7, 8]\n'), { limits: { maxYamlTokens: 10 } }),
        )
      ).message,
    ).toMatch(/more than 10 YAML tokens/);
    const alias = 'a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: [*c, *c]\n';
    expect((await refusal(readSpecFiles(file('alias.yaml', alias), { limits: { maxAliases: 2 } }))).message).toMatch(
      /too many YAML alias expansions/,
    );
  });

  it('reports invalid YAML by kind and line, never quoting the text', async () => {
    const e = await refusal(readSpecFiles(file('bad.yaml', 'ok: 1\nsecret-line: [unclosed SECRETVALUE\n')));
    expect(e.message).toMatch(/not valid YAML .* at line \d+/);
    expect(e.message).not.toContain('SECRETVALUE');
    expect(e.message.split('\n')).toHaveLength(1);
  });

  it('a host --allow-ref-host does not name stays refused', async () => {
    const root = file('remote.yaml', "a:\n  $ref: 'https://example.invalid/x.yaml'\n");
    const e = await refusal(readSpecFiles(root, { allowRefHosts: ['other.invalid'] }));
    expect(e.message).toBe('$ref "https://example.invalid/x.yaml" refused: its host is not one --allow-ref-host names');
  });

  it('readInFolder reads only inside the folder', () => {
    expect(readInFolder(join(dir, 'sub', 'part.yaml'), dir)).toBe('type: string\n');
    expect(() => readInFolder(join(dir, 'ok.yaml'), join(dir, 'sub'))).toThrow(/outside the spec folder/);
  });

  it('loadDocument dereferences from the files it read', async () => {
    file('sub/schema.yaml', 'type: integer\nminimum: 1\n');
    const root = file(
      'api.yaml',
      "openapi: 3.1.0\ninfo: {title: t, version: 1.0.0}\npaths:\n  /x:\n    get:\n      parameters:\n        - {name: n, in: query, schema: {$ref: 'sub/schema.yaml'}}\n      responses: {'200': {description: ok}}\n",
    );
    const doc = (await loadDocument({ path: root, validateSchema: false })) as unknown as {
      paths: Record<string, { get: { parameters: Array<{ schema: unknown }> } }>;
    };
    expect(doc.paths['/x']!.get.parameters[0]!.schema).toEqual({ type: 'integer', minimum: 1 });
  });
});
