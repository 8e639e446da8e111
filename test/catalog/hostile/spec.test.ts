/**
 * Hostile specs (issue 20): a spec is input from the pull request under review. A `$ref` may not
 * leave the spec's folder (absolute, file:, ../, symlinks in the working tree or committed in a
 * git revision), may not touch devices, /proc or the network (loopback in disguise, redirects),
 * and no file may blow up time or memory (alias bomb, 1 GB file, FIFO, nesting, node count).
 * Each refusal is exit 2 with one line naming the `$ref`, quoting nothing of the target. Names
 * and paths from a spec are printed guarded in every format of `vapc diff`.
 *
 * Fixtures are generated into a temporary directory. The cases that would read /proc/self/environ
 * or could exhaust memory run in one child process, whose environment holds a marker the test
 * looks for and whose peak RSS is bounded.
 */
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  openSync,
  ftruncateSync,
  closeSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { runCliChild } from '../../helpers/cli-child.js';
import { isPublicAddress } from '../../../src/spec/remote.js';

interface Run {
  status: number;
  stdout: string;
  stderr: string;
  ms: number;
}

const OUTSIDE_MARKER = 'OUTSIDE-MARKER-7f3a91';
const ENV_MARKER = 'env-marker-Zq81xK0pLm';
/** A credential of the environment that a spec happens to quote: no output may repeat it. */
const API_KEY = 'sk-test-Q9w8e7r6t5y4';

/** A small OpenAPI 3.1 document: GET /items with the given query parameters, plus extra paths. */
function doc(
  parameters: object[],
  extraPaths: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): object {
  const op = { parameters, responses: { '200': { description: 'ok' } } };
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1.0.0' },
    paths: { '/items': { get: op }, ...extraPaths },
    ...extra,
  };
}
const limit = (defaultValue: unknown = 1) => ({
  name: 'limit',
  in: 'query',
  schema: { type: 'integer', default: defaultValue },
});

let tmp: string;
let spec: string;
let base: string;
let repo: string;
const write = (file: string, value: unknown) =>
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
/** A head spec in the spec folder whose `limit` default is `{ $ref: ref }`; returns its path. */
function headWithRef(name: string, ref: string): string {
  const file = join(spec, `${name}.json`);
  write(file, doc([limit({ $ref: ref })]));
  return file;
}

async function vapc(argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: options.env ?? {},
    isTTY: false,
  };
  const cwd = process.cwd();
  process.chdir(options.cwd ?? tmp);
  const started = Date.now();
  try {
    return { status: await main(argv, io), stdout, stderr, ms: Date.now() - started };
  } finally {
    process.chdir(cwd);
  }
}

/** Exit 2, nothing on stdout, one line on stderr naming the $ref, nothing of what it points at. */
function expectRefused(run: Run, ref: string | RegExp): void {
  expect(run.stdout).toBe('');
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
  if (typeof ref === 'string') expect(run.stderr).toContain(`$ref "${ref}"`);
  else expect(run.stderr).toMatch(ref);
  expect(run.stderr).not.toContain(OUTSIDE_MARKER);
  expect(run.stderr).not.toContain(ENV_MARKER);
  expect(run.status).toBe(2);
}

const git = (args: string[]) => {
  const r = spawnSync(
    'git',
    ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args],
    { cwd: repo, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
};

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'vapc-hostile-spec-'));
  spec = join(tmp, 'spec');
  mkdirSync(spec);
  mkdirSync(join(tmp, 'outside'));
  write(join(tmp, 'outside', 'secret.yaml'), `marker: ${OUTSIDE_MARKER}\n`);
  base = join(spec, 'base.json');
  write(base, doc([limit()]));
  symlinkSync(join('..', 'outside', 'secret.yaml'), join(spec, 'link.yaml'));
  // A git repository whose HEAD commits a symlink out of spec/ and a $ref to it.
  repo = join(tmp, 'repo');
  mkdirSync(join(repo, 'spec'), { recursive: true });
  git(['init', '-q']);
  write(join(repo, 'spec', 'openapi.json'), doc([limit()]));
  git(['add', '.']);
  git(['commit', '-qm', 'base']);
  write(join(repo, 'spec', 'openapi.json'), doc([limit({ $ref: 'evil.yaml' })]));
  symlinkSync(join(tmp, 'outside', 'secret.yaml'), join(repo, 'spec', 'evil.yaml'));
  git(['add', '.']);
  git(['commit', '-qm', 'head']);
  rmSync(join(repo, 'spec', 'evil.yaml'));
  write(join(repo, 'spec', 'openapi.json'), doc([limit()]));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a spec is confined to its own folder', () => {
  it('refuses an absolute path', async () => {
    const ref = join(tmp, 'outside', 'secret.yaml');
    expectRefused(await vapc(['diff', base, headWithRef('absolute', ref)]), ref);
  });

  it('refuses a file: URL', async () => {
    const ref = `file://${join(tmp, 'outside', 'secret.yaml')}`;
    expectRefused(await vapc(['diff', base, headWithRef('file-url', ref)]), ref);
  });

  it('refuses a ../ path out of the folder', async () => {
    expectRefused(
      await vapc(['diff', base, headWithRef('dotdot', '../outside/secret.yaml')]),
      '../outside/secret.yaml',
    );
  });

  it('refuses a symlink in the working tree that leads out of the folder', async () => {
    expectRefused(await vapc(['diff', base, headWithRef('symlink', 'link.yaml')]), 'link.yaml');
  });

  it('refuses a symlink committed in a git revision (it is not unpacked)', async () => {
    expectRefused(await vapc(['diff', 'HEAD~1', 'HEAD'], { cwd: repo }), 'evil.yaml');
  });

  it('vapc lint refuses the same $ref before Redocly reads it', async () => {
    expectRefused(
      await vapc(['lint', '--spec', headWithRef('lint-dotdot', '../outside/secret.yaml')]),
      '../outside/secret.yaml',
    );
  });
});

