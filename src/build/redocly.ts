import { spawn } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { VapcError } from '../errors.js';
import { packageRoot, paths } from '../paths.js';
import { checkSpecFiles } from '../spec/load.js';

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

export function runRedocly(args: string[], cwd: string = packageRoot): Promise<RedoclyRun> {
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
    child.on('error', (error) =>
      reject(new VapcError('E_TOOL_FAILED', `cannot run Redocly: ${error.message}`, { cause: error })),
    );
    child.on('close', (status) =>
      resolve({ status: status ?? 1, stdout: withoutBanner(stdout), stderr: withoutBanner(stderr) }),
    );
  });
}

/** One finding of the linter, as plain data. */
export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  /** The file the finding is in, as Redocly names it. */
  file: string;
  /** JSON Pointer of the node, e.g. #/paths/~1calls/get/responses. */
  pointer: string;
  line?: number;
  col?: number;
}

export interface LintResult {
  ok: boolean;
  errors: number;
  warnings: number;
  problems: LintProblem[];
  /** The findings, one per line, for people. */
  output: string;
}

export interface LintOptions {
  /** The Redocly configuration: the project's redocly.yaml by default. */
  config?: string;
}

interface RedoclyJsonReport {
  totals: { errors: number; warnings: number };
  problems: Array<{
    ruleId: string;
    severity: 'error' | 'warn';
    message: string;
    location?: Array<{ source?: { ref?: string }; pointer?: string; start?: { line: number; col: number } }>;
  }>;
}

/** Fails with E_SPEC_UNREADABLE before any tool runs when the document is not a readable file. */
async function assertReadable(specPath: string): Promise<void> {
  try {
    const info = await stat(specPath);
    if (!info.isFile()) throw new Error('not a file');
  } catch {
    throw new VapcError('E_SPEC_UNREADABLE', `cannot read the OpenAPI document ${specPath}: no such file`);
  }
}

export function formatProblem(p: LintProblem): string {
  const at = p.line === undefined ? p.file : `${p.file}:${p.line}:${p.col ?? 1}`;
  return `${at} ${p.severity} ${p.ruleId}: ${p.message} (${p.pointer})`;
}

/** Lints the spec with the project's redocly.yaml (and its vapc plugin); any error or warning fails. */
export async function lintSpec(specPath: string = paths.specSource, options: LintOptions = {}): Promise<LintResult> {
  specPath = resolve(specPath);
  // The spec's files are read by the one confined loader first: Redocly then resolves only
  // $refs inside the spec's folder, within the caps.
  // No remote $ref is allowed: Redocly would fetch it again itself (following redirects).
  await checkSpecFiles(specPath);
  const config = resolve(options.config ?? paths.redoclyConfig);
  await assertReadable(config).catch(() => {
    throw new VapcError('E_CONFIG', `cannot read the Redocly configuration ${config}`);
  });
  const run = await runRedocly(['lint', specPath, '--config', config, '--format', 'json', '--max-problems', '1000']);
  let report: RedoclyJsonReport;
  try {
    report = JSON.parse(run.stdout) as RedoclyJsonReport;
  } catch {
    throw new VapcError(
      'E_TOOL_FAILED',
      `redocly lint failed (status ${run.status}):\n${run.stdout}${run.stderr}`.trim(),
    );
  }
  const problems: LintProblem[] = report.problems.map((p) => {
    const location = p.location?.[0];
    return {
      ruleId: p.ruleId,
      severity: p.severity,
      message: p.message,
      file: location?.source?.ref ?? specPath,
      pointer: location?.pointer ?? '#',
      ...(location?.start ? { line: location.start.line, col: location.start.col } : {}),
    };
  });
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.filter((p) => p.severity === 'warn').length;
  return {
    ok: run.status === 0 && errors === 0 && warnings === 0,
    errors,
    warnings,
    problems,
    output: problems.map(formatProblem).join('\n'),
  };
}

export interface BundleResult {
  yamlPath: string;
  jsonPath: string;
  operations: number;
}

