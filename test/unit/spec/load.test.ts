import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { isVapcError } from '../../../src/errors.js';
import { loadDocument } from '../../../src/spec/load.js';

/** A minimal valid OpenAPI 3.1 document whose server variable may carry extra members. */
function document(variable: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    openapi: '3.1.0',
    info: { title: 'Server variables', version: '1.0.0' },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://127.0.0.1:4010', ...variable } } }],
    paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'pong' } } } } },
    ...extra,
  };
}

let dir: string;
async function write(name: string, content: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, typeof content === 'string' ? content : stringify(content));
  return file;
}
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    return isVapcError(error) ? error.code : `not a VapcError: ${String(error)}`;
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vapc-load-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadDocument: swagger-parser as it ships, no meta-schema patch', () => {
  it('loads a minimal valid document whose server variable has only a default', async () => {
    const file = await write('plain-variable.yaml', document({}));
    const loaded = await loadDocument({ path: file });
    expect((loaded['servers'] as Array<{ variables: Record<string, unknown> }>)[0]?.variables['base_url']).toEqual({
      default: 'http://127.0.0.1:4010',
    });
  });

  it('rejects an unknown member of a server variable (validation is on)', async () => {
    const file = await write('unknown-member.yaml', document({ summary: 'not a member of a server variable' }));
    expect(await codeOf(loadDocument({ path: file }))).toBe('E_SPEC_INVALID');
  });

  it.each([
    ['a document without info', () => ({ ...document({}), info: undefined })],
    [
      'a response without a description',
      () => document({}, { paths: { '/ping': { get: { responses: { '200': {} } } } } }),
    ],
    ['a wrong openapi version string', () => ({ ...document({}), openapi: 'three' })],
    [
      'a dangling $ref',
      () =>
        document(
          {},
          { paths: { '/ping': { get: { responses: { '200': { $ref: '#/components/responses/Missing' } } } } } },
        ),
    ],
  ])('rejects %s with E_SPEC_INVALID', async (_what, build) => {
    const file = await write(
      `invalid-${Math.random().toString(36).slice(2)}.yaml`,
      JSON.parse(JSON.stringify(build())),
    );
    expect(await codeOf(loadDocument({ path: file }))).toBe('E_SPEC_INVALID');
  });

  it('reports a missing file as E_SPEC_UNREADABLE', async () => {
    expect(await codeOf(loadDocument({ path: join(dir, 'missing.yaml') }))).toBe('E_SPEC_UNREADABLE');
  });

  it('loads the authored spec: its server variable carries no member the swagger-parser meta-schema trips on', async () => {
    const loaded = await loadDocument();
    const variables =
      (loaded['servers'] as Array<{ variables: Record<string, Record<string, unknown>> }>)[0]?.variables ?? {};
    expect(Object.keys(variables['base_url'] ?? {})).toEqual(['default']);
  });
});
