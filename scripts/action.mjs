#!/usr/bin/env node
/**
 * The GitHub Action's step (action.yml): turns the action's inputs (INPUT_* env vars set by
 * action.yml) into a `vapc run` of this checkout's CLI, then writes the outputs (passed, failed,
 * new-findings, report-dir, exit-code) to $GITHUB_OUTPUT and exits with vapc's status.
 *
 * The CLI itself, seeing GITHUB_ACTIONS=true, prints the `::error` annotations of failed checks (at
 * most 10, GitHub's limit per step) and appends the Markdown job summary to $GITHUB_STEP_SUMMARY.
 * On an exit 2 (the run could not judge) this script writes exactly one `::error` and a step
 * summary naming the Action input to change (VAPC_ACTION=true tells the CLI to leave that to it).
 * Credentials go to the CLI through VAPC_API_KEY / VAPC_USER_ID, never on its command line, and
 * every line of them is masked first. The settings come from the workflow: the CLI reads a config
 * file only when the `config` input names one (--no-config otherwise). The outputs are written on
 * every path, also when vapc cannot start.
 *
 * Runs anywhere with a simulated environment (test/e2e/action.test.ts): set GITHUB_ACTIONS=true,
 * GITHUB_OUTPUT and GITHUB_STEP_SUMMARY to files, and the INPUT_* variables below.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, lstatSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** action.yml input -> environment variable the composite step sets. */
export const INPUTS = {
  'base-url': 'INPUT_BASE_URL',
  'api-key': 'INPUT_API_KEY',
  'user-id': 'INPUT_USER_ID',
  suites: 'INPUT_SUITES',
  rpm: 'INPUT_RPM',
  seed: 'INPUT_SEED',
  runs: 'INPUT_RUNS',
  baseline: 'INPUT_BASELINE',
  config: 'INPUT_CONFIG',
  fixtures: 'INPUT_FIXTURES',
  'report-dir': 'INPUT_REPORT_DIR',
  args: 'INPUT_ARGS',
  'allow-inconclusive': 'INPUT_ALLOW_INCONCLUSIVE',
};
export const OUTPUTS = ['passed', 'failed', 'new-findings', 'verdict', 'report-dir', 'exit-code'];
export const DEFAULT_REPORT_DIR = 'vapc-reports';

