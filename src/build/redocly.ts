import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { parse } from 'yaml';
import { VapcError } from '../errors.js';
import { paths } from '../paths.js';

/** The result of running the pinned Redocly CLI: its exit status and its output without banners. */
export interface RedoclyRun {
  status: number;
  stdout: string;
  stderr: string;
}

const redoclyBin = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

/**
 * Redocly 2.x prints a boxed Node 20 deprecation notice on every run (we pin a release that still
 * supports Node 20.19+); it is noise in our output, so boxed lines are dropped.
 */
function withoutBanner(text: string): string {
  return text
    .split('\n')
    .filter((line) => !/[╔╗╚╝║]/.test(line))
    .join('\n')
    .replace(/^\s*\n/, '');
}

export function runRedocly(args: string[], cwd: string = paths.distDir.replace(/\/dist$/, '')): Promise<RedoclyRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [redoclyBin, ...args], {
      cwd,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => reject(new VapcError('E_TOOL_FAILED', `cannot run Redocly: ${error.message}`, { cause: error })));
    child.on('close', (status) => resolve({ status: status ?? 1, stdout: withoutBanner(stdout), stderr: withoutBanner(stderr) }));
  });
}

export interface LintResult {
  ok: boolean;
  errors: number;
  warnings: number;
  output: string;
}

/** Lints the spec with the project's redocly.yaml; any error or warning fails. */
export async function lintSpec(specPath: string = paths.specSource): Promise<LintResult> {
  const run = await runRedocly(['lint', specPath, '--config', paths.redoclyConfig, '--max-problems', '200']);
  const output = `${run.stdout}${run.stderr}`.trim();
  const errors = Number(/(\d+) errors?\b/.exec(output)?.[1] ?? (run.status === 0 ? 0 : 1));
  const warnings = Number(/(\d+) warnings?\b/.exec(output)?.[1] ?? 0);
  return { ok: run.status === 0 && errors === 0 && warnings === 0, errors, warnings, output };
}

export interface BundleResult {
  yamlPath: string;
  jsonPath: string;
  operations: number;
}

/** Bundles the split spec into dist/openapi.yaml and dist/openapi.json, refs resolved to components. */
export async function bundleSpec(specPath: string = paths.specSource): Promise<BundleResult> {
  await mkdir(paths.distDir, { recursive: true });
  const run = await runRedocly(['bundle', specPath, '--config', paths.redoclyConfig, '--output', paths.bundledYaml]);
  if (run.status !== 0) {
    throw new VapcError('E_TOOL_FAILED', `redocly bundle failed:\n${run.stdout}${run.stderr}`);
  }
  const document = parse(await readFile(paths.bundledYaml, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  await writeFile(paths.bundledJson, `${JSON.stringify(document, null, 2)}\n`);
  const operations = Object.values(document.paths).reduce(
    (n, item) => n + Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(k)).length,
    0,
  );
  return { yamlPath: paths.bundledYaml, jsonPath: paths.bundledJson, operations };
}

export interface DocsResult {
  htmlPath: string;
  bytes: number;
}

/** Builds the self-contained HTML reference (Redoc) at dist/docs/index.html. */
export async function buildDocs(specPath: string = paths.specSource, output: string = paths.docsHtml): Promise<DocsResult> {
  await mkdir(dirname(output), { recursive: true });
  const run = await runRedocly(['build-docs', specPath, '--config', paths.redoclyConfig, '--output', output]);
  if (run.status !== 0) {
    throw new VapcError('E_TOOL_FAILED', `redocly build-docs failed:\n${run.stdout}${run.stderr}`);
  }
  const html = await readFile(output);
  return { htmlPath: output, bytes: html.length };
}
