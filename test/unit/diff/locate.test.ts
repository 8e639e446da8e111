/**
 * SourceLocator (src/diff/locate.ts): the line of a pointer of the dereferenced document in the
 * authored source, through $refs to other files and inside one, list items, escaped segments,
 * and the deepest existing ancestor for what the source does not have. Small YAML files written
 * to a temporary folder; no git, no CLI.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceLocator } from '../../../src/diff/locate.js';

let dir: string;
let root: string;
let schemas: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vapc-locate-'));
  mkdirSync(join(dir, 'parts'));
  root = join(dir, 'openapi.yaml');
  schemas = join(dir, 'parts', 'schemas.yaml');
  writeFileSync(
    root,
    [
      'openapi: 3.1.0', // 1
      'info:', // 2
      '  version: 1.0.0', // 3
      'tags:', // 4
      '  - name: first', // 5
      '  - name: second', // 6
      'paths:', // 7
      '  /a/{id}:', // 8
      '    get:', // 9
      '      summary: read', // 10
      '      responses:', // 11
      "        '200':", // 12
      '          $ref: "#/components/responses/Ok"', // 13
      '  /b:', // 14
      '    $ref: "./parts/schemas.yaml#/PathB"', // 15
      'components:', // 16
      '  responses:', // 17
      '    Ok:', // 18
      '      description: fine', // 19
      '      content:', // 20
      '        application/json:', // 21
      '          schema:', // 22
      '            $ref: "parts/schemas.yaml#/Thing"', // 23
      '  schemas:', // 24
      '    Loop:', // 25
      '      $ref: "#/components/schemas/Loop"', // 26
      '    Gone:', // 27
      '      $ref: "parts/missing.yaml#/X"', // 28
      '    Outside:', // 29
      '      $ref: "../elsewhere.yaml#/X"', // 30
      '    "a~b/c":', // 31
      '      type: string', // 32
      '',
    ].join('\n'),
  );
  writeFileSync(
    schemas,
    [
      'Thing:', // 1
      '  type: object', // 2
      '  properties:', // 3
      '    name:', // 4
      '      type: string', // 5
      '    size:', // 6
      '      type: integer', // 7
      'PathB:', // 8
      '  post:', // 9
      '    summary: write', // 10
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, '..', `vapc-locate-outside-${process.pid}.yaml`), 'X:\n  type: string\n');
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(join(dir, '..', `vapc-locate-outside-${process.pid}.yaml`), { force: true });
});

describe('SourceLocator', () => {
  it('members and list items of the root file, at the line their value starts', () => {
    const at = new SourceLocator(root);
    expect(at.locate('/info/version')).toEqual({ file: root, line: 3 });
    expect(at.locate('/tags/1/name')).toEqual({ file: root, line: 6 });
    expect(at.locate('/paths/~1a~1{id}/get/summary')).toEqual({ file: root, line: 10 });
    expect(at.locate('#/paths/~1a~1{id}/get/summary')).toEqual({ file: root, line: 10 });
    expect(at.locate('/components/schemas/a~0b~1c/type')).toEqual({ file: root, line: 32 });
  });

  it('the whole document is its first line', () => {
    expect(new SourceLocator(root).locate('')).toEqual({ file: root, line: 1 });
    expect(new SourceLocator(root).locate('#')).toEqual({ file: root, line: 1 });
  });

  it('follows $refs inside the file and to another file, hop after hop', () => {
    const at = new SourceLocator(root);
    expect(at.locate('/paths/~1a~1{id}/get/responses/200/description')).toEqual({ file: root, line: 19 });
    expect(
      at.locate('/paths/~1a~1{id}/get/responses/200/content/application~1json/schema/properties/size/type'),
    ).toEqual({ file: schemas, line: 7 });
    expect(at.locate('/paths/~1b/post/summary')).toEqual({ file: schemas, line: 10 });
  });

  it('what the source does not have: the deepest existing ancestor, in the file that has it', () => {
    const at = new SourceLocator(root);
    expect(at.locate('/paths/~1a~1{id}/get/deprecated')).toEqual({ file: root, line: 10 });
    expect(at.locate('/tags/7/name')).toEqual({ file: root, line: 5 });
    expect(at.locate('/components/responses/Ok/content/application~1json/schema/properties/colour')).toEqual({
      file: schemas,
      line: 4,
    });
  });

  it('a $ref that loops, names a missing file or leaves the folder ends the walk where it stands', () => {
    const at = new SourceLocator(root);
    expect(at.locate('/components/schemas/Loop/type')).toEqual({ file: root, line: 26 });
    expect(at.locate('/components/schemas/Gone/type')).toEqual({ file: root, line: 28 });
    expect(at.locate('/components/schemas/Outside/type')).toEqual({ file: root, line: 30 });
  });

  it('a root that cannot be read locates nothing', () => {
    expect(new SourceLocator(join(dir, 'nope.yaml')).locate('/info')).toBeUndefined();
  });
});
