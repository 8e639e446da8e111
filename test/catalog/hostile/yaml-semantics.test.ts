/**
 * Issue 32, attack 1: a breaking change hidden from `vapc diff`. vapc parsed the spec with `yaml`
 * (merge keys off) and Redocly (lint, bundle, the published spec and the runner's validators) with
 * js-yaml (merge keys on): replacing `maximum: 200` by `<<: {maximum: 5}` gave `vapc diff` a warning
 * and exit 0 while the bundle shipped maximum 5. The spec's YAML must mean the same to every tool:
 * each construct below is either refused by vapc (exit 2, named by line) or read by vapc exactly as
 * Redocly's bundle reads it. The bundle is Redocly's own (the pinned CLI, no config), run once over
 * all the constructs' files (again after each one it refuses, since it stops at the first).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRedocly } from '../../../src/build/redocly.js';
import { main, type CliIo } from '../../../src/cli/main.js';
import { VapcError } from '../../../src/errors.js';
import { readSpecFiles } from '../../../src/spec/files.js';

/** Each construct as the value of `info.x-value` (or, with `raw`, the whole of `info`'s extra lines). */
const CONSTRUCTS: Array<{ name: string; value: string; disagree?: boolean }> = [
  { name: 'merge key', value: '{<<: {maximum: 5}, minimum: 1}', disagree: true },
  { name: 'merge key, block style', value: '\n    <<: {maximum: 5}\n    minimum: 1', disagree: true },
  { name: 'tilde', value: '~' },
  { name: 'Null', value: 'Null' },
  { name: 'True', value: 'True' },
  { name: 'hex', value: '0x10' },
  { name: 'octal', value: '0o17' },
  { name: 'binary', value: '0b101' },
  { name: 'underscores', value: '1_000' },
  { name: 'plus sign', value: '+1' },
  { name: 'leading dot', value: '.5' },
  { name: 'trailing dot', value: '1.' },
  { name: 'leading zero', value: '010' },
  { name: 'infinity', value: '.inf' },
  { name: 'minus infinity', value: '-.inf' },
  { name: 'not a number', value: '.nan' },
  { name: 'str tag', value: '!!str 5', disagree: true },
  { name: 'binary tag', value: '!!binary aGVsbG8=', disagree: true },
  { name: 'set tag', value: '!!set {a, b}', disagree: true },
  { name: 'timestamp tag', value: '!!timestamp 2001-12-14' },
  { name: 'float tag', value: '!!float 1', disagree: true },
  { name: 'custom tag', value: '!custom x' },
  { name: 'YAML 1.1 directive', value: 'yes', disagree: true },
  // Read the same by both: accepted, and equal.
  { name: 'null', value: 'null' },
  { name: 'true', value: 'true' },
  { name: 'integer', value: '200' },
  { name: 'negative zero', value: '-0' },
  { name: 'decimal', value: '1.5' },
  { name: 'exponent', value: '1e3' },
  { name: 'big integer', value: '12345678901234567890' },
  { name: 'quoted tilde', value: '"~"' },
  { name: 'quoted hex', value: "'0x10'" },
  { name: 'plain word yes', value: 'yes' },
  { name: 'date', value: '2001-12-14' },
  { name: 'empty', value: '' },
  { name: 'anchor and alias', value: '&a [1, 2]\n  x-again: *a' },
];

const ACCEPTED_BY_BOTH = new Set(['null', 'true', 'integer', 'negative zero', 'decimal', 'exponent', 'big integer']);

let dir: string;
const file = (i: number) => join(dir, 'specs', `c${String(i).padStart(2, '0')}.yaml`);

function documentOf(c: { name: string; value: string }): string {
  const directive = c.name === 'YAML 1.1 directive' ? '%YAML 1.1\n---\n' : '';
  return `${directive}openapi: 3.1.0\ninfo:\n  title: t\n  version: 1.0.0\n  x-value: ${c.value}\npaths: {}\n`;
}

/** vapc's reading of a construct: the value of info.x-value, or the refusal. */
async function vapcReads(i: number): Promise<{ value?: unknown; refused?: string }> {
  try {
    const files = await readSpecFiles(file(i));
    const doc = files.files.get(file(i)) as { info: Record<string, unknown> };
    return { value: JSON.parse(JSON.stringify(doc.info['x-value'] ?? null)) };
  } catch (error) {
    if (error instanceof VapcError && error.code === 'E_SPEC_REFUSED') return { refused: error.message };
    throw error;
  }
}