describe('no network $ref, even to loopback in disguise', () => {
  let server: Server;
  let port: number;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/a.yaml` }).end();
      else res.end(`marker: ${OUTSIDE_MARKER}\n`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const refs = (): Array<[string, string]> => [
    ['0.0.0.0', `http://0.0.0.0:${port}/a.yaml`],
    ['::ffff:127.0.0.1', `http://[::ffff:127.0.0.1]:${port}/a.yaml`],
    ['127.0.0.1', `http://127.0.0.1:${port}/redirect`],
  ];

  it('refuses every http $ref without --allow-ref-host, with no request made', async () => {
    for (const [i, [, ref]] of refs().entries())
      expectRefused(await vapc(['diff', base, headWithRef(`http-${i}`, ref)]), ref);
    expect(requests).toBe(0);
  });

  it('refuses them with --allow-ref-host naming the host: the address is not public', async () => {
    for (const [i, [host, ref]] of refs().entries()) {
      const run = await vapc(['diff', base, headWithRef(`http-allowed-${i}`, ref), '--allow-ref-host', host]);
      expectRefused(run, ref);
      expect(run.stderr).toMatch(/non-public address/);
    }
    expect(requests).toBe(0);
  });

  it('counts only public unicast addresses as public', () => {
    for (const a of [
      '0.0.0.0',
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '::1',
      '::',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      'fe80::1',
      'fd00::1',
      '64:ff9b::7f00:1',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']) expect(isPublicAddress(a), a).toBe(true);
  });
});

describe('vapc diff output is guarded: names and paths from a spec are data', () => {
  const names = [
    '::error::x',
    'a\n::error title=pwn::injected',
    '\r::warning::y',
    '\u001b[31mred\u001b]0;title\u0007',
    '![img](http://x/i.png)',
    '[link](http://x)',
    '<img src=x>',
  ];
  let head: string;
  beforeAll(() => {
    head = join(spec, 'injected.json');
    const params = [
      limit(),
      ...[...names, `key-${API_KEY}`].map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
    ];
    write(
      head,
      doc(params, { '/p/::error::p![i](http://x/p.png)': { get: { responses: { '200': { description: 'ok' } } } } }),
    );
  });

  /** No raw control character; no line (split at LF or CR) that starts a workflow command unless vapc wrote it. */
  const expectNoControl = (text: string, ownCommands = false) => {
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    for (const line of text.split(/\r|\n/)) {
      if (ownCommands && /^::(error|warning|notice) /.test(line)) continue;
      expect(line).not.toMatch(/^\s*::/);
      expect(line).not.toMatch(/##\[/);
    }
  };
  const expectNoRenderedMarkdown = (text: string) => {
    expect(text).not.toContain('![img](');
    expect(text).not.toContain('[link](');
    expect(text).not.toContain('<img');
  };

  it('text', async () => {
    const run = await vapc(['diff', base, head]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('parameter');
    expectNoControl(run.stdout);
  });

  it('markdown', async () => {
    const run = await vapc(['diff', base, head, '--format', 'markdown']);
    expect(run.status).toBe(0);
    expectNoControl(run.stdout);
    expectNoRenderedMarkdown(run.stdout);
  });

  it('json stays JSON, keeps the names as data, and holds no credential of the environment', async () => {
    const run = await vapc(['diff', base, head, '--format', 'json'], { env: { VAPC_API_KEY: API_KEY } });
    expect(run.status).toBe(0);
    expectNoControl(run.stdout);
    expect(run.stdout).not.toContain(API_KEY);
    expect(run.stdout).toContain('key-$VAPC_API_KEY');
    const report = JSON.parse(run.stdout) as { changes: Array<{ message: string }> };
    expect(report.changes.some((c) => c.message.includes('::error::x'))).toBe(true);
  });

  it('GitHub annotations and the step summary', async () => {
    const summary = join(tmp, 'summary.md');
    write(summary, '');
    const run = await vapc(['diff', base, head], { env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary } });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^::notice /m);
    expectNoControl(run.stdout, true);
    const md = readFileSync(summary, 'utf8');
    expectNoControl(md);
    expectNoRenderedMarkdown(md);
  });
});

describe('bounded: devices, /proc, bombs and huge files (one child process)', () => {
  let child: { results: Array<Run & { name: string }>; maxRssKb: number };
  const result = (name: string): Run => {
    const r = child.results.find((x) => x.name === name);
    if (!r) throw new Error(`no result for ${name}`);
    return r;
  };

  beforeAll(async () => {
    const bombs = join(tmp, 'bombs');
    mkdirSync(bombs);
    const big = openSync(join(bombs, 'big.yaml'), 'w');
    ftruncateSync(big, 1024 ** 3);
    closeSync(big);
    spawnSync('mkfifo', [join(bombs, 'pipe.yaml')]);
    const levels = 'abcdefghi'.split('');
    const alias = levels
      .map(
        (l, i) =>
          `${l}: &${l} [${Array(9)
            .fill(i === 0 ? 'x' : `*${levels[i - 1]}`)
            .join(', ')}]`,
      )
      .join('\n');
    write(join(bombs, 'alias.yaml'), `openapi: 3.1.0\ninfo: {title: t, version: 1.0.0}\npaths: {}\n${alias}\n`);
    write(join(bombs, 'many.json'), `[${Array(1_100_000).fill(0).join(',')}]`);
    write(join(bombs, 'deep.json'), `${'['.repeat(300)}${']'.repeat(300)}`);
    const schemas: Record<string, object> = { L40: { type: 'string' } };
    for (let i = 0; i < 40; i++)
      schemas[`L${i}`] = {
        type: 'object',
        properties: { a: { $ref: `#/components/schemas/L${i + 1}` }, b: { $ref: `#/components/schemas/L${i + 1}` } },
      };
    write(join(bombs, 'laughs.json'), doc([limit()], {}, { components: { schemas } }));
    const head = (name: string, ref: string) => {
      write(join(bombs, `${name}.json`), doc([limit({ $ref: ref })]));
      return join(bombs, `${name}.json`);
    };
    const summary = join(tmp, 'environ-summary.md');
    const environ = head('environ', '/proc/self/environ');
    const cases = [
      { name: 'environ-text', argv: ['diff', base, environ] },
      { name: 'environ-json', argv: ['diff', base, environ, '--format', 'json'] },
      {
        name: 'environ-github',
        argv: ['diff', base, environ, '--format', 'markdown'],
        env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
      },
      { name: 'dev-zero', argv: ['diff', base, head('devzero', '/dev/zero')] },
      { name: 'one-gigabyte', argv: ['diff', base, head('gigabyte', 'big.yaml')] },
      { name: 'fifo', argv: ['diff', base, head('fifo', 'pipe.yaml')] },
      { name: 'alias-bomb', argv: ['diff', base, join(bombs, 'alias.yaml')] },
      { name: 'node-count', argv: ['diff', base, head('nodes', 'many.json')] },
      { name: 'nesting', argv: ['diff', base, head('nesting', 'deep.json')] },
      { name: 'ref-laughs', argv: ['diff', base, join(bombs, 'laughs.json')] },
    ].map((c) => ({ ...c, cwd: tmp }));
    child = await runCliChild(cases, { HOSTILE_SPEC_MARKER: ENV_MARKER });
    expect(readFileSync(summary, { encoding: 'utf8', flag: 'a+' })).not.toContain(ENV_MARKER);
  }, 120_000);

  it('/proc/self/environ: refused in every format, the environment never printed', () => {
    for (const name of ['environ-text', 'environ-json', 'environ-github'])
      expectRefused(result(name), '/proc/self/environ');
  });
  it('/dev/zero: refused before any read', () => expectRefused(result('dev-zero'), '/dev/zero'));
  it('a 1 GB file: refused from its size', () => expectRefused(result('one-gigabyte'), /\$ref "big\.yaml".*bytes/));
  it('a FIFO: refused, not waited on', () => expectRefused(result('fifo'), /\$ref "pipe\.yaml".*not a regular file/));
  it('a YAML alias bomb: refused', () => expectRefused(result('alias-bomb'), /alias/));
  it('more nodes than the cap: refused', () => expectRefused(result('node-count'), /\$ref "many\.json".*nodes/));
  it('deeper nesting than the cap: refused', () => expectRefused(result('nesting'), /\$ref "deep\.json".*nested/));
  it('$refs that expand exponentially: refused', () => expectRefused(result('ref-laughs'), /expanded/));
  it('all of them together stay under 300 MB of memory', () =>
    expect(child.maxRssKb, `peak RSS ${Math.round(child.maxRssKb / 1024)} MB`).toBeLessThan(300 * 1024));
});
