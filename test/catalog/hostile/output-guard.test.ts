/**
 * Issue 32, attack 6 and the output parts of attack 7: one output guard for every stream and
 * Markdown file. GitHub's runner trims Unicode blanks before `::`, and the guard only knew `[ \t]`:
 * forged `::warning` lines behind U+00A0 came through `vapc run`, `vapc report`, `report merge` and
 * config and baseline errors (which kept their newlines). Bare URLs from a server or a spec were
 * autolinked in the step summary and in `vapc diff --format markdown`; `[text](https://...)` reached
 * report.sarif unescaped (an embedded link under SARIF 2.1.0 §3.11.6); YAML tag names reached stderr
 * raw (ESC, an OSC 52 clipboard write, BEL) through Node's process.emitWarning.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../../src/cli/main.js';
import { API_KEY, USER_ID, startAttacker, type AttackerServer } from './attackers.js';

const root = mkdtempSync(join(tmpdir(), 'vapc-output-guard-'));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function vapc(argv: string[], env: Record<string, string> = {}, cwd = root): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, isTTY: false };
  const before = process.cwd();
  process.chdir(cwd);
  try {
    return { code: await main(argv, io), stdout, stderr };
  } finally {
    process.chdir(before);
  }
}

/** What GitHub's runner trims before it looks for `::` (C# String.Trim: Unicode white space), plus invisible characters. */
const TRIMMED = /^[\s\u0000-\u001f\u007f-\u009f\u180e\u200b-\u200f\u2060-\u2064\ufeff]+/;

/** vapc's own annotations: an error or warning titled with a check id or "vapc ...". */
const OWN_COMMAND = /^::(?:error|warning|notice) (?:title|file)=/;

/** No line, as the runner reads it, is a workflow command vapc did not write. */
function expectNoForgedCommand(text: string, where: string): void {
  for (const line of text.split(/\r?\n|\r/)) {
    const read = line.replace(TRIMMED, '');
    if (!read.startsWith('::')) continue;
    expect(line, `${where}: ${JSON.stringify(line)}`).toMatch(OWN_COMMAND);
    expect(line, where).not.toMatch(/^::[a-z-]+ title=FORGED/);
  }
}