/** Redocly's bundle of every construct: the value of info.x-value, or `refused` where Redocly cannot parse it. */
async function redoclyBundles(): Promise<Map<number, { value?: unknown; refused?: true }>> {
  const out = new Map<number, { value?: unknown; refused?: true }>();
  let next = 0;
  while (next < CONSTRUCTS.length) {
    const files = CONSTRUCTS.map((_c, i) => file(i)).slice(next);
    const run = await runRedocly(['bundle', ...files, '--ext', 'json', '-o', join(dir, 'bundled')], dir);
    for (; next < CONSTRUCTS.length; next++) {
      const bundled = join(dir, 'bundled', `c${String(next).padStart(2, '0')}.json`);
      if (!existsSync(bundled)) break;
      const doc = JSON.parse(readFileSync(bundled, 'utf8')) as { info: Record<string, unknown> };
      out.set(next, { value: doc.info['x-value'] ?? null });
    }
    if (next < CONSTRUCTS.length) {
      expect(run.status, `Redocly stopped without a refusal: ${run.stderr}`).not.toBe(0);
      out.set(next++, { refused: true });
    }
  }
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vapc-yaml-semantics-'));
  mkdirSync(join(dir, 'specs'));
  CONSTRUCTS.forEach((c, i) => writeFileSync(file(i), documentOf(c)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the spec means the same to vapc and to the bundle, construct by construct', () => {
  it('each construct is refused by vapc or read exactly as Redocly bundles it', { timeout: 180_000 }, async () => {
    const bundled = await redoclyBundles();
    const rows: string[] = [];
    for (const [i, c] of CONSTRUCTS.entries()) {
      const mine = await vapcReads(i);
      const theirs = bundled.get(i)!;
      if (mine.refused !== undefined) {
        expect(mine.refused, c.name).toMatch(/ at line \d+/);
        continue;
      }
      // Accepted: Redocly must read the same (a construct Redocly refuses, vapc must refuse too).
      if (theirs.refused || JSON.stringify(theirs.value) !== JSON.stringify(mine.value))
        rows.push(
          `${c.name}: vapc ${JSON.stringify(mine.value)}, Redocly ${JSON.stringify(theirs.value ?? 'refused')}`,
        );
    }
    expect(rows).toEqual([]);
  });

  it('the constructs the parsers really read differently are among those refused', async () => {
    for (const [i, c] of CONSTRUCTS.entries()) {
      if (c.disagree) expect((await vapcReads(i)).refused, c.name).toBeDefined();
      if (ACCEPTED_BY_BOTH.has(c.name)) expect((await vapcReads(i)).refused, c.name).toBeUndefined();
    }
  });
});

describe('attack 1: <<: {maximum: 5} in place of maximum: 200', () => {
  const spec = (limit: string) =>
    `openapi: 3.1.0\ninfo: {title: t, version: 1.0.0}\npaths:\n  /campaign:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema:\n              type: object\n              properties:\n                max_concurrency:\n                  type: integer\n                  minimum: 1\n${limit}\n      responses:\n        '200': {description: ok}\n`;
  let base: string;
  let head: string;
  beforeAll(() => {
    mkdirSync(join(dir, 'attack'), { recursive: true });
    base = join(dir, 'attack', 'base.yaml');
    head = join(dir, 'attack', 'head.yaml');
    writeFileSync(base, spec('                  maximum: 200'));
    writeFileSync(head, spec('                  <<: {maximum: 5}'));
  });

  async function vapc(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: {}, isTTY: false };
    return { code: await main(argv, io), stdout, stderr };
  }

  it('vapc diff refuses the head (exit 2, the line named), instead of a warning and exit 0', async () => {
    const r = await vapc(['diff', base, head]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/head\.yaml.*refused at line 15: a merge key \(<<\)/);
    expect(r.stdout).toBe('');
  });

  it('vapc lint refuses it before Redocly reads it', async () => {
    const r = await vapc(['lint', '--spec', head]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refused at line 15: a merge key/);
  });
});
