// The tools integrators put the contract in, driven as they drive them: Spectral's `spectral:oas`
// ruleset, the official OpenAPI 3.1 JSON Schema, openapi-typescript and tsc. Shared by
// test/slow/ecosystem/*.test.ts; each function runs one tool once and returns plain data.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRefResolver from '@stoplight/spectral-ref-resolver';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse, parseDocument, stringify } from 'yaml';
import { packageRoot } from '../../src/paths.js';

const require = createRequire(import.meta.url);
const run = promisify(execFile);

export interface SpectralFinding {
  code: string;
  severity: 'error' | 'warn' | 'info' | 'hint';
  /** Dotted path in the document, e.g. `paths./calls` or `info`. */
  path: string;
  message: string;
  /** The file the finding is in, relative to the repository. */
  file: string;
}

/** The installed version of a package, for the messages that say which tool printed what. */
export function versionOf(name: string): string {
  const manifest = join(packageRoot, 'node_modules', ...name.split('/'), 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Spectral with the `spectral:oas` ruleset (its recommended rules, as `extends: spectral:oas`), reading local files only. */
export async function spectralOas(file: string): Promise<SpectralFinding[]> {
  const { Spectral, Document } = spectralCore;
  const resolver = new spectralRefResolver.Resolver({
    resolvers: { file: { resolve: (ref: { href(): string }) => readFile(ref.href(), 'utf8') } },
  });
  const spectral = new Spectral({ resolver });
  spectral.setRuleset({ extends: [[spectralRulesets.oas, 'recommended']] } as never);
  const path = resolve(file);
  const parser = path.endsWith('.json') ? spectralParsers.Json : spectralParsers.Yaml;
  const results = await spectral.run(new Document(await readFile(path, 'utf8'), parser as never, path));
  const severities = ['error', 'warn', 'info', 'hint'] as const;
  return results.map((r) => ({
    code: String(r.code),
    severity: severities[r.severity] ?? 'error',
    path: r.path.join('.'),
    message: r.message,
    file: (r.source ?? path).replace(`${packageRoot}/`, ''),
  }));
}

const OAS31_SCHEMA_FILE = join(
  dirname(require.resolve('@seriousme/openapi-schema-validator')),
  'schemas',
  'v3.1',
  'schema.json',
);

export interface SchemaProblem {
  file: string;
  at: string;
  message: string;
}

/**
 * The official OpenAPI 3.1 JSON Schema (as @seriousme/openapi-schema-validator ships it), applied
 * to the authored files one by one: the root as an OpenAPI document, each path file (if a `paths/`
 * folder exists; the authored spec inlines its path items) as a Path Item, each component file as
 * what its folder holds. A `$ref` must be a URI reference everywhere.
 */
export async function oas31SchemaProblems(
  specDir: string,
): Promise<{ schemaId: string; problems: SchemaProblem[]; files: number }> {
  const schema = JSON.parse(await readFile(OAS31_SCHEMA_FILE, 'utf8')) as { $id: string };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(schema);
  const kinds: [string, string][] = [
    ['openapi.yaml', ''],
    ['paths', '#/$defs/path-item'],
    ['components/parameters', '#/$defs/parameter'],
    ['components/responses', '#/$defs/response'],
    ['components/headers', '#/$defs/header'],
    ['components/schemas', '#/$defs/schema'],
  ];
  const problems: SchemaProblem[] = [];
  let files = 0;
  for (const [where, pointer] of kinds) {
    if (!existsSync(join(specDir, where))) continue;
    const names = where.endsWith('.yaml')
      ? [where]
      : (await readdir(join(specDir, where))).filter((n) => n.endsWith('.yaml')).map((n) => `${where}/${n}`);
    const validateFile = ajv.getSchema(`${schema.$id}${pointer}`);
    if (!validateFile) throw new Error(`the OpenAPI 3.1 schema has no ${pointer}`);
    for (const name of names) {
      files += 1;
      const doc: unknown = parse(await readFile(join(specDir, name), 'utf8'));
      if (validateFile(doc)) continue;
      for (const e of (validateFile.errors ?? []) as ErrorObject[])
        problems.push({ file: name, at: e.instancePath || '/', message: e.message ?? e.keyword });
    }
  }
  return { schemaId: schema.$id, problems, files };
}

/** openapi-typescript's output for a document: the `paths` and `components` types a client imports. */
export async function generateTypes(document: string | object): Promise<string> {
  const input = typeof document === 'string' ? pathToFileURL(document) : (document as never);
  return astToString(await openapiTS(input, { silent: true }));
}

/**
 * A strict TypeScript project in `dir`, as a client author sets one up: the given sources, the
 * generated types as api.d.ts, this repository's node_modules (openapi-fetch), ES modules.
 */
export function strictClientProject(dir: string, types: string, sources: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(sources)) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'api.d.ts'), types);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'generated-client', private: true, type: 'module' }));
  symlinkSync(join(packageRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const compilerOptions = {
    strict: true,
    noUnusedLocals: true,
    noImplicitReturns: true,
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    types: [],
    skipLibCheck: true,
    outDir: 'out',
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: Object.keys(sources) }));
}

/** `tsc -p` in a directory; resolves with its exit status and output (never rejects on type errors). */
export async function tsc(dir: string): Promise<{ status: number; out: string }> {
  const bin = join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    const r = await run(process.execPath, [bin, '-p', 'tsconfig.json'], { cwd: dir, timeout: 120_000 });
    return { status: 0, out: `${r.stdout}${r.stderr}` };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof e.code === 'number' ? e.code : 2, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/**
 * Moves the path item `pathKey` of `specDir/openapi.yaml` out into `specDir/paths/<fileName>`, as
 * the spec was split before issue 13: the root keeps `$ref: paths/<fileName>` and the file's
 * references point back into the root. For the failing cases of the ecosystem test.
 */
export async function splitOutPathItem(specDir: string, pathKey: string, fileName: string): Promise<void> {
  const rootFile = join(specDir, 'openapi.yaml');
  const root = parseDocument(await readFile(rootFile, 'utf8'));
  const item = JSON.stringify(root.getIn(['paths', pathKey]));
  if (item === undefined) throw new Error(`no path item ${pathKey} in ${rootFile}`);
  await mkdir(join(specDir, 'paths'), { recursive: true });
  await writeFile(
    join(specDir, 'paths', fileName),
    stringify(JSON.parse(item.replaceAll('"#/components/', '"../openapi.yaml#/components/'))),
  );
  root.setIn(['paths', pathKey], root.createNode({ $ref: `paths/${fileName}` }));
  await writeFile(rootFile, root.toString());
}