/** Splits extra arguments like a shell would for simple cases: whitespace, '...' and "..." quotes. */
export function splitArgs(text) {
  const out = [];
  let current = '';
  let quote = '';
  let started = false;
  for (const ch of text ?? '') {
    if (quote) {
      if (ch === quote) quote = '';
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (quote) throw new Error(`args: unclosed ${quote} quote`);
  if (started) out.push(current);
  return out;
}

/**
 * Every non-empty line of a secret (and the whole value): GitHub masks only the first line of a
 * multi-line `::add-mask::`. Each line is escaped as workflow-command data (`%` as %25): the runner
 * unescapes it, so a secret holding `%0A` or `%25` masks itself, not another string.
 */
export function maskLines(secret) {
  const lines = String(secret ?? '')
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter(Boolean);
  return [...new Set(lines)].map((l) => `::add-mask::${escapeData(l)}\n`).join('');
}

/** The `vapc run` arguments and the extra environment for the given INPUT_* variables. */
export function planRun(env) {
  const input = (name) => (env[INPUTS[name]] ?? '').trim();
  const reportDir = input('report-dir') || DEFAULT_REPORT_DIR;
  const argv = ['run'];
  if (input('base-url')) argv.push('--base-url', input('base-url'));
  for (const name of ['suites', 'rpm', 'seed', 'runs', 'baseline']) {
    if (input(name)) argv.push(name === 'suites' ? '--suite' : `--${name}`, input(name));
  }
  // The gate's settings come from the workflow: a vapc.yaml in the checkout is the pull request's.
  if (input('config')) argv.push('--config', input('config'));
  else argv.push('--no-config');
  // An inconclusive run (nothing failed, too little judged) exits 3 unless the workflow says otherwise.
  if (/^true$/i.test(input('allow-inconclusive'))) argv.push('--allow-inconclusive');
  argv.push('--report-dir', reportDir, ...splitArgs(env[INPUTS.args] ?? ''));
  const childEnv = { VAPC_ACTION: 'true' };
  // Fixtures come from the workflow too: under CI a config file of the checkout may not set them.
  if (input('fixtures')) childEnv.VAPC_FIXTURES = input('fixtures');
  // Secrets keep their inner lines; only the surrounding whitespace of the input goes.
  if (input('api-key')) childEnv.VAPC_API_KEY = input('api-key');
  if (input('user-id')) childEnv.VAPC_USER_ID = input('user-id');
  return {
    argv,
    env: childEnv,
    reportDir,
    baseline: input('baseline'),
    config: input('config'),
    secrets: [input('api-key'), input('user-id')].filter(Boolean),
  };
}

/** `path` with symlinks resolved as far as it exists (the realpath of its nearest existing ancestor, then the rest). */
function resolvedPath(path) {
  let existing = resolve(path);
  const rest = [];
  for (;;) {
    try {
      return join(realpathSync(existing), ...rest);
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return resolve(path);
      rest.unshift(basename(existing));
      existing = parent;
    }
  }
}

const inside = (folder, path) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/**
 * Why the run cannot start, checked before vapc runs (one line naming the input), or undefined:
 * a report path that is a symlink, leads outside the workspace (a symlink committed on its way) or
 * is not a directory (or holds a report.json that is not a regular file), a baseline or config
 * input naming a file that does not exist or is not a regular file (a directory, a device).
 */
export function precheck(plan, cwd = process.cwd(), workspace = process.env.GITHUB_WORKSPACE || cwd) {
  const kind = (path) => {
    try {
      const info = lstatSync(resolve(cwd, path));
      if (info.isSymbolicLink()) return 'link';
      return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
    } catch {
      return undefined;
    }
  };
  if (kind(plan.reportDir) === 'link')
    return `the input \`report-dir\` names ${plan.reportDir}, which is a symlink: name a real directory inside the workspace (a link could make the step write elsewhere)`;
  if (!inside(resolvedPath(workspace), resolvedPath(resolve(cwd, plan.reportDir))))
    return `the input \`report-dir\` names ${plan.reportDir}, which leads outside the workspace (symlinks resolved): name a directory inside it`;
  if (kind(plan.reportDir) === 'file' || kind(plan.reportDir) === 'other')
    return `the input \`report-dir\` names ${plan.reportDir}, which is a file: name a directory for the reports`;
  const json = join(plan.reportDir, 'report.json');
  if (kind(json) !== undefined && kind(json) !== 'file')
    return `${json} is a directory, not a report: remove it or set the input \`report-dir\` to another directory`;
  if (plan.baseline && kind(plan.baseline) === undefined) {
    return (
      `the baseline file ${plan.baseline} named by the input \`baseline\` does not exist: for the first run leave \`baseline\` empty and set \`args: --write-baseline ${plan.baseline}\`, ` +
      `commit the file it writes, then set \`baseline: ${plan.baseline}\` again (a missing baseline never passes, so deleting it cannot turn the gate green)`
    );
  }
  for (const input of ['baseline', 'config']) {
    const file = plan[input];
    if (file && (kind(file) === 'directory' || (kind(file) === 'link' && isDirectory(resolve(cwd, file)))))
      return `the input \`${input}\` names ${file}, which is a directory: name the ${input === 'baseline' ? 'baseline' : 'config'} YAML file`;
    if (file && kind(file) !== undefined && !isRegularFile(resolve(cwd, file)))
      return `the input \`${input}\` names ${file}, which is not a regular file (a device, FIFO or socket): name the YAML file`;
  }
  return undefined;
}

/** True when `path` (followed through links) is a regular file. */
function isRegularFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** True when `path` (followed through links) is a directory. */
function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** CLI flags (and env vars) in vapc's messages, as the Action inputs that set them. */
const FLAG_INPUTS = [
  [/--base-url(?: URL)?(?: \(VAPC_BASE_URL\))?|VAPC_BASE_URL/g, 'base-url'],
  [/--api-key(?: KEY)?(?: \(VAPC_API_KEY\))?|VAPC_API_KEY/g, 'api-key'],
  [/--user-id(?: ID)?(?: \(VAPC_USER_ID\))?|VAPC_USER_ID/g, 'user-id'],
  [/--suite(?: LIST)?\b/g, 'suites'],
  [/--baseline(?: FILE)?\b/g, 'baseline'],
  [/--report-dir\b/g, 'report-dir'],
  [/--config(?: FILE)?\b/g, 'config'],
  [/VAPC_FIXTURES\b/g, 'fixtures'],
  [/--rpm\b/g, 'rpm'],
  [/--seed\b/g, 'seed'],
  [/--runs\b/g, 'runs'],
];

/** Error codes and the input that usually fixes them, when the message names none. */
const CODE_INPUTS = {
  E_UNREACHABLE: 'base-url',
  E_CONTRACT_NOT_FOUND: 'base-url',
  E_FIXTURE_NOT_FOUND: 'fixtures',
  E_NO_CREDENTIALS: 'api-key',
  E_CREDENTIALS_REFUSED: 'api-key',
  E_BASELINE: 'baseline',
  E_CONFIG: 'config',
  E_RUN_ABORTED: 'args',
};

/** vapc's message in the words of the Action: flags become inputs; the inputs it names, in order. */
export function inActionTerms(message) {
  let text = message;
  const named = [];
  for (const [re, input] of FLAG_INPUTS) {
    text = text.replace(re, `the input \`${input}\``);
  }
  for (const m of text.matchAll(/the input `([a-z-]+)`/g)) named.push([m.index, m[1]]);
  const code = /\[(E_[A-Z_]+)\]\s*$/.exec(text)?.[1];
  const inputs = [...new Set(named.sort((a, b) => a[0] - b[0]).map(([, i]) => i))];
  if (inputs.length === 0 && code && CODE_INPUTS[code]) inputs.push(CODE_INPUTS[code]);
  if (inputs.length === 0) inputs.push('args');
  return { text, inputs };
}

/** The last `vapc: …` line vapc printed on stderr (its one-line reason), without the prefix. */
export function reasonOf(stderr) {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const last =
    [...lines].reverse().find((l) => l.startsWith('vapc: ')) ??
    lines[lines.length - 1] ??
    'vapc exited with status 2 and printed no reason';
  return last.replace(/^vapc( action)?: /, '');
}

const escapeData = (s) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeMarkdown = (s) => s.replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, (c) => `\\${c}`);

/** A fault of vapc itself (E_TOOL_FAILED, an internal error): no input of the workflow fixes it. */
const toolFault = (reason) => /\[E_TOOL_FAILED\]\s*$/.test(reason) || reason.startsWith('internal error:');

/** The one annotation and the step summary of an exit 2: what went wrong and which input to change. */
export function exit2Messages(reason) {
  if (toolFault(reason)) {
    const line = reason.replace(/[\r\n]+/g, ' ');
    return {
      annotation: `::error title=vapc failed (a fault of the tool, not of the server or the inputs)::${escapeData(line)}\n`,
      summary: `## vapc failed\n\n${escapeMarkdown(line)}\n\n**No input to change:** the run stopped on a fault of vapc itself (its build or a bug), not of the server under test or the workflow's inputs. Rebuild the action's checkout (\`npm run build\`) or report it. The run reached no verdict; report.json (when written) says \`run.status: aborted\`.\n`,
    };
  }
  const { text, inputs } = inActionTerms(reason);
  const line = text.replace(/[\r\n]+/g, ' ');
  const change = inputs.map((i) => `\`${i}\``).join(', ');
  const annotation = `::error title=vapc could not run (change the input ${escapeData(inputs[0]).replace(/[:,]/g, ' ')})::${escapeData(line)}\n`;
  const summary = `## vapc could not run\n\n${escapeMarkdown(line)}\n\n**Input to change:** ${change}. The run reached no verdict; report.json (when written) says \`run.status: aborted\`.\n`;
  return { annotation, summary };
}

/** The step's outputs from report.json (empty counts when the run wrote none, e.g. a usage error, or it is unreadable). */
export function outputsOf(reportDir, exitCode) {
  const out = {
    passed: '',
    failed: '',
    'new-findings': '',
    verdict: '',
    'report-dir': resolve(reportDir),
    'exit-code': String(exitCode),
  };
  let summary;
  try {
    const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8'));
    summary = report.summary;
    if (['passed', 'failed', 'inconclusive'].includes(report.verdict)) out.verdict = report.verdict;
  } catch {
    return out;
  }
  if (!summary || typeof summary !== 'object') return out;
  const count = (v) => (Number.isSafeInteger(v) && v >= 0 ? String(v) : '0');
  out.passed = count(summary.passed);
  out.failed = count(summary.failed);
  out['new-findings'] = count(summary.new_failures ?? summary.failed);
  return out;
}

/** Appends `name=value` lines to $GITHUB_OUTPUT (values here are always one line). */
export function writeOutputs(file, outputs) {
  const text = Object.entries(outputs)
    .map(([k, v]) => `${k}=${String(v).replace(/[\r\n]+/g, ' ')}\n`)
    .join('');
  if (file) appendFileSync(file, text);
  else process.stdout.write(text);
}

/**
 * The vapc the step runs: the one action.yml installed into VAPC_TOOL_DIR (scripts/action-install.mjs),
 * or, without it (a local run of this script), this checkout's bin/vapc.js.
 */
export function vapcBin(env) {
  if (!env.VAPC_TOOL_DIR) return fileURLToPath(new URL('../bin/vapc.js', import.meta.url));
  return join(env.VAPC_TOOL_DIR, 'node_modules', 'voice-agent-contract', 'bin', 'vapc.js');
}

/** Runs vapc with the plan; its stderr is passed through and kept for the exit-2 reason. */
function runVapc(plan, env) {
  const cli = vapcBin(env);
  if (!existsSync(cli)) {
    const stderr = `vapc action: vapc is not installed at ${cli} [E_TOOL_FAILED]\n`;
    process.stderr.write(stderr);
    return Promise.resolve({ code: 2, stderr });
  }
  return new Promise((done) => {
    let stderr = '';
    const child = spawn(process.execPath, [cli, ...plan.argv], {
      stdio: ['inherit', 'inherit', 'pipe'],
      env: { ...env, ...plan.env },
    });
    child.stderr.on('data', (d) => {
      process.stderr.write(d);
      if (stderr.length < 64_000) stderr += d;
    });
    child.on('error', (e) => done({ code: 2, stderr: `vapc action: cannot start vapc: ${e.message}\n` }));
    child.on('close', (status) => done({ code: status ?? 2, stderr }));
  });
}

/** The step: plan, checks, the run, then the outputs (always) and, on exit 2, one `::error` and a summary. */
async function main() {
  const env = process.env;
  let reportDir = (env[INPUTS['report-dir']] ?? '').trim() || DEFAULT_REPORT_DIR;
  let code = 2;
  let reason;
  try {
    const plan = planRun(env);
    reportDir = plan.reportDir;
    // Masked before anything else prints, so GitHub hides them in every later log line.
    for (const s of plan.secrets) process.stdout.write(maskLines(s));
    reason = precheck(plan);
    if (reason === undefined) {
      // A report.json left from an earlier run must not be read as this run's.
      rmSync(join(plan.reportDir, 'report.json'), { force: true });
      const run = await runVapc(plan, env);
      code = run.code;
      if (code === 2) reason = reasonOf(run.stderr);
    } else {
      process.stderr.write(`vapc action: ${reason}\n`);
    }
  } catch (e) {
    reason = `vapc action: ${e instanceof Error ? e.message : String(e)}`;
    process.stderr.write(`${reason}\n`);
    code = 2;
  }
  if (code === 2) {
    const { annotation, summary } = exit2Messages(reason ?? 'vapc exited with status 2');
    process.stdout.write(annotation);
    if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, summary);
  }
  writeOutputs(env.GITHUB_OUTPUT, outputsOf(reportDir, code));
  return code;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
