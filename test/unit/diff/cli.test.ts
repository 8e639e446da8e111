import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { packageRoot, paths } from '../../../src/paths.js';
import { variant } from '../../helpers/diff.js';

async function vapc(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, isTTY: false };
  const cwd = process.cwd();
  process.chdir(packageRoot);
  try {
    return { status: await main(argv, io), stdout, stderr };
  } finally {
    process.chdir(cwd);
  }
}

let dir: string;
let breaking: string;
let additive: string;
let additiveMinor: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vapc-diff-'));
  breaking = join(dir, 'breaking.json');
  additive = join(dir, 'additive.json');
  additiveMinor = join(dir, 'additive-minor.json');
  await writeFile(
    breaking,
    JSON.stringify(variant((d) => (d.components.schemas.CampaignCreate.properties.max_concurrency.maximum = 100))),
  );
  await writeFile(
    additive,
    JSON.stringify(variant((d) => (d.components.schemas.CampaignCreate.properties.priority = { type: 'integer' }))),
  );
  await writeFile(
    additiveMinor,
    JSON.stringify(
      variant((d) => {
        d.components.schemas.CampaignCreate.properties.priority = { type: 'integer' };
        d.info.version = '2.1.0';
      }),
    ),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('vapc diff: exit status and formats', () => {
  it('exits 1 on a breaking change and prints it grouped by operation', async () => {
    const run = await vapc(['diff', paths.bundledJson, breaking]);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      /POST \/campaign\n\s+breaking request-max-decreased: .*max_concurrency.*200 to 100 \[breaks clients\]/,
    );
  });

  it('lists operations with breaking changes before the others, whatever their names', async () => {
    const mixed = join(dir, 'mixed.json');
    await writeFile(
      mixed,
      JSON.stringify(
        variant((d) => {
          d.components.schemas.CampaignCreate.properties.max_concurrency.maximum = 100;
          d.paths['/calls'].get.description = 'Call logs.';
        }),
      ),
    );
    const run = await vapc(['diff', paths.bundledJson, mixed]);
    expect(run.stdout.indexOf('\nPOST /campaign\n')).toBeGreaterThan(0);
    expect(run.stdout.indexOf('\nPOST /campaign\n')).toBeLessThan(run.stdout.indexOf('\nGET /calls\n'));
    expect(run.stdout).toMatch(/1 breaking, 0 warning, 1 info; needs a major version bump/);
  });

  it('exits 0 on additions only; --format json has exactly the documented shape', async () => {
    const run = await vapc(['diff', paths.bundledJson, additive, '--format', 'json']);
    expect(run.status).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(Object.keys(report).sort()).toEqual(['base', 'changes', 'head', 'summary']);
    expect(report.summary).toEqual({ breaking: 0, warning: 0, info: 1 });
    expect(Object.keys(report.changes[0]).sort()).toEqual(['breaks', 'id', 'level', 'message', 'operation', 'pointer']);
    expect(report.changes[0]).toMatchObject({
      id: 'request-property-added',
      operation: 'POST /campaign',
      pointer: '/paths/~1campaign/post/requestBody/content/application~1json/schema/properties/priority',
    });
  });

  it('--format markdown prints a table per operation', async () => {
    const run = await vapc(['diff', paths.bundledJson, breaking, '--format', 'markdown']);
    expect(run.stdout).toContain('#### POST /campaign');
    // Message text goes through the one Markdown escaper: its backticks and underscores show as typed.
    expect(run.stdout).toContain(
      '| breaking | `request-max-decreased` | the request body, \\`max\\_concurrency\\`: maximum changed from 200 to 100 | clients |',
    );
  });

  it('the working tree against git HEAD reports nothing for an unchanged spec/ (git revisions load)', async () => {
    const run = await vapc(['diff', 'HEAD', 'spec/openapi.yaml', '--format', 'json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).changes).toEqual([]);
  });

  it('under GITHUB_ACTIONS=true annotates the changed line of the authored split spec', async () => {
    const copy = join(dir, 'split');
    await cp(join(packageRoot, 'spec'), copy, { recursive: true });
    const file = join(copy, 'components', 'schemas', 'CampaignCreate.yaml');
    const source = await readFile(file, 'utf8');
    await writeFile(file, source.replace(/(max_concurrency:[^]*?maximum: )200/, '$1100'));
    const run = await vapc(['diff', 'spec/openapi.yaml', join(copy, 'openapi.yaml')], { GITHUB_ACTIONS: 'true' });
    expect(run.status).toBe(1);
    const line = run.stdout.split('\n').find((l) => l.startsWith('::error'));
    expect(line).toMatch(
      /^::error file=.*components\/schemas\/CampaignCreate\.yaml,line=\d+,title=request-max-decreased POST \/campaign::/,
    );
    const lineNo = Number(/line=(\d+)/.exec(line!)![1]);
    expect((await readFile(file, 'utf8')).split('\n')[lineNo - 1]).toMatch(/maximum: 100/);
  });

  it('annotations on the split spec point at the line in the file that holds the change', async () => {
    const run = await vapc(['diff', paths.bundledJson, 'spec/openapi.yaml'], { GITHUB_ACTIONS: 'true' });
    expect(run.status).toBe(0);
    const { SourceLocator } = await import('../../../src/diff/locate.js');
    const where = new SourceLocator(paths.specSource).locate(
      '/paths/~1campaign/post/requestBody/content/application~1json/schema/properties/max_concurrency/maximum',
    );
    expect(where?.file).toMatch(/spec\/components\/schemas\/CampaignCreate\.yaml$/);
    const source = (await readFile(where!.file, 'utf8')).split('\n');
    expect(source[where!.line - 1]).toMatch(/maximum: 200/);
  });
});

describe('vapc diff: a change to a shared definition', () => {
  // X-RateLimit-Limit is one component header that every response of every operation uses: one
  // edit, 29 changes (each operation, each status).
  let split: string;
  beforeAll(async () => {
    split = join(dir, 'shared-header');
    await cp(join(packageRoot, 'spec'), split, { recursive: true });
    const file = join(split, 'components', 'headers', 'X-RateLimit-Limit.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('type: integer', 'type: string'));
  });

  it('is printed once per wording with the operations it reaches, and still counted once per operation', async () => {
    const json = JSON.parse(
      (await vapc(['diff', 'spec/openapi.yaml', join(split, 'openapi.yaml'), '--format', 'json'])).stdout,
    );
    const operations = new Set(json.changes.map((c: { operation: string }) => c.operation));
    expect(operations.size).toBe(14);
    const run = await vapc(['diff', 'spec/openapi.yaml', join(split, 'openapi.yaml')]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`${json.changes.length} breaking, 0 warning, 0 info`);
    const said = run.stdout
      .split('\n')
      .filter((l) => /header X-RateLimit-Limit: type changed from integer to string/.test(l));
    // One line per distinct wording (2XX, 200, 201, 429), not one per change.
    expect(said.length).toBe(new Set(json.changes.map((c: { message: string }) => c.message)).size);
    expect(said.length).toBeLessThan(json.changes.length / 5);
    expect(run.stdout).toMatch(
      /in 14 operations: GET \/assistants, GET \/calls, .*POST \/recipient-lists\/\{recipient_list_id\}\/recipients\n/,
    );
    // Every operation is still named somewhere in the text.
    for (const op of operations) expect(run.stdout).toContain(op as string);
  });

  it('makes one GitHub annotation on the changed line, so it cannot crowd out the others', async () => {
    const run = await vapc(['diff', 'spec/openapi.yaml', join(split, 'openapi.yaml')], { GITHUB_ACTIONS: 'true' });
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(
      /^::error file=.*components\/headers\/X-RateLimit-Limit\.yaml,line=\d+,title=response-type-changed in 14 operations::/,
    );
    expect(annotations[0]).toContain(
      'response 429 header X-RateLimit-Limit: type changed from integer to string (GET /assistants, GET /calls,',
    );
  });

  it('--format markdown has one row per wording, with its operations', async () => {
    const run = await vapc(['diff', 'spec/openapi.yaml', join(split, 'openapi.yaml'), '--format', 'markdown']);
    expect(run.stdout).toContain('#### The same change in several operations (a shared definition changed)');
    expect(run.stdout).toMatch(
      /\| breaking \| `response-type-changed` \| response 429 header X-RateLimit-Limit: type changed from integer to string \| 14: GET \/assistants, /,
    );
  });
});

describe('vapc diff --check-version', () => {
  it('fails when a change needs a minor bump and info.version did not move', async () => {
    const run = await vapc(['diff', paths.bundledJson, additive, '--check-version']);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/version: info.version 2.0.1 -> 2.0.1 is unchanged, but the changes need a minor bump/);
  });

  it('passes when info.version moves by a minor step for an addition', async () => {
    const run = await vapc(['diff', paths.bundledJson, additiveMinor, '--check-version']);
    expect(run.status).toBe(0);
  });
});

describe('vapc diff: bad input exits 2 with one clear message', () => {
  it.each([
    [
      ['diff', 'no-such-file.yaml', 'spec/openapi.yaml'],
      /no-such-file\.yaml is neither a file, a directory nor a git revision/,
    ],
    [['diff', 'spec/openapi.yaml', 'no-such-rev-xyz'], /no-such-rev-xyz is neither/],
    [
      ['diff', 'spec/openapi.yaml', 'spec/openapi.yaml', '--format', 'xml'],
      /--format must be one of text, json, markdown/,
    ],
    [['diff', 'spec/openapi.yaml'], /missing required argument/],
  ])('%j', async (argv, message) => {
    const run = await vapc(argv);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('an invalid spec exits 2', async () => {
    const bad = join(dir, 'bad.yaml');
    await writeFile(bad, 'openapi: 3.1.0\ninfo: {}\npaths: 7\n');
    const run = await vapc(['diff', bad, 'spec/openapi.yaml']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/bad\.yaml/);
  });
});
