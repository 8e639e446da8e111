/**
 * Every vapc command a person is given to paste runs the local binary: `npx --no-install vapc ...`.
 * Outside a project that installed the toolkit, a bare `npx vapc` asks the npm registry for a
 * package called vapc (not ours) and would run it with VAPC_API_KEY exported. Held here: the
 * console's replay line, report.html's "Copy rerun command", the GitHub step summary, report.sarif's
 * rule help, the messages naming a command, every code block of the docs, and the Action's files.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/paths.js';
import { renderSummary } from '../../../src/reporters/console.js';
import { githubStepSummary } from '../../../src/reporters/github.js';
import { renderHtml } from '../../../src/reporters/html.js';
import { renderSarif } from '../../../src/reporters/sarif.js';
import { fixture } from '../../helpers/reports.js';

const SUBCOMMANDS = 'run|serve|report|diff|lint|drift|proxy|export|baseline';
/** A vapc command in a text: `vapc run ...`, with what stands before it on its line. */
const COMMAND = new RegExp(`(^|.*?[\\s\`'"(;&|$>])vapc (?:${SUBCOMMANDS})\\b`, 'gm');

/** The commands in `text` that are not preceded by `npx --no-install ` (each with its line). */
export function barePastes(text: string): string[] {
  const bare: string[] = [];
  for (const m of text.matchAll(COMMAND)) {
    if (!m[1]!.endsWith('npx --no-install ')) bare.push(m[0].trim());
  }
  return bare;
}

/** The lines of fenced code blocks that run vapc, except comments and JSON (npm scripts say plain `vapc`). */
export function codeBlockCommands(markdown: string): string[] {
  const lines: string[] = [];
  for (const block of markdown.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```/gm)) {
    if (block[1] === 'json') continue;
    for (const line of block[2]!.split('\n')) {
      if (/^\s*#/.test(line)) continue;
      if (new RegExp(`\\bvapc (?:${SUBCOMMANDS})\\b`).test(line)) lines.push(line);
    }
  }
  return lines;
}

describe('the checker itself', () => {
  it('finds a bare vapc command and passes the local binary', () => {
    expect(barePastes('replay: npx vapc run --seed 1')).toEqual(['replay: npx vapc run']);
    expect(barePastes('rerun with `vapc run --suite auth`')).toEqual(['rerun with `vapc run']);
    expect(barePastes('vapc report merge a b')).toEqual(['vapc report']);
    expect(barePastes('replay: npx --no-install vapc run --seed 1; `npx --no-install vapc report d`')).toEqual([]);
    // A word that ends in vapc, or vapc followed by something that is not a command, is not one.
    expect(barePastes('the vapc runner; myvapc run')).toEqual([]);
    expect(codeBlockCommands('```sh\nvapc run --x\n# vapc run in a comment\n```\n```json\n"vapc run"\n```')).toEqual([
      'vapc run --x',
    ]);
  });
});

describe('what the reporters print', () => {
  const failing = fixture('failing-run');

  it('the console replay line', () => {
    const text = renderSummary(failing);
    expect(text).toMatch(/^replay: npx --no-install vapc run /m);
    expect(barePastes(text)).toEqual([]);
  });

  it("report.html's Copy rerun command", () => {
    // What a copy button copies: the text of the <pre> beside it.
    const copied = [...renderHtml(failing).matchAll(/<pre id="copy[^"]*">([\s\S]*?)<\/pre>/g)].map((m) => m[1]!);
    expect(copied.some((text) => text.startsWith('npx --no-install vapc run '))).toBe(true);
    expect(copied.flatMap(barePastes)).toEqual([]);
  });

  it('the GitHub step summary', () => {
    const summary = githubStepSummary(failing);
    expect(summary).toContain('npx --no-install vapc run ');
    expect(barePastes(summary)).toEqual([]);
  });

  it("report.sarif's rule help", () => {
    const sarif = renderSarif(failing);
    expect(sarif).toContain('npx --no-install vapc run --suite ');
    expect(barePastes(sarif)).toEqual([]);
  });
});

describe('what the docs and the Action give to paste', () => {
  const docs = join(packageRoot, 'docs');
  const pages = [
    'README.md',
    'CHANGELOG.md',
    join('packages', 'validators', 'README.md'),
    ...readdirSync(docs)
      .filter((f) => f.endsWith('.md'))
      .map((f) => relative(packageRoot, join(docs, f))),
  ];

  it.each(pages)('%s: every code block runs the local binary', (page) => {
    const commands = codeBlockCommands(readFileSync(join(packageRoot, page), 'utf8'));
    expect(commands.flatMap(barePastes)).toEqual([]);
  });

  it("action.yml's steps and scripts/action.mjs's strings run or print no bare vapc command", () => {
    const action = readFileSync(join(packageRoot, 'action.yml'), 'utf8');
    const steps = action.slice(action.indexOf('\nruns:'));
    expect(steps).not.toMatch(/\bnpx vapc\b/);
    expect(barePastes(steps.replace(/^\s*- name: .*$/gm, ''))).toEqual([]);
    // Comments describe; what the script prints are its strings.
    const script = readFileSync(join(packageRoot, 'scripts', 'action.mjs'), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    const strings = [...script.matchAll(/(['"`])((?:\\.|(?!\1)[^\\\n])*)\1/g)].map((m) => m[2]!);
    expect(strings.flatMap(barePastes)).toEqual([]);
  });
});
