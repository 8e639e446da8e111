// The validator example of docs/validators.md (linked from the README) is this file:
// test/fixtures/ecosystem/readme-validators.ts. It is
// compiled with `tsc --strict` against the packed tarball (unpacked as a consumer gets it), once with the
// DOM's fetch types and once with Node's, and run with Node's real fetch against the reference server
// and against one with a rate-limit header missing. Needs `npm run build` first (npm test runs it).
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/paths.js';
import { startReferenceServer, type ReferenceServer } from '../../../src/server/index.js';
import { startFaultyServer } from '../../catalog/faults/index.js';
import { tsc } from '../../helpers/ecosystem-tools.js';
import { consumerWithTarball as packedConsumer } from '../../helpers/packed.js';

const example = join(packageRoot, 'test', 'fixtures', 'ecosystem', 'readme-validators.ts');
const runAsync = promisify(execFile);

let work: string;
let project: string;
let server: ReferenceServer;
let faulty: ReferenceServer;
let compiled: { status: number; out: string }[];

/** The packed consumer (test/helpers/packed.ts) with the README example and its two tsconfigs. */
function consumerWithTarball(): string {
  const { dir } = packedConsumer(work);
  copyFileSync(example, join(dir, 'readme-validators.ts'));
  const strict = {
    strict: true,
    noUnusedLocals: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    resolveJsonModule: true,
    skipLibCheck: true,
  };
  // Fetch typed by the DOM library (browsers, Deno, most front-end setups); this one emits the JS that runs.
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...strict, lib: ['ES2022', 'DOM'], types: [], outDir: 'out' },
      files: ['readme-validators.ts'],
    }),
  );
  // Fetch typed by @types/node (undici's Headers), no DOM.
  mkdirSync(join(dir, 'node-types'));
  writeFileSync(
    join(dir, 'node-types', 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        ...strict,
        lib: ['ES2022'],
        typeRoots: [join(packageRoot, 'node_modules', '@types')],
        types: ['node'],
        noEmit: true,
      },
      files: ['../readme-validators.ts'],
    }),
  );
  writeFileSync(
    join(dir, 'run.mjs'),
    "const { listCallsChecked } = await import('./out/readme-validators.js');\n" +
      'console.log(JSON.stringify(await listCallsChecked(process.argv[2], process.argv[3], process.argv[4])));\n',
  );
  return dir;
}

interface ExampleOutput {
  version: string;
  create: { ok: boolean; issues?: { rule: string; expected: unknown }[] };
  request: { ok: boolean; checked: string[] };
  response: { ok: boolean; checked: string[]; issues?: { location: string; rule: string; expected: unknown }[] };
  bodyOnly: { ok: boolean; checked: string[] };
  calls: unknown[];
  range: { status: string };
}

async function runExample(target: ReferenceServer): Promise<ExampleOutput> {
  const { api_key: key, user_id: user } = target.fixtures;
  const r = await runAsync(process.execPath, ['run.mjs', target.url, key, user], { cwd: project, timeout: 60_000 });
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as ExampleOutput;
}

beforeAll(async () => {
  if (!existsSync(join(packageRoot, 'dist', 'src', 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  work = mkdtempSync(join(tmpdir(), 'vapc-readme-'));
  [server, faulty] = await Promise.all([
    startReferenceServer({ port: 0 }),
    startFaultyServer('ratelimit-reset-missing'),
  ]);
  project = consumerWithTarball();
  compiled = await Promise.all([tsc(project), tsc(join(project, 'node-types'))]);
}, 240_000);

afterAll(async () => {
  await Promise.all([server?.close(), faulty?.close()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the validator example of docs/validators.md', () => {
  it('is the tested file, word for word', () => {
    const page = readFileSync(join(packageRoot, 'docs', 'validators.md'), 'utf8');
    const section = page.slice(page.indexOf('## Example'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(readFileSync(example, 'utf8'));
  });

  it('compiles with tsc --strict against the packed tarball, with DOM fetch types and with Node fetch types', () => {
    const [dom, node] = compiled;
    expect(dom?.out).toBe('');
    expect(dom?.status).toBe(0);
    expect(node?.out).toBe('');
    expect(node?.status).toBe(0);
  });

  it('validates a real fetch response of the reference server, headers included', async () => {
    const out = await runExample(server);
    expect(out.version).toBe('2.0.1');
    expect(out.create).toMatchObject({ ok: false, issues: [{ rule: 'maximum', expected: 200 }] });
    expect(out.request).toMatchObject({ ok: true, checked: ['query'] });
    expect(out.response).toEqual(expect.objectContaining({ ok: true, checked: ['headers', 'body'] }));
    expect(out.bodyOnly).toEqual(expect.objectContaining({ ok: true, checked: ['body'] }));
    expect(out.calls).toHaveLength(5);
    expect(out.range).toEqual({ status: '2XX' });
  });

  it('reports the header a server leaves out, and still passes the body checked alone', async () => {
    const out = await runExample(faulty);
    expect(out.response.ok).toBe(false);
    expect(out.response.issues).toEqual([
      expect.objectContaining({ location: 'header', rule: 'required', expected: 'X-RateLimit-Reset' }),
    ]);
    expect(out.bodyOnly).toEqual(expect.objectContaining({ ok: true, checked: ['body'] }));
  });
});
