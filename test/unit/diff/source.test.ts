/**
 * loadSpecSource (src/diff/source.ts) in-process: a file, a directory holding one under each root
 * name, a git revision of a scratch repository's spec/, and every refusal with its error code and
 * message (a document that is not OpenAPI 3, a revision that does not exist or has no spec/). The
 * CLI maps each VapcError to exit 2; test/unit/diff/cli.test.ts covers that end.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpecSource } from '../../../src/diff/source.js';
import { VapcError } from '../../../src/errors.js';

let dir: string;
const doc = (over: Record<string, unknown> = {}) =>
  JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1.0.0' }, paths: {}, ...over });
const write = (rel: string, text: string): string => {
  const file = join(dir, rel);
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
};
async function refusal(arg: string, repo = dir): Promise<{ code: string; message: string }> {
  try {
    const s = await loadSpecSource(arg, repo);
    s.dispose();
  } catch (error) {
    expect(error).toBeInstanceOf(VapcError);
    return { code: (error as VapcError).code, message: (error as Error).message };
  }
  return { code: 'loaded', message: '' };
}

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'vapc-source-')));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadSpecSource: files and directories', () => {
  it('a file: the document, its root and a display path relative to the repository', async () => {
    const file = write(
      'one/api.json',
      doc({ paths: { '/a': { get: { responses: { '200': { description: 'ok' } } } } } }),
    );
    const s = await loadSpecSource('one/api.json', dir);
    expect(s.label).toBe('one/api.json');
    expect(s.rootFile).toBe(file);
    expect((s.document['info'] as { version: string }).version).toBe('1.0.0');
    expect(s.displayPath(file)).toBe(join('one', 'api.json'));
    expect(s.displayPath(dir)).toBe(dir);
    s.dispose();
    expect(existsSync(file)).toBe(true);
  });

  it('a directory: the first root name it holds', async () => {
    write('d1/openapi.yml', 'openapi: 3.1.0\ninfo: {title: t, version: 2.0.0}\npaths: {}\n');
    write('d1/openapi.json', doc());
    expect((await loadSpecSource('d1', dir)).rootFile).toBe(join(dir, 'd1', 'openapi.yml'));
    write('d2/spec/openapi.yaml', 'openapi: 3.1.0\ninfo: {title: t, version: 2.0.0}\npaths: {}\n');
    expect((await loadSpecSource('d2', dir)).rootFile).toBe(join(dir, 'd2', 'spec', 'openapi.yaml'));
    write('d3/dist/openapi.json', doc());
    expect((await loadSpecSource('d3', dir)).rootFile).toBe(join(dir, 'd3', 'dist', 'openapi.json'));
    mkdirSync(join(dir, 'empty'));
    expect(await refusal('empty')).toEqual({
      code: 'E_USAGE',
      message: `${join(dir, 'empty')} holds no OpenAPI document (looked for openapi.yaml, openapi.yml, openapi.json, ${join('spec', 'openapi.yaml')}, ${join('dist', 'openapi.json')})`,
    });
  });

  it('not an OpenAPI 3 document: E_SPEC_INVALID naming the argument and what is wrong', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ paths: { '/a': { get: { responses: 5 } } } }, 'GET /a must be an operation object'],
      [{ info: { title: 't' } }, '`info.version` must be a string'],
      [{ info: 'x' }, '`info.version` must be a string'],
      [{ paths: [] }, '`paths` must be an object'],
      [{ paths: { '/a': 5 } }, 'paths./a must be an object'],
      [{ paths: { '/a': { get: 5 } } }, 'GET /a must be an operation object'],
      [{ paths: { '/a': { trace: { responses: [] } } } }, 'TRACE /a must be an operation object'],
    ];
    for (const [i, [over, what]] of cases.entries()) {
      write(`bad${i}.json`, doc(over));
      expect(await refusal(`bad${i}.json`), what).toEqual({
        code: 'E_SPEC_INVALID',
        message: `bad${i}.json: bad${i}.json: not an OpenAPI 3 document: ${what}`,
      });
    }
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']) {
      write(`m-${method}.json`, doc({ paths: { '/m': { [method]: 'x' } } }));
      expect((await refusal(`m-${method}.json`)).message).toBe(
        `m-${method}.json: m-${method}.json: not an OpenAPI 3 document: ${method.toUpperCase()} /m must be an operation object`,
      );
    }
    // The loader refuses a version it does not know before the shape is read: the code is E_SPEC_INVALID all the same.
    write('v2.json', doc({ openapi: '2.0' }));
    const v2 = await refusal('v2.json');
    expect(v2.code).toBe('E_SPEC_INVALID');
    expect(v2.message.startsWith('v2.json: ')).toBe(true);
    write('fine.json', doc({ paths: { '/a': { get: { summary: 's' }, parameters: [] } } }));
    expect((await refusal('fine.json')).code).toBe('loaded');
  });

  it('a document the loader refuses keeps its code, and the message names the argument first', async () => {
    write('broken.json', '{"openapi": ');
    const r = await refusal('broken.json');
    expect(r.code).toBe('E_SPEC_REFUSED');
    expect(r.message.startsWith('broken.json: ')).toBe(true);
  });
});

describe('loadSpecSource: git revisions', () => {
  let repo: string;
  const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  beforeAll(() => {
    repo = join(dir, 'repo');
    mkdirSync(join(repo, 'spec', 'parts'), { recursive: true });
    git('init', '-q');
    writeFileSync(
      join(repo, 'spec', 'openapi.yaml'),
      'openapi: 3.1.0\ninfo: {title: t, version: 3.0.0}\npaths:\n  /x:\n    $ref: "parts/x.yaml"\n',
    );
    writeFileSync(join(repo, 'spec', 'parts', 'x.yaml'), 'get:\n  responses:\n    "200": {description: ok}\n');
    writeFileSync(join(repo, 'README'), 'no spec here\n');
    git('add', '.');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'one');
    git('rm', '-q', '-r', 'spec');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '-m', 'no spec');
  });

  it('spec/ of a revision, copied to a temporary folder, shown as spec/..., removed by dispose', async () => {
    const s = await loadSpecSource('HEAD~1', repo);
    expect((s.document['info'] as { version: string }).version).toBe('3.0.0');
    expect(s.rootFile.endsWith(join('spec', 'openapi.yaml'))).toBe(true);
    expect(s.rootFile.startsWith(repo)).toBe(false);
    expect(s.displayPath(s.rootFile)).toBe(join('spec', 'openapi.yaml'));
    expect(existsSync(s.rootFile)).toBe(true);
    s.dispose();
    expect(existsSync(s.rootFile)).toBe(false);
    // Disposing twice is harmless.
    expect(() => s.dispose()).not.toThrow();
  });

  it('a revision without spec/, one that does not exist, one that looks like an option, outside a repository', async () => {
    expect(await refusal('HEAD', repo)).toEqual({ code: 'E_USAGE', message: 'revision HEAD has no spec/' });
    expect(await refusal('nosuch', repo)).toEqual({
      code: 'E_USAGE',
      message: `nosuch is neither a file, a directory nor a git revision of ${repo}`,
    });
    expect(await refusal('--output=x', repo)).toEqual({
      code: 'E_USAGE',
      message: '--output=x is neither a file nor a git revision',
    });
    const bare = join(dir, 'plain');
    mkdirSync(bare);
    const outside = await refusal('HEAD', bare);
    expect(outside.code).toBe('E_USAGE');
    expect(outside.message).toBe(`HEAD is not a file, and ${bare} is not a git repository to read a revision from`);
  });
});