/** Bundles the split spec into dist/openapi.yaml and dist/openapi.json, refs resolved to components. */
export async function bundleSpec(specPath: string = paths.specSource): Promise<BundleResult> {
  specPath = resolve(specPath);
  await checkSpecFiles(specPath);
  await mkdir(paths.distDir, { recursive: true });
  const run = await runRedocly(['bundle', specPath, '--config', paths.redoclyConfig, '--output', paths.bundledYaml]);
  if (run.status !== 0) {
    throw new VapcError('E_TOOL_FAILED', `redocly bundle failed:\n${run.stdout}${run.stderr}`);
  }
  const document = parse(await readFile(paths.bundledYaml, 'utf8'), { logLevel: 'error' }) as {
    paths: Record<string, Record<string, unknown>>;
  };
  await writeFile(paths.bundledJson, `${JSON.stringify(document, null, 2)}\n`);
  const operations = Object.values(document.paths).reduce(
    (n, item) =>
      n +
      Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(k))
        .length,
    0,
  );
  return { yamlPath: paths.bundledYaml, jsonPath: paths.bundledJson, operations };
}

export interface DocsResult {
  htmlPath: string;
  bytes: number;
}

/** Builds the self-contained HTML reference (Redoc) at dist/docs/index.html. */
export async function buildDocs(
  specPath: string = paths.specSource,
  output: string = paths.docsHtml,
): Promise<DocsResult> {
  specPath = resolve(specPath);
  output = resolve(output);
  await checkSpecFiles(specPath);
  await mkdir(dirname(output), { recursive: true });
  // --inlineBundle embeds Redoc's scripts instead of loading them from Redocly's CDN (Redoc 3 loads
  // no Google Fonts, unlike Redoc 2); offline() removes the one CDN image and adds a CSP that
  // forbids any fetch. The Redoc options (showExtensions) are in redocly.yaml.
  const run = await runRedocly([
    'build-docs',
    specPath,
    '--config',
    paths.redoclyConfig,
    '--inlineBundle',
    '--output',
    output,
  ]);
  if (run.status !== 0) {
    throw new VapcError('E_TOOL_FAILED', `redocly build-docs failed:\n${run.stdout}${run.stderr}`);
  }
  const html = offline(await readFile(output, 'utf8'));
  await writeFile(output, html);
  const external = externalResources(html);
  if (external.length > 0) {
    throw new VapcError('E_TOOL_FAILED', `the docs page would fetch from elsewhere: ${external.join(', ')}`);
  }
  return { htmlPath: output, bytes: Buffer.byteLength(html) };
}

/** Redoc 3 shows a "docs by Redocly" logo loaded from Redocly's CDN; a blank local image replaces it. */
const REDOC_CDN_IMAGES = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g;
const BLANK_SVG = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

/**
 * What the page may load, as a Content-Security-Policy: its own inline scripts and styles and data:
 * images and fonts, nothing from the network. A resource Redoc would fetch in some rarely used view
 * (an icon set, say) is then refused by the browser instead of leaking a request.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'";

/** Makes Redoc's page self-contained: no CDN image, and a CSP that forbids any other fetch. */
export function offline(html: string): string {
  const withoutCdn = html.replace(REDOC_CDN_IMAGES, BLANK_SVG);
  if (withoutCdn.includes('http-equiv="Content-Security-Policy"')) return withoutCdn;
  const meta = `<meta http-equiv="Content-Security-Policy" content="${DOCS_CSP}" />`;
  const charset = /<meta charset="[^"]*"\s*\/?>/i;
  return charset.test(withoutCdn)
    ? withoutCdn.replace(charset, (m) => `${m}\n  ${meta}`)
    : withoutCdn.replace(/<head>/i, `<head>\n  ${meta}`);
}

/**
 * The http(s) URLs an HTML page would load as a resource: script and link (stylesheet, preload,
 * font) tags, CSS @import and url(...), @font-face sources. Plain links (<a href>) are not loads.
 */
export function externalResources(html: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /<script\b[^>]*\bsrc\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
    /<link\b[^>]*\bhref\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
    /<(?:img|iframe|source|embed|object)\b[^>]*\b(?:src|data)\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
    /@import\s+(?:url\()?\s*["']?((?:https?:)?\/\/[^"')\s;]+)/gi,
    /url\(\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi,
    /\bimport\s*(?:\{[^}]*\}\s*from\s*)?["']((?:https?:)?\/\/[^"']+)["']/gi,
  ];
  for (const pattern of patterns) {
    for (const match of html.matchAll(pattern)) {
      const url = match[1];
      if (url && !url.startsWith('//www.w3.org/') && !/^https?:\/\/www\.w3\.org\//.test(url)) found.add(url);
    }
  }
  return [...found];
}