/** Markdown with its code (fences and spans) removed: what GitHub would autolink. */
function outsideCode(markdown: string): string {
  // A backslash-escaped backtick is a literal one, not a code span (mdCell writes \`).
  return markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(?<!\\)(`+)[\s\S]*?\1/g, '');
}

function expectNoBareUrl(markdown: string, where: string): void {
  const text = outsideCode(markdown);
  expect(text, where).not.toMatch(/https?:\/\//);
  expect(text, where).not.toMatch(/\bwww\.evil/);
}

describe('a server that forges commands behind Unicode blanks and writes bare URLs and links', () => {
  let server: AttackerServer;
  let run: Run;
  let summary: string;
  const dir = join(root, 'run');
  const env = (summaryFile: string) => ({
    GITHUB_ACTIONS: 'true',
    GITHUB_STEP_SUMMARY: summaryFile,
    VAPC_API_KEY: API_KEY,
    VAPC_USER_ID: USER_ID,
  });
  beforeAll(async () => {
    server = await startAttacker('blank-commands');
    const file = join(root, 'run.md');
    writeFileSync(file, '');
    run = await vapc(
      [
        'run',
        '--base-url',
        server.url,
        '--suite',
        'auth',
        '--seed',
        '7',
        '--runs',
        '2',
        '--shard',
        '1/1',
        '--report-dir',
        dir,
      ],
      env(file),
    );
    summary = readFileSync(file, 'utf8');
  }, 120_000);
  afterAll(() => server.close());

  it('attack 6: vapc run prints no command of the server making, whatever blank precedes it', () => {
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/no-break space|FORGED/);
    expectNoForgedCommand(run.stdout, 'stdout');
    expectNoForgedCommand(run.stderr, 'stderr');
  });

  it('attack 6: nor do vapc report and vapc report merge of an artefact whose texts start with U+00A0 ::', async () => {
    // The artefact of another job of the pull request: its messages, rules and observations forged.
    const forged = join(root, 'forged');
    mkdirSync(forged, { recursive: true });
    const data = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      target: string;
      results: Array<{ message: string; rule: string }>;
      observations?: Array<{ message: string }>;
    };
    const line = (what: string) => `\u00a0::warning title=FORGED::${what}`;
    data.target = line('target');
    for (const r of data.results) Object.assign(r, { message: line('message'), rule: line('rule') });
    for (const o of data.observations ?? []) o.message = line('observation');
    writeFileSync(join(forged, 'report.json'), JSON.stringify(data));
    const file = join(root, 'report.md');
    writeFileSync(file, '');
    const report = await vapc(['report', forged], env(file));
    expect(report.code).toBe(1);
    expect(report.stdout).toContain('FORGED::message');
    expectNoForgedCommand(report.stdout + report.stderr, 'vapc report');
    const merged = await vapc(['report', 'merge', forged, '--report-dir', join(root, 'merged')], env(file));
    expect(merged.code).toBe(1);
    expectNoForgedCommand(merged.stdout + merged.stderr, 'vapc report merge');
    expectNoForgedCommand(readFileSync(file, 'utf8'), 'their step summaries');
  });

  it('attack 7: no bare URL of the server autolinks in the step summary', () => {
    expect(summary).toContain('evil.example');
    expectNoBareUrl(summary, 'step summary');
    expectNoForgedCommand(summary, 'step summary');
  });

  it('attack 7: report.sarif escapes the brackets of [text](https://...) in every message', () => {
    const sarif = JSON.parse(readFileSync(join(dir, 'report.sarif'), 'utf8')) as {
      runs: Array<{ results: Array<{ message: { text: string } }> }>;
    };
    const texts = sarif.runs[0]!.results.map((r) => r.message.text);
    expect(texts.join('\n')).toContain('evil.example/l');
    for (const text of texts) expect(text).not.toMatch(/(^|[^\\])\[text\]\(/);
    expect(texts.join('\n')).toContain('\\[text\\](https://evil.example/l)');
  });
});

describe('attack 6: config and baseline errors are one line each', () => {
  const forged = 'a\\n\\u00a0::warning title=FORGED::from a file';

  it('an unknown key in a config file', async () => {
    writeFileSync(join(root, 'forged.yaml'), `"${forged}": 1\n`);
    const r = await vapc(['run', '--base-url', 'http://127.0.0.1:9', '--config', 'forged.yaml'], {
      GITHUB_ACTIONS: 'true',
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expectNoForgedCommand(r.stderr, 'stderr');
  });

  it('an unknown key in a baseline entry', async () => {
    writeFileSync(join(root, 'forged-baseline.yaml'), `version: 1\nfindings:\n  - "${forged}": x\n`);
    const r = await vapc(
      ['run', '--base-url', 'http://127.0.0.1:9', '--no-config', '--baseline', 'forged-baseline.yaml'],
      { GITHUB_ACTIONS: 'true' },
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expectNoForgedCommand(r.stderr, 'stderr');
  });
});

describe('attack 7: spec text in vapc diff --format markdown', () => {
  it('bare URLs in names and paths do not autolink', async () => {
    const doc = (params: object[]) =>
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1.0.0' },
        paths: { '/a': { get: { parameters: params, responses: { '200': { description: 'ok' } } } } },
      });
    writeFileSync(join(root, 'md-base.json'), doc([]));
    writeFileSync(
      join(root, 'md-head.json'),
      doc([{ name: 'see https://evil.example/x or www.evil.example', in: 'query', schema: { type: 'string' } }]),
    );
    const r = await vapc(['diff', 'md-base.json', 'md-head.json', '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('evil.example');
    expectNoBareUrl(r.stdout, 'diff markdown');
  });
});

describe('attack 7: YAML tag names never reach stderr raw', () => {
  // A verbatim tag carries its bytes as written: ESC ] 52 (a clipboard write), BEL.
  const tag = '!<\u001b]52;c;ZXZpbA==\u0007>';
  const warnings: Error[] = [];
  const listen = (w: Error) => void warnings.push(w);
  beforeAll(() => process.on('warning', listen));
  beforeEach(() => void warnings.splice(0));
  afterAll(() => void process.off('warning', listen));

  it('a tag in a spec: refused by line, no process warning, no escape byte', async () => {
    writeFileSync(join(root, 'tag-base.yaml'), 'openapi: 3.1.0\ninfo: {title: t, version: 1.0.0}\npaths: {}\n');
    writeFileSync(
      join(root, 'tag-head.yaml'),
      `openapi: 3.1.0\ninfo: {title: t, version: 1.0.0, x-a: ${tag} v}\npaths: {}\n`,
    );
    for (const argv of [
      ['diff', 'tag-base.yaml', 'tag-head.yaml'],
      ['lint', '--spec', 'tag-head.yaml'],
    ]) {
      const r = await vapc(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u0007]/);
    }
    expect(warnings.map((w) => w.message)).toEqual([]);
  });

  it('a tag in a config file: refused, escaped, no process warning', async () => {
    writeFileSync(join(root, 'tag.yaml'), `seed: ${tag} 1\n`);
    const r = await vapc(['run', '--base-url', 'http://127.0.0.1:9', '--config', 'tag.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/[\u001b\u0007]/);
    expect(warnings.map((w) => w.message)).toEqual([]);
  });
});
